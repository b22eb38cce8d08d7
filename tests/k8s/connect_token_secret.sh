#!/usr/bin/env bash
# k8s/connect_token_secret.sh — a credential of the driver's conf never reaches a ConfigMap or a
# pod spec (issue 25): `cspark-submit --deploy-mode cluster --conf
# spark.connect.authenticate.token=TOKEN app.py` puts the token in the application's auth Secret
# (key SPARK_CONNECT_AUTHENTICATE_TOKEN), and the driver's container reads it from there through
# secretKeyRef. While the application runs (its program waits for the test), neither the driver's
# ConfigMap nor the executors' one (which the driver makes from its conf) nor any pod spec holds
# the token's value; before the fix both ConfigMaps carried it in spark.properties, readable by
# anyone who may read the namespace's ConfigMaps. With the image cspark:dev the program is a
# PySpark query through the driver's Connect service (which it must authenticate to) and its
# answer is checked; without it (kubesim maps /opt/spark to the build, whose pods see no PySpark
# client) the program's interpreter (spark.pyspark.python) is a script that only waits. Either
# way the driver ends with exit code 0 and, once its pod is deleted, nothing is left.
. "$(dirname "$0")/lib/k8s.sh"
if [ -f "${1:?usage: $0 BUILD_DIR}/image/cspark-dev/config.json" ]; then
    k8s_test_init "$@"
    IMAGE=1
else
    k8s_test_init "$@" --no-image
    IMAGE=0
fi
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
B64=$(printf %s "$TOKEN" | base64 -w0)
mkdir -p "$T/job"
# the program: its answer (a query through the Connect service), then it waits until the test has
# looked (2 min at most)
cat >"$T/job/token_app.py" <<PY
import os, time
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
total = spark.range(100, numPartitions=2).selectExpr("sum(id) AS s").collect()[0]["s"]
print("token-app:", "ok" if total == 4950 else "wrong %r" % total, flush=True)
open("$T/ran", "w").close()
for _ in range(1200):
    if os.path.exists("$T/go"):
        break
    time.sleep(0.1)
PY
# the interpreter without the image: no query, the driver is only kept running
cat >"$T/job/hold.sh" <<SH
#!/bin/sh
echo "token-app: ok"
touch "$T/ran"
i=0
while [ ! -e "$T/go" ] && [ \$i -lt 1200 ]; do sleep 0.1; i=\$((i + 1)); done
SH
chmod 755 "$T/job/hold.sh"
INTERP=""
[ $IMAGE = 1 ] || INTERP="--conf spark.pyspark.python=$T/job/hold.sh"

cat >"$T/inner.sh" <<INNER
RUN=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
     --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=1s
     --conf spark.executor.instances=1 --conf spark.connect.authenticate.token=$TOKEN
     --conf spark.kubernetes.submission.waitAppCompletion=false $INTERP)
# no_token WHAT JSON-FILE: the token's value (plain or base64) is nowhere in the file
no_token() {
    ! grep -q -e "$TOKEN" -e "$B64" "\$2" || fail "the token is in \$1"
}

step "app.py in cluster mode with spark.connect.authenticate.token, running"
timeout 120 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "$T/job/token_app.py" >"$T/app.out" 2>"$T/app.err" ||
    { tail -15 "$T/app.err" >&2; fail "the submission failed"; }
driver=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod"
driver=\${driver#pod/}
wait_until 240 "the program to run" test -e "$T/ran" ||
    { kubectl logs "\$driver" 2>&1 | tail -20 >&2; fail "the program never ran"; }
[ "\$(kubectl get configmaps -o name | grep -c -- '-conf-map\$')" -ge 2 ] ||
    fail "want the driver's and the executors' ConfigMaps, got: \$(kubectl get configmaps -o name)"

step "the token in the Secret only"
kubectl get configmaps -o json >"$T/configmaps.json" || fail "cannot list the ConfigMaps"
grep -q 'spark.properties' "$T/configmaps.json" || fail "no spark.properties in any ConfigMap"
no_token "a ConfigMap" "$T/configmaps.json"
grep -q 'spark.connect.authenticate.token' "$T/configmaps.json" && fail "a ConfigMap names spark.connect.authenticate.token"
kubectl get pods -o json >"$T/pods.json" || fail "cannot list the pods"
no_token "a pod spec" "$T/pods.json"
secret=\$(/usr/bin/python3 - "$T/pods.json" <<'EOF'
import json, sys
pods = json.load(open(sys.argv[1]))["items"]
driver = [p for p in pods if p["metadata"]["name"].endswith("-driver")][0]
env = {e["name"]: e for e in driver["spec"]["containers"][0].get("env", [])}
ref = env["SPARK_CONNECT_AUTHENTICATE_TOKEN"]["valueFrom"]["secretKeyRef"]
assert ref["key"] == "SPARK_CONNECT_AUTHENTICATE_TOKEN", ref
execs = [p for p in pods if "-exec-" in p["metadata"]["name"]]
assert execs, "no executor pod"
for p in execs:
    names = [e["name"] for e in p["spec"]["containers"][0].get("env", [])]
    assert "SPARK_CONNECT_AUTHENTICATE_TOKEN" not in names, p["metadata"]["name"]
print(ref["name"])
EOF
) || fail "the driver's container does not read the token from a Secret (or an executor's does)"
[ "\$(kubectl get secret "\$secret" -o jsonpath='{.data.SPARK_CONNECT_AUTHENTICATE_TOKEN}')" = "$B64" ] ||
    fail "the Secret \$secret does not hold the token"
echo "ok the token is in the Secret \$secret only: in no ConfigMap and no pod spec"

step "the application ends"
touch "$T/go"
done_ok() { [ "\$(kubectl get pod "\$driver" -o jsonpath='{.status.phase}')" = Succeeded ]; }
wait_until 120 "the driver to succeed" done_ok ||
    { kubectl logs "\$driver" 2>&1 | tail -20 >&2; fail "the driver did not succeed"; }
kubectl logs "\$driver" | grep -qx 'token-app: ok' ||
    { kubectl logs "\$driver" 2>&1 | tail -20 >&2; fail "the program's answer is wrong or missing"; }
echo "ok the application ran to its end"
kubectl delete pods --all >/dev/null
expect_nothing_left "after deleting the driver pod"
echo "inner ok"
INNER
k8s_run_inner 600
echo "PASS $K8S_TEST"
