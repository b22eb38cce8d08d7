#!/usr/bin/env bash
# bench_clickbench.sh — a small run of the SQL benchmark's ClickBench set (bench/sql/clickbench/,
# bench/sql/tpch_bench.py --suite clickbench): hits_gen.py writes the same Parquet bytes twice
# for the same seed (deterministic) with ClickBench's 105 columns; cspark-sql and DuckDB run all
# 43 queries over 30,000 generated rows and the harness finds them agreeing; cspark's Connect
# server through the PySpark client (peer_run.py starts and stops it) agrees on four; the check's
# rules (ties of a top-k at the window's edges, timestamps written two ways, exact integers)
# judge made-up answers as they should. Times are not judged. Uses the python3 of
# scripts/install-benchtools.sh (numpy, pyarrow, DuckDB; installed once into a cache dir).
# Usage: bench_clickbench.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
if ! BPY=$("$SRC/scripts/install-benchtools.sh" 2>"$T/install.err"); then
    echo "SKIP: the benchmark's python tools cannot be installed: $(tail -n 1 "$T/install.err")"
    exit 77
fi
GEN=$SRC/bench/sql/clickbench/hits_gen.py
mkdir -p "$T/data" "$T/again"
timeout 600 "$BPY" "$GEN" --rows 30000 --row-group 10000 --out "$T/data/hits.parquet" 2>"$T/gen.err" ||
    fail "hits_gen.py failed: $(tail -n 3 "$T/gen.err")"
timeout 600 "$BPY" "$GEN" --rows 30000 --row-group 10000 --out "$T/again/hits.parquet" 2>>"$T/gen.err" ||
    fail "hits_gen.py failed the second time: $(tail -n 3 "$T/gen.err")"
cmp -s "$T/data/hits.parquet" "$T/again/hits.parquet" || fail "hits_gen.py wrote different files for the same seed"
[ ! -e "$T/data/hits.parquet.tmp" ] || fail "hits_gen.py left its temporary file"
"$BPY" - "$T/data/hits.parquet" <<'PY' || fail "the generated table's shape"
import sys
import pyarrow.parquet as pq
f = pq.ParquetFile(sys.argv[1])
assert f.metadata.num_rows == 30000 and f.metadata.num_row_groups == 3, f.metadata
names = f.schema_arrow.names
assert len(names) == 105 and names[0] == "WatchID" and names[-1] == "CLID", names
t = f.read(columns=["CounterID", "SearchPhrase", "EventDate"])
assert t.column("CounterID").to_pylist().count(62) > 1000  # the counter Q36-Q42 filter on
assert t.column("SearchPhrase").to_pylist().count("") > 15000  # mostly empty
dates = t.column("EventDate").to_pylist()
assert str(min(dates)) == "2013-07-01" and str(max(dates)) == "2013-07-31", (min(dates), max(dates))
PY

rc=0
timeout 900 "$BPY" "$SRC/bench/sql/tpch_bench.py" --suite clickbench --rows 30000 --data "$T/data" \
    --engines cspark,duckdb --cspark-sql "$SQL" --python "$BPY" --work "$T/work" \
    --out-md "$T/cb.md" --no-plot --no-all --timeout 300 2>"$T/err" || rc=$?
[ $rc -eq 0 ] || fail "tpch_bench.py --suite clickbench exited with $rc: $(grep -E 'differs|failed' "$T/err" | head -n 5)"
"$BPY" - "$T/cb.json" <<'PY' || fail "the harness's record is incomplete"
import json, sys
r = json.load(open(sys.argv[1]))
names = ["q%02d" % n for n in range(1, 44)]
assert r["names"] == names and r["suite"] == "clickbench", r["names"]
for n in names:
    c, d = r["queries"][n]["cspark"], r["queries"][n]["duckdb"]
    assert c["rc"] == 0 and c["check"] == "reference", (n, c.get("check"), c.get("error"))
    assert d["rc"] == 0 and d["check"] == "same", (n, d.get("check"), d.get("error"))
    assert c["whole_s"] > 0 and c["job_s"] is not None and c["job_s"] <= c["whole_s"], (n, c)
