#!/usr/bin/env bash
# adaptive.sh — adaptive query execution (spark.sql.adaptive.enabled, on by default as in Spark 4)
# coalesces small shuffle partitions and changes no answer: queries whose shuffles are small
# (aggregates, shuffled joins, one stage reading three shuffles, a global sort, a union) give
# the same rows with it on and off, on local[2] and on local-cluster[2,1,1024] (coalesced reads
# fetch several partitions of remote map outputs), while the event log shows far fewer reduce
# tasks with it on (200 partitions become at most the default parallelism) and a REPARTITION(n)
# hint keeping its n partitions; shuffled joins whose side turns out small become broadcast
# joins (one dropping its other side's shuffle; one whose side estimated smaller runs its shuffle
# first, so that the big side is never shuffled; a filtered side counts as smaller by a guessed
# share per conjunct); EXPLAIN shows the plan under "AdaptiveSparkPlan isFinalPlan=false" as Spark's initial plan.
# Usage: adaptive.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

cat >"$T/q.sql" <<'EOF'
SELECT id % 97 AS k, count(*), sum(id), max(id) FROM range(0, 200000, 1, 4) GROUP BY id % 97 ORDER BY k;
SELECT /*+ SHUFFLE_HASH(b) */ a.k, count(*) AS n, sum(b.v) FROM
  (SELECT id % 1000 AS k FROM range(0, 50000, 1, 3)) a
  JOIN (SELECT id % 500 AS k, id AS v FROM range(0, 20000, 1, 2)) b ON a.k = b.k
  GROUP BY a.k ORDER BY n DESC, a.k LIMIT 20;
SELECT k, count(*) FROM (SELECT id % 13 AS k FROM range(1000) UNION ALL SELECT id % 7 AS k FROM range(500))
  GROUP BY k ORDER BY k;
SELECT (id * 31) % 1009 AS k, id FROM range(0, 30000, 1, 3) ORDER BY k, id;
SELECT count(*) FROM (SELECT /*+ REPARTITION(5) */ id FROM range(0, 100, 1, 2)) t;
SELECT /*+ SHUFFLE_HASH(b, c) */ count(*), sum(c.v) FROM (SELECT id % 300 AS k FROM range(3000)) a
  JOIN (SELECT id % 300 AS k FROM range(600)) b ON a.k = b.k
  JOIN (SELECT id % 300 AS k, id AS v FROM range(900)) c ON a.k = c.k;
SELECT count(*), sum(a.m), sum(b.k) FROM
  (SELECT id % 100000 AS g, max(id) AS m FROM range(0, 2000000, 1, 4) GROUP BY id % 100000) a
  JOIN (SELECT id AS k FROM range(0, 20000000, 1, 4) WHERE id % 100000 = 99999) b ON a.m = b.k;
SELECT count(*), sum(b.v) FROM (SELECT id % 1000 AS k FROM range(0, 100000, 1, 2)) a
  LEFT JOIN (SELECT id % 1000 AS k, id AS v FROM range(0, 20000000, 1, 2) WHERE id % 100000 = 7) b
  ON a.k = b.k;
SELECT count(*), sum(a.m), sum(b.v) FROM
  (SELECT id % 1000 AS k, max(id) AS m FROM range(0, 2000000, 1, 4) GROUP BY id % 1000) a
  JOIN (SELECT id % 5000 AS k, id AS v FROM range(0, 4000000, 1, 2)) b ON a.k = b.k;
SELECT count(*), sum(a.v), sum(b.w) FROM
  (SELECT id % 100000 AS k, id AS v FROM range(0, 2000000, 1, 2)) a
  JOIN (SELECT id % 100000 AS k, id AS w FROM range(0, 4000000, 1, 2)
        WHERE id % 1000 = 7 AND id > 5 AND id < 3999990) b ON a.k = b.k;
EOF

# run NAME MASTER ADAPTIVE: the rows of q.sql in $T/NAME.out, the event log in $T/NAME.events/
run() {
    local name=$1 master=$2 adaptive=$3 rc=0
    mkdir -p "$T/$name.events"
    timeout 600 "$SQL" -S --master "$master" --conf spark.ui.enabled=false \
        --conf spark.sql.adaptive.enabled="$adaptive" --conf spark.eventLog.enabled=true \
        --conf "spark.eventLog.dir=$T/$name.events" --conf spark.eventLog.compress=false \
        --conf spark.eventLog.rolling.enabled=false \
        -f "$T/q.sql" >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    [ $rc -eq 0 ] || fail "$name: cspark-sql exited with $rc: $(tail -n 5 "$T/$name.err")"
}

run off 'local[2]' false
run on 'local[2]' true
run cluster 'local-cluster[2,1,1024]' true
assert_eq "$(wc -l <"$T/off.out")" $((97 + 20 + 13 + 30000 + 1 + 1 + 1 + 1 + 1 + 1)) "rows of the queries"
assert_files_eq "$T/on.out" "$T/off.out" "rows with adaptive execution against without"
assert_files_eq "$T/cluster.out" "$T/off.out" "local-cluster rows with adaptive execution"

