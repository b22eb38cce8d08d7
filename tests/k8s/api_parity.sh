#!/usr/bin/env bash
# k8s/api_parity.sh — the same requests give the same answers on kubesim and on the real control plane
# (issue 12: whatever kubesim is lenient about is a bug a user meets first). Each check failed on the
# kubesim of before its fix:
#  1. fieldValidation=Strict refuses an unknown field on create, update and every patch type with
#     kube-apiserver's message (strict decoding error: unknown field "spec.foo");
#  2. coordination.k8s.io Leases are served (create, get, list);
#  3. TokenRequest (kubectl create token): a token for the service account, its 10-minute floor and
#     a missing account refused in the real words;
#  4. rbac.authorization.k8s.io: deploy/rbac.yaml applies (the frame does it) and its token may do
#     exactly what the Role grants: pods yes; nodes and leases 403 with the real message;
#  5. every namespace gets the ConfigMap kube-root-ca.crt (the cluster's CA) and the ServiceAccount
#     default; the kubernetes Service in default is 10.96.0.1:443 (https);
#  6. /metrics counts requests with kube-apiserver's labels (verb="POST", scope, subresource apart);
#  7. an unschedulable pod's message is kube-scheduler's, preemption's verdict included;
#  8. a pod has its own network: what listens on 127.0.0.1 in one pod is not reachable from another,
#     and its address (status.podIP, hostname -i) is on the pod network, not loopback.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/req.py" <<'PY'
# req.py METHOD PATH [BODY [CONTENT_TYPE]] — one request through the kubeconfig (client certificate or
# token, as kubectl), prints "<status> <message or kind>"
import json, sys
from kubernetes import client, config
config.load_kube_config()
api = client.ApiClient()
method, path = sys.argv[1], sys.argv[2]
body = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
ctype = sys.argv[4] if len(sys.argv) > 4 else "application/json"
try:
    data, status, _ = api.call_api(path, method, body=body, header_params={"Content-Type": ctype,
                                   "Accept": "application/json"}, auth_settings=["BearerToken"],
                                   _preload_content=False)
    out = json.loads(data.data or b"{}")
    print(status, out.get("kind", ""))
except client.exceptions.ApiException as e:
    print(e.status, json.loads(e.body).get("message", ""))
PY

cat >"$T/inner.sh" <<INNER
REQ="/usr/bin/python3 $T/req.py"
P=/api/v1/namespaces/default/pods
pod='{"apiVersion":"v1","kind":"Pod","metadata":{"name":"strict"},"spec":{"containers":[{"name":"c","image":"cspark:dev","command":["sleep","600"]}],"foo":1}}'
want='strict decoding error: unknown field "spec.foo"'

# 1. strict field validation
out=\$(\$REQ POST "\$P?fieldValidation=Strict" "\$pod")
[ "\$out" = "400 Pod in version \"v1\" cannot be handled as a Pod: \$want" ] || fail "strict create: \$out"
ok=\$(\$REQ POST "\$P" "\${pod/,\"foo\":1/}")
[ "\$ok" = "201 Pod" ] || fail "plain create: \$ok"
# a patch is refused on "patch": a strategic merge patch shows the patch as Go prints it, the other
# types the patched object (which each server serializes its own way)
out=\$(\$REQ PATCH "\$P/strict?fieldValidation=Strict" '{"spec":{"foo":1}}' application/strategic-merge-patch+json)
[ "\$out" = "422  \"\" is invalid: patch: Invalid value: \"map[spec:map[foo:1]]\": \$want" ] ||
    fail "strict strategic merge patch: \$out"
for p in 'application/merge-patch+json {"spec":{"foo":1}}' 'application/json-patch+json [{"op":"add","path":"/spec/foo","value":1}]'; do
    out=\$(\$REQ PATCH "\$P/strict?fieldValidation=Strict" "\${p#* }" "\${p%% *}")
    case "\$out" in
    '422  "" is invalid: patch: Invalid value: "{'*"\": \$want") ;;
    *) fail "strict \${p%% *}: \$(echo "\$out" | cut -c1-300)" ;;
    esac
done
kubectl delete pod strict --wait=false >/dev/null

# 2. Leases
kubectl apply -f - >/dev/null <<L || fail "a Lease was refused"
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: parity}
spec: {holderIdentity: me, leaseDurationSeconds: 40}
L
[ "\$(kubectl get lease parity -o jsonpath='{.spec.holderIdentity}')" = me ] || fail "the Lease did not come back"
kubectl get leases -o name | grep -qx lease.coordination.k8s.io/parity || fail "the Lease is not listed"

# 3. TokenRequest
tok=\$(kubectl create token spark) && [ -n "\$tok" ] || fail "no token for the service account spark"
out=\$(kubectl create token spark --duration 1m 2>&1) && fail "a 1-minute token was issued"
[ "\$out" = 'error: failed to create token: TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes' ] ||
    fail "short token: \$out"
out=\$(kubectl create token nosuch 2>&1) && fail "a token for a missing service account"
[ "\$out" = 'error: failed to create token: serviceaccounts "nosuch" not found' ] || fail "missing account: \$out"

