#!/usr/bin/env bash
# k8s/shuffle_recovery.sh — shuffle files recovered from a reused executor claim (issue #28 item 3,
# Spark's KubernetesLocalDiskShuffleDataIO): cluster mode, 2 one-core executors whose local dir is
# an OnDemand claim (spark-local-dir-1), spark.shuffle.sort.io.plugin.class set to Spark's
# org.apache.spark.shuffle.KubernetesLocalDiskShuffleDataIO, the event log on. The job
# (shuffle_then_wait) runs a shuffle of 4 map tasks, collects it, waits for a file, and collects it
# again. Between the two jobs executor 1's pod is deleted: its replacement (executor 3) takes
# executor 1's claim, finds executor 1's shuffle files there and registers them with the driver
# before the file is made. Then:
#  - both answers are exact, and the map function computed each of the 32 records once (an
#    accumulator: no map output was computed again);
#  - the event log shows every stage with one attempt and no map task run again;
#  - the driver logged the outputs recovered at executor 3, as many as executor 1 held.
# Also: another plugin class is refused with one line, and so is the Kubernetes one without
# spark.kubernetes.driver.reusePersistentVolumeClaim; nothing is created either time.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev"
chmod 1777 "$T/ev"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
CHECK="/usr/bin/python3 $SRC/tests/k8s/lib/eventlog_check.py"
V=spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1
PLUGIN=org.apache.spark.shuffle.KubernetesLocalDiskShuffleDataIO
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf spark.scheduler.minRegisteredResourcesRatio=1.0
        --conf \$V.mount.path=/data --conf \$V.options.claimName=OnDemand
        --conf \$V.options.storageClass=cspark-test --conf \$V.options.sizeLimit=1Gi)
if [ "\${K8S_CLUSTER:-kubesim}" = real ]; then
    # static volumes for the claims: no provisioner runs here
    {
        printf 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: cspark-test}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: Immediate\n'
        for i in 1 2 3 4; do
            printf -- '---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: cspark-rec-%s}\nspec: {storageClassName: cspark-test, capacity: {storage: 1Gi}, accessModes: [ReadWriteOncePod], persistentVolumeReclaimPolicy: Retain, hostPath: {path: /tmp/cspark-rec-pv-%s}}\n' \$i \$i
        done
    } | kubectl apply -f - >/dev/null || fail "cannot make the test's StorageClass and volumes"
    for i in 1 2 3 4; do
        kubectl wait --for=jsonpath='{.status.phase}'=Available pv/cspark-rec-\$i --timeout=120s >/dev/null ||
            fail "volume cspark-rec-\$i never became Available: \$(kubectl get pv -o wide)"
    done
fi
cluster_state() {
    kubectl get pods,pvc,pv -o wide 2>&1 | sed 's/^/  /'
    kubectl get events --sort-by=.lastTimestamp 2>&1 | tail -n 25 | sed 's/^/  /'
}
pvcs() { kubectl get pvc -o name 2>/dev/null | grep -c . || true; }
driver_log() { kubectl logs "\$drv" >"$T/driver.log" 2>/dev/null || true; }

# ---- refusals: before anything exists
refused() { # PATTERN CONF...
    local pattern=\$1 rc=0
    shift
    timeout 60 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster "\$@" "$BUILD/examples/pi.so" 2 \
        >"$T/bad.out" 2>"$T/bad.err" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$*: exit status \$rc"
    [ "\$(grep -c . "$T/bad.err")" -eq 1 ] || fail "\$*: expected one line, got: \$(cat "$T/bad.err")"
    grep -q -- "\$pattern" "$T/bad.err" || fail "\$*: unclear: \$(cat "$T/bad.err")"
    echo "ok refused: \$(cat "$T/bad.err")"
    [ -z "\$(objects)" ] && [ "\$(pvcs)" -eq 0 ] || fail "\$* left objects: \$(objects)"
}
step "refusals"
refused "spark.shuffle.sort.io.plugin.class.*org.example.RemoteShuffleDataIO" \
    --conf spark.shuffle.sort.io.plugin.class=org.example.RemoteShuffleDataIO
