#!/usr/bin/env bash
# broadcast_jobs.sh — a query's broadcast exchanges run as concurrent jobs (Spark's
# BroadcastExchangeExec relation futures; src/session/broadcast_jobs.c) and each broadcast join's
# hash table is built once per process (src/sqlexec/hash_join_table.c):
#  - TPC-H queries with several broadcasts at scale 0.1 give Spark 4's answers (goldens judged by
#    compare.py) with adaptive execution on and off on local[2], and on local-cluster[2,1,1024]
#    (tables built in the executors); the event log of q08 shows its broadcast jobs, each
#    succeeded;
#  - a broadcast that fails (DIVIDE_BY_ZERO) fails the query with its error while another
#    broadcast of the query would run for hours: that one is cancelled and cspark-sql exits 1;
#  - spark.sql.broadcastTimeout: a broadcast running past it fails the query with Spark's
#    _LEGACY_ERROR_TEMP_2097 message, its job cancelled;
#  - a query with two broadcasts that would each run for hours has both jobs running at once
#    (seen in the UI's REST API, never from a fixed sleep: one after the other, the second would
#    never be seen); Ctrl-C (SIGINT) then cancels both: Spark's SPARK_JOB_CANCELLED, exit 130.
# A query that should end but does not is ended by `timeout` (124): the test fails then.
# Usage: broadcast_jobs.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/cspark-executor"
HERE=$SRC/tests/sql
. "$(dirname "$0")/lib/tpch.sh"
tpch_views
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
COMMON=(--conf spark.ui.enabled=false --conf spark.sql.session.timeZone=UTC)

