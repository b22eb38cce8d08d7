#!/usr/bin/env bash
# bench_harness.sh — a smoke run of the SQL benchmark's harness (bench/sql/tpch_bench.py) on the
# TPC-H scale 0.1 tables of scripts/sql-testdata.sh, cspark only, five of the queries (an
# aggregate, joins, a filter, an outer join, a subquery; tests/sql/tpch_sf01.sh judges all 22),
# judged against Spark's recorded answers (tests/sql/golden/tpch-sf0.1): every query runs in its
# own cspark-sql process and once more all in one, each run gives a whole-process time, a job-only time (cspark-sql's "Time
# taken" lines), a peak RSS, and the check finds cspark's rows the same as Spark's; the Markdown
# table names every query. Then two queries on cspark and cspark-spill (cspark-sql again on
# local-cluster[2,1,1024], the scale-10 run's second configuration), both judged the same. Times
# are not judged. Usage: bench_harness.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
DATA=$BUILD/sql-data
if ! "$SRC/scripts/sql-testdata.sh" "$DATA" tpch >/dev/null; then
    echo "SKIP: the TPC-H data cannot be made (scripts/sql-testdata.sh)"
    exit 77
fi
rc=0
timeout 600 $PY "$SRC/bench/sql/tpch_bench.py" --data "$DATA/tpch-sf0.1" --scale 0.1 \
    --engines cspark --queries-list 1,3,6,13,18 --cspark-sql "$SQL" --work "$T/work" --out-md "$T/sql.md" --no-plot \
    --golden "$SRC/tests/sql/golden/tpch-sf0.1" 2>"$T/err" || rc=$?
[ $rc -eq 0 ] || fail "tpch_bench.py exited with $rc: $(tail -n 5 "$T/err")"
$PY - "$T/sql.json" <<'PY' || fail "the harness's record is incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
names = ["q01", "q03", "q06", "q13", "q18"]
assert r["names"] == names, r["names"]
for n in names:
    c = r["queries"][n]["cspark"]
    assert c["rc"] == 0 and c["check"] == "same", (n, c.get("check"), c.get("error"))
    assert c["whole_s"] > 0 and c["job_s"] > 0 and c["job_s"] <= c["whole_s"], (n, c)
    assert c["rss_mb"] > 1, (n, c["rss_mb"])
a = r["all"]["cspark"]
assert a["rc"] == 0 and len(a["jobs"]) == 5, a
PY
for n in 01 03 06 13 18; do
    grep -q "^| q$n | " "$T/sql.md" || fail "no row for q$n in the table"
done
grep -q '^| \*\*total\*\* | ' "$T/sql.md" || fail "no total row"
grep -q 'All engines returned the same rows' "$T/sql.md" || fail "the check: $(grep -A3 differ "$T/sql.md")"

# the engine cspark-spill: cspark-sql a second time under its own master and settings (default
# local-cluster[2,1,1024] with 1 GiB executors), its rows judged like any engine's
rc=0
timeout 600 $PY "$SRC/bench/sql/tpch_bench.py" --data "$DATA/tpch-sf0.1" --scale 0.1 \
    --engines cspark,cspark-spill --queries-list 3,6 --cspark-sql "$SQL" --work "$T/work2" \
    --out-md "$T/spill.md" --no-plot --no-all --golden "$SRC/tests/sql/golden/tpch-sf0.1" \
    2>"$T/err2" || rc=$?
[ $rc -eq 0 ] || fail "tpch_bench.py with cspark-spill exited with $rc: $(tail -n 5 "$T/err2")"
$PY - "$T/spill.json" <<'PY' || fail "the cspark-spill record"
import json, sys
r = json.load(open(sys.argv[1]))
for n in ("q03", "q06"):
    for e in ("cspark", "cspark-spill"):
        c = r["queries"][n][e]
        assert c["rc"] == 0 and c["check"] == "same", (n, e, c.get("check"), c.get("error"))
assert "--master 'local-cluster[2,1,1024]' " in r["commands"]["cspark-spill"], r["commands"]
assert "spark.executor.memory=1024m" in r["commands"]["cspark-spill"], r["commands"]
assert "--master 'local[2]' " in r["commands"]["cspark"], r["commands"]
PY
grep -q '^| query | cspark whole | cspark job | cspark (spill) whole |' "$T/spill.md" ||
    fail "the table's header: $(grep '^| query' "$T/spill.md")"
echo "PASS: $TEST_NAME"
