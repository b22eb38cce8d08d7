#!/usr/bin/env bash
# k8s/driver_readiness.sh — spark.kubernetes.allocation.driver.readinessTimeout (Spark's
# ExecutorPodsAllocator.start): in cluster mode the first executors wait for the driver pod to be
# Ready, up to the timeout, and are requested either way. The driver's readiness comes from a
# readinessProbe in the driver pod template:
#  - a probe that passes after a delay, timeout 120s: the driver logs ready=true before it logs
#    the creation of any executor pod; the job's count is exact;
#  - a probe that never passes, timeout 2s: the driver logs ready=false with timeout_ms=2000 and
#    requests its executors all the same after waiting the 2s (they reach the driver by its pod
#    IP, spark.kubernetes.executor.useDriverPodIP, as a Service resolves only Ready pods); the
#    job's count is exact;
#  - nothing is left in the namespace after each.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
for how in ready never; do
    case $how in
    ready) probe='["/bin/sh", "-c", "true"]' delay=3 ;;
    never) probe='["/bin/sh", "-c", "exit 1"]' delay=0 ;;
    esac
    cat >"$T/driver-$how.yaml" <<YAML
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: spark-kubernetes-driver
      readinessProbe:
        exec:
          command: $probe
        initialDelaySeconds: $delay
        periodSeconds: 1
YAML
done

cat >"$T/inner.sh" <<INNER
run() { # run HOW TIMEOUT [CONF...]: one cluster-mode application; its driver log in $T/HOW.log
    local how=\$1 timeout=\$2
    shift 2
    rc=0
    timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster \
        --name "readiness-\$how" --conf spark.kubernetes.container.image=cspark:dev \
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms \
        --conf spark.kubernetes.report.interval=500ms \
        --conf spark.kubernetes.driver.podTemplateFile="$T/driver-\$how.yaml" \
        --conf spark.kubernetes.allocation.driver.readinessTimeout=\$timeout \
        --conf spark.kubernetes.executor.deleteOnTermination=false "\$@" \
        --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/\$how.out" 2>"$T/\$how.err" || rc=\$?
    [ \$rc -eq 0 ] || { tail -20 "$T/\$how.err" >&2; fail "\$how: cspark-submit exited \$rc"; }
    kubectl logs -l spark-role=driver --tail=-1 >"$T/\$how.log" 2>&1
    grep -q "^count=16\$" "$T/\$how.log" || { tail -20 "$T/\$how.log" >&2; fail "\$how: the count is not 16"; }
}

step "a driver that becomes Ready: executors only after it"
run ready 120s
grep -q "event=driver_readiness .*ready=true .*timeout_ms=120000" "$T/ready.log" ||
    fail "ready: no ready=true readiness line: \$(grep driver_readiness "$T/ready.log")"
first=\$(grep -n -m1 -e "event=driver_readiness" -e "event=executor_pod_created" "$T/ready.log")
case "\$first" in
*event=driver_readiness*) ;;
*) fail "ready: an executor pod was created before the driver was Ready: \$first" ;;
esac
kubectl delete pods --all >/dev/null
expect_nothing_left ready

step "a driver never Ready: executors after the timeout"
run never 2s --conf spark.kubernetes.executor.useDriverPodIP=true
line=\$(grep -m1 "event=driver_readiness" "$T/never.log")
case "\$line" in
*ready=false*timeout_ms=2000*) ;;
*) fail "never: expected a ready=false readiness line with timeout_ms=2000, got '\$line'" ;;
esac
waited=\$(echo "\$line" | sed -n 's/.*waited_ms=\([0-9]*\).*/\1/p')
[ "\${waited:-0}" -ge 2000 ] || fail "never: the executors were requested before the timeout: \$line"
grep -q "event=executor_pod_created" "$T/never.log" || fail "never: no executor pod was created"
kubectl delete pods --all >/dev/null
expect_nothing_left never
echo "inner ok"
INNER
k8s_run_inner 360
echo "PASS: $K8S_TEST"
