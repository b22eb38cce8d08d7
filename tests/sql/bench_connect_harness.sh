#!/usr/bin/env bash
# bench_connect_harness.sh — a smoke run of the SQL benchmark's harness (bench/sql/tpch_bench.py)
# through the PySpark Connect client against cspark-connect-server, on the TPC-H scale 0.1 tables
# of scripts/sql-testdata.sh, two queries: (1) cspark-connect alone, a process per query, no
# golden (the check took its reference from spark or cspark only and crashed without them): every
# run records the client's getOrCreate-to-first-result time and the Markdown has its table;
# (2) cspark-sql per query with cspark-connect only as one process for both queries
# (--all-only cspark-connect), judged against Spark's recorded answers: the one-process run's
# per-query times and rows stand in its table. Times are not judged. Usage: BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SERVER=$BIN/cspark-connect-server
if [ ! -x "$SERVER" ]; then
    echo "SKIP: $SERVER was not built (cmake found no Spark Connect .proto files)"
    exit 77
fi
need "$BIN/cspark-sql"
CLIENT=$("$SRC/scripts/install-pyspark-client.sh") || {
    echo "SKIP: the pinned PySpark client cannot be installed"
    exit 77
}
DATA=$BUILD/sql-data
if ! "$SRC/scripts/sql-testdata.sh" "$DATA" tpch >/dev/null; then
    echo "SKIP: the TPC-H data cannot be made (scripts/sql-testdata.sh)"
    exit 77
fi
bench() {
    timeout 600 "$CLIENT" "$SRC/bench/sql/tpch_bench.py" --data "$DATA/tpch-sf0.1" --scale 0.1 \
        --queries-list 1,6 --cspark-sql "$BIN/cspark-sql" --cspark-connect-server "$SERVER" \
        --python "$CLIENT" --no-plot "$@"
}
rc=0
bench --engines cspark-connect --no-all --work "$T/one" --out-md "$T/one.md" 2>"$T/one.err" || rc=$?
[ $rc -eq 0 ] || fail "cspark-connect alone: tpch_bench.py exited with $rc: $(tail -n 5 "$T/one.err")"
"$CLIENT" - "$T/one.json" <<'PY' || fail "cspark-connect alone: the record is incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
for n in ("q01", "q06"):
    c = r["queries"][n]["cspark-connect"]
    assert c["rc"] == 0 and c["check"] == "reference", (n, c.get("check"), c.get("error"))
    assert c["job_s"] > 0 and 0 < c["first_result_s"] < 60, (n, c)
PY
grep -q '^## Connect: from `getOrCreate()` to the first result' "$T/one.md" ||
    fail "no first-result section in the Markdown"
grep -q '^| cspark Connect | 2 | ' "$T/one.md" || fail "no first-result row of 2 samples"

rc=0
bench --engines cspark,cspark-connect --all-only cspark-connect --work "$T/two" \
    --out-md "$T/two.md" --golden "$SRC/tests/sql/golden/tpch-sf0.1" 2>"$T/two.err" || rc=$?
[ $rc -eq 0 ] || fail "--all-only cspark-connect: tpch_bench.py exited with $rc: $(tail -n 5 "$T/two.err")"
"$CLIENT" - "$T/two.json" <<'PY' || fail "--all-only cspark-connect: the record is incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
for n in ("q01", "q06"):
    c = r["queries"][n]["cspark-connect"]
    assert "from_all" in c and c["job_s"] > 0 and c["check"] == "same", (n, c)
    assert r["queries"][n]["cspark"]["check"] == "same", (n, r["queries"][n]["cspark"])
assert r["all"]["cspark-connect"]["partial_jobs"] == [r["queries"][n]["cspark-connect"]["job_s"]
                                                       for n in ("q01", "q06")]
PY
grep -q 'All engines returned the same rows' "$T/two.md" || fail "the check: $(grep -A3 differ "$T/two.md")"
echo "PASS: $TEST_NAME"
