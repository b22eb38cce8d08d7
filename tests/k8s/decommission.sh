#!/usr/bin/env bash
# k8s/decommission.sh — an executor pod deleted during a job with a shuffle (client mode on
# kubesim, process kubelet, 2 one-core executors; slow_shuffle: both executors hold a map output
# while the slow map tasks run, and the reduce stage takes a while too):
#  - with spark.decommission.enabled and spark.storage.decommission.enabled, the executor gets
#    SIGTERM, finishes its task, its map outputs move to the other executor, and it exits 0: every
#    stage ran one attempt (event log), the output is right;
#  - with decommissioning off, the same deletion kills the executor (SIGTERM, exit 143): its map
#    outputs are lost and their tasks run again, and the output is still right.
# Nothing is left in the namespace after either run.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev-on" "$T/ev-off"

cat >"$T/inner.sh" <<INNER
CHECK="/usr/bin/python3 $SRC/tests/k8s/lib/eventlog_check.py"
# run NAME DECOMMISSION: slow_shuffle with executor 1's pod deleted once the slow tasks run
run() {
    local name=\$1 decom=\$2
    timeout 120 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name "decom-\$name" \
        --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
        --conf spark.kubernetes.allocation.batch.delay=200ms \
        --conf spark.decommission.enabled=\$decom --conf spark.storage.decommission.enabled=\$decom \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-\$name" \
        --class slow_shuffle "$BUILD/tests/jobs/testjobs.so" 2000 >"$T/\$name.out" 2>"$T/\$name.err" &
    local sub=\$!
    for _ in \$(seq 600); do
        grep -q "stage=0 attempt=0 .*event=submitted" "$T/\$name.err" && break
        kill -0 \$sub 2>/dev/null || break
        sleep 0.1
    done
    grep -q "event=executor_registered executor=1" "$T/\$name.err" || { tail -20 "$T/\$name.err" >&2; fail "\$name: executor 1 never registered"; }
    sleep 1.5 # the quick map tasks are done, the slow ones run
    pod=\$(kubectl get pods -l spark-role=executor,spark-exec-id=1 -o name)
    [ -n "\$pod" ] || fail "\$name: no pod for executor 1"
    kubectl delete "\$pod" --wait=false >/dev/null || fail "\$name: kubectl delete failed"
    local rc=0
    wait \$sub || rc=\$?
    [ \$rc -eq 0 ] || { tail -20 "$T/\$name.err" >&2; fail "\$name: the job failed (exit \$rc)"; }
    grep -q "^keys=8 sum=28\$" "$T/\$name.out" || fail "\$name: wrong answer: \$(cat "$T/\$name.out")"
    code=\$(pod_history | /usr/bin/python3 -c 'import json,sys
for p in json.load(sys.stdin)["pods"]:
    if p["name"].startswith("decom-" + sys.argv[1]) and p["name"].endswith("-exec-1"):
        print(p.get("exitCodes", {}).get("spark-kubernetes-executor", "none"))' "\$name")
    expect_nothing_left "\$name"
}

run on true
[ "\$code" = "0" ] || fail "decommissioned executor exited with \$code, expected 0"
grep -q "event=executor_decommissioning executor=1" "$T/on.err" || fail "on: executor 1 was not decommissioned"
grep -q "event=map_output_moved .*from=1 " "$T/on.err" || fail "on: no map output moved off executor 1"
grep -q "event=executor_drained executor=1 map_outputs=2 " "$T/on.err" || fail "on: executor 1 did not hand over both its map outputs"
grep -q "driver event=executor_lost executor=1" "$T/on.err" && fail "on: executor 1 was counted as lost"
grep -q "event=executor_lost executor=1 map_outputs_lost=[1-9]" "$T/on.err" && fail "on: map outputs were lost with executor 1"
"$BUILD/tests/cat_event_log" "$T"/ev-on/* >"$T/ev-on.json" || fail "on: cannot read the event log"
\$CHECK attempts "$T/ev-on.json" || fail "on: a stage ran again"

run off false
[ "\$code" = "143" ] || fail "without decommissioning executor 1 exited with \$code, expected 143 (SIGTERM)"
"$BUILD/tests/cat_event_log" "$T"/ev-off/* >"$T/ev-off.json" || fail "off: cannot read the event log"
\$CHECK reran "$T/ev-off.json" || fail "off: the lost map outputs were not recomputed"
echo "inner ok"
INNER
k8s_run_inner 280
echo "PASS: $K8S_TEST"
