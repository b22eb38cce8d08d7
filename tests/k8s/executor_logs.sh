#!/usr/bin/env bash
# k8s/executor_logs.sh — executors' logs in the driver's web UI on Kubernetes (client mode, the
# driver on this host): uijobs.so's ui_crash, whose first attempt of partition 1 crashes its
# executor (SIGSEGV). The failed executor's pod is deleted (deleteOnTermination) but the driver
# kept the end of its container log first: the UI's log page of that executor still shows the
# crash report after the pod is gone. A live executor's log page shows its container log, read
# through the API server. The job's answer is right and nothing is left afterwards.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/gates"
chmod 1777 "$T/gates"

cat >"$T/inner.sh" <<INNER
timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name logs \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.ui.port=0 \
    --class ui_crash "$BUILD/tests/jobs/uijobs.so" "$T/gates" >"$T/out" 2>"$T/err" &
SUB=\$!
trap ': >"$T/gates/exit"; kill \$SUB 2>/dev/null || true' EXIT
for _ in \$(seq 600); do
    grep -q "^count=" "$T/out" 2>/dev/null && break
    kill -0 \$SUB 2>/dev/null || break
    sleep 0.2
done
grep -q "^count=1000\$" "$T/out" || { tail -20 "$T/err" >&2; fail "the job did not finish after the crash"; }
# the task is retried once the executor's connection closes; its pod's end (and the kept log)
# may come later, when the node reports the pod Failed
for _ in \$(seq 300); do
    grep -q "event=executor_log_kept executor=" "$T/err" && break
    sleep 0.2
done
dead=\$(grep -o "event=executor_log_kept executor=[0-9]*" "$T/err" | head -1 | grep -o '[0-9]*\$')
[ -n "\$dead" ] || { grep -E "executor_pod_ended|executor_log" "$T/err" >&2; fail "no log was kept for the crashed executor"; }
port=\$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/err" | grep -o '[0-9]*\$')
URL=http://127.0.0.1:\$port
# the crashed executor's pod is gone, its log is not
for _ in \$(seq 100); do
    [ -z "\$(kubectl get pods -l spark-role=executor,spark-exec-id=\$dead -o name)" ] && break
    sleep 0.2
done
[ -z "\$(kubectl get pods -l spark-role=executor,spark-exec-id=\$dead -o name)" ] ||
    fail "the crashed executor's pod was not deleted"
curl -sf "\$URL/executors/" >"$T/executors.html" || fail "GET /executors/"
grep -q "logPage/?executorId=\$dead&amp;logType=stderr" "$T/executors.html" ||
    fail "the crashed executor has no log link"
curl -sf "\$URL/logPage/?executorId=\$dead&logType=stderr" >"$T/dead.html" || fail "the crashed executor's log page"
grep -q "SIGSEGV in task" "$T/dead.html" || fail "the crash report is not in the crashed executor's log"
grep -q "stderr line from partition 1" "$T/dead.html" || fail "the task's stderr is not in the crashed executor's log"
# a live executor's log comes from its container through the API server
live=\$(grep -o "event=executor_registered executor=[0-9]*" "$T/err" | grep -o '[0-9]*\$' | grep -vx "\$dead" | head -1)
[ -n "\$live" ] || fail "no live executor"
curl -sf "\$URL/logPage/?executorId=\$live&logType=stderr" >"$T/live.html" || fail "the live executor's log page"
grep -q "executor=\$live event=registered" "$T/live.html" || fail "the live executor's log page does not show its container log"
code=\$(curl -s -o /dev/null -w '%{http_code}' "\$URL/logPage/?executorId=999&logType=stderr")
[ "\$code" = 404 ] || fail "an unknown executor's log answered \$code"
: >"$T/gates/exit"
rc=0
wait \$SUB || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the application failed (exit \$rc)"; }
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 200
echo "PASS: $K8S_TEST"
