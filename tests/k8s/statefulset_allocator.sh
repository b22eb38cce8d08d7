#!/usr/bin/env bash
# k8s/statefulset_allocator.sh — spark.kubernetes.allocation.pods.allocator=statefulset (Spark's
# StatefulSetPodsAllocator): a cluster-mode application with 2 executors gets them as the pods of
# one StatefulSet, spark-s-<app id>-0, that the control plane's StatefulSet controller creates:
#  - the set has 2 replicas, Parallel pod management, a selector on Spark's labels, and the
#    driver pod as its owner; its pods carry Spark's labels (spark-app-selector, spark-role=
#    executor, spark-exec-resourceprofile-id) and are named <set>-0 and <set>-1;
#  - executors 1 and 2 (<ordinal + 1>) registered, and the job's count is exact;
#  - after the application, the set and its pods are gone; nothing else is left.
# An allocator class is refused at submission (tests/unit/common/test_conf_k8s_keys.c).
# k8s-clusters: real
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
step "submit with the statefulset allocator"
timeout 240 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name sts \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.pods.allocator=statefulset \
    --conf spark.kubernetes.report.interval=500ms \
    --class slow "$BUILD/tests/jobs/testjobs.so" 1500 >"$T/out" 2>"$T/err" &
sub=\$!
step "the StatefulSet and its 2 pods"
running() { kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | wc -l; }
# (or the submission ended: it failed)
wait_until 150 "a StatefulSet with 2 running executor pods" sh -c \
    '[ "\$(kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | wc -l)" = 2 ] || ! kill -0 '\$sub
[ "\$(running)" = 2 ] ||
    { kubectl get statefulsets,pods -o wide >&2; wait \$sub; tail -20 "$T/err" >&2; fail "no StatefulSet with 2 running pods"; }
kubectl get statefulsets -o json >"$T/sets.json"
kubectl get pods -o json >"$T/pods.json"
/usr/bin/python3 - "$T/sets.json" "$T/pods.json" <<'PY' || { wait \$sub; fail "StatefulSet or pods: see above"; }
import json, sys
sets = json.load(open(sys.argv[1]))["items"]
pods = json.load(open(sys.argv[2]))["items"]
if len(sets) != 1:
    sys.exit("expected one StatefulSet, got %s" % [s["metadata"]["name"] for s in sets])
s = sets[0]
drv = [p for p in pods if p["metadata"]["labels"].get("spark-role") == "driver"][0]
app = drv["metadata"]["labels"]["spark-app-selector"]
name = "spark-s-%s-0" % app
errs = []
if s["metadata"]["name"] != name: errs.append("set name %s, expected %s" % (s["metadata"]["name"], name))
sp = s["spec"]
if sp["replicas"] != 2: errs.append("replicas %s" % sp["replicas"])
if sp.get("podManagementPolicy") != "Parallel": errs.append("podManagementPolicy %s" % sp.get("podManagementPolicy"))
want_sel = {"spark-app-selector": app, "spark-role": "executor", "spark-exec-resourceprofile-id": "0"}
if sp["selector"].get("matchLabels") != want_sel: errs.append("selector %s" % sp["selector"])
owners = [(o["kind"], o["name"]) for o in s["metadata"].get("ownerReferences", [])]
if owners != [("Pod", drv["metadata"]["name"])]: errs.append("owners %s" % owners)
exe = sorted((p for p in pods if p["metadata"]["labels"].get("spark-role") == "executor"),
             key=lambda p: p["metadata"]["name"])
names = [p["metadata"]["name"] for p in exe]
if names != [name + "-0", name + "-1"]: errs.append("executor pods %s" % names)
for p in exe:
    l = p["metadata"]["labels"]
    for k, v in want_sel.items():
        if l.get(k) != v: errs.append("%s: label %s=%s" % (p["metadata"]["name"], k, l.get(k)))
    if "spark-app-name" not in l or "spark-version" not in l:
        errs.append("%s: labels %s" % (p["metadata"]["name"], l))
    if [o["kind"] for o in p["metadata"].get("ownerReferences", [])] != ["StatefulSet"]:
        errs.append("%s: owners %s" % (p["metadata"]["name"], p["metadata"].get("ownerReferences")))
if errs: sys.exit("; ".join(errs))
print("statefulset %s: 2 pods %s" % (name, names))
PY
step "the application ends"
rc=0
wait \$sub || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "cspark-submit exited \$rc"; }
kubectl logs -l spark-role=driver --tail=-1 >"$T/driver.log" 2>&1
grep -q "^count=16\$" "$T/driver.log" || { tail -30 "$T/driver.log" >&2; fail "the count is not 16"; }
for i in 1 2; do
    grep -q "event=executor_registered executor=\$i " "$T/driver.log" ||
        { grep "event=executor" "$T/driver.log" | tail -10 >&2; fail "executor \$i did not register"; }
done
step "the set and its pods are gone"
wait_until 60 "the StatefulSet deleted" sh -c '[ -z "\$(kubectl get statefulsets -o name)" ]' ||
    fail "left behind: \$(kubectl get statefulsets -o name)"
kubectl delete pods -l spark-role=driver >/dev/null
expect_nothing_left statefulset
echo "inner ok"
INNER
k8s_run_inner 300
echo "PASS: $K8S_TEST"