for adaptive in true false; do
    for name in q02 q05 q07 q08 q09 q11; do
        mkdir -p "$T/ev-$name-$adaptive"
        TZ=UTC timeout 600 "$SQL" --master 'local[2]' "${COMMON[@]}" \
            --conf spark.sql.adaptive.enabled=$adaptive --conf spark.eventLog.enabled=true \
            --conf "spark.eventLog.dir=$T/ev-$name-$adaptive" --conf spark.eventLog.compress=false \
            --conf spark.eventLog.rolling.enabled=false \
            -i "$T/views.sql" --output-format golden -f "$HERE/tpch/$name.sql" \
            >"$T/$name.out" 2>"$T/$name.err" ||
            fail "$name (adaptive $adaptive) failed: $(tail -n 3 "$T/$name.err")"
        $PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/$name.out" "$T/$name.out" ||
            fail "$name (adaptive $adaptive) differs from Spark's answer"
    done
    # q08 joins eight tables: its small ones are broadcast, each by a job of its own
    jobs=$(cat "$T/ev-q08-$adaptive"/* | $PY -c '
import json, sys
names, ok = {}, {}
for e in map(json.loads, sys.stdin):
    if e["Event"] == "SparkListenerJobStart":
        names[e["Job ID"]] = e["Properties"].get("callSite.short", "") if "Properties" in e else ""
        names[e["Job ID"]] = names[e["Job ID"]] or e["Stage Infos"][-1]["Stage Name"]
    if e["Event"] == "SparkListenerJobEnd":
        ok[e["Job ID"]] = e["Job Result"]["Result"] == "JobSucceeded"
b = [j for j, n in names.items() if n.startswith("broadcast exchange")]
print(len(b) if all(ok.get(j) for j in b) else -1)')
    [ "$jobs" -ge 3 ] 2>/dev/null ||
        fail "q08 (adaptive $adaptive): expected at least 3 broadcast jobs, all succeeded: $jobs"
    log "q08 (adaptive $adaptive): $jobs broadcast jobs"
done

TZ=UTC timeout 600 "$SQL" --master 'local-cluster[2,1,1024]' "${COMMON[@]}" \
    -i "$T/views.sql" --output-format golden -f "$HERE/tpch/q08.sql" >"$T/q08-lc.out" \
    2>"$T/q08-lc.err" || fail "q08 on local-cluster failed: $(tail -n 3 "$T/q08-lc.err")"
$PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/q08.out" "$T/q08-lc.out" ||
    fail "q08 on local-cluster differs from Spark's answer"

# a broadcast that fails, while the query's other broadcast scans 10^13 rows in one task: the
# failing one's tasks have the other core whichever job the scheduler was handed first
SLOW="SELECT id FROM range(0, 10000000000000, 1, 2) WHERE id % 1000000007 = 3"
SLOW1="SELECT id FROM range(0, 10000000000000, 1, 1) WHERE id % 1000000007 = 3"
# another slow relation (an equal one would be the same broadcast: exchange reuse)
SLOW2="SELECT id FROM range(0, 10000000000000, 1, 2) WHERE id % 1000000007 = 4"
RC=0
timeout 120 "$SQL" --master 'local[2]' "${COMMON[@]}" -e "SELECT /*+ BROADCAST(b), BROADCAST(c) */
    count(*), sum(b.x) FROM range(100) a JOIN (SELECT id, 10 DIV (id - id) AS x FROM range(10)) b
    ON a.id = b.id JOIN ($SLOW1) c ON a.id = c.id" >"$T/fail.out" 2>"$T/fail.err" || RC=$?
assert_eq "$RC" 1 "a failing broadcast fails the query (124: the other broadcast ran on)"
assert_contains "$T/fail.err" "[DIVIDE_BY_ZERO] Division by zero" "the failing broadcast's error"

RC=0
timeout 120 "$SQL" --master 'local[2]' "${COMMON[@]}" --conf spark.sql.broadcastTimeout=1 \
    -e "SELECT /*+ BROADCAST(c) */ count(*) FROM range(100) a JOIN ($SLOW) c ON a.id = c.id" \
    >"$T/timeout.out" 2>"$T/timeout.err" || RC=$?
assert_eq "$RC" 1 "a broadcast past spark.sql.broadcastTimeout fails the query"
assert_contains "$T/timeout.err" "Could not execute broadcast in 1 secs." "Spark's timeout error"

# two broadcast jobs running at once, then Ctrl-C
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
"$SQL" --master 'local[2]' --conf spark.sql.session.timeZone=UTC --conf spark.ui.port="$PORT" \
    --conf spark.ui.showConsoleProgress=false \
    -e "SELECT /*+ BROADCAST(c), BROADCAST(d) */ count(*) FROM range(100) a JOIN ($SLOW) c
        ON a.id = c.id JOIN ($SLOW2) d ON a.id = d.id" >"$T/cancel.out" 2>"$T/cancel.err" &
PID=$!
URL=http://127.0.0.1:$PORT
APP= RUNNING=
for _ in $(seq 1200); do
    kill -0 "$PID" 2>/dev/null || break
    [ -n "$APP" ] || APP=$(curl -sf --max-time 5 "$URL/api/v1/applications" |
        $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null)
    if [ -n "$APP" ]; then
        RUNNING=$(curl -sf --max-time 5 "$URL/api/v1/applications/$APP/jobs?status=running" |
            $PY -c 'import json,sys; j=[x for x in json.load(sys.stdin) if x["name"].startswith("broadcast exchange")]; print(len(j) if len(j) == 2 else "")' 2>/dev/null)
        [ -n "$RUNNING" ] && break
    fi
    sleep 0.1
done
[ -n "$RUNNING" ] || fail "two broadcast jobs were never seen running at once: $(tail -n 3 "$T/cancel.err")"
kill -INT "$PID"
RC=0
for _ in $(seq 1200); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null && fail "cspark-sql still runs 120 s after Ctrl-C"
wait "$PID" || RC=$?
PID=
assert_eq "$RC" 130 "Ctrl-C during the broadcast jobs ends cspark-sql with 130"
assert_contains "$T/cancel.err" "[SPARK_JOB_CANCELLED]" "the broadcast jobs are cancelled"
echo "PASS: $TEST_NAME"