# 4. RBAC: the token may do what deploy/rbac.yaml's Role grants, and nothing more (a kubeconfig of
# its own: kubectl --token would not replace the admin's client certificate)
ca=\$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
cat >"$T/spark.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "\$SERVER", certificate-authority-data: "\$ca"}}]
users: [{name: spark, user: {token: "\$tok"}}]
contexts: [{name: c, context: {cluster: c, user: spark, namespace: default}}]
current-context: c
KC
sk() { KUBECONFIG="$T/spark.kubeconfig" kubectl "\$@"; }
sk get pods >/dev/null || fail "spark's token may not list pods"
out=\$(sk get nodes 2>&1) && fail "spark's token may list nodes"
[ "\$out" = 'Error from server (Forbidden): nodes is forbidden: User "system:serviceaccount:default:spark" cannot list resource "nodes" in API group "" at the cluster scope' ] ||
    fail "nodes: \$out"
out=\$(sk get leases 2>&1) && fail "spark's token may list leases"
[ "\$out" = 'Error from server (Forbidden): leases.coordination.k8s.io is forbidden: User "system:serviceaccount:default:spark" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "default"' ] ||
    fail "leases: \$out"

# 5. what every namespace holds, and the kubernetes Service
kubectl create namespace parity >/dev/null
for _ in \$(seq 100); do
    kubectl get configmap kube-root-ca.crt serviceaccount default -n parity >/dev/null 2>&1 && break
    sleep 0.2
done
kubectl get configmap kube-root-ca.crt -n parity -o jsonpath='{.data.ca\.crt}' | grep -q 'BEGIN CERTIFICATE' ||
    fail "no kube-root-ca.crt in a new namespace"
kubectl get serviceaccount default -n parity >/dev/null || fail "no default service account in a new namespace"
[ "\$(kubectl get service kubernetes -o jsonpath='{.spec.clusterIP} {.spec.ports[0].name} {.spec.ports[0].port}')" = "10.96.0.1 https 443" ] ||
    fail "the kubernetes Service: \$(kubectl get service kubernetes -o jsonpath='{.spec}')"
kubectl delete namespace parity --wait=false >/dev/null

# 6. metrics with kube-apiserver's labels
kubectl get --raw /metrics | grep -q '^apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} ' ||
    fail "no pod create counted as kube-apiserver counts it"
kubectl get --raw /metrics | grep -q '^apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="namespace",subresource="",verb="LIST",version="v1"} ' ||
    fail "no Lease list counted as kube-apiserver counts it"

# 7. the scheduler's words
n=\$(kubectl get nodes -o name | grep -c .)
kubectl run huge --image=cspark:dev --restart=Never --overrides='{"spec":{"containers":[{"name":"huge","image":"cspark:dev","command":["sleep","600"],"resources":{"requests":{"memory":"900Gi"}}}]}}' >/dev/null
msg=
for _ in \$(seq 100); do
    msg=\$(kubectl get pod huge -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}')
    [ -n "\$msg" ] && break
    sleep 0.2
done
[ "\$msg" = "0/\$n nodes are available: \$n Insufficient memory. no new claims to deallocate, preemption: 0/\$n nodes are available: \$n Preemption is not helpful for scheduling." ] ||
    fail "unschedulable: \$msg"
kubectl delete pod huge --wait=false >/dev/null

# 8. a network per pod
kubectl run listener --image=cspark:dev --restart=Never --command -- perl -MIO::Socket::INET -e \
    'my \$s = IO::Socket::INET->new(LocalAddr => "127.0.0.1:7777", Listen => 5, ReuseAddr => 1) or die; print "listening\n"; \$| = 1; while (my \$c = \$s->accept) { print \$c "hello\n"; close \$c }' >/dev/null
for _ in \$(seq 150); do kubectl logs listener 2>/dev/null | grep -q listening && break; sleep 0.2; done
kubectl logs listener | grep -q listening || fail "the listener pod did not listen"
probe='exec 3<>/dev/tcp/127.0.0.1/7777 && echo reached || echo refused; hostname -i'
kubectl run prober --image=cspark:dev --restart=Never --command -- bash -c "\$probe" >/dev/null
for _ in \$(seq 150); do
    [ "\$(kubectl get pod prober -o jsonpath='{.status.phase}')" = Succeeded ] && break
    sleep 0.2
done
out=\$(kubectl logs prober)
echo "\$out" | grep -qx refused || fail "127.0.0.1 of one pod reached another pod's listener: \$out"
ip=\$(kubectl get pod prober -o jsonpath='{.status.podIP}')
case "\$ip" in 127.*|"") fail "the pod's address is \$ip, a loopback address" ;; esac
echo "\$out" | grep -qx "\$ip" || fail "hostname -i in the pod says \$(echo "\$out" | tail -1), status.podIP \$ip"
kubectl delete pod listener prober --wait=false >/dev/null
echo "inner ok"
INNER
k8s_run_inner 180
echo "PASS: $K8S_TEST"
