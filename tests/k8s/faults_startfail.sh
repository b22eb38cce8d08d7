#!/usr/bin/env bash
# k8s/faults_startfail.sh — executors that always fail to start (cluster mode on kubesim): an
# executor pod template whose container command exits 1. The driver removes each failed executor
# with the exit code explained and the pod's state, requests another, and after
# spark.executor.maxNumFailures (3) fails the job and exits 11; cspark-submit exits with the
# driver's status 11; only the driver pod remains.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
cat >"$T/exec-template.yaml" <<'YAML'
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: spark-kubernetes-executor
      command: ["/bin/sh", "-c", "echo 'executor cannot start: broken configuration' >&2; exit 1"]
YAML

cat >"$T/inner.sh" <<INNER
rc=0
timeout 80 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name faults-startfail \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.executor.maxNumFailures=3 --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.kubernetes.report.interval=500ms \
    --conf spark.kubernetes.executor.podTemplateFile="$T/exec-template.yaml" \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out" 2>"$T/err" || rc=\$?
[ \$rc -eq 11 ] || { tail -20 "$T/err" >&2; fail "cspark-submit exited \$rc, expected the driver's 11"; }
pods=\$(kubectl get pods -o name)
drv=\$(echo "\$pods" | grep -- '-driver\$' || true)
[ -n "\$drv" ] || fail "no driver pod: \$pods"
kubectl logs "\${drv#pod/}" >"$T/driver.log" 2>&1
grep -q "exit code 1 (generic failure" "$T/driver.log" || { tail -20 "$T/driver.log" >&2; fail "the driver log lacks the explained exit code"; }
grep -q "container statuses: spark-kubernetes-executor: terminated, exitCode 1" "$T/driver.log" || fail "the driver log lacks the container statuses"
grep -q "Max number of executor failures (3) reached" "$T/driver.log" || fail "the driver log lacks the maxNumFailures reason"
n=\$(grep -c "event=executor_pod_ended .*failed=true" "$T/driver.log")
[ "\$n" -ge 3 ] || fail "expected at least 3 failed executors, got \$n"
grep -q "phase=Failed exit_code=11" "$T/err" || { tail -5 "$T/err" >&2; fail "cspark-submit did not report the driver's exit code 11"; }
for _ in \$(seq 100); do [ "\$(kubectl get pods -o name)" = "\$drv" ] && break; sleep 0.2; done
[ "\$(kubectl get pods -o name)" = "\$drv" ] || fail "expected only the driver pod, got: \$(kubectl get pods -o name)"
left=\$(objects | grep -v "^pod/")
[ -z "\$left" ] || fail "left behind: \$left"
echo "inner ok"
INNER
k8s_run_inner 88
echo "PASS: $K8S_TEST"
