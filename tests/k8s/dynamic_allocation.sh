#!/usr/bin/env bash
# k8s/dynamic_allocation.sh — dynamic allocation on kubesim (client mode, process kubelet):
# sleep.so 64 200 (a 1-task stage, then 64 tasks of 200 ms) with maxExecutors=8, minExecutors=1,
# one core per executor. The event log shows the target rising above 1 (never above 8), then
# falling to 1 when the work is done; every executor beyond the one kept is removed as idle while
# the application still runs (it lingers), and its pod is deleted before it ends (kubesim's pod
# history), labelled spark.kubernetes.executor.decommissionLabel first. The output is right, and
# nothing is left afterwards. Outcomes only: the ramp's shape (1, 2, 4, ... per backlog round)
# depends on timing and is checked on the pure policy (tests/unit/sched/test_allocation_policy.c).
# Without an allocation manager the target never changes and the test fails.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev"

cat >"$T/inner.sh" <<INNER
timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name dynalloc \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.cores=1 \
    --conf spark.dynamicAllocation.enabled=true --conf spark.dynamicAllocation.minExecutors=1 \
    --conf spark.dynamicAllocation.maxExecutors=8 \
    --conf spark.dynamicAllocation.executorIdleTimeout=1s \
    --conf spark.dynamicAllocation.shuffleTracking.timeout=1s \
    --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.kubernetes.executor.decommissionLabel=spark-decommissioning \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev" \
    "$BUILD/examples/sleep.so" 64 200 12000 >"$T/out" 2>"$T/err" ||
    { tail -20 "$T/err" >&2; fail "the application failed"; }
grep -q "^tasks run: 64\$" "$T/out" || fail "wrong output: \$(cat "$T/out")"
log=$T/ev.json
"$BUILD/tests/cat_event_log" "$T"/ev/* >"\$log" || fail "cannot read the event log"
/usr/bin/python3 "$SRC/tests/k8s/lib/eventlog_check.py" scaled "\$log" 1 8 >"$T/ramp" ||
    { cat "$T/ramp" >&2; fail "allocation targets"; }
cat "$T/ramp"
removed=\$(sed -n 's/.*removed=\([0-9]*\).*/\1/p' "$T/ramp")
pods=\$(grep -c "event=executor_pod_created" "$T/err")
# the removed executors' pods were labelled (decommissionLabel): one pod patch each, none failed
# (the kubelets' status patches are counted apart, under subresource="status")
patches=\$(kubectl get --raw /metrics | awk '/^apiserver_request_total/ && /verb="PATCH"/ && /resource="pods"/ && /subresource=""/ && /code="200"/ { n += \$NF } END { print n + 0 }')
[ "\$patches" -eq "\$removed" ] || fail "expected \$removed pod label patches for the removed executors, the API server saw \$patches"
grep -q "decommission_label_failed" "$T/err" && fail "a decommission label could not be set"
# the idle executors' pods went before the application ended
end_ms=\$(/usr/bin/python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e["Event"] == "SparkListenerApplicationEnd": print(e["Timestamp"])' "\$log")
[ -n "\$end_ms" ] || fail "no application end in the event log"
early=\$(pod_history | /usr/bin/python3 -c 'import json,sys
end = int(sys.argv[1])
pods = [p for p in json.load(sys.stdin)["pods"] if "-exec-" in p["name"]]
print(sum(1 for p in pods if p.get("deletedMs") and p["deletedMs"] < end), len(pods))' "\$end_ms")
[ "\$early" = "\$((pods - 1)) \$pods" ] || { grep -E "allocation|executor_(registered|refused|pod|lost|removed)" "$T/err" | tail -60 >&2; fail "expected all but the kept executor's pod deleted before the application ended, got (deleted, pods) = \$early"; }
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 170
echo "PASS: $K8S_TEST"
