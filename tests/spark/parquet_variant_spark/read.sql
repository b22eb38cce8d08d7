-- read.sql — what tests/spark/parquet_variant_spark.sh reads from the Parquet variant files at
-- ${IN} (written by Spark 4 or by cspark): one line per row, the values through to_json and
-- schema_of_variant, so that the four readings (each engine reading each engine's files) compare
-- as text.
SELECT concat_ws(' | ', CAST(id AS STRING), coalesce(to_json(v), 'NULL'), coalesce(schema_of_variant(v), 'NULL'), coalesce(to_json(av), 'NULL'), to_json(sv), to_json(mv), to_json(aav), coalesce(to_json(sv.s), 'NULL'), coalesce(CAST(variant_get(v, '$.b', 'int') AS STRING), '-'), coalesce(variant_get(av[0], '$.a[1]', 'string'), '-')) FROM parquet.`${IN}` ORDER BY id;
