#!/usr/bin/env bash
# event_log_task_end_reasons.sh — a failed task's "Task End Reason" in the event log is Spark's
# kind with its fields (JsonProtocol.taskEndReasonToJson), not always ExceptionFailure: a
# fetch failure is FetchFailed (Block Manager Address, Shuffle ID, Map ID, Map Index, Reduce ID,
# Message), a task whose executor died is ExecutorLostFailure (Executor ID, Exit Caused By App,
# Loss Reason), a running task stopped because its job was aborted is TaskKilled (Kill Reason),
# and a task that failed itself stays ExceptionFailure.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
BAD=$BUILD/tests/jobs/badjobs.so
need "$JOBS" "$BAD"
mkdir -p "$T/events" "$T/local"
SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.eventLog.enabled=true
    --conf "spark.eventLog.dir=$T/events" --conf "spark.local.dir=$T/local")
reasons() { # EVENT_LOG: one JSON object per failed TaskEnd's reason
    $PY -c '
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerTaskEnd" and e["Task End Reason"]["Reason"] != "Success":
        print(json.dumps(e["Task End Reason"], sort_keys=True))' "$1"
}
# latest: the newest event log's lines in a file (rolled and compressed: Spark 4's defaults)
latest() {
    cat_event_log "$(ls -td "$T"/events/* | head -1)" >"$T/latest.json" || return 1
    echo "$T/latest.json"
}

check() { # NAME PYTHON-CONDITION-ON-r: some failed TaskEnd's reason r satisfies it
    local name=$1 cond=$2 log
    log=$(latest)
    $PY - "$log" "$cond" <<'PY' || fail "$name: no TaskEnd reason with $cond in $(basename "$log"): $(reasons "$log" | head -5)"
import json, sys
cond = sys.argv[2]
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") != "SparkListenerTaskEnd":
        continue
    r = e["Task End Reason"]
    if r["Reason"] != "Success" and eval(cond, {}, {"r": r}):
        sys.exit(0)
sys.exit(1)
PY
}

# a map output deleted between two jobs: the second job's reduce task fails to fetch it (in local
# mode the blocks have no block manager port, so no address: Spark's BlockManagerId needs one)
BASE=("${SUBMIT_OPTS[@]}")
SUBMIT_OPTS=("${BASE[@]}" --class lost_map_output)
submit_ok 'local[2]' "$JOBS"
check fetch 'r["Reason"] == "FetchFailed" and r["Map ID"] == 0 and r["Map Index"] == 0 and isinstance(r["Shuffle ID"], int) and isinstance(r["Reduce ID"], int) and r["Message"] and "Block Manager Address" not in r'
rm -rf "$T"/events/*

# an executor that dies of a task's SIGSEGV: its task is an ExecutorLostFailure caused by the app
SUBMIT_OPTS=("${BASE[@]}" --class crash_once)
submit_ok 'local-cluster[2,1,256]' "$JOBS"
check executor-lost 'r["Reason"] == "ExecutorLostFailure" and r["Executor ID"] in ("1", "2") and r["Exit Caused By App"] is True and r["Loss Reason"]'
rm -rf "$T"/events/*

# partition 0 fails (ExceptionFailure, once: local[2]); partition 1 is still running and is killed
rc=0
SUBMIT_OPTS=("${BASE[@]}" --class kill_sibling)
run_submit 'local[2]' "$BAD" || rc=$?
assert_eq "$rc" 1 "kill_sibling exit status"
check exception 'r["Reason"] == "ExceptionFailure" and r["Description"] == "fail_or_linger: planned failure"'
check killed 'r["Reason"] == "TaskKilled" and r["Kill Reason"] and r["Accumulator Updates"] == []'
echo "PASS: $TEST_NAME"
