"""spark_write.py — the Spark side of tests/spark/parquet_spark_read.sh: Apache Spark 4 writes one
DataFrame of every Spark type (nulls, NaN, extremes, nested arrays, maps and structs in each other)
as Parquet in several writer configurations, one folder each under OUT, with the schema Spark
knows in OUT/<variant>/schema.txt (simpleString). Run with spark-submit.

    spark_write.py OUT
"""
import sys

from pyspark.sql import SparkSession

out = sys.argv[1]
spark = (SparkSession.builder.appName("parquet_spark_write")
         .config("spark.sql.session.timeZone", "UTC").getOrCreate())
df = spark.range(0, 6000).selectExpr(
    "cast(id as int) as id",
    "case when id % 7 = 3 then null else id % 2 = 0 end as b",
    "case when id % 7 = 3 then null else cast(id % 256 - 128 as tinyint) end as i8",
    "cast(id * 37 % 65536 - 32768 as smallint) as i16",
    "case when id % 5 = 1 then null else id * 1000003 * (case when id % 2 = 0 then 1 else -1 end) end as i64",
    "cast(id / 3.0 as float) as f32",
    "case when id % 50 = 1 then cast('NaN' as double) when id % 60 = 2 then cast('-Infinity' as double) else -id / 7.0 end as f64",
    "case when id % 11 = 0 then null else concat('str-', id % 97, '-é') end as s",
    "case when id % 13 = 0 then null else cast(concat('b', id) as binary) end as bin",
    "cast((id * 13 - 9000) / 100 as decimal(9,2)) as d9",
    "case when id % 4 = 0 then null else cast(id * 1000000007 / 10000 as decimal(18,4)) end as d18",
    "cast(cast(id as decimal(20,0)) * 100000000000000007 * (case when id % 2 = 0 then 1 else -1 end) as decimal(38,5)) as d38",
    "date_add(date'1969-12-01', cast(id * 7 as int)) as dt",
    "case when id % 6 = 5 then null else timestamp_micros(1709210096789000 - id * 987654321) end as ts",
    "cast(timestamp_micros(1709210096789000 + id * 1234567) as timestamp_ntz) as tsntz",
    "case when id % 9 = 0 then null else sequence(0, cast(id % 5 as int)) end as arr",
    "case when id % 10 = 0 then null else map('a', id, 'b', case when id % 3 = 0 then null else id * 2 end) end as m",
    "case when id % 8 = 0 then null else named_struct('x', case when id % 3 = 0 then null else cast(id as int) end,"
    " 'y', array(concat('y', id), null), 'z', named_struct('q', id % 4)) end as st",
    "case when id % 6 = 0 then null else array(named_struct('a', id, 'b', cast(null as string)), null) end as arrst",
    "map(cast(id % 4 as int), array(id, null)) as mlist",
    "array(array(1, 2), null, cast(array() as array<int>)) as aa",
)
variants = {
    # Spark's defaults: snappy, INT96 timestamps, dictionary, data pages v1
    "default": {},
    "micros_gzip": {"compression": "gzip", "ts": "TIMESTAMP_MICROS"},
    "millis_zstd": {"compression": "zstd", "ts": "TIMESTAMP_MILLIS"},
    "legacy_uncompressed": {"compression": "none", "legacy": True},
    "lz4raw_nodict": {"compression": "lz4_raw", "parquet.enable.dictionary": "false"},
    "v2_dict": {"parquet.writer.version": "PARQUET_2_0", "ts": "TIMESTAMP_MICROS"},
    "v2_nodict": {"parquet.writer.version": "PARQUET_2_0", "parquet.enable.dictionary": "false"},
}
for name, opts in variants.items():
    spark.conf.set("spark.sql.parquet.outputTimestampType", opts.get("ts", "INT96"))
    spark.conf.set("spark.sql.parquet.writeLegacyFormat", "true" if opts.get("legacy") else "false")
    w = df.coalesce(1).write.mode("overwrite").option("compression", opts.get("compression", "snappy"))
    w = w.option("parquet.block.size", 96 * 1024).option("parquet.page.size", 8192)
    for k, v in opts.items():
        if k.startswith("parquet."):
            w = w.option(k, v)
    w.parquet(f"{out}/{name}")
    with open(f"{out}/{name}/schema.txt", "w") as f:
        f.write(df.schema.simpleString() + "\n")
    print("written:", name)
spark.stop()