# tasks per stage from the event log: "<execution id> <tasks>" per stage that reads a shuffle of
# 200 partitions without adaptive execution, and the stages of the REPARTITION(5) query
tasks() {
    $PY - "$(ls "$1"/* | head -1)" <<'PY'
import json, sys
total = 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerStageSubmitted":
        total += e["Stage Info"]["Number of Tasks"]
print(total)
PY
}
off=$(tasks "$T/off.events")
on=$(tasks "$T/on.events")
log "tasks without adaptive execution: $off, with: $on"
[ "$off" -gt 800 ] || fail "only $off tasks without adaptive execution (200-partition shuffles expected)"
[ "$on" -lt 100 ] || fail "$on tasks with adaptive execution: small partitions were not coalesced"
$PY - "$(ls "$T"/on.events/* | head -1)" <<'PY' || fail "the stages of the adaptive run"
import json, sys
stages = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerStageSubmitted":
        info = e["Stage Info"]
        stages[info["Stage ID"]] = info["Number of Tasks"]
# no stage reads more than the default parallelism (2) of coalesced partitions, except the
# REPARTITION(5) query's, which keeps its 5
big = sorted(n for n in stages.values() if n > 4)
assert big == [5], "stages with more than 4 tasks: %s" % big
PY

# the last two queries' joins are planned shuffled (their small sides look big before they
# run); adaptive execution broadcasts the small sides once their shuffles show their size, and
# drops the first join's other exchange (its aggregate's rows need no shuffle for the join)
broadcasts() {
    $PY - "$(ls "$1"/* | head -1)" <<'PY'
import json, sys
names = []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerStageSubmitted":
        names.append(e["Stage Info"]["Stage Name"])
print(sum(n in ("broadcast exchange at SQL execution 6", "broadcast exchange at SQL execution 7")
          for n in names), sum(n == "Exchange (SQL execution 6)" for n in names))
PY
}
assert_eq "$(broadcasts "$T/off.events")" "0 4" "broadcasts and map stages of the last queries without"
assert_eq "$(broadcasts "$T/on.events")" "2 3" "broadcasts and map stages of the last queries with"

# the last query's join is planned shuffled too, its aggregated side estimated the smaller: that
# side's shuffle runs first and proves small, the join broadcasts it, and the big side's rows are
# never shuffled (without adaptive execution, and before, both sides' map stages ran)
exchanges() {
    $PY - "$(ls "$1"/* | head -1)" "Exchange (SQL execution ${2:-8})" <<'PY'
import json, sys
print(sum(json.loads(line).get("Stage Info", {}).get("Stage Name") == sys.argv[2]
          for line in open(sys.argv[1])
          if '"SparkListenerStageSubmitted"' in line))
PY
}
assert_eq "$(exchanges "$T/off.events")" 4 "map stages of the side-first query without"
assert_eq "$(exchanges "$T/on.events")" 3 "map stages of the side-first query with (the big side's dropped)"
assert_eq "$(exchanges "$T/cluster.events")" 3 "map stages of the side-first query on local-cluster"

# filtered_side_shuffles_first: the last query's filtered side is the larger by Spark's estimate
# (a filter keeps its input's), but three conjuncts make it the likelier small one: its shuffle
# runs first, proves small (4,000 rows), the join broadcasts it and the other side's 2 M rows are
# never shuffled (before, the unfiltered side ran first and both sides were shuffled)
assert_eq "$(exchanges "$T/off.events" 9)" 3 "map stages of the filtered-side query without"
assert_eq "$(exchanges "$T/on.events" 9)" 2 "map stages of the filtered-side query with (the unfiltered side's dropped)"

# EXPLAIN: the initial adaptive plan, as Spark prints it
explain() {
    timeout 120 "$SQL" -S --master 'local[2]' --conf spark.ui.enabled=false "$@" \
        -e "EXPLAIN SELECT id % 3, count(*) FROM range(10) GROUP BY id % 3" >"$T/explain" \
        2>"$T/explain.err" || fail "EXPLAIN failed: $(cat "$T/explain.err")"
}
explain
assert_eq "$(sed -n 2p "$T/explain")" "AdaptiveSparkPlan isFinalPlan=false" "EXPLAIN's second line"
sed -n 3p "$T/explain" | grep -q '^+- [A-Z]' || fail "EXPLAIN's third line: $(sed -n 3p "$T/explain")"
sed -n '4,$p' "$T/explain" | grep -v '^$' | grep -qv '^   ' && fail "EXPLAIN's tree is not under the adaptive plan: $(cat "$T/explain")"
grep -q '^   .*+- Exchange hashpartitioning(' "$T/explain" || fail "EXPLAIN: $(cat "$T/explain")"
explain --conf spark.sql.adaptive.enabled=false
sed -n 2p "$T/explain" | grep -q '^Project ' || fail "EXPLAIN without adaptive execution: $(cat "$T/explain")"
echo "PASS: $TEST_NAME"
