#!/usr/bin/env bash
# range_sort.sh — a global ORDER BY is sorted partition by partition after an Exchange
# rangepartitioning, as Spark's: over a few hundred thousand rows (numbers, strings, nulls first
# and last, ascending and descending, ties), with spark.sql.shuffle.partitions=4 on local[2] and
# on local-cluster[2,1,1024], cspark-sql prints the rows in full order and exactly as a run with
# one shuffle partition does; the event log shows the sort's stage running 4 tasks after a
# sampling job, and EXPLAIN shows the range exchange. Usage: range_sort.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

cat >"$T/q.sql" <<'EOF'
SELECT (id * 7919) % 10007 AS k, id FROM range(0, 300000, 1, 3) ORDER BY k, id;
SELECT CASE WHEN id % 7 = 0 THEN NULL ELSE (id * 31) % 1000 END AS k, id
  FROM range(0, 200000, 1, 3) ORDER BY k DESC NULLS FIRST, id;
SELECT CASE WHEN id % 5 = 0 THEN NULL ELSE concat('s', CAST((id * 13) % 5000 AS STRING)) END AS s,
  id FROM range(0, 200000) ORDER BY s ASC NULLS LAST, id DESC;
SELECT id % 100 AS k FROM range(0, 300000, 1, 4) ORDER BY k DESC;
EOF

# run NAME MASTER PARTITIONS [CONF...]: the rows of q.sql in $T/NAME.out
run() {
    local name=$1 master=$2 parts=$3 rc=0
    shift 3
    timeout 600 "$SQL" -S --master "$master" --conf spark.ui.enabled=false \
        --conf spark.sql.shuffle.partitions="$parts" --conf spark.sql.adaptive.enabled=false \
        "$@" -f "$T/q.sql" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    [ $rc -eq 0 ] || fail "$name: cspark-sql exited with $rc: $(tail -n 5 "$T/$name.err")"
}

mkdir -p "$T/events"
run one 'local[2]' 1
run four 'local[2]' 4 --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=$T/events" \
    --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false
run cluster 'local-cluster[2,1,1024]' 4

assert_eq "$(wc -l <"$T/one.out")" 1000000 "rows of the four queries"
assert_files_eq "$T/four.out" "$T/one.out" "local[2] with 4 shuffle partitions against 1"
assert_files_eq "$T/cluster.out" "$T/one.out" "local-cluster with 4 shuffle partitions against 1"

# the order itself, query by query (each query's rows follow the previous one's)
$PY - "$T/four.out" <<'PY' || fail "rows out of order"
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
q1, q2, q3, q4 = rows[:300000], rows[300000:500000], rows[500000:700000], rows[700000:]
def num(v):
    return None if v == "NULL" else int(v)
k1 = [(num(a), num(b)) for a, b in q1]
assert k1 == sorted(k1), "query 1"
# k DESC NULLS FIRST, id ASC
k2 = [(num(a), num(b)) for a, b in q2]
assert k2 == sorted(k2, key=lambda r: (r[0] is not None, -(r[0] or 0), r[1])), "query 2"
# s ASC NULLS LAST, id DESC
k3 = [(None if a == "NULL" else a, num(b)) for a, b in q3]
assert k3 == sorted(k3, key=lambda r: (r[0] is None, r[0] or "", -r[1])), "query 3"
k4 = [num(a) for (a,) in q4]
assert k4 == sorted(k4, reverse=True) and len(k4) == 300000, "query 4"
PY

# distributed: a sampling job, then the first query's sort in 4 tasks
log=$(ls "$T"/events/* | head -1)
$PY - "$log" <<'PY' || fail "the event log does not show a distributed sort"
import json, sys
sample = 0
final = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") != "SparkListenerStageSubmitted":
        continue
    info = e["Stage Info"]
    if info["Stage Name"].startswith("sample for range exchange at SQL execution"):
        sample += 1
    if info["Stage Name"] == "collect at SQL execution 0":
        final.append(info["Number of Tasks"])
assert sample == 4, "sampling stages: %d" % sample
assert final == [4], "the first query's sort stage's tasks: %s" % final
PY

# EXPLAIN: the exchange is a range partitioning by the sort's order
timeout 120 "$SQL" -S --master 'local[2]' --conf spark.ui.enabled=false \
    --conf spark.sql.shuffle.partitions=4 \
    -e "EXPLAIN SELECT id FROM range(10) ORDER BY id DESC" >"$T/explain" 2>"$T/explain.err" ||
    fail "EXPLAIN failed: $(cat "$T/explain.err")"
assert_contains "$T/explain" "+- Exchange rangepartitioning(id DESC NULLS LAST, 4), ENSURE_REQUIREMENTS"
echo "PASS: $TEST_NAME"
