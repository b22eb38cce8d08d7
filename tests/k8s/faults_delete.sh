#!/usr/bin/env bash
# k8s/faults_delete.sh — an executor pod deleted while its tasks run (client mode on kubesim with
# the process kubelet): the backend sees the deletion, requests a replacement pod (executor 3), and
# the job still finishes with the right answer; afterwards no executor pod is left. Without the
# lifecycle manager and allocator the job hangs or fails; the test then fails.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
# slow 1500: 8 tasks of 2 records, 1.5 s per record, on 2 executors of 1 core: at least 12 s
timeout 80 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name faults-delete \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.task.maxFailures=8 \
    --class slow "$BUILD/tests/jobs/testjobs.so" 1500 >"$T/out" 2>"$T/err" &
SUB=\$!
for _ in \$(seq 400); do
    grep -q "event=executor_registered executor=2" "$T/err" && grep -q "event=executor_registered executor=1" "$T/err" && break
    kill -0 \$SUB 2>/dev/null || break
    sleep 0.1
done
grep -q "event=executor_registered executor=1" "$T/err" || { tail -20 "$T/err" >&2; fail "executor 1 never registered"; }
sleep 2 # tasks are running on both executors now
pod=\$(kubectl get pods -l spark-role=executor,spark-exec-id=1 -o name)
[ -n "\$pod" ] || fail "no pod for executor 1"
kubectl delete "\$pod" --wait=false >/dev/null || fail "kubectl delete failed"
rc=0
wait \$SUB || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the job failed (exit \$rc) after the executor pod was deleted"; }
grep -q "^count=16\$" "$T/out" || fail "wrong answer: \$(cat "$T/out")"
grep -q "event=executor_pod_ended executor=1 .*deleted" "$T/err" || fail "the deletion was not reported"
grep -q "event=executor_pod_created executor=3 " "$T/err" || fail "no replacement pod was requested"
hist=\$(pod_history)
echo "\$hist" | grep -q -- '-exec-3"' || fail "the pod history shows no replacement pod: \$hist"
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 88
echo "PASS: $K8S_TEST"
