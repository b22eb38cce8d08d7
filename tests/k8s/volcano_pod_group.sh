#!/usr/bin/env bash
# k8s/volcano_pod_group.sh — the batch schedulers' feature steps on the real API server, with
# Volcano's PodGroup CRD installed (tests/k8s/crds/volcano-podgroups.yaml; Volcano's scheduler is
# not: the default scheduler places the pods):
#  - spark.kubernetes.{driver,executor}.pod.featureSteps naming Spark's VolcanoFeatureStep and
#    YuniKornFeatureStep, with a PodGroup template (queue, minMember, priorityClassName): the
#    PodGroup <app id>-podgroup passes the server's validation, keeps the template's fields,
#    gets minResources = driver + 2 executors, and is owned by the driver pod; driver and executor
#    pods carry scheduling.k8s.io/group-name and yunikorn.apache.org/app-id, the driver
#    YuniKorn's task groups; the job's count is exact; deleting the driver removes the PodGroup;
#  - a template the server refuses (minMember -1): cspark-submit fails with the server's reason
#    and nothing is left behind.
# The refusal of other classes and the objects' details are unit-tested
# (tests/unit/k8s/test_k8s_batch_scheduler.c).
# k8s-clusters: real (kubesim serves no CustomResourceDefinitions)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/pg.yaml" <<'YAML'
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
spec:
  queue: etl
  minMember: 1
  priorityClassName: batch-high
YAML
cat >"$T/pg-bad.yaml" <<'YAML'
kind: PodGroup
spec:
  minMember: -1
YAML

cat >"$T/inner.sh" <<INNER
STEPS=org.apache.spark.deploy.k8s.features.VolcanoFeatureStep,org.apache.spark.deploy.k8s.features.YuniKornFeatureStep
step "installing the PodGroup CRD"
kubectl apply -f "$SRC/tests/k8s/crds/volcano-podgroups.yaml" >/dev/null || fail "the PodGroup CRD was refused"
kubectl wait --for condition=established --timeout=60s crd/podgroups.scheduling.volcano.sh >/dev/null ||
    fail "the PodGroup CRD was not established"

step "a template the API server refuses"
rc=0
timeout 120 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name pgbad \
    --conf spark.kubernetes.container.image=cspark:dev \
    --conf spark.kubernetes.driver.pod.featureSteps=\$STEPS \
    --conf spark.kubernetes.scheduler.volcano.podGroupTemplateFile="$T/pg-bad.yaml" \
    --class count "$BUILD/tests/jobs/testjobs.so" >"$T/bad.out" 2>"$T/bad.err" || rc=\$?
[ \$rc -ne 0 ] || fail "a PodGroup with minMember -1 was accepted"
grep -q "podgroups" "$T/bad.err" && grep -q "minMember" "$T/bad.err" ||
    { cat "$T/bad.err" >&2; fail "the refusal does not name the PodGroup and its field"; }
[ "\$(wc -l <"$T/bad.err")" -eq 1 ] || { cat "$T/bad.err" >&2; fail "the refusal is not one line"; }
[ -z "\$(kubectl get podgroups -o name)" ] || fail "left behind: \$(kubectl get podgroups -o name)"
expect_nothing_left "after the refused PodGroup"

step "submit with the Volcano and YuniKorn steps"
timeout 240 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name pg \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.driver.pod.featureSteps=\$STEPS \
    --conf spark.kubernetes.executor.pod.featureSteps=\$STEPS \
    --conf spark.kubernetes.scheduler.volcano.podGroupTemplateFile="$T/pg.yaml" \
    --conf spark.kubernetes.report.interval=500ms \
    --class slow "$BUILD/tests/jobs/testjobs.so" 1500 >"$T/out" 2>"$T/err" &
sub=\$!
wait_until 150 "2 running executor pods" sh -c \
    '[ "\$(kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | wc -l)" = 2 ] || ! kill -0 '\$sub
kubectl get pods -o json >"$T/pods.json"
kubectl get podgroups -o json >"$T/pgs.json"
/usr/bin/python3 - "$T/pods.json" "$T/pgs.json" <<'PY' || { wait \$sub; fail "PodGroup or pods: see above"; }
import json, sys
pods = json.load(open(sys.argv[1]))["items"]
pgs = json.load(open(sys.argv[2]))["items"]
drv = [p for p in pods if p["metadata"]["labels"].get("spark-role") == "driver"]
exe = [p for p in pods if p["metadata"]["labels"].get("spark-role") == "executor"]
if len(drv) != 1 or len(exe) != 2:
    sys.exit("expected a driver and 2 executors, got %s" % [p["metadata"]["name"] for p in pods])
drv = drv[0]
app = drv["metadata"]["labels"]["spark-app-selector"]
errs = []
if [g["metadata"]["name"] for g in pgs] != [app + "-podgroup"]:
    sys.exit("PodGroups %s, expected [%s-podgroup]" % ([g["metadata"]["name"] for g in pgs], app))
g = pgs[0]
sp = g["spec"]
if (sp.get("queue"), sp.get("minMember"), sp.get("priorityClassName")) != ("etl", 1, "batch-high"):
    errs.append("template fields lost: %s" % sp)
# driver 1 core + 1408Mi, executors 2 x (1 core + 1408Mi)
if sp.get("minResources") != {"cpu": "3000m", "memory": "4224Mi"}:
    errs.append("minResources %s" % sp.get("minResources"))
owners = [(o["kind"], o["name"]) for o in g["metadata"].get("ownerReferences", [])]
if owners != [("Pod", drv["metadata"]["name"])]: errs.append("PodGroup owners %s" % owners)
for p in [drv] + exe:
    a = p["metadata"].get("annotations", {})
    n = p["metadata"]["name"]
    if a.get("scheduling.k8s.io/group-name") != app + "-podgroup": errs.append("%s: group-name %s" % (n, a))
    if a.get("yunikorn.apache.org/app-id") != app: errs.append("%s: app-id %s" % (n, a))
groups = json.loads(drv["metadata"]["annotations"].get("yunikorn.apache.org/task-groups", "[]"))
if [(t["name"], t["minMember"]) for t in groups] != [("spark-driver", 1), ("spark-executor", 2)]:
    errs.append("task groups %s" % groups)
if errs: sys.exit("; ".join(errs))
print("podgroup %s-podgroup: %s" % (app, sp))
PY
step "the application ends"
rc=0
wait \$sub || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "cspark-submit exited \$rc"; }
kubectl logs -l spark-role=driver --tail=-1 >"$T/driver.log" 2>&1
grep -q "^count=16\$" "$T/driver.log" || { tail -30 "$T/driver.log" >&2; fail "the count is not 16"; }
step "the PodGroup goes with the driver"
kubectl delete pods -l spark-role=driver >/dev/null
wait_until 60 "the PodGroup deleted" sh -c '[ -z "\$(kubectl get podgroups -o name)" ]' ||
    fail "left behind: \$(kubectl get podgroups -o name)"
expect_nothing_left podgroup
kubectl delete -f "$SRC/tests/k8s/crds/volcano-podgroups.yaml" >/dev/null
echo "inner ok"
INNER
k8s_run_inner 300
echo "PASS: $K8S_TEST"
