#!/usr/bin/env bash
# examples_pagerank.sh — examples/pagerank.so against an independent Python implementation of
# Spark's SparkPageRank.
#
# Graphs (bench/gen_graph): a skewed random graph with duplicate edges, self-loops, a comment
# line and blank lines (pages drop out and dangling pages leak rank), and a "closed" graph where
# every page has in- and out-links. Checks: the same set of pages as the reference, each rank
# within 1e-6 relative of the reference (plus the 5e-7 of "%.6f" printing), the documented sum
# (0.15 * pages + 0.85 * previous ranks of pages with out-links; exactly the page count on the
# closed graph), and identical output for local[1], local[2], local[3].
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/pagerank.so
need "$APP" "$BIN/gen_graph"

"$BIN/gen_graph" -s 9 2000 20000 >"$T/random.txt" || fail "gen_graph failed"
"$BIN/gen_graph" -s 10 -c 500 3000 >"$T/closed.txt" || fail "gen_graph failed"

# check.py EDGES ITERS GOT_LINES CLOSED: compares the job's "page\trank" lines with the reference.
cat >"$T/check.py" <<'PYEOF'
import sys
edges_path, iters, got_path, closed = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"

# SparkPageRank, written independently: links = distinct edges grouped by source; ranks start at
# 1.0 for every source; per iteration each page sends rank/outdegree to each of its links, and
# the new ranks (pages that received something) are 0.15 + 0.85 * sum.
links = {}
for line in open(edges_path, encoding="utf-8"):
    parts = line.split()
    if not parts or parts[0].startswith("#") or len(parts) < 2:
        continue
    links.setdefault(parts[0], set()).add(parts[1])
ranks = {p: 1.0 for p in links}
prev = ranks
for _ in range(iters):
    contribs = {}
    for p, r in ranks.items():
        urls = links.get(p)
        if not urls:
            continue
        share = r / len(urls)
        for u in urls:
            contribs[u] = contribs.get(u, 0.0) + share
    prev, ranks = ranks, {u: 0.15 + 0.85 * s for u, s in contribs.items()}

got = {}
for line in open(got_path, encoding="utf-8"):
    page, _, rank = line.rstrip("\n").partition("\t")
    if page in got:
        sys.exit("page %r appears twice" % page)
    got[page] = float(rank)

def fail(msg):
    sys.exit("pagerank check: " + msg)

if set(got) != set(ranks):
    fail("pages differ: %d extra, %d missing (e.g. %r)" % (len(set(got) - set(ranks)),
         len(set(ranks) - set(got)), sorted(set(got) ^ set(ranks))[:3]))
for p, want in ranks.items():
    if abs(got[p] - want) > 1e-6 * abs(want) + 5.000001e-7:
        fail("rank of %s: got %.9f, expected %.9f" % (p, got[p], want))
n = len(ranks)
if iters > 0:
    expected_sum = 0.15 * n + 0.85 * sum(r for p, r in prev.items() if links.get(p))
else:
    expected_sum = float(n)
ref_sum, got_sum = sum(ranks.values()), sum(got.values())
if abs(ref_sum - expected_sum) > 1e-9 * max(1.0, expected_sum):
    fail("reference sum %.9f != documented %.9f" % (ref_sum, expected_sum))
if abs(got_sum - expected_sum) > 1e-6 * expected_sum + n * 5.000001e-7:
    fail("sum of ranks %.9f, expected %.9f" % (got_sum, expected_sum))
if closed and abs(got_sum - n) > 1e-6 * n + n * 5.000001e-7:
    fail("closed graph: sum of ranks %.9f != %d pages" % (got_sum, n))
print("%d pages, sum %.6f" % (n, got_sum))
PYEOF

# check EDGES ITERS OUTDIR CLOSED
check() {
    cat_parts "$3" >"$T/lines.txt"
    "$PY" "$T/check.py" "$1" "$2" "$T/lines.txt" "$4" >"$T/check.out" 2>&1 ||
        fail "$(basename "$1") x$2 ($3): $(tail -n 3 "$T/check.out")"
}

for n in 1 2 3; do
    submit_ok "local[$n]" "$APP" "$T/random.txt" 10 "$T/out$n"
    check "$T/random.txt" 10 "$T/out$n" 0
    sort "$T/lines.txt" >"$T/sorted$n.txt"
done
assert_files_eq "$T/sorted1.txt" "$T/sorted2.txt" "ranks local[1] vs local[2]"
assert_files_eq "$T/sorted1.txt" "$T/sorted3.txt" "ranks local[1] vs local[3]"
log "random graph: $(cat "$T/check.out")"

submit_ok "local[2]" "$APP" "$T/closed.txt" 10 "$T/closed-out"
check "$T/closed.txt" 10 "$T/closed-out" 1
log "closed graph: $(cat "$T/check.out")"

submit_ok "local[2]" "$APP" "$T/random.txt" 1 "$T/one-out"
check "$T/random.txt" 1 "$T/one-out" 0

rc=0
run_submit "local[1]" "$APP" "$T/random.txt" many "$T/bad-out" || rc=$?
[ $rc -ne 0 ] || fail "pagerank.so with ITERATIONS=many exited 0"
assert_contains "$T/stderr" "usage: pagerank.so" "usage message"
log "ok"
