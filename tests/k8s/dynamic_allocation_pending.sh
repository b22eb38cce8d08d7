#!/usr/bin/env bash
# k8s/dynamic_allocation_pending.sh — downscale deletes excess pending pods (Spark's
# ExecutorPodsAllocator rule): kubesim with one node that fits two executor pods (3 GiB; each pod
# asks 1 GiB + 384 MiB overhead). Dynamic allocation raises the target to 4 while sleep.so's 64
# tasks wait; pods 3 and 4 stay Pending (Insufficient memory). When the work is done the target
# falls to 0 and, once older than executorIdleTimeout, the two Pending pods are deleted without
# ever running, while the application still runs; then the idle executors go too. Without the
# downscale rule the Pending pods stay until the application ends, and the test fails.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev"

cat >"$T/inner.sh" <<INNER
timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name dynpending \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.cores=1 \
    --conf spark.dynamicAllocation.enabled=true --conf spark.dynamicAllocation.maxExecutors=4 \
    --conf spark.dynamicAllocation.executorIdleTimeout=1s \
    --conf spark.dynamicAllocation.shuffleTracking.timeout=1s \
    --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev" \
    "$BUILD/examples/sleep.so" 64 200 8000 >"$T/out" 2>"$T/err" ||
    { tail -20 "$T/err" >&2; fail "the application failed"; }
grep -q "^tasks run: 64\$" "$T/out" || fail "wrong output: \$(cat "$T/out")"
grep -q "event=executor_pod_unschedulable executor=3" "$T/err" || fail "executor 3's pod was not Pending as planned"
for id in 3 4; do
    grep -q "event=executor_pod_excess executor=\$id " "$T/err" || fail "the Pending pod of executor \$id was not deleted on downscale"
done
"$BUILD/tests/cat_event_log" "$T"/ev/* >"$T/ev.json" || fail "cannot read the event log"
end_ms=\$(/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["Event"] == "SparkListenerApplicationEnd": print(e["Timestamp"])' "$T/ev.json")
pod_history | /usr/bin/python3 -c 'import json,sys
end = int(sys.argv[1])
pods = {p["name"].rsplit("-", 1)[1]: p for p in json.load(sys.stdin)["pods"] if "-exec-" in p["name"]}
for i in ("3", "4"):
    p = pods.get(i)
    if not p: sys.exit("no pod for executor " + i)
    phases = [x["phase"] for x in p["phases"]]
    if phases != ["Pending"]: sys.exit("executor %s pod phases %s, expected only Pending" % (i, phases))
    if not p.get("deletedMs") or p["deletedMs"] >= end: sys.exit("executor %s pod not deleted before the end" % i)
print("pending pods deleted ok")' "\$end_ms" || fail "pod history"
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 170 --nodes 1 --node-memory 3Gi
echo "PASS: $K8S_TEST"
