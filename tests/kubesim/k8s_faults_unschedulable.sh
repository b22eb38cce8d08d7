#!/usr/bin/env bash
# k8s_faults_unschedulable.sh — executor pods that cannot be scheduled (spark.executor.memory=100g
# on kubesim's default node), cluster mode with waitAppCompletion=false. The driver reports each
# unschedulable pod once at WARN with the scheduler's message, deletes it after
# spark.kubernetes.allocation.executor.timeout (3 s here) and requests a replacement, never holding
# more than spark.executor.instances pods; the job itself waits for executors (as Spark's does), so
# the test ends the application by deleting the driver pod, after which nothing is left.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
timeout 60 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name faults-unsched \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.executor.memory=100g --conf spark.kubernetes.allocation.batch.delay=500ms \
    --conf spark.kubernetes.allocation.executor.timeout=3s \
    --conf spark.kubernetes.submission.waitAppCompletion=false \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out" 2>"$T/err" || { cat "$T/err" >&2; fail "submission failed"; }
drv=
for _ in \$(seq 100); do drv=\$(kubectl get pods -l spark-role=driver -o name); [ -n "\$drv" ] && break; sleep 0.2; done
[ -n "\$drv" ] || fail "no driver pod"
maxpods=0
ok=0
for _ in \$(seq 300); do
    n=\$(kubectl get pods -l spark-role=executor -o name | grep -c . || true)
    [ "\$n" -gt "\$maxpods" ] && maxpods=\$n
    kubectl logs "\${drv#pod/}" >"$T/driver.log" 2>/dev/null || true
    if grep -q "event=executor_pod_unschedulable_timeout executor=2 " "$T/driver.log" &&
       grep -q "event=executor_pod_created executor=4 " "$T/driver.log"; then ok=1; break; fi
    sleep 0.2
done
[ \$ok -eq 1 ] || { tail -20 "$T/driver.log" >&2; fail "unschedulable pods were not timed out and requested again"; }
grep -q 'event=executor_pod_unschedulable executor=1 .*message="0/[0-9]* nodes are available: [0-9]* Insufficient memory' "$T/driver.log" ||
    fail "no clear report of the scheduler's message"
n1=\$(grep -c "event=executor_pod_unschedulable executor=1 " "$T/driver.log")
[ "\$n1" -eq 1 ] || fail "executor 1 reported \$n1 times, expected once"
[ "\$maxpods" -le 2 ] || fail "\$maxpods executor pods at once, more than spark.executor.instances=2"
# the first requests are gone from the API server (deleted by the driver, not by the test)
for id in 1 2; do
    [ -z "\$(kubectl get pods -l spark-exec-id=\$id -o name)" ] || fail "timed-out pod of executor \$id still exists"
done
kubectl delete "\$drv" --wait=false >/dev/null
for _ in \$(seq 200); do [ -z "\$(objects)" ] && break; sleep 0.2; done
[ -z "\$(objects)" ] || fail "left behind: \$(objects)"
echo "inner ok"
INNER
k8s_run_inner 88
echo "PASS: k8s_faults_unschedulable"
