#!/usr/bin/env bash
# k8s/decommission_rdd_blocks.sh — cached partitions move off an executor whose pod is deleted
# (client mode, 2 one-core executors, cachejobs.so decommission_cached: 8 cached partitions
# counted, then counted again once executor 1 has left): with spark.decommission.enabled and
# spark.storage.decommission.enabled the deleted pod's executor gets SIGTERM, hands its cached
# partitions to executor 2 (the driver records each one moved) and exits 0; the second count
# computes nothing (the accumulator counting computations stays at 8) and no cached block is
# reported lost. Nothing is left in the namespace afterwards.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev"

cat >"$T/inner.sh" <<INNER
step "submit"
timeout 150 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name decom-rdd \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.decommission.enabled=true --conf spark.storage.decommission.enabled=true \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev" \
    --class decommission_cached "$BUILD/tests/jobs/cachejobs.so" 8 "$T/gate" >"$T/out" 2>"$T/err" &
sub=\$!
wait_until 120 "the first count" grep -q '^first ' "$T/out" || { tail -20 "$T/err" >&2; fail "the first count did not finish"; }
grep -qx 'first computations=8' "$T/out" || fail "first count: \$(cat "$T/out")"
wait_until 60 "executor 2 to register" grep -q 'event=executor_registered executor=2' "$T/err" ||
    fail "executor 2 never registered: nothing could take executor 1's blocks"
step "delete executor 1's pod"
pod=\$(kubectl get pods -l spark-role=executor,spark-exec-id=1 -o name)
[ -n "\$pod" ] || fail "no pod for executor 1"
kubectl delete "\$pod" --wait=false >/dev/null || fail "kubectl delete failed"
wait_until 90 "executor 1's blocks to move" grep -q 'event=executor_decommissioned executor=1 action=stop' "$T/err" ||
    { tail -20 "$T/err" >&2; fail "executor 1 was not decommissioned"; }
touch "$T/gate"
rc=0
wait \$sub || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the job failed (exit \$rc)"; }
blocks=\$(grep -o 'event=executor_drained executor=1 map_outputs=0 rdd_blocks=[0-9]*' "$T/err" | sed 's/.*rdd_blocks=//')
[ -n "\$blocks" ] && [ "\$blocks" -ge 1 ] || fail "executor 1 held no cached partition when drained (\$blocks)"
moved=\$(grep -c 'event=rdd_block_moved block=rdd_[0-9]*_[0-9]* from=1 to=2' "$T/err")
[ "\$moved" -eq "\$blocks" ] || fail "\$moved of executor 1's \$blocks cached partitions moved"
grep -qx 'second computations=8 count=1000' "$T/out" ||
    fail "cached partitions were recomputed after the decommission: \$(tail -1 "$T/out")"
grep -q 'event=cached_blocks_lost executor=1' "$T/err" && fail "cached blocks were lost with executor 1"
expect_nothing_left
echo "inner ok"
INNER
k8s_run_inner 240
echo "PASS: $K8S_TEST"
