#!/usr/bin/env bash
# k8s/failure_reason.sh — a cluster-mode application that fails tells the user why where they
# look: the driver container (terminationMessagePolicy FallbackToLogsOnError) ends with the abort
# reason as its termination message, and cspark-submit prints that message, with the exit code,
# as its last lines — not just "phase=Failed exit_code=1".
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
rc=0
timeout 180 "\$SUBMIT" --master "k8s://\$SERVER" --deploy-mode cluster \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=1 \
    --conf spark.kubernetes.report.interval=200ms --conf spark.task.maxFailures=2 \
    --class always_fail "$BUILD/tests/jobs/testjobs.so" >"$T/out" 2>"$T/err" || rc=\$?
[ \$rc -ne 0 ] || fail "the failing application exited 0"
grep -q "phase=Failed exit_code=1" "$T/err" || fail "no final phase: \$(tail -5 "$T/err")"
tail -3 "$T/err" | grep -q "Job aborted due to stage failure: .*boom from always_fail_map" ||
    fail "the abort reason is not in cspark-submit's last lines: \$(tail -5 "$T/err")"
grep -q "driver pod .* failed with exit code 1" "$T/err" || fail "the exit code is not printed with it"
pod=\$(kubectl get pods -o name | grep -- '-driver\$' | head -1)
[ -n "\$pod" ] || fail "no driver pod"
kubectl get "\$pod" -o jsonpath='{.spec.containers[0].terminationMessagePolicy}' | grep -qx FallbackToLogsOnError ||
    fail "the driver container has no terminationMessagePolicy FallbackToLogsOnError"
kubectl get "\$pod" -o jsonpath='{.status.containerStatuses[0].state.terminated.message}' |
    grep -q "boom from always_fail_map" || fail "the termination message lacks the abort reason"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the failed application"
echo "inner ok"
INNER
k8s_run_inner 300
echo "PASS: $K8S_TEST"
