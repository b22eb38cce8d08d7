#!/usr/bin/env bash
# bench_rdd.sh — a small run of the SQL benchmark's RDD set (bench/sql/rdd/, tpch_bench.py --suite
# rdd): rdd/data.sh makes the four tables from gen_text and gen_records (600 kB of text, 20,000
# records) once and keeps them on a second call; their shapes match the generators' files;
# cspark-sql, DuckDB and DataFusion run the word count, join and sort queries (the latter two in
# their own dialect for q01) and the harness finds them agreeing; cspark's rows equal answers
# computed here in Python from the generators' files (words split on ASCII whitespace as
# wordcount.c splits them, join.c's m x n pairs, the records sorted by key and id); the exact
# check tells apart rows that a tolerant one would not. Times are not judged. Uses the python3 of
# scripts/install-benchtools.sh (pyarrow, DuckDB, DataFusion; installed once into a cache dir).
# Usage: bench_rdd.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/gen_text" "$BIN/gen_records"
if ! BPY=$("$SRC/scripts/install-benchtools.sh" 2>"$T/install.err"); then
    echo "SKIP: the benchmark's python tools cannot be installed: $(tail -n 1 "$T/install.err")"
    exit 77
fi
BYTES=600000
RECORDS=20000
export CSPARK_BENCH_DATA=$T/bench-data
DATA=$(timeout 600 "$SRC/bench/sql/rdd/data.sh" $BYTES $RECORDS "$BPY" "$BIN" 2>"$T/data.err") ||
    fail "rdd/data.sh failed: $(tail -n 3 "$T/data.err")"
[ "$DATA" = "$T/bench-data/rdd-$BYTES-$RECORDS" ] || fail "rdd/data.sh printed '$DATA'"
[ -f "$DATA/.complete" ] || fail "rdd/data.sh did not mark $DATA complete"
touch "$DATA/kept"
again=$("$SRC/bench/sql/rdd/data.sh" $BYTES $RECORDS "$BPY" "$BIN" 2>>"$T/data.err") || fail "rdd/data.sh failed the second time"
[ "$again" = "$DATA" ] && [ -e "$DATA/kept" ] || fail "rdd/data.sh made the tables again"
"$BIN/gen_text" -s 1 $BYTES >"$T/text.txt" || fail "gen_text failed"
"$BIN/gen_records" -s 2 $RECORDS >"$T/records.txt" || fail "gen_records failed"

rc=0
timeout 900 "$BPY" "$SRC/bench/sql/tpch_bench.py" --suite rdd --text-bytes $BYTES --rows $RECORDS \
    --data "$DATA" --engines cspark,duckdb,datafusion --cspark-sql "$SQL" --python "$BPY" \
    --work "$T/work" --out-md "$T/rdd.md" --no-plot --no-all --timeout 300 2>"$T/err" || rc=$?
[ $rc -eq 0 ] || fail "tpch_bench.py --suite rdd exited with $rc: $(grep -E 'differs|failed' "$T/err" | head -n 5)"
grep -q 'All engines returned the same rows for all 3 queries' "$T/rdd.md" || fail "the engines differ: $(grep -A3 differ "$T/rdd.md")"
grep -q '^| q03 sort | ' "$T/rdd.md" || fail "no row for q03 sort in the table"
grep -q 'bench/sql/rdd/dialect/duckdb/q01.sql' "$T/rdd.md" || fail "the results do not list DuckDB's q01 text"

"$BPY" - "$SRC/bench/sql" "$DATA" "$T/text.txt" "$T/records.txt" "$T/work" <<'PY' || fail "the tables or cspark's answers"
import collections, os, sys
sys.path.insert(0, sys.argv[1])
import pyarrow.parquet as pq
from tpch_bench import answer, exact_same
data, text, records, work = sys.argv[2:]
raw = open(text, "rb").read()
lines = raw.split(b"\n")[:-1]
t = pq.read_table(os.path.join(data, "lines.parquet"))
assert t.schema.names == ["value"] and t.num_rows == len(lines), (t.schema, t.num_rows, len(lines))
assert t.column("value").to_pylist()[:50] == [ln.decode() for ln in lines[:50]]
recs = open(records, "rb").read().decode().split("\n")[:-1]
r = pq.read_table(os.path.join(data, "records.parquet")).to_pylist()
assert [(x["key"], x["id"], x["filler"]) for x in r] == [(s[0:10], s[12:44], s[46:99]) for s in recs]
left = [(s[0:3], str(i)) for i, s in enumerate(recs)]
right = [(s[3:6], "r%d" % i) for i, s in enumerate(recs) if i % 4 == 0]
assert [(x["key"], x["value"]) for x in pq.read_table(os.path.join(data, "left_kv.parquet")).to_pylist()] == left
assert [(x["key"], x["value"]) for x in pq.read_table(os.path.join(data, "right_kv.parquet")).to_pylist()] == right

def got(q):
    rows, why = answer("cspark", os.path.join(work, "cspark-%s.out" % q))
    assert rows is not None, (q, why)
    return rows

# q01: every word (bytes.split(): ASCII whitespace, as wordcount.c), count descending, then word
counts = collections.Counter(w.decode() for w in raw.split())
want = [[w, str(n)] for w, n in sorted(counts.items(), key=lambda x: (-x[1], x[0].encode()))]
assert got("q01") == want, (got("q01")[:3], want[:3])
# q02: join.c's m x n pairs, summed
byk = collections.defaultdict(list)
for k, v in right:
    byk[k].append(int(v[1:]))
pairs = [(k, int(v), rv) for k, v in left for rv in byk.get(k, [])]
assert pairs, "no pairs: the join is empty at this size"
names = ["%s|%d|r%d" % p for p in pairs]
want = [[str(len(pairs)), str(len({p[0] for p in pairs})), str(sum(p[1] for p in pairs)),
         str(sum(p[2] for p in pairs)),
         str(sum((p[1] * 1000003 + p[2]) % 1000000007 for p in pairs)),
         min(names, key=str.encode), max(names, key=str.encode)]]
assert got("q02") == want, (got("q02"), want)
# q03: the records sorted by (key, id)
order = sorted(range(len(recs)), key=lambda i: (recs[i][0:10].encode(), recs[i][12:44]))
ck = sum((p + 1) * (ord(recs[i][43]) + 7 * ord(recs[i][42])) for p, i in enumerate(order))
want = [[str(len(recs)), str(ck), "0", recs[order[0]][12:44], recs[order[-1]][12:44]]]
assert got("q03") == want, (got("q03"), want)
# the exact check: numbers are text, order counts
assert exact_same([["a", "1"]], [["a", "1"]], ("ordered", [], False, False)) is None
assert exact_same([["a", "1"]], [["a", "1.0"]], ("ordered", [], False, False))
assert exact_same([["a", "1"], ["b", "2"]], [["b", "2"], ["a", "1"]], ("ordered", [], False, False))
assert exact_same([["a", "1"], ["b", "2"]], [["b", "2"], ["a", "1"]], ("multiset", [], False, False)) is None
PY
echo "PASS: $TEST_NAME"
