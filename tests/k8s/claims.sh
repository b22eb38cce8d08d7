#!/usr/bin/env bash
# k8s/claims.sh — executors' on-demand PersistentVolumeClaims (issue #10 item 9): executor local
# dirs on spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1 with
# claimName=OnDemand, storage class cspark-test, sizeLimit 1Gi, a user label.
#  1. cluster mode (a driver pod: the claims are the driver's): while the job runs, each executor
#     pod mounts `<pod>-pvc-<index>`, which exists with spark-app-selector and the user label,
#     ReadWriteOncePod, the storage class and size, one controller owner reference to the driver
#     pod; executor 1's pod is deleted mid-job and its replacement (executor 3) takes executor 1's
#     claim instead of a new one (spark.kubernetes.driver.reusePersistentVolumeClaim), so only two
#     claims ever exist; the shuffle job's answer is right; the driver's stop deletes the claims.
#  2. client mode (no driver pod): the claims are owned by their executor pods; the answer is
#     right; nothing is left (claims included), also after SIGTERM to cspark-submit mid-job.
#  3. a bad storage class or size: one line naming the key, a non-zero exit, nothing created, in
#     cluster and client mode.
# On the real control plane the claims bind to hostPath PersistentVolumes of a no-provisioner
# StorageClass made here; kubesim's scheduler keeps a pod Pending until its claim exists.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
type pod_history >/dev/null 2>&1 || pod_history() { kubectl get --raw /kubesim/pod-history; }
V=spark.kubernetes.executor.volumes.persistentVolumeClaim.spark-local-dir-1
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf spark.kubernetes.report.interval=200ms
        --conf \$V.mount.path=/data --conf \$V.options.claimName=OnDemand
        --conf \$V.options.storageClass=cspark-test --conf \$V.options.sizeLimit=1Gi
        --conf \$V.label.tier=scratch)
if [ "\${K8S_CLUSTER:-kubesim}" = real ]; then
    # static volumes for the claims: no provisioner runs here
    {
        printf 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: cspark-test}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: Immediate\n'
        for i in 1 2 3 4 5 6; do
            printf -- '---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: cspark-test-%s}\nspec: {storageClassName: cspark-test, capacity: {storage: 1Gi}, accessModes: [ReadWriteOncePod], persistentVolumeReclaimPolicy: Retain, hostPath: {path: /tmp/cspark-test-pv-%s}}\n' \$i \$i
        done
    } | kubectl apply -f - >/dev/null || fail "cannot make the test's StorageClass and volumes"
    # the claims bind only to volumes the volume controller has seen and made Available
    for i in 1 2 3 4 5 6; do
        kubectl wait --for=jsonpath='{.status.phase}'=Available pv/cspark-test-\$i --timeout=120s >/dev/null ||
            fail "volume cspark-test-\$i never became Available: \$(kubectl get pv -o wide)"
    done
