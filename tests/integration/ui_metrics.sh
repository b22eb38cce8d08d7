#!/usr/bin/env bash
# ui_metrics.sh — the driver's /metrics/prometheus while a job runs: `promtool check metrics`
# (Debian's prometheus package) finds nothing to complain about, and its counters move as tasks
# finish; /metrics/executors/prometheus is well-formed and names every live executor with Spark's
# metric names. Also a kill without a browser: a POST with the page's CSRF token ends the job.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/uijobs.so
need "$JOBS" "$BIN/cspark-executor"
command -v promtool >/dev/null || { echo "SKIP: $TEST_NAME: promtool missing (scripts/install-deps.sh installs prometheus)"; exit 77; }
mkdir -p "$T/gates"
APP_PID=""
stop_all() {
    : >"$T/gates/go"
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

"$SUBMIT" --master 'local-cluster[2,2,512]' --conf spark.ui.port=0 \
    --conf spark.executor.heartbeatInterval=200ms --class ui_demo "$JOBS" "$T/gates" \
    >"$T/out" 2>"$T/err" &
APP_PID=$!
for i in $(seq 1 300); do
    port=$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/err" | grep -o '[0-9]*$')
    [ -n "$port" ] && break
    sleep 0.2
done
[ -n "$port" ] || fail "the UI did not start: $(tail -5 "$T/err")"
app=$(grep -o "ui app=[^ ]*" "$T/err" | head -1 | cut -d= -f2)
URL=http://127.0.0.1:$port

# poll_rest PATH PYEXPR: waits (up to 60 s) until the JSON at PATH makes PYEXPR (over j) true
poll_rest() {
    local i
    for i in $(seq 1 300); do
        curl -sf "$URL/api/v1/applications/$app$1" 2>/dev/null |
            "$PY" -c "import json,sys; j=json.load(sys.stdin); sys.exit(0 if ($2) else 1)" 2>/dev/null &&
            return 0
        sleep 0.2
    done
    fail "waited for $1 to satisfy $2"
}

# counter NAME FILE: the value of a driver counter
counter() {
    grep "^metrics_.*_driver_$1{" "$2" | awk '{ print $2 }'
}

poll_rest /jobs/0 'j["numActiveTasks"] == 4'
curl -sf "$URL/metrics/prometheus" >"$T/m1" || fail "GET /metrics/prometheus"
promtool check metrics <"$T/m1" >"$T/lint1" 2>&1 || { cat "$T/lint1" >&2; fail "promtool check metrics complained (job running)"; }
c1=$(counter app_status_tasks_completed_tasks_total "$T/m1")
e1=$(counter live_listener_bus_num_events_posted_total "$T/m1")
[ "$(counter dag_scheduler_job_active_jobs "$T/m1")" == 1 ] || fail "activeJobs is not 1 while job 0 runs"
[ "$(counter dag_scheduler_stage_running_stages "$T/m1")" == 1 ] || fail "runningStages is not 1"

: >"$T/gates/go"
poll_rest /jobs/2 'j["numActiveTasks"] > 0'
curl -sf "$URL/metrics/prometheus" >"$T/m2" || fail "GET /metrics/prometheus"
promtool check metrics <"$T/m2" >"$T/lint2" 2>&1 || { cat "$T/lint2" >&2; fail "promtool check metrics complained (later)"; }
c2=$(counter app_status_tasks_completed_tasks_total "$T/m2")
e2=$(counter live_listener_bus_num_events_posted_total "$T/m2")
[ "$c1" -lt "$c2" ] || fail "completedTasks did not move while the jobs ran: $c1 -> $c2"
[ "$e1" -lt "$e2" ] || fail "numEventsPosted did not move: $e1 -> $e2"
[ "$c2" == 14 ] || fail "completedTasks is $c2 after jobs 0 and 1, expected 8 + 3 + 3"
[ "$(counter app_status_stages_skipped_stages_total "$T/m2")" == 1 ] || fail "skippedStages is not 1"

# executors: Spark's PrometheusResource names, one sample per live executor, heartbeat figures
poll_rest /executors 'sum(1 for e in j if "peakMemoryMetrics" in e) == 2'
curl -sf "$URL/metrics/executors/prometheus" >"$T/x" || fail "GET /metrics/executors/prometheus"
promtool check metrics <"$T/x" >"$T/xlint" 2>&1
# Spark's own executor names are camelCase (metrics_executor_activeTasks): the one lint kept
grep -v "should be written in 'snake_case' not 'camelCase'" "$T/xlint" | grep . &&
    fail "promtool found problems beyond Spark's camelCase names: $(cat "$T/xlint")"
for id in driver 1 2; do
    grep -q "^metrics_executor_activeTasks{application_id=\"$app\", application_name=\"uijobs\", executor_id=\"$id\"}" "$T/x" ||
        fail "no activeTasks sample for executor $id"
done
grep -q '^metrics_executor_ProcessTreeJVMRSSMemory_bytes{.*executor_id="1"} [1-9]' "$T/x" ||
    fail "executor 1's resident memory (from its heartbeats) is missing"
grep -q '^metrics_executor_completedTasks_total{.*executor_id="[12]"} [1-9]' "$T/x" ||
    fail "no executor counts completed tasks"

# kill job 2 with a plain POST carrying the token of the page it came from
token=$(curl -sf "$URL/jobs/" | grep -o 'name="csrf" value="[0-9a-f]*' | head -1 | grep -o '[0-9a-f]*$')
[ -n "$token" ] || fail "the jobs page offers no kill form"
code=$(curl -s -o /dev/null -w '%{http_code}' -d "id=2" "$URL/jobs/job/kill/")
[ "$code" == 403 ] || fail "a kill without the token answered $code"
code=$(curl -s -o /dev/null -w '%{http_code}' -d "id=2&csrf=$token" "$URL/jobs/job/kill/")
[ "$code" == 303 ] || fail "the kill answered $code"
poll_rest /jobs/2 'j["status"] == "FAILED"'
: >"$T/gates/exit"
wait "$APP_PID"
APP_PID=""
grep -q "job2 failed: Job 2 cancelled killed via the Web UI" "$T/out" || fail "job 2 was not cancelled: $(cat "$T/out")"
grep -q "scheduler job=2 event=finished result=failed duration_ms=[0-9]* reason=\"Job 2 cancelled" "$T/err" ||
    fail "the driver did not log job 2's end with its duration and result"
grep -q "scheduler job=0 event=finished result=succeeded duration_ms=" "$T/err" ||
    fail "the driver did not log job 0's end"
echo "PASS: $TEST_NAME (completedTasks $c1 -> $c2, promtool clean)"
