#!/usr/bin/env bash
# k8s/rbac.sh — what the real API server enforces. RBAC (Node,RBAC authorization): the driver works
# with exactly deploy/rbac.yaml's service account (k8s_submit_real runs every job that way), and
# without those grants the user gets one clear 403 line naming the verb, the resource, the user and
# deploy/rbac.yaml, with nothing created:
#  1. a submitter whose token (a service account with no role) may do nothing: cspark-submit exits
#     non-zero at the first request;
#  2. a driver running as the namespace's `default` service account (no role): the driver pod
#     cannot create its executors; it fails with the 403 in its log and cspark-submit reports it.
# Auth as users have it: a kubeconfig whose user is an exec credential plugin (ExecCredential
# client.authentication.k8s.io/v1, as EKS, GKE and AKS kubeconfigs) giving the token of the `spark`
# service account: a cluster-mode job submitted with it completes.
# Strict field validation (cspark.kubernetes.fieldValidation=Strict, set by the test frame): a pod
# template with a field Kubernetes does not know is refused in one line naming the field, nothing
# created.
# Runs on both clusters: kubesim serves rbac.authorization.k8s.io and TokenRequest and authorizes
# service accounts by the stored bindings, as the real server.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=1 --conf spark.kubernetes.report.interval=200ms)

# 1. a submitter without any grant
kubectl create serviceaccount nobody >/dev/null || fail "cannot create the service account"
tok=\$(kubectl create token nobody) || fail "no token for nobody"
ca=\$(kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
cat >"$T/nobody.kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "\$SERVER", certificate-authority-data: "\$ca"}}]
users: [{name: nobody, user: {token: "\$tok"}}]
contexts: [{name: c, context: {cluster: c, user: nobody, namespace: default}}]
current-context: c
KC
rc=0
KUBECONFIG="$T/nobody.kubeconfig" timeout 60 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster \
    "$BUILD/examples/wordcount.so" in out >/dev/null 2>"$T/nobody.err" || rc=\$?
[ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "submitter without grants: exit \$rc"
[ "\$(grep -c . "$T/nobody.err")" -eq 1 ] || fail "submitter without grants: not one line: \$(cat "$T/nobody.err")"
grep -q 'forbidden' "$T/nobody.err" && grep -q 'system:serviceaccount:default:nobody' "$T/nobody.err" &&
    grep -q 'deploy/rbac.yaml' "$T/nobody.err" || fail "unclear 403: \$(cat "$T/nobody.err")"
[ -z "\$(objects | grep -v '^secret/nobody')" ] || fail "the refused submission left: \$(objects)"

# 2. a driver whose service account has no role
rc=0
timeout 90 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name norole \
    --conf spark.kubernetes.authenticate.driver.serviceAccountName=default \
    "$BUILD/examples/wordcount.so" in out >/dev/null 2>"$T/norole.err" || rc=\$?
[ \$rc -ne 0 ] && [ \$rc -ne 124 ] || { tail -5 "$T/norole.err" >&2; fail "driver without a role: exit \$rc"; }
drv=\$(kubectl get pods -l spark-role=driver -o name)
[ -n "\$drv" ] || fail "no driver pod"
kubectl logs "\${drv#pod/}" >"$T/driver.log" 2>&1
grep -q 'forbidden.*system:serviceaccount:default:default.*deploy/rbac.yaml' "$T/driver.log" ||
    { tail -5 "$T/driver.log" >&2; fail "the driver log lacks a clear 403"; }
[ -z "\$(kubectl get pods -l spark-role=executor -o name)" ] || fail "executor pods exist"
kubectl delete "\$drv" >/dev/null
expect_nothing_left "after deleting the driver"

# 3. an exec credential plugin's token, verified by the API server
sptok=\$(kubectl create token spark) || fail "no token for spark"
cat >"$T/plugin.sh" <<PLUGIN
#!/bin/sh
[ "\\\$KUBERNETES_EXEC_INFO" ] || exit 9
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"\$sptok"}}'
PLUGIN
chmod 755 "$T/plugin.sh"
sed -e 's|^users: .*|users: [{name: viaexec, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: ./plugin.sh, interactiveMode: Never}}}]|' \
    -e 's|user: nobody|user: viaexec|' "$T/nobody.kubeconfig" >"$T/exec.kubeconfig"
grep -q 'exec:' "$T/exec.kubeconfig" || fail "the exec kubeconfig was not written"
echo "one two two" >"$T/words.txt"
rc=0
KUBECONFIG="$T/exec.kubeconfig" timeout 120 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name viaexec \
    "$BUILD/examples/wordcount.so" "$T/words.txt" "$T/exec-out" >/dev/null 2>"$T/exec.err" || rc=\$?
[ \$rc -eq 0 ] || { tail -5 "$T/exec.err" >&2; fail "submission through the exec plugin failed: \$rc"; }
grep -q '^two' "$T"/exec-out/part-* || fail "no output through the exec plugin"
kubectl delete pods -l spark-role=driver >/dev/null

# 4. an unknown field in a pod template fails loudly under fieldValidation=Strict
cat >"$T/bad-template.yaml" <<YAML
apiVersion: v1
kind: Pod
spec:
  containers:
    - name: spark-kubernetes-driver
      bogusField: 1
YAML
rc=0
timeout 60 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster \
    --conf spark.kubernetes.driver.podTemplateFile="$T/bad-template.yaml" \
    "$BUILD/examples/wordcount.so" in out >/dev/null 2>"$T/strict.err" || rc=\$?
[ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "unknown field: exit \$rc"
grep -q 'unknown field "spec.containers\[0\].bogusField"' "$T/strict.err" ||
    fail "unknown field not named: \$(cat "$T/strict.err")"
[ -z "\$(objects | grep -v '^secret/nobody')" ] || fail "the refused submission left: \$(objects)"
echo "inner ok"
INNER
k8s_run_inner 150
echo "PASS: $K8S_TEST"
