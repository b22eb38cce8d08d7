#!/usr/bin/env bash
# executor_exit_reason.sh — a crashed executor's job failure said "Reason: peer closed" with no
# exit code or signal (issue 21 item 14): the driver reported the loss as soon as the connection
# closed, before the launcher had reaped the process. Now the loss waits for the exit status
# (Spark's ExecutorExited), so the job failure and the event log's SparkListenerExecutorRemoved
# name it: exit(3), abort() and SIGKILL in a task on local-cluster.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/badjobs.so
need "$JOBS" "$BIN/cspark-executor"

# ends HOW REASON: partition 1 ends its executor as HOW says; the job fails with REASON, which is
# also the executor's removal reason in the event log
ends() {
    local how=$1 want=$2 rc=0
    mkdir "$T/ev-$how"
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.task.maxFailures=1
        --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$T/ev-$how")
    run_submit 'local-cluster[1,1,256]' --class exit_in_task "$JOBS" "$how" || rc=$?
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] || fail "$how: exit status $rc"
    local last
    last=$(tail -1 "$T/stderr")
    [[ "$last" == *"ExecutorLostFailure (executor 1 exited caused by one of the running tasks) Reason: $want"* ]] ||
        fail "$how: expected the reason '$want', got: $last"
    local removed
    cat_event_log "$T/ev-$how"/* >"$T/ev-$how.json" || fail "$how: cannot read the event log"
    removed=$("$PY" - "$T/ev-$how.json" <<'PYEOF'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerExecutorRemoved" and e.get("Executor ID") == "1":
        print(e.get("Removed Reason", ""))
PYEOF
    )
    [[ "$removed" == "$want"* ]] || fail "$how: the event log's removal reason is '$removed'"
}
ends 3 "Command exited with code 3 (unexpected exit code)"
ends abort "Command exited with code 134: killed by signal 6 (SIGABRT: aborted)"
ends sigkill "Command exited with code 137: killed by signal 9 (SIGKILL: killed, possibly out of memory)"
echo "PASS: $TEST_NAME"
