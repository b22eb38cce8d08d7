#!/usr/bin/env bash
# k8s/faults_polling.sh — the periodic full LIST (client mode on kubesim):
#  1. with the watch switched off (spark.kubernetes.executor.enableApiWatcher=false) an executor
#     pod force-deleted mid-job is found missing by the poll (apiPollingInterval 1 s,
#     missingPodDetectDelta 2 s), removed as a missed deletion event, and replaced; the job
#     finishes with the right answer.
#  2. spark.kubernetes.executor.deleteOnTermination=false: executors that fail to start are kept
#     and labelled spark-exec-inactive=true instead of deleted; the driver exits 11.
#  3. spark.kubernetes.allocation.maximum=2 with executors that keep failing: the third pod is
#     not created and the application fails with a clear error.
#  4. spark.kubernetes.allocation.maxPendingPods=1 with 3 executors: each pod is created only
#     after the previous one runs (kubesim's pod history shows the order).
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
cat >"$T/exec-template.yaml" <<'YAML'
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: spark-kubernetes-executor
      command: ["/bin/sh", "-c", "exit 1"]
YAML

cat >"$T/inner.sh" <<INNER
COMMON=(--master "k8s://\$SERVER" --deploy-mode client --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms)
timeout 80 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name polling \
    --conf spark.kubernetes.executor.enableApiWatcher=false --conf spark.kubernetes.executor.apiPollingInterval=1s \
    --conf spark.kubernetes.executor.missingPodDetectDelta=2s --conf spark.task.maxFailures=8 \
    --class slow "$BUILD/tests/jobs/testjobs.so" 1500 >"$T/out" 2>"$T/err" &
SUB=\$!
for _ in \$(seq 400); do
    grep -q "event=executor_registered executor=2" "$T/err" && grep -q "event=executor_registered executor=1" "$T/err" && break
    kill -0 \$SUB 2>/dev/null || break
    sleep 0.1
done
grep -q "event=executor_registered executor=1" "$T/err" || { tail -20 "$T/err" >&2; fail "executor 1 never registered"; }
grep -q "watch=off" "$T/err" || fail "the watch was not switched off"
sleep 3 # longer than missingPodDetectDelta after the pod was first seen
pod=\$(kubectl get pods -l spark-role=executor,spark-exec-id=1 -o name)
[ -n "\$pod" ] || fail "no pod for executor 1"
kubectl delete "\$pod" --grace-period=0 --force >/dev/null 2>&1 || fail "kubectl delete failed"
rc=0
wait \$SUB || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the job failed (exit \$rc)"; }
grep -q "^count=16\$" "$T/out" || fail "wrong answer: \$(cat "$T/out")"
grep -q "event=executor_pod_ended executor=1 .*missed the deletion event" "$T/err" ||
    { grep executor_pod_ended "$T/err" >&2; fail "the poll did not find executor 1 missing"; }
grep -q "event=executor_pod_created executor=3 " "$T/err" || fail "no replacement pod was requested"
expect_nothing_left

rc=0
timeout 80 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name keep \
    --conf spark.kubernetes.executor.deleteOnTermination=false --conf spark.executor.maxNumFailures=3 \
    --conf spark.kubernetes.executor.podTemplateFile="$T/exec-template.yaml" \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out2" 2>"$T/err2" || rc=\$?
[ \$rc -eq 11 ] || { tail -20 "$T/err2" >&2; fail "expected exit 11 with failing executors, got \$rc"; }
kept=\$(kubectl get pods -l spark-role=executor,spark-exec-inactive=true -o name | grep -c . || true)
[ "\$kept" -ge 3 ] || fail "expected at least 3 kept inactive executor pods, got \$kept: \$(kubectl get pods --show-labels)"
other=\$(kubectl get pods -l 'spark-role=executor,!spark-exec-inactive' -o name)
[ -z "\$other" ] || fail "executor pods not labelled inactive: \$other"
kubectl delete pods -l spark-role=executor --grace-period=0 >/dev/null

rc=0
timeout 80 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name limit \
    --conf spark.kubernetes.allocation.maximum=2 --conf spark.executor.maxNumFailures=10 \
    --conf spark.kubernetes.executor.podTemplateFile="$T/exec-template.yaml" \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out3" 2>"$T/err3" || rc=\$?
[ \$rc -ne 0 ] || fail "the allocation limit did not fail the application"
grep -q "Exceed the pod creation limit: 2 (spark.kubernetes.allocation.maximum)" "$T/err3" ||
    { tail -10 "$T/err3" >&2; fail "no clear error for the allocation limit"; }
grep -q "event=executor_pod_created executor=3 " "$T/err3" && fail "a third executor pod was created"
expect_nothing_left

timeout 80 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name pending --conf spark.executor.instances=3 \
    --conf spark.kubernetes.allocation.maxPendingPods=1 \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out4" 2>"$T/err4" || { tail -10 "$T/err4" >&2; fail "maxPendingPods run failed"; }
grep -q "^count=16\$" "$T/out4" || fail "wrong answer with maxPendingPods"
pod_history >"$T/hist.json"
/usr/bin/python3 - "$T/hist.json" <<'PY' || fail "maxPendingPods=1 was not respected"
import json, sys
pods = {p["name"].rsplit("-exec-", 1)[1]: p for p in json.load(open(sys.argv[1]))["pods"]
        if "-pending-" in p["name"] or p["name"].startswith("pending-")}
def running(p):
    return min([x["timeMs"] for x in p["phases"] if x["phase"] == "Running"] or [1 << 62])
ok = all(k in pods for k in "123")
for a, b in (("1", "2"), ("2", "3")):
    if ok and pods[b]["createdMs"] < running(pods[a]):
        print("executor", b, "created before executor", a, "ran"); ok = False
print("pods:", sorted(pods)); sys.exit(0 if ok else 1)
PY
echo "inner ok"
INNER
k8s_run_inner 88
echo "PASS: $K8S_TEST"
