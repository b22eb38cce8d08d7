#!/usr/bin/env bash
# bucketed_write.sh — cspark's bucketed tables put every row in the bucket Apache Spark 4 puts
# it in (src/session/bucket_write.c, src/datasource/ds_task.c). The same statements
# (tests/spark/bucketed_write/tables.sql: CREATE TABLE ... CLUSTERED BY ... [SORTED BY] INTO n
# BUCKETS AS SELECT over columns of every hashed type, with and without PARTITIONED BY, and an
# INSERT into a declared bucketed table) run on Spark 4 (run_sql.py) and on cspark-sql, each
# writing its own folders; compare.py reads both with pyarrow and checks that each row is in the
# same partition folder and bucket (the file name's _NNNNN suffix), and each file sorted by the
# table's sort columns. Installs the pinned Spark and pyarrow (scripts/install-spark.sh,
# install-pytools.sh; exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
need "$BIN/cspark-sql"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
PA=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
D=$SRC/tests/spark/bucketed_write
mkdir -p "$T/spark" "$T/cspark" "$T/wh-spark" "$T/wh-cspark"
(cd "$T/wh-spark" && TZ=UTC timeout 900 "$SPARK_HOME/bin/spark-submit" --master 'local[2]' \
    --driver-java-options -Duser.timezone=UTC --conf spark.sql.session.timeZone=UTC \
    "$D/run_sql.py" "$D/tables.sql" "$T/spark") >"$T/spark.out" 2>"$T/spark.err" ||
    { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
sed "s|\${OUT}|$T/cspark|g" "$D/tables.sql" >"$T/cspark.sql"
(cd "$T/wh-cspark" && TZ=UTC "$BIN/cspark-sql" --master 'local[2]' \
    --conf spark.sql.session.timeZone=UTC -f "$T/cspark.sql") >"$T/cspark.out" 2>"$T/cspark.err" ||
    { tail -20 "$T/cspark.err" >&2; fail "cspark-sql's run failed"; }
"$PA" "$D/compare.py" "$T/spark" "$T/cspark" b_long=v b_str=n b_part=s b_ins=c ||
    fail "cspark's buckets differ from Spark's (see above)"
echo "PASS: $TEST_NAME (7 bucketed tables: every row in Spark's bucket, files sorted)"
