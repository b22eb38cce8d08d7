#!/usr/bin/env bash
# tpch_sf01.sh — cspark-sql against Spark 4's answers to the 22 TPC-H queries at scale 0.1
# (tests/sql/golden/tpch-sf0.1/): the tables of scripts/sql-testdata.sh (tpchgen-cli's Parquet
# files) registered as temporary views by an -i file, each tests/sql/tpch/qNN.sql run with
# `--output-format golden -f` on local[2] with Spark's default settings, judged by
# known_judge.py against tpch_sf01.known (`qNN:1 reason` for the queries that differ; a listed
# query that matches fails the test too). Usage: tpch_sf01.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
HERE=$SRC/tests/sql
. "$(dirname "$0")/lib/tpch.sh"
tpch_views
mkdir -p "$T/out"
for sql in "$HERE"/tpch/q*.sql; do
    name=$(basename "$sql" .sql)
    rc=0
    TZ=UTC timeout 600 "$SQL" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC -i "$T/views.sql" --output-format golden \
        -f "$sql" >"$T/out/$name.out" 2>"$T/$name.err" || rc=$?
    if [ $rc -ne 0 ]; then
        log "cspark-sql -f $name.sql exited with $rc; last lines of its stderr:"
        tail -n 5 "$T/$name.err" >&2
    fi
done
[ -z "${CSPARK_SQL_RESULTS:-}" ] || cp "$T"/out/*.out "$CSPARK_SQL_RESULTS"/
$PY "$HERE/known_judge.py" "$HERE/golden/tpch-sf0.1" "$T/out" "$HERE/tpch_sf01.known" ||
    fail "queries differ from Spark's answers and are not on tests/sql/tpch_sf01.known"
echo "PASS: $TEST_NAME"
