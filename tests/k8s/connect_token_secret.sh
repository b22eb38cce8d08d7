#!/usr/bin/env bash
# k8s/connect_token_secret.sh — a credential of the driver's conf never reaches a ConfigMap or a
# pod spec (issue 25): `cspark-submit --deploy-mode cluster --conf
# spark.connect.authenticate.token=TOKEN app.py` puts the token in the application's auth Secret
# (key SPARK_CONNECT_AUTHENTICATE_TOKEN), and the driver's container reads it from there through
# secretKeyRef; the driver's ConfigMap and the driver pod's spec do not hold its value. Before the
# fix both ConfigMaps (the driver's and the executors', made from the driver's conf) carried it in
# spark.properties, readable by anyone who may read the namespace's ConfigMaps.
# With the image cspark:dev the program (a PySpark query through the driver's Connect service,
# which it must authenticate to) runs to its answer on one executor pod, and the executors'
# ConfigMap the driver made does not hold the token either; without the image only the objects
# the submit client makes are checked (the driver pod is deleted unstarted).
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
cat >"$T/job/token_app.py" <<'EOF'
from pyspark.sql import SparkSession

spark = SparkSession.builder.getOrCreate()
total = spark.range(100, numPartitions=2).selectExpr("sum(id) AS s").collect()[0]["s"]
print("token-app:", "ok" if total == 4950 else "wrong %r" % total)
EOF

cat >"$T/inner.sh" <<INNER
RUN=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
     --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=1s
     --conf spark.executor.instances=1 --conf spark.connect.authenticate.token=$TOKEN)
# no_token WHAT JSON-FILE: the token's value (plain or base64) is nowhere in the file
no_token() {
    ! grep -q -e "$TOKEN" -e "$B64" "\$2" || fail "the token is in \$1: \$(grep -o '"name": *"[^"]*"' "\$2" | head -3)"
}

if [ $IMAGE = 1 ]; then
    step "app.py in cluster mode with spark.connect.authenticate.token"
    timeout 300 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "$T/job/token_app.py" >"$T/app.out" 2>"$T/app.err" ||
        { tail -15 "$T/app.err" >&2; fail "the application failed"; }
    pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the application"
    kubectl logs "\${pod#pod/}" >"$T/driver.log" || fail "cannot read the driver's log"
    grep -qx 'token-app: ok' "$T/driver.log" || { tail -20 "$T/driver.log" >&2; fail "the program's answer is wrong or missing"; }
    [ "\$(kubectl get configmaps -o name | grep -c -- '-conf-map')" -ge 2 ] ||
        fail "want the driver's and the executors' ConfigMaps, got: \$(kubectl get configmaps -o name)"
else
    step "app.py in cluster mode with spark.connect.authenticate.token (objects only: no image)"
    timeout 120 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --conf spark.kubernetes.submission.waitAppCompletion=false \
        "$T/job/token_app.py" >"$T/app.out" 2>"$T/app.err" ||
        { tail -15 "$T/app.err" >&2; fail "the submission failed"; }
    kubectl get pods -o name | grep -q -- '-driver\$' || fail "no driver pod"
fi
kubectl get configmaps -o json >"$T/configmaps.json" || fail "cannot list the ConfigMaps"
grep -q 'spark.properties' "$T/configmaps.json" || fail "no spark.properties in any ConfigMap"
no_token "a ConfigMap" "$T/configmaps.json"
grep -q 'spark.connect.authenticate.token' "$T/configmaps.json" && fail "a ConfigMap names spark.connect.authenticate.token"
kubectl get pods -o json >"$T/pods.json" || fail "cannot list the pods"
no_token "a pod spec" "$T/pods.json"
/usr/bin/python3 - "$T/pods.json" <<'EOF' || fail "the driver's container does not read the token from the Secret"
import json, sys
pods = json.load(open(sys.argv[1]))["items"]
driver = [p for p in pods if p["metadata"]["name"].endswith("-driver")][0]
env = {e["name"]: e for e in driver["spec"]["containers"][0].get("env", [])}
ref = env["SPARK_CONNECT_AUTHENTICATE_TOKEN"]["valueFrom"]["secretKeyRef"]
assert ref["key"] == "SPARK_CONNECT_AUTHENTICATE_TOKEN", ref
for p in pods:
    if "-exec-" in p["metadata"]["name"]:
        names = [e["name"] for e in p["spec"]["containers"][0].get("env", [])]
        assert "SPARK_CONNECT_AUTHENTICATE_TOKEN" not in names, p["metadata"]["name"]
print(ref["name"])
EOF
secret=\$(/usr/bin/python3 -c '
import json, sys
d = [p for p in json.load(open(sys.argv[1]))["items"] if p["metadata"]["name"].endswith("-driver")][0]
e = [e for e in d["spec"]["containers"][0]["env"] if e["name"] == "SPARK_CONNECT_AUTHENTICATE_TOKEN"][0]
print(e["valueFrom"]["secretKeyRef"]["name"])' "$T/pods.json")
[ "\$(kubectl get secret "\$secret" -o jsonpath='{.data.SPARK_CONNECT_AUTHENTICATE_TOKEN}')" = "$B64" ] ||
    fail "the Secret \$secret does not hold the token"
echo "ok the token is in the Secret \$secret only: in no ConfigMap and no pod spec"
kubectl delete pods --all >/dev/null
expect_nothing_left "after deleting the driver pod"
echo "inner ok"
INNER
k8s_run_inner 600
echo "PASS $K8S_TEST"