PY
grep -q 'Generated data, not the real ClickBench data set' "$T/cb.md" || fail "the results do not say the data is generated"
grep -q '^| q43 | ' "$T/cb.md" || fail "no row for q43 in the table"

# the Connect path: cspark-connect-server started and stopped by peer_run.py, PySpark's client
CONNECT=$BIN/cspark-connect-server
need "$CONNECT"
rc=0
timeout 600 "$BPY" "$SRC/bench/sql/tpch_bench.py" --suite clickbench --rows 30000 --data "$T/data" \
    --engines cspark,cspark-connect --queries-list 1,24,29,43 --cspark-sql "$SQL" \
    --cspark-connect-server "$CONNECT" --python "$BPY" --work "$T/work-connect" \
    --out-md "$T/cbc.md" --no-plot --no-all --timeout 300 2>"$T/err-connect" || rc=$?
[ $rc -eq 0 ] || fail "the cspark-connect run exited with $rc: $(grep -E 'differs|failed' "$T/err-connect" | head -n 5)"
grep -q 'All engines returned the same rows for all 4 queries' "$T/cbc.md" || fail "cspark Connect: $(grep -A3 differ "$T/cbc.md")"
for log in "$T"/work-connect/*.server.log; do
    grep -q 'Spark Connect server started at' "$log" || fail "no server start in $log"
done

"$BPY" - "$SRC/bench/sql" <<'PY' || fail "the ClickBench check's rules"
import sys
sys.path.insert(0, sys.argv[1])
from tpch_bench import clickbench_same
top = ("rank", [1], True, False)  # ORDER BY column 2 DESC LIMIT n
with_offset = ("rank", [1], True, True)
ref = [["a", "5"], ["b", "4"], ["c", "4"], ["d", "2"], ["e", "1"]]
# rows of a tie inside the window in another order: the same
assert clickbench_same(ref, [["a", "5"], ["c", "4"], ["b", "4"], ["d", "2"], ["e", "1"]], top) is None
# another row of the last key (a tie at the LIMIT may be cut anywhere): the same
assert clickbench_same(ref, [["a", "5"], ["b", "4"], ["c", "4"], ["d", "2"], ["z", "1"]], top) is None
# another row of a key inside the window: differs
assert clickbench_same(ref, [["a", "5"], ["b", "4"], ["c", "4"], ["z", "2"], ["e", "1"]], top)
# another row of the first key: differs with LIMIT only, the same with OFFSET
assert clickbench_same(ref, [["z", "5"], ["b", "4"], ["c", "4"], ["d", "2"], ["e", "1"]], top)
assert clickbench_same(ref, [["z", "5"], ["b", "4"], ["c", "4"], ["d", "2"], ["e", "1"]],
                       with_offset) is None
# order keys out of order: differs
assert clickbench_same(ref, [["a", "5"], ["d", "2"], ["b", "4"], ["c", "4"], ["e", "1"]], top)
# values: timestamps written two ways, exact integers, doubles within 1e-9 relative
multiset = ("multiset", [], False, False)
assert clickbench_same([["2013-07-01 00:00:05"]], [["2013-07-01T00:00:05+00:00"]], multiset) is None
assert clickbench_same([["435090932899640449"]], [["435090932899640448"]], multiset)
assert clickbench_same([["1.2345678901234E17"]], [["123456789012340001.5"]], multiset) is None
assert clickbench_same([["1.5"]], [["1.50001"]], multiset)
# count: any rows, the same number of rows and columns
assert clickbench_same([["a"], ["b"]], [["x"], ["y"]], ("count", [], True, False)) is None
assert clickbench_same([["a"], ["b"]], [["x"]], ("count", [], True, False))
PY
echo "PASS: $TEST_NAME"