fi
# what the cluster held, for a failure's report
cluster_state() {
    kubectl get pods,pvc,pv -o wide 2>&1 | sed 's/^/  /'
    kubectl get events --sort-by=.lastTimestamp 2>&1 | tail -n 25 | sed 's/^/  /'
}
pvcs() { kubectl get pvc -o name 2>/dev/null | grep -c . || true; }
# check_claims OWNER_KIND: every executor pod's claim as Spark makes it; prints "pod claim" lines
check_claims() {
    kubectl get pods,pvc -o json | /usr/bin/python3 -c '
import json, sys
owner_kind = sys.argv[1]
items = json.load(sys.stdin)["items"]
pods = {p["metadata"]["name"]: p for p in items if p["kind"] == "Pod"}
claims = {c["metadata"]["name"]: c for c in items if c["kind"] == "PersistentVolumeClaim"}
execs = [p for p in pods.values() if p["metadata"]["labels"].get("spark-role") == "executor"
         and not p["metadata"].get("deletionTimestamp")]
assert execs, "no executor pod"
for p in execs:
    vol = [v for v in p["spec"]["volumes"] if v["name"] == "spark-local-dir-1"]
    assert vol and "persistentVolumeClaim" in vol[0], "no claim volume in " + p["metadata"]["name"]
    name = vol[0]["persistentVolumeClaim"]["claimName"]
    c = claims.get(name)
    assert c, "claim %s of %s does not exist" % (name, p["metadata"]["name"])
    md, spec = c["metadata"], c["spec"]
    app = p["metadata"]["labels"]["spark-app-selector"]
    assert md["labels"].get("spark-app-selector") == app and md["labels"].get("tier") == "scratch", md["labels"]
    assert spec["accessModes"] == ["ReadWriteOncePod"], spec
    assert spec.get("storageClassName") == "cspark-test", spec
    assert spec["resources"]["requests"]["storage"] == "1Gi", spec
    refs = md.get("ownerReferences", [])
    assert len(refs) == 1 and refs[0]["kind"] == "Pod" and refs[0].get("controller"), refs
    if owner_kind == "driver":
        drv = [d for d in pods.values() if d["metadata"]["labels"].get("spark-role") == "driver"][0]
        assert refs[0]["name"] == drv["metadata"]["name"] and refs[0]["uid"] == drv["metadata"]["uid"], refs
    else:
        assert refs[0]["name"] == p["metadata"]["name"] and refs[0]["uid"] == p["metadata"]["uid"], refs
    env = {e["name"]: e.get("value") for e in p["spec"]["containers"][0].get("env", [])}
    assert env.get("SPARK_LOCAL_DIRS") == "/data", env.get("SPARK_LOCAL_DIRS")
    print(p["metadata"]["name"], name)
' "\$1"
}

# ---- 1. cluster mode: claims owned by the driver pod, reused by a replacement executor
timeout 150 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name claims \
    --conf spark.task.maxFailures=8 --class slow_shuffle "$BUILD/tests/jobs/testjobs.so" 4000 \
    >"$T/c.out" 2>"$T/c.err" &
SUB=\$!
drv=
for _ in \$(seq 300); do
    drv=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}' 2>/dev/null || true)
    if [ -n "\$drv" ]; then
        kubectl logs "\$drv" >"$T/driver.log" 2>/dev/null || true
        grep -q "event=executor_registered executor=1" "$T/driver.log" &&
            grep -q "event=executor_registered executor=2" "$T/driver.log" && break
    fi
    kill -0 \$SUB 2>/dev/null || break
    sleep 0.2
done
grep -q "event=executor_registered executor=2" "$T/driver.log" 2>/dev/null ||
    { tail -n 20 "$T/c.err" >&2; grep -E "executor|claim" "$T/driver.log" | tail -n 30 >&2; cluster_state >&2
      fail "cluster mode: the executors never registered"; }
check_claims driver >"$T/claims1" || fail "cluster mode: claims while the job runs"
cat "$T/claims1"
[ "\$(pvcs)" -eq 2 ] || fail "cluster mode: \$(pvcs) claims, want 2: \$(kubectl get pvc -o name)"
claim1=\$(awk '/-exec-1 / { print \$2 }' "$T/claims1")
# Spark's name: <pod>-pvc-<the volume's index among the executor's volumes> (the test frame's
# hostPath volumes come first)
case "\$claim1" in *-exec-1-pvc-[0-9]*) ;; *) fail "executor 1's claim is '\$claim1', want <pod>-pvc-<index>" ;; esac
kubectl delete pod -l spark-role=executor,spark-exec-id=1 --wait=false >/dev/null || fail "kubectl delete failed"
rc=0
wait \$SUB || rc=\$?
kubectl logs "\$drv" >"$T/driver.log" 2>&1 || true
[ \$rc -eq 0 ] || { tail -n 20 "$T/c.err" "$T/driver.log" >&2; fail "cluster mode: the job failed (exit \$rc)"; }
grep -q "keys=8 sum=28" "$T/driver.log" || fail "cluster mode: wrong answer: \$(grep keys= "$T/driver.log")"
grep -q "event=executor_pod_created executor=3 .*claims=\$claim1 reused=1" "$T/driver.log" ||
    { grep -E "executor_pod_created|claim" "$T/driver.log" >&2; fail "executor 3 did not take executor 1's claim"; }
