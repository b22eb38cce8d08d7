#!/usr/bin/env bash
# ui_metrics.sh — the driver's /metrics/prometheus while a job runs, with Spark's
# PrometheusServlet names (metrics_<ns>_driver_<Source>_<name>_Value / _Count and the type
# label): `promtool check metrics` (Debian's prometheus package) parses it and lints nothing but
# Spark's own choices (camelCase names, no HELP), and its counters move as tasks finish;
# /metrics/json carries the same figures under MetricsServlet's names; /metrics/executors/prometheus
# names every live executor as Spark's PrometheusResource; a real Prometheus scraping cspark answers
# queries written for Spark's names. The REST additions against the running application:
# executors/driver/threads, allmiscellaneousprocess, logs (empty zip in the live UI, as Spark).
# Also a kill without a browser: a POST with the page's CSRF token ends the job.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/uijobs.so
need "$JOBS" "$BIN/cspark-executor"
command -v promtool >/dev/null || { echo "SKIP: $TEST_NAME: promtool missing (scripts/install-deps.sh installs prometheus)"; exit 77; }
mkdir -p "$T/gates"
APP_PID=""
PROM_PID=""
stop_all() {
    [ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
    : >"$T/gates/go"
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

"$SUBMIT" --master 'local-cluster[2,2,512]' --conf spark.ui.port=0 --conf spark.metrics.namespace=dash \
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

# counter NAME FILE: the value of a driver metric (Spark's name after metrics_dash_driver_)
counter() {
    grep "^metrics_dash_driver_$1{" "$2" | awk '{ print $2 }'
}

# spark_lint FILE WHEN: promtool parses FILE and lints only what Spark's own output has (its
# camelCase names and no HELP lines: this promtool has no option to turn the lint off)
spark_lint() {
    local rc=0
    promtool check metrics <"$1" >"$1.lint" 2>&1 || rc=$?
    [ $rc = 0 ] || [ $rc = 3 ] || fail "promtool could not read the metrics ($2): $(cat "$1.lint")"
    grep -v -e "should be written in 'snake_case' not 'camelCase'" -e " no help text$" "$1.lint" |
        grep . && fail "promtool found problems beyond Spark's naming ($2)"
    return 0
}

poll_rest /jobs/0 'j["numActiveTasks"] == 4'
curl -sf "$URL/metrics/prometheus" >"$T/m1" || fail "GET /metrics/prometheus"
spark_lint "$T/m1" "job running"
c1=$(counter appStatus_tasks_completedTasks_Count "$T/m1")
e1=$(counter LiveListenerBus_numEventsPosted_Count "$T/m1")
[ "$(counter DAGScheduler_job_activeJobs_Value "$T/m1")" == 1 ] || fail "activeJobs is not 1 while job 0 runs"
[ "$(counter DAGScheduler_job_activeJobs_Number "$T/m1")" == 1 ] || fail "activeJobs_Number is not 1"
[ "$(counter DAGScheduler_stage_runningStages_Value "$T/m1")" == 1 ] || fail "runningStages is not 1"
grep '^metrics_dash_driver_DAGScheduler_job_activeJobs_Value{type="gauges"} 1$' "$T/m1" >/dev/null ||
    fail "activeJobs is not Spark's exact line: $(grep activeJobs "$T/m1")"
grep '^#' "$T/m1" && fail "HELP/TYPE lines, which Spark's PrometheusServlet does not print"

# /metrics/json: MetricsServlet's shape with the registry's names
curl -sf "$URL/metrics/json" >"$T/j1" || fail "GET /metrics/json"
"$PY" - "$T/j1" <<'PY' || fail "/metrics/json is not Spark's MetricsServlet JSON: $(cat "$T/j1")"
import json, sys
j = json.load(open(sys.argv[1]))
assert list(j) == ["version", "gauges", "counters", "histograms", "meters", "timers"], list(j)
assert j["gauges"]["dash.driver.DAGScheduler.job.activeJobs"] == {"value": 1}
assert j["gauges"]["dash.driver.DAGScheduler.stage.runningStages"] == {"value": 1}
assert j["counters"]["dash.driver.appStatus.tasks.completedTasks"]["count"] >= 0
assert j["gauges"]["dash.driver.ExecutorMetrics.ProcessTreeJVMRSSMemory"]["value"] > 0
PY

# the REST additions: the driver's threads (its own /proc/self/task), no miscellaneous process,
# the live UI's /logs an empty zip as Spark's SparkUI
curl -sf "$URL/api/v1/applications/$app/executors/driver/threads" >"$T/threads" ||
    fail "GET executors/driver/threads"
"$PY" - "$T/threads" <<'PY' || fail "the driver's thread dump: $(head -c 600 "$T/threads")"
import json, os, sys
t = json.load(open(sys.argv[1]))
ids = [x["threadId"] for x in t]
# real threads of one process (the driver): each id's Tgid is the first id, the process's own
def tgid(tid):
    for line in open("/proc/%d/status" % tid):
        if line.startswith("Tgid:"):
            return int(line.split()[1])
assert len(t) >= 3 and ids == sorted(ids), ids
assert all(tgid(i) == ids[0] for i in ids), ids
assert t[0]["threadName"] == open("/proc/%d/comm" % ids[0]).read().strip()
for x in t:
    assert x["threadState"] in ("RUNNABLE", "WAITING", "TERMINATED"), x
    assert isinstance(x["stackTrace"]["elems"], list) and x["threadName"]
    assert x["holdingLocks"] == [] and x["inNative"] is True
PY
code=$(curl -s -o "$T/t1" -w '%{http_code}' "$URL/api/v1/applications/$app/executors/1/threads")
[ "$code" == 404 ] && [ "$(cat "$T/t1")" == "No thread dump is available." ] ||
    fail "executor 1's thread dump answered $code: $(cat "$T/t1")"
code=$(curl -s -o "$T/t9" -w '%{http_code}' "$URL/api/v1/applications/$app/executors/9/threads")
[ "$code" == 404 ] && [ "$(cat "$T/t9")" == "Executor does not exist." ] ||
    fail "an unknown executor's thread dump answered $code: $(cat "$T/t9")"
[ "$(curl -sf "$URL/api/v1/applications/$app/allmiscellaneousprocess" | tr -d ' \n')" == "[]" ] ||
    fail "allmiscellaneousprocess is not an empty list"
curl -sf -o "$T/live.zip" "$URL/api/v1/applications/$app/logs" || fail "GET logs"
"$PY" -c 'import sys, zipfile; sys.exit(len(zipfile.ZipFile(sys.argv[1]).namelist()))' "$T/live.zip" ||
    fail "the live UI's logs zip is not an empty zip"

: >"$T/gates/go"
poll_rest /jobs/2 'j["numActiveTasks"] > 0'
curl -sf "$URL/metrics/prometheus" >"$T/m2" || fail "GET /metrics/prometheus"
spark_lint "$T/m2" "later"
c2=$(counter appStatus_tasks_completedTasks_Count "$T/m2")
e2=$(counter LiveListenerBus_numEventsPosted_Count "$T/m2")
[ "$c1" -lt "$c2" ] || fail "completedTasks did not move while the jobs ran: $c1 -> $c2"
[ "$e1" -lt "$e2" ] || fail "numEventsPosted did not move: $e1 -> $e2"
[ "$c2" == 14 ] || fail "completedTasks is $c2 after jobs 0 and 1, expected 8 + 3 + 3"
[ "$(counter appStatus_stages_skippedStages_Count "$T/m2")" == 1 ] || fail "skippedStages is not 1"

# executors: Spark's PrometheusResource names, one sample per live executor, heartbeat figures
poll_rest /executors 'sum(1 for e in j if "peakMemoryMetrics" in e) == 2'
curl -sf "$URL/metrics/executors/prometheus" >"$T/x" || fail "GET /metrics/executors/prometheus"
spark_lint "$T/x" "executors"
head -1 "$T/x" | grep -q '^spark_info{version="[^"]*", revision="[^"]*"} 1.0$' ||
    fail "the executors' text does not start with Spark's spark_info line"
for id in driver 1 2; do
    grep -q "^metrics_executor_activeTasks{application_id=\"$app\", application_name=\"uijobs\", executor_id=\"$id\"}" "$T/x" ||
        fail "no activeTasks sample for executor $id"
done
grep -q '^metrics_executor_ProcessTreeJVMRSSMemory_bytes{.*executor_id="1"} [1-9]' "$T/x" ||
    fail "executor 1's resident memory (from its heartbeats) is missing"
grep -q '^metrics_executor_completedTasks_total{.*executor_id="[12]"} [1-9]' "$T/x" ||
    fail "no executor counts completed tasks"
grep -q '^metrics_executor_totalDuration_seconds_total{.*executor_id="[12]"} [0-9]*\.[0-9]' "$T/x" ||
    fail "totalDuration is not Spark's seconds as a double"

# a real Prometheus scrapes both endpoints; queries written for Spark's names answer with data
prom_query() {
    curl -sf --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
        "$PY" -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(len(r), r[0]["value"][1] if r else "")'
}
pport=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$T/prom.yml" <<YML
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: spark-driver
    metrics_path: /metrics/prometheus
    static_configs: [{targets: ["127.0.0.1:$port"]}]
  - job_name: spark-executors
    metrics_path: /metrics/executors/prometheus
    static_configs: [{targets: ["127.0.0.1:$port"]}]
YML
prometheus --config.file="$T/prom.yml" --storage.tsdb.path="$T/tsdb" \
    --web.listen-address="127.0.0.1:$pport" >"$T/prom.log" 2>&1 &
PROM_PID=$!
q1="" q2=""
for i in $(seq 1 300); do
    q1=$(prom_query 'sum(metrics_dash_driver_appStatus_tasks_completedTasks_Count{type="counters"})' 2>/dev/null)
    q2=$(prom_query 'count(metrics_executor_activeTasks{application_name="uijobs"})' 2>/dev/null)
    [ "${q1%% *}" == 1 ] && [ "$q2" == "1 3" ] && break
    sleep 0.2
done
kill "$PROM_PID" 2>/dev/null; wait "$PROM_PID" 2>/dev/null
PROM_PID=""
[ "${q1%% *}" == 1 ] && [ "${q1#* }" -ge 14 ] ||
    fail "Prometheus answered '$q1' to Spark's completedTasks query: $(tail -5 "$T/prom.log")"
[ "$q2" == "1 3" ] || fail "Prometheus counted '$q2' executors by Spark's activeTasks name"

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
