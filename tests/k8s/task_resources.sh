#!/usr/bin/env bash
# k8s/task_resources.sh — a GPU-shaped custom resource on Kubernetes, as Spark's: every node
# advertises the extended resource example.com/gpu (the node agents' --node-resource, as a device
# plugin would), executor pods ask for spark.executor.resource.gpu.amount of it in their limits
# (<vendor>/<name>), each executor runs spark.executor.resource.gpu.discoveryScript in its pod (here:
# two addresses unique to that executor) and reports them, and tasks asking for
# spark.task.resource.gpu.amount=1 each get one of their executor's addresses through
# cspark_task_resources — never one another running task holds (O_EXCL marks in the shared test
# directory while a task runs). The job's 24 records all come back; nothing is left.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/held" "$T/disc"
cat >"$T/disc/discover.sh" <<'SH'
#!/bin/sh
# a pair of addresses no other executor gets: e<N>-0, e<N>-1 (mkdir is atomic)
dir=$(dirname "$0")
n=0
until mkdir "$dir/e$n" 2>/dev/null; do n=$((n + 1)); done
echo "{\"name\": \"gpu\", \"addresses\": [\"e$n-0\", \"e$n-1\"]}"
SH
chmod 755 "$T/disc/discover.sh"
chmod 1777 "$T/held" "$T/disc"

cat >"$T/inner.sh" <<INNER
step "nodes advertise example.com/gpu"
kubectl get nodes -o json | /usr/bin/python3 -c '
import json, sys
caps = [n["status"]["capacity"].get("example.com/gpu") for n in json.load(sys.stdin)["items"]]
sys.exit(0 if caps and all(c == "4" for c in caps) else "node capacities: %s" % caps)' ||
    fail "the nodes do not advertise example.com/gpu=4"
step "submit: 2 executors with 2 gpus each, one gpu per task"
rc=0
timeout 240 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name gpus \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.executor.cores=2 --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.kubernetes.executor.deleteOnTermination=false \
    --conf spark.executor.resource.gpu.amount=2 --conf spark.executor.resource.gpu.vendor=example.com \
    --conf spark.executor.resource.gpu.discoveryScript="$T/disc/discover.sh" \
    --conf spark.task.resource.gpu.amount=1 \
    --class gpu_tasks "$BUILD/tests/jobs/resourcejobs.so" "$T/held" 1 1 >"$T/out" 2>"$T/err" </dev/null || rc=\$?
[ \$rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the application failed (exit \$rc)"; }
grep -q "^records=24\$" "$T/out" || fail "not every record came back: \$(tail -3 "$T/out")"
/usr/bin/python3 - "$T/out" <<'PY' || fail "tasks were given the wrong addresses"
import re, sys
lines = [l.split("=", 1)[1].strip() for l in open(sys.argv[1]) if l.startswith("addresses=")]
assert len(lines) == 24, lines
bad = [l for l in lines if not re.fullmatch(r"e[0-9]+-[01]", l)]
assert not bad, bad
print("addresses used: %s" % sorted(set(lines)))
PY
step "executor pods asked the nodes for the resource"
kubectl get pods -l spark-role=executor -o json | /usr/bin/python3 -c '
import json, sys
pods = json.load(sys.stdin)["items"]
lims = [c["resources"]["limits"].get("example.com/gpu") for p in pods for c in p["spec"]["containers"]]
sys.exit(0 if pods and all(l == "2" for l in lims) else "executor limits: %s" % lims)' ||
    fail "executor pods do not ask for example.com/gpu=2"
kubectl delete pods -l spark-role=executor --wait=false >/dev/null
expect_nothing_left gpus
echo "inner ok"
INNER
k8s_run_inner 260 --node-resource example.com/gpu=4
echo "PASS: $K8S_TEST"
