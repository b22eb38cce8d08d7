#!/usr/bin/env bash
# k8s/version.sh — the real control plane reports the Kubernetes release it was built from, as
# Kubernetes' own release build stamps it: `kubectl version -o json` against scripts/k8s-run's
# cluster succeeds and its serverVersion has gitVersion = the k8s.io/kubernetes version pinned in
# tools/k8s/go.mod, major and minor from it, gitTreeState "archive" and a build date that is not
# 1970; kube-apiserver, kube-controller-manager and kube-scheduler --version say the same. Built
# without the stamp (`go build` of the modules), the server said v0.0.0-master+$Format:%H$ (1970),
# and kubectl version failed with "could not parse pre-release/metadata".
# k8s-clusters: real (kubesim is not built from Kubernetes' modules)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@" --no-image
[ "$K8S_CLUSTER" = real ] || { echo "$K8S_TEST: the real control plane's test: run it with K8S_CLUSTER=real" >&2; exit 2; }
PIN=$(sed -n 's|^[[:space:]]*k8s.io/kubernetes \(v[0-9][^ ]*\).*|\1|p' "$SRC/tools/k8s/go.mod" | head -1)
[ -n "$PIN" ] || { echo "FAIL: $K8S_TEST: no k8s.io/kubernetes version in tools/k8s/go.mod" >&2; exit 1; }

k8s_step "the binaries' --version"
BIN=$(CSPARK_BUILD_DIR="$BUILD" "$SRC/scripts/k8s-up" --build-only 2>"$T/build.err") ||
    { cat "$T/build.err" >&2; echo "FAIL: $K8S_TEST: scripts/k8s-up --build-only failed" >&2; exit 1; }
for b in kube-apiserver kube-controller-manager kube-scheduler; do
    v=$("$BIN/$b" --version 2>&1)
    [ "$v" = "Kubernetes $PIN" ] || { echo "FAIL: $K8S_TEST: $b --version says '$v', want 'Kubernetes $PIN'" >&2; exit 1; }
done

cat >"$T/inner.sh" <<INNER
step "kubectl version -o json"
kubectl version -o json >"$T/version.json" 2>"$T/version.err" ||
    fail "kubectl version failed: \$(cat "$T/version.err")"
/usr/bin/python3 - "$T/version.json" "$PIN" <<'EOF' || fail "kubectl version -o json: \$(cat "$T/version.json")"
import json, re, sys
server = json.load(open(sys.argv[1]))["serverVersion"]
pin = sys.argv[2]
major, minor = re.match(r"v(\d+)\.(\d+)\.", pin).groups()
want = {"gitVersion": pin, "major": major, "minor": minor, "gitTreeState": "archive"}
bad = {k: server.get(k) for k, v in want.items() if server.get(k) != v}
assert not bad, f"serverVersion {bad}, want {want}"
assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", server["buildDate"]), server["buildDate"]
assert not server["buildDate"].startswith("1970"), server["buildDate"]
print("serverVersion:", json.dumps(server, sort_keys=True))
EOF
echo "inner ok"
INNER
k8s_run_inner 120
grep '^serverVersion:' "$T/run.log"
echo "PASS: $K8S_TEST"
