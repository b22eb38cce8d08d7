#!/usr/bin/env bash
# k8s/connect_server.sh — cspark-connect-server on Kubernetes as deploy/connect-server.yaml runs it
# (applied as a user would, with executorIdleTimeout and shuffleTracking.timeout cut to 20 s:
# long enough for the client's queries, whose jobs follow each other within seconds): a long-lived driver
# in a pod (client mode inside it) behind the Service cspark-connect on port 15002, the bearer
# token from the Secret cspark-connect-token (SPARK_CONNECT_AUTHENTICATE_TOKEN: in no ConfigMap
# or pod spec), executors as pods with dynamic allocation. A
# PySpark client on
# the host — outside the pods' network namespaces, through a local forward to the Service's
# endpoint as `kubectl port-forward` gives (PySpark sends a token without TLS only to localhost;
# the tests' node agents serve no port-forward and there is no kube-proxy for a NodePort) — runs a
# join, a groupBy and a Python UDF and checks the answers; the executor pods go once the server is
# idle and come back for the next query, which is right again; a client without the token is
# refused (UNAUTHENTICATED). Deleting the manifest's objects leaves nothing of the server.
# k8s-clusters: real
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
PY=$("$SRC/scripts/install-pyspark-client.sh") ||
    { echo "SKIP: $K8S_TEST: the pinned PySpark client cannot be installed (scripts/install-pyspark-client.sh)" >&2; exit 77; }
TOKEN=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
sed -e 's/executorIdleTimeout=60s/executorIdleTimeout=20s/' -e 's/shuffleTracking.timeout=300s/shuffleTracking.timeout=20s/' \
    "$SRC/deploy/connect-server.yaml" >"$T/connect-server.yaml"
[ "$(grep -c -e 'executorIdleTimeout=20s' -e 'shuffleTracking.timeout=20s' "$T/connect-server.yaml")" -eq 2 ] ||
    { echo "FAIL: $K8S_TEST: no idle timeouts in deploy/connect-server.yaml" >&2; exit 1; }
CLIENT=$SRC/tests/k8s/python_job/connect_client.py

cat >"$T/inner.sh" <<INNER
trap 'kill \${FWD_PID:-} \${PH_PID:-} 2>/dev/null' EXIT
step "the server: deploy/connect-server.yaml and its Secret"
kubectl create secret generic cspark-connect-token --from-literal=token=$TOKEN >/dev/null || fail "cannot create the Secret"
kubectl apply -f "$T/connect-server.yaml" >/dev/null || fail "deploy/connect-server.yaml refused"
ready() { [ "\$(kubectl get pods -l app.kubernetes.io/name=cspark-connect -o jsonpath='{.items[*].status.conditions[?(@.type=="Ready")].status}')" = True ]; }
wait_until 240 "the server's pod to be ready" ready || {
    kubectl get pods -o wide >&2; kubectl logs deploy/cspark-connect 2>&1 | tail -20 >&2; fail "the server never got ready"; }
server=\$(kubectl get pods -l app.kubernetes.io/name=cspark-connect -o jsonpath='{.items[0].metadata.name}')
addr=\$(kubectl get endpointslices -l kubernetes.io/service-name=cspark-connect -o jsonpath='{.items[0].endpoints[0].addresses[0]}')
[ -n "\$addr" ] || fail "the Service cspark-connect has no endpoint"
/usr/bin/python3 "$SRC/tests/k8s/lib/tcp_forward.py" "$T/fwd-port" "\$addr" 15002 & FWD_PID=\$!
wait_until 30 "the local forward" test -s "$T/fwd-port" || fail "no local forward"
URL="sc://localhost:\$(cat "$T/fwd-port")"
execs() { kubectl get pods -l spark-role=executor -o name | wc -l; }
no_execs() { [ "\$(execs)" -eq 0 ]; }
# made: how many executor pods were ever created
made() { pod_history | /usr/bin/python3 -c 'import json,sys; print(len([p for p in json.load(sys.stdin)["pods"] if "-exec-" in p["name"]]))'; }
echo "ok server \$server ready at \$addr:15002"

step "a client with the token: the first query"
[ "\$(execs)" -eq 0 ] || fail "executor pods before any query: \$(execs)"
timeout 300 "$PY" "$CLIENT" "\$URL/;token=$TOKEN" query >"$T/q1.out" 2>"$T/q1.err" ||
    { tail -5 "$T/q1.err" >&2; kubectl logs "\$server" | tail -20 >&2; fail "the first query failed"; }
grep -qx 'client: ok' "$T/q1.out" || fail "first query: \$(cat "$T/q1.out")"
first=\$(made)
[ "\$first" -ge 1 ] || fail "the first query made no executor pod"
echo "ok first query (\$first executor pods made)"
# the token reaches the server through its environment, from the Secret: in no ConfigMap (the
# executors'), no pod spec and no command line
for kind in configmaps pods; do
    kubectl get \$kind -o json | grep -q "$TOKEN" && fail "the token is in the \$kind' specs"
done
echo "ok the token is in no ConfigMap and no pod spec"

step "idle: the executor pods go"
wait_until 120 "the executor pods to be removed while the server is idle" no_execs ||
    fail "executor pods still there when idle: \$(kubectl get pods -l spark-role=executor -o name)"
echo "ok idle: no executor pod"

step "the second query: executor pods again"
timeout 300 "$PY" "$CLIENT" "\$URL/;token=$TOKEN" query >"$T/q2.out" 2>"$T/q2.err" ||
    { tail -5 "$T/q2.err" >&2; fail "the second query failed"; }
grep -qx 'client: ok' "$T/q2.out" || fail "second query: \$(cat "$T/q2.out")"
second=\$(made)
[ "\$second" -gt "\$first" ] || fail "the second query made no new executor pod (\$first, then \$second)"
echo "ok second query (\$((second - first)) more executor pods made)"

step "a client without the token"
timeout 120 "$PY" "$CLIENT" "\$URL" refused >"$T/refused.out" 2>"$T/refused.err" ||
    { tail -3 "$T/refused.err" >&2; fail "a client without the token was not refused"; }
echo "ok \$(cat "$T/refused.out")"

step "deleting the server"
kubectl delete -f "$T/connect-server.yaml" --wait=false >/dev/null
kubectl delete secret cspark-connect-token >/dev/null
expect_nothing_left "after deleting the server"
echo "inner ok"
INNER
k8s_run_inner 600
echo "PASS $K8S_TEST"