[ "\$(grep -c "event=claim_created" "$T/driver.log")" -eq 2 ] ||
    fail "claims created: \$(grep -c "event=claim_created" "$T/driver.log"), want 2 (one per executor, none for the replacement)"
pod_history | grep -q -- '-exec-3"' || fail "no executor 3 in the pod history"
for _ in \$(seq 100); do [ "\$(pvcs)" -eq 0 ] && break; sleep 0.2; done
[ "\$(pvcs)" -eq 0 ] || fail "cluster mode: claims left after the driver stopped: \$(kubectl get pvc -o name)"
kubectl delete pods --all >/dev/null
expect_nothing_left "after cluster mode"

# ---- 2. client mode: no driver pod, so each claim is its executor pod's
timeout 120 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name claims-client \
    --class slow_shuffle "$BUILD/tests/jobs/testjobs.so" 2500 >"$T/l.out" 2>"$T/l.err" &
SUB=\$!
for _ in \$(seq 300); do
    grep -q "event=executor_registered executor=2" "$T/l.err" && break
    kill -0 \$SUB 2>/dev/null || break
    sleep 0.1
done
check_claims executor >"$T/claims2" || { wait \$SUB; fail "client mode: claims while the job runs"; }
rc=0
wait \$SUB || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/l.err" >&2; fail "client mode: the job failed (exit \$rc)"; }
grep -q "^keys=8 sum=28\$" "$T/l.out" || fail "client mode: wrong answer: \$(cat "$T/l.out")"
for _ in \$(seq 100); do [ "\$(pvcs)" -eq 0 ] && break; sleep 0.2; done
[ "\$(pvcs)" -eq 0 ] || fail "client mode: claims left: \$(kubectl get pvc -o name)"
expect_nothing_left "after client mode"
# interrupted: SIGTERM to the client-mode driver removes its claims too
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name claims-term \
    --class slow_shuffle "$BUILD/tests/jobs/testjobs.so" 4000 >/dev/null 2>"$T/t.err" &
SUB=\$!
for _ in \$(seq 300); do grep -q "event=claim_created" "$T/t.err" && break; sleep 0.1; done
[ "\$(pvcs)" -gt 0 ] || fail "client mode: no claim before SIGTERM"
kill -TERM \$SUB
rc=0
wait \$SUB || rc=\$?
[ \$rc -eq 143 ] || fail "client mode after SIGTERM: exit \$rc, want 143"
for _ in \$(seq 100); do [ "\$(pvcs)" -eq 0 ] && break; sleep 0.2; done
[ "\$(pvcs)" -eq 0 ] || fail "client mode: claims left after SIGTERM: \$(kubectl get pvc -o name)"
expect_nothing_left "after SIGTERM"

# ---- 3. bad values: refused before anything exists
refused() { # MODE VALUE-KEY VALUE PATTERN
    local rc=0
    timeout 60 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode "\$1" --conf "\$V.options.\$2=\$3" \
        "$BUILD/examples/pi.so" 2 >"$T/bad.out" 2>"$T/bad.err" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$1 \$2=\$3: exit status \$rc"
    [ "\$(grep -c . "$T/bad.err")" -eq 1 ] || fail "\$1 \$2=\$3: expected one line, got: \$(cat "$T/bad.err")"
    grep -q -- "\$V.options.\$2: '\$3'.*\$4" "$T/bad.err" || fail "\$1 \$2=\$3: unclear: \$(cat "$T/bad.err")"
    echo "ok \$1 \$2: \$(cat "$T/bad.err")"
    [ -z "\$(objects 2>/dev/null || kubectl get pods,services,configmaps,secrets -o name)" ] && [ "\$(pvcs)" -eq 0 ] ||
        fail "\$1 \$2=\$3 left objects: \$(kubectl get pods,services,configmaps,secrets,pvc -o name)"
}
refused cluster storageClass Fast_SSD "expected a StorageClass name"
refused client storageClass Fast_SSD "expected a StorageClass name"
refused cluster sizeLimit 10GB "expected a positive quantity"
refused client sizeLimit 0 "expected a positive quantity"
echo "inner ok"
INNER
k8s_run_inner 240
grep '^ok ' "$T/run.log"
echo "PASS: $K8S_TEST"
