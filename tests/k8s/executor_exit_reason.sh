#!/usr/bin/env bash
# k8s/executor_exit_reason.sh — a crashed executor's job failure said "Reason: peer closed" with
# no exit code or signal (issue 21 item 14): the driver reported the loss when the connection
# closed, before the pod's end was seen. Now the loss waits for the pod's terminated state, so the
# job failure and the event log's SparkListenerExecutorRemoved carry Spark's
# ExecutorPodsLifecycleManager message with the exit code and the container's state: exit(3) and
# SIGKILL in a task, client mode (the driver on this host).
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
# ends HOW CODE: partition 1 ends its executor as HOW says (exit status or signal: code CODE)
ends() {
    local how=\$1 code=\$2 rc=0
    mkdir "$T/ev-\$how"
    timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client \
        --name "exit-\$how" --conf spark.kubernetes.container.image=cspark:dev \
        --conf spark.executor.instances=1 --conf spark.task.maxFailures=1 \
        --conf spark.ui.enabled=false --conf spark.eventLog.enabled=true \
        --conf "spark.eventLog.dir=file:$T/ev-\$how" \
        --class exit_in_task "$BUILD/tests/jobs/badjobs.so" "\$how" >"$T/out-\$how" 2>"$T/err-\$how" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || { tail -20 "$T/err-\$how" >&2; fail "\$how: exit status \$rc"; }
    local last
    last=\$(tail -1 "$T/err-\$how")
    case "\$last" in
    *"ExecutorLostFailure (executor 1 exited caused by one of the running tasks) Reason: The executor with id 1 "*"exited with exit code \$code "*"terminated, exitCode \$code"*) ;;
    *) fail "\$how: the job failure lacks the exit code \$code: \$last" ;;
    esac
    "$BUILD/tests/cat_event_log" "$T/ev-\$how"/* >"$T/ev-\$how.json" || fail "\$how: cannot read the event log"
    /usr/bin/python3 - "$T/ev-\$how.json" "\$code" <<'PYEOF' || fail "\$how: the event log's removal reason lacks the exit code"
import json, sys
path, code = sys.argv[1], sys.argv[2]
reasons = [e.get("Removed Reason", "") for e in map(json.loads, open(path))
           if e.get("Event") == "SparkListenerExecutorRemoved" and e.get("Executor ID") == "1"]
ok = any("exited with exit code %s " % code in r and "exitCode %s" % code in r for r in reasons)
if not ok:
    print("removal reasons: %r" % reasons, file=sys.stderr)
sys.exit(0 if ok else 1)
PYEOF
}
step "exit(3) in a task"
ends 3 3
step "SIGKILL in a task"
ends sigkill 137
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 400
echo "PASS: $K8S_TEST"
