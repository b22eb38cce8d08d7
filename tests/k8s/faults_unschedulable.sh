#!/usr/bin/env bash
# k8s/faults_unschedulable.sh — executor pods that ask more than a node has stay Pending and are
# never recreated (issue #10 item 11, Spark's rule: only requests never seen in a snapshot time
# out after spark.kubernetes.allocation.executor.timeout), on one node of 2 GiB where one executor
# pod (1 GiB + 384 MiB) fits:
#  1. client mode, spark.executor.instances=2: one executor runs, the other is reported once at
#     WARN with the scheduler's message and stays Pending; once spark.scheduler.
#     maxRegisteredResourcesWaitingTime (6 s, longer than the 5 s executor.timeout) passes, the
#     job runs on the one executor and prints the right answer; no pod was ever timed out or
#     created for a third executor, the waiting pod stayed Pending, never deleted, while the other
#     ran the job; nothing is left.
#  2. cluster mode, spark.executor.memory=100g: no executor fits; as Spark, the application waits
#     with its two Pending pods (none recreated past the timeout) until it is ended by deleting
#     the driver pod, which removes everything it made.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
type pod_history >/dev/null 2>&1 || pod_history() { kubectl get --raw /kubesim/pod-history; }
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf spark.kubernetes.allocation.executor.timeout=5s)

# ---- 1. one of two executors fits: the job runs on it, the other pod waits Pending
timeout 90 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode client --name unsched-one \
    --conf spark.scheduler.maxRegisteredResourcesWaitingTime=6s \
    --class slow "$BUILD/tests/jobs/testjobs.so" 200 >"$T/out" 2>"$T/err" ||
    { tail -20 "$T/err" >&2; fail "the job did not finish with the executor that could run"; }
grep -q "^count=16\$" "$T/out" || fail "wrong answer: \$(cat "$T/out")"
# which of the two got the node is the scheduler's choice: W waited, R ran
W=\$(sed -n 's/.*event=executor_pod_unschedulable executor=\([0-9]*\) .*/\1/p' "$T/err" | sort -u)
[ "\$W" = 1 ] || [ "\$W" = 2 ] || { grep k8s "$T/err" | tail >&2; fail "expected one executor reported unschedulable, got '\$W'"; }
grep -q "event=executor_pod_unschedulable executor=\$W .*message=\"0/[0-9]* nodes are available: [0-9]* Insufficient memory" "$T/err" ||
    fail "executor \$W was not reported with the scheduler's message"
[ "\$(grep -c "event=executor_pod_unschedulable executor=\$W " "$T/err")" -eq 1 ] || fail "executor \$W reported more than once"
! grep -q "event=executor_pod_timeout" "$T/err" || fail "a seen Pending pod was timed out: \$(grep executor_pod_timeout "$T/err")"
! grep -q "event=executor_pod_created executor=3 " "$T/err" || fail "a third executor pod was requested"
pod_history | /usr/bin/python3 -c '
import json, sys
w = sys.argv[1]
r = "1" if w == "2" else "2"
pods = {p["name"].rsplit("-", 1)[1]: p for p in json.load(sys.stdin)["pods"] if "-exec-" in p["name"]}
assert sorted(pods) == ["1", "2"], "executor pods: %s" % sorted(pods)
# the waiting pod stayed Pending (the same pod, never replaced) until the application stopped: the
# other executor ended or either pod was deleted (once the driver stops that executor the node frees
# up and may bind the waiting pod before the driver deletes it)
def when(p, phases):
    return min([x["timeMs"] for x in p["phases"] if x["phase"] in phases] or [None])
assert when(pods[r], ("Running",)), "executor %s never ran" % r
ends = [when(pods[r], ("Succeeded", "Failed")), pods[r].get("deletionRequestedMs"),
        pods[w].get("deletionRequestedMs"), pods[w].get("deletedMs")]
stop = min([t for t in ends if t] or [None])
assert stop, "executor pods not ended: %s" % pods
phases = [x["phase"] for x in pods[w]["phases"] if x["timeMs"] < stop]
assert phases == ["Pending"], "executor %s phases %s while the other ran, expected Pending" % (w, phases)
print("pod history ok")' "\$W" || fail "pod history"
expect_nothing_left "after the job"

# ---- 2. nothing fits: the application waits, its pods are never recreated
timeout 60 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster --name unsched-none \
    --conf spark.executor.memory=100g --conf spark.kubernetes.submission.waitAppCompletion=false \
    --class slow "$BUILD/tests/jobs/testjobs.so" 10 >"$T/out2" 2>"$T/err2" || { cat "$T/err2" >&2; fail "submission failed"; }
drv=
for _ in \$(seq 300); do
    drv=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
    [ -n "\$drv" ] && kubectl logs "\$drv" >"$T/driver.log" 2>/dev/null &&
        grep -q "event=executor_pod_unschedulable executor=1 " "$T/driver.log" &&
        grep -q "event=executor_pod_unschedulable executor=2 " "$T/driver.log" && break
    sleep 0.2
done
grep -q "event=executor_pod_unschedulable executor=2 " "$T/driver.log" 2>/dev/null ||
    { tail -20 "$T/driver.log" >&2; fail "the executor pods were not reported unschedulable"; }
# watch past spark.kubernetes.allocation.executor.timeout: the same two pods, Pending
for _ in \$(seq 35); do
    ids=\$(kubectl get pods -l spark-role=executor -o jsonpath='{range .items[*]}{.metadata.labels.spark-exec-id}:{.status.phase} {end}')
    [ "\$ids" = "1:Pending 2:Pending " ] || fail "executor pods changed while Pending: '\$ids'"
    sleep 0.2
done
kubectl logs "\$drv" >"$T/driver.log" 2>/dev/null
! grep -q "event=executor_pod_timeout\|event=executor_pod_created executor=3 " "$T/driver.log" ||
    fail "Pending pods were recreated: \$(grep -E 'executor_pod_(timeout|created)' "$T/driver.log")"
kubectl delete pod "\$drv" --wait=false >/dev/null
expect_nothing_left "after the driver pod was deleted"
echo "inner ok"
INNER
k8s_run_inner 150 --nodes 1 --node-memory 2Gi
echo "PASS: $K8S_TEST"