refused "needs spark.kubernetes.driver.reusePersistentVolumeClaim=true" \
    --conf spark.shuffle.sort.io.plugin.class=\$PLUGIN \
    --conf spark.kubernetes.driver.reusePersistentVolumeClaim=false

# ---- recovery
step "first job"
timeout 200 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name recovery \
    --conf spark.shuffle.sort.io.plugin.class=\$PLUGIN \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev" \
    --class shuffle_then_wait "$BUILD/tests/jobs/recoveryjobs.so" "$T/go" 200 \
    >"$T/c.out" 2>"$T/c.err" &
SUB=\$!
drv=
first_job_done() {
    drv=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
    [ -n "\$drv" ] || return 1
    driver_log
    grep -q "^job=1 " "$T/driver.log" || { kill -0 \$SUB 2>/dev/null || return 0; return 1; }
}
wait_until 120 "the first job" first_job_done ||
    { tail -n 20 "$T/c.err" >&2; cluster_state >&2; fail "the first job did not finish"; }
grep -q "^job=1 keys=8 sum=496\$" "$T/driver.log" ||
    { tail -n 30 "$T/driver.log" "$T/c.err" >&2; fail "first job: wrong answer or failed: \$(grep job= "$T/driver.log")"; }
claim1=\$(kubectl get pod -l spark-role=executor,spark-exec-id=1 -o jsonpath='{.items[0].spec.volumes[?(@.name=="spark-local-dir-1")].persistentVolumeClaim.claimName}')
[ -n "\$claim1" ] || fail "executor 1 has no claim"
step "executor 1 deleted"
kubectl delete pod -l spark-role=executor,spark-exec-id=1 --wait=false >/dev/null || fail "kubectl delete failed"
recovered() { driver_log; grep -q "event=shuffle_recovered executor=3 " "$T/driver.log"; }
wait_until 120 "executor 3 to register the outputs it recovered" recovered ||
    { grep -E "executor|claim|recover" "$T/driver.log" | tail -n 30 >&2; cluster_state >&2
      kubectl logs -l spark-role=executor,spark-exec-id=3 --tail=40 >&2; fail "executor 3 recovered nothing"; }
line=\$(grep "event=shuffle_recovered executor=3 " "$T/driver.log")
echo "ok \$line"
n=\$(echo "\$line" | sed -n 's/.*map_outputs=\([0-9]*\) registered=\([0-9]*\).*/\1 \2/p')
set -- \$n
[ "\${1:-0}" -ge 1 ] && [ "\$1" = "\${2:-}" ] || fail "recovered outputs: \$line"
grep -q "event=executor_pod_created executor=3 .*claims=\$claim1 reused=1" "$T/driver.log" ||
    fail "executor 3 did not take executor 1's claim \$claim1"
touch "$T/go"
step "second job"
rc=0
wait \$SUB || rc=\$?
driver_log
[ \$rc -eq 0 ] || { tail -n 30 "$T/c.err" "$T/driver.log" >&2; fail "the job failed (exit \$rc)"; }
grep -q "^job=2 keys=8 sum=496\$" "$T/driver.log" || fail "second job: wrong answer: \$(grep job= "$T/driver.log")"
grep -q "^map_records_computed=32\$" "$T/driver.log" ||
    fail "map records computed again: \$(grep map_records_computed "$T/driver.log")"
"$BUILD/tests/cat_event_log" "$T"/ev/* >"$T/ev.json" || fail "cannot read the event log"
\$CHECK attempts "$T/ev.json" || fail "a stage ran again"
\$CHECK reran "$T/ev.json" >/dev/null && fail "map tasks ran again: \$(\$CHECK reran "$T/ev.json")"
echo "ok no map task ran again: \$(\$CHECK attempts "$T/ev.json")"
wait_until 60 "the claims to be deleted" test "\$(pvcs)" -eq 0 || fail "claims left: \$(kubectl get pvc -o name)"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the job"
echo "inner ok"
INNER
k8s_run_inner 300
grep '^ok ' "$T/run.log"
echo "PASS: $K8S_TEST"
