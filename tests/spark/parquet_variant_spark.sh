#!/usr/bin/env bash
# parquet_variant_spark.sh — VARIANT columns in Parquet between cspark and Apache Spark 4: the same
# table of variants (tests/spark/parquet_variant_spark/write.sql: every kind of variant value, at
# the top level, in an array, a struct, a map and an array of arrays, with SQL NULLs) is written by cspark-sql and by
# Spark (run_sql.py), then each engine reads both engines' files (read.sql: to_json,
# schema_of_variant, variant_get per row) and the four readings must be the same text: Spark
# reads cspark's variant files as its own and cspark reads Spark's. Installs the pinned Spark
# (scripts/install-spark.sh; exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
D=$SRC/tests/spark/parquet_variant_spark
mkdir -p "$T/wh-spark" "$T/wh-cspark"
cspark_sql() { # FILE OUT IN RESULT
    sed "s|\${OUT}|$2|g; s|\${IN}|$3|g" "$1" >"$T/run.sql"
    (cd "$T/wh-cspark" && TZ=UTC "$SQL" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC -f "$T/run.sql") >"$T/cspark.out" 2>"$T/cspark.err" ||
        { tail -5 "$T/cspark.err" >&2; fail "cspark-sql failed on $(basename "$1") ($3)"; }
    grep -v '^Time taken' "$T/cspark.out" >"$4" || true
}
cspark_sql "$D/write.sql" "$T/cspark-files" "" /dev/null
(cd "$T/wh-spark" && LC_ALL=C.UTF-8 TZ=UTC timeout 900 "$SPARK_HOME/bin/spark-submit" --master 'local[2]' \
    --driver-java-options -Duser.timezone=UTC --conf spark.sql.session.timeZone=UTC \
    "$D/run_sql.py" "$D/write.sql" "$T/spark-files" "" /dev/null \
    "$D/read.sql" "" "$T/spark-files" "$T/spark_reads_spark.txt" \
    "$D/read.sql" "" "$T/cspark-files" "$T/spark_reads_cspark.txt") \
    >"$T/spark.out" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
cspark_sql "$D/read.sql" "" "$T/spark-files" "$T/cspark_reads_spark.txt"
cspark_sql "$D/read.sql" "" "$T/cspark-files" "$T/cspark_reads_cspark.txt"
rows=$(wc -l <"$T/spark_reads_spark.txt")
[ "$rows" -eq 26 ] || fail "Spark read $rows rows of its own files, not 26"
for f in spark_reads_cspark cspark_reads_spark cspark_reads_cspark; do
    diff "$T/spark_reads_spark.txt" "$T/$f.txt" >"$T/$f.diff" ||
        { head -20 "$T/$f.diff" >&2; fail "$f differs from Spark reading its own files (above)"; }
done
echo "PASS: $TEST_NAME (26 rows of variants: each engine reads the other's files as its own)"
