#!/usr/bin/env bash
# k8s/driver_claims.sh — the driver's OnDemand PersistentVolumeClaim (issue #28 item 3, Spark's
# MountVolumesFeatureStep for the driver): cluster mode with
# spark.kubernetes.driver.volumes.persistentVolumeClaim.spark-local-dir-1 claimName=OnDemand,
# storage class cspark-test, sizeLimit 1Gi and a user label. cspark-submit creates the claim
# `<prefix>-driver-pvc-<index>` after the driver pod; while the job runs the claim exists with
# spark-app-selector and the label, ReadWriteOncePod, the class and size, one controller owner
# reference to the driver pod, which mounts it as its local dir (SPARK_LOCAL_DIRS); the shuffle
# job's answer is right; deleting the finished driver pod removes the claim (garbage collector).
# A missing sizeLimit is refused with one line, nothing created.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
V=spark.kubernetes.driver.volumes.persistentVolumeClaim.spark-local-dir-1
COMMON=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf \$V.mount.path=/scratch --conf \$V.options.claimName=OnDemand
        --conf \$V.options.storageClass=cspark-test --conf \$V.label.tier=driver-scratch)
if [ "\${K8S_CLUSTER:-kubesim}" = real ]; then
    {
        printf 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: cspark-test}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: Immediate\n'
        printf -- '---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: cspark-drv-1}\nspec: {storageClassName: cspark-test, capacity: {storage: 1Gi}, accessModes: [ReadWriteOncePod], persistentVolumeReclaimPolicy: Retain, hostPath: {path: /tmp/cspark-drv-pv-1}}\n'
    } | kubectl apply -f - >/dev/null || fail "cannot make the test's StorageClass and volume"
    kubectl wait --for=jsonpath='{.status.phase}'=Available pv/cspark-drv-1 --timeout=120s >/dev/null ||
        fail "volume cspark-drv-1 never became Available: \$(kubectl get pv -o wide)"
fi
pvcs() { kubectl get pvc -o name 2>/dev/null | grep -c . || true; }

step "refused without sizeLimit"
rc=0
timeout 60 "\$SUBMIT" "\${COMMON[@]}" "$BUILD/examples/pi.so" 2 >"$T/bad.out" 2>"$T/bad.err" || rc=\$?
[ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "no sizeLimit: exit status \$rc"
[ "\$(grep -c . "$T/bad.err")" -eq 1 ] || fail "no sizeLimit: expected one line, got: \$(cat "$T/bad.err")"
grep -q "\$V.options.sizeLimit is required" "$T/bad.err" || fail "no sizeLimit: unclear: \$(cat "$T/bad.err")"
echo "ok refused: \$(cat "$T/bad.err")"
[ -z "\$(objects)" ] && [ "\$(pvcs)" -eq 0 ] || fail "no sizeLimit left objects: \$(objects) \$(kubectl get pvc -o name)"

step "job with the driver's claim"
timeout 150 "\$SUBMIT" "\${COMMON[@]}" --conf \$V.options.sizeLimit=1Gi --name drvclaim \
    --class slow_shuffle "$BUILD/tests/jobs/testjobs.so" 1500 >"$T/c.out" 2>"$T/c.err" &
SUB=\$!
drv=
running() {
    drv=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
    [ -n "\$drv" ] && [ "\$(kubectl get pod "\$drv" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]
}
wait_until 120 "the driver pod to run" running ||
    { tail -n 20 "$T/c.err" >&2; kubectl get pods,pvc,pv -o wide >&2; fail "the driver never ran"; }
kubectl get pods,pvc -o json | /usr/bin/python3 -c '
import json, sys
items = json.load(sys.stdin)["items"]
drv = [p for p in items if p["kind"] == "Pod" and p["metadata"]["labels"].get("spark-role") == "driver"][0]
claims = {c["metadata"]["name"]: c for c in items if c["kind"] == "PersistentVolumeClaim"}
vol = [v for v in drv["spec"]["volumes"] if v["name"] == "spark-local-dir-1"]
assert vol and "persistentVolumeClaim" in vol[0], drv["spec"]["volumes"]
name = vol[0]["persistentVolumeClaim"]["claimName"]
prefix = drv["metadata"]["name"][: -len("-driver")]
assert name.startswith(prefix + "-driver-pvc-"), name
c = claims.get(name)
assert c, "claim %s does not exist: %s" % (name, list(claims))
md, spec = c["metadata"], c["spec"]
assert md["labels"].get("spark-app-selector") == drv["metadata"]["labels"]["spark-app-selector"], md["labels"]
assert md["labels"].get("tier") == "driver-scratch", md["labels"]
assert spec["accessModes"] == ["ReadWriteOncePod"] and spec.get("storageClassName") == "cspark-test", spec
assert spec["resources"]["requests"]["storage"] == "1Gi", spec
refs = md.get("ownerReferences", [])
assert len(refs) == 1 and refs[0]["kind"] == "Pod" and refs[0].get("controller"), refs
assert refs[0]["name"] == drv["metadata"]["name"] and refs[0]["uid"] == drv["metadata"]["uid"], refs
env = {e["name"]: e.get("value") for e in drv["spec"]["containers"][0].get("env", [])}
assert env.get("SPARK_LOCAL_DIRS") == "/scratch", env.get("SPARK_LOCAL_DIRS")
print("ok claim", name, "owned by", drv["metadata"]["name"])
' || fail "the driver's claim"
rc=0
wait \$SUB || rc=\$?
kubectl logs "\$drv" >"$T/driver.log" 2>&1 || true
[ \$rc -eq 0 ] || { tail -n 20 "$T/c.err" "$T/driver.log" >&2; fail "the job failed (exit \$rc)"; }
grep -q "keys=8 sum=28" "$T/driver.log" || fail "wrong answer: \$(grep keys= "$T/driver.log")"
grep -q "event=claim_created claim=.*-driver-pvc-" "$T/c.err" || fail "cspark-submit did not log the claim it made"
[ "\$(pvcs)" -eq 1 ] || fail "claims while the finished driver pod exists: \$(kubectl get pvc -o name), want its one"
step "driver pod deleted"
kubectl delete pod "\$drv" >/dev/null || fail "kubectl delete failed"
wait_until 60 "the claim to go with its driver pod" test "\$(pvcs)" -eq 0 ||
    fail "claim left after the driver pod was deleted: \$(kubectl get pvc -o name)"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the job"
echo "inner ok"
INNER
k8s_run_inner 240
grep '^ok ' "$T/run.log"
echo "PASS: $K8S_TEST"
