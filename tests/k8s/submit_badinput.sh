#!/usr/bin/env bash
# k8s/submit_badinput.sh — cluster-mode submission with bad input on kubesim (process kubelet, image
# cspark:dev, RBAC on): each case is refused with one clear line on stderr, a non-zero exit and nothing
# created (no successful create in kubesim's /metrics, no pod in its pod history, no object left) — malformed master URL,
# unreachable API server (a closed port), missing namespace, RBAC 403 for a submitter that may not
# create pods (names verb, resource, user; points at deploy/rbac.yaml), app file larger than
# spark.kubernetes.configMap.maxSize. App names with capitals, underscores or 300 characters are
# sanitized, not rejected: those jobs complete and every pod name in the history is a DNS-1123
# subdomain. Bounded waits only (a submission that does not end within 120 s, or 180 s for a job,
# fails; each case is a step, named if the test is stopped).
# k8s-clusters: kubesim (its --rbac token file and /metrics counts; the real cluster's RBAC 403 is k8s_rbac_real)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
# the submitter may manage secrets, config maps and services (and delete what it made) but not create pods
cat >"$T/rbac" <<'EOF'
token  subtok  system:serviceaccount:default:submitter
allow  system:serviceaccount:default:submitter  get,list,watch,create,patch,delete  secrets,configmaps,services  *
allow  system:serviceaccount:default:submitter  get,list,watch,delete  pods  *
EOF
# a closed port: bound once, then released
CLOSED=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
IMG=(--conf spark.kubernetes.container.image=cspark:dev --conf spark.kubernetes.report.interval=200ms)
# created: successful creates of secrets, config maps and services so far (/metrics; server-side dry
# runs are counted apart, dry_run="All")
created() { curl -sk "\$SERVER/metrics" | /usr/bin/python3 -c '
import re, sys
print(sum(int(m[2]) for m in re.finditer(r"apiserver_request_total\{code=\"201\",component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"(secrets|configmaps|services)\",.*verb=\"POST\".*\} (\d+)", sys.stdin.read())))'; }
nothing() { # no object of any application and no pod ever
    local objs; objs=\$(kubectl get pods,services,configmaps,secrets -A -o name | grep -v -e kube-root-ca -e '^service/kubernetes\$' || true)
    [ -z "\$objs" ] || fail "\$1 left objects behind: \$objs"
    local n; n=\$(kubectl get --raw /kubesim/pod-history | /usr/bin/python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pods"]))')
    [ "\$n" -eq 0 ] || fail "\$1 created a pod"
}
# refused CASE PATTERN cspark-submit-args...: non-zero exit, exactly one line on stderr matching PATTERN
refused() {
    local case=\$1 pat=\$2; shift 2
    step "refused: \$case"
    local rc=0 before; before=\$(created)
    timeout 120 "\$SUBMIT" "\$@" >"$T/out" 2>"$T/err" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$case: exit status \$rc: \$(cat "$T/err")"
    [ "\$(grep -c . "$T/err")" -eq 1 ] || fail "\$case: expected one line on stderr, got: \$(cat "$T/err")"
    grep -Eq -- "\$pat" "$T/err" || fail "\$case: message does not match /\$pat/: \$(cat "$T/err")"
    echo "ok \$case: \$(cat "$T/err")"
    nothing "\$case"
    [ "\$(created)" -eq "\$before" ] || fail "\$case: created objects (deleted again, but created)"
}
APP=(--deploy-mode cluster "\${IMG[@]}" "$BUILD/examples/pi.so" 2)

refused "malformed master URL" "^cspark-submit: .*invalid master URL 'k8s://no-port-here'" \
    --master k8s://no-port-here "\${APP[@]}"
refused "unreachable API server" "^cspark-submit: .*cannot reach the Kubernetes API server at https://127.0.0.1:$CLOSED" \
    --master "k8s://https://127.0.0.1:$CLOSED" "\${APP[@]}"
refused "missing namespace" '^cspark-submit: .*namespace "nope" does not exist' \
    --master "k8s://\$SERVER" --conf spark.kubernetes.namespace=nope "\${APP[@]}"
refused "RBAC 403" '^cspark-submit: .*cannot create pods in namespace "default": forbidden for system:serviceaccount:default:submitter.*deploy/rbac.yaml' \
    --master "k8s://\$SERVER" --conf spark.kubernetes.authenticate.submission.oauthToken=subtok "\${APP[@]}"
SO_SIZE=\$(stat -c %s "$BUILD/examples/pi.so")
refused "app file larger than the config map limit" "^cspark-submit: .*pi.so \(\$SO_SIZE bytes\).*exceeds spark.kubernetes.configMap.maxSize \(10000 bytes\)" \
    --master "k8s://\$SERVER" --conf spark.kubernetes.configMap.maxSize=10000 "\${APP[@]}"

# names are sanitized, never rejected: the jobs run to completion with valid pod names
LONG=\$(printf 'My_Very_Long_App_%.0s' \$(seq 18) | cut -c1-300)
[ \${#LONG} -eq 300 ] || fail "test bug: name length \${#LONG}"
for name in 'My_App' 'SPARK Pi' "\$LONG"; do
    rc=0
    step "app name '\$name' (\${#name} chars) runs to completion"
    timeout 180 "\$SUBMIT" --master "k8s://\$SERVER" --name "\$name" --conf spark.executor.instances=1 \
        --conf spark.kubernetes.allocation.batch.delay=200ms "\${APP[@]}" >"$T/name.out" 2>"$T/name.err" || rc=\$?
    [ \$rc -eq 0 ] && grep -q 'phase=Succeeded exit_code=0' "$T/name.err" ||
        fail "app name '\$name' (\${#name} chars): exit \$rc: \$(tail -3 "$T/name.err")"
    DRIVER=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')
    kubectl logs "\$DRIVER" | grep -q 'Pi is roughly' || fail "app name '\$name': the job printed no result"
    kubectl delete pods --all >/dev/null
done
kubectl get --raw /kubesim/pod-history | /usr/bin/python3 -c '
import json, re, sys
pods = json.load(sys.stdin)["pods"]
# IsDNS1123Subdomain, as the API server checks pod names: <= 253, dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])?
sub = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
drivers = [p for p in pods if p["name"].endswith("-driver")]
execs = [p for p in pods if "-exec-" in p["name"]]
assert len(drivers) == 3 and len(execs) >= 3, [p["name"] for p in pods]
for p in pods:
    n = p["name"]
    assert len(n) <= 253 and sub.match(n), "invalid name " + n
    assert any(ph["phase"] == "Running" for ph in p["phases"]), "never ran: " + n
assert any(n.startswith("my-app-") for n in (p["name"] for p in drivers)), "my-app not sanitized"
assert any(n.startswith("spark-pi-") for n in (p["name"] for p in drivers)), "SPARK Pi not sanitized"
assert any(n.startswith("my-very-long-app-") and len(n) > 200 for n in (p["name"] for p in drivers)), "long name"
for p in pods: print("  ", len(p["name"]), p["name"])
' || fail "pod names in the history"
echo "inner ok"
INNER
k8s_run_inner 400 --rbac "$T/rbac"
grep '^ok ' "$T/run.log"
echo "PASS: $K8S_TEST"
