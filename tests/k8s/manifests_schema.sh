#!/bin/bash
# k8s/manifests_schema.sh — the manifests cspark builds are valid Kubernetes objects.
# Builds a rich set of objects with the k8s_test_k8s_manifests unit-test binary (driver pod with
# every volume type, secrets, template; Service; ConfigMaps; Secret; executor pods), dumps them as
# JSON + the dry-run YAML stream, and checks them with tests/k8s/validate_manifests.py against the
# kubernetes Python client's models. Then proves the validator bites: a misspelled field, a wrong
# type and a missing required field must each be reported with their path.
# Usage: k8s/manifests_schema.sh <build-dir>
set -euo pipefail
BUILD=${1:?usage: $0 <build-dir>}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
VALIDATE="$SRC/tests/k8s/validate_manifests.py"
BIN="$BUILD/tests/k8s_test_k8s_manifests"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$PY" -c 'import kubernetes, yaml' 2>/dev/null || { echo "SKIP: k8s_manifests_schema: python3-kubernetes/python3-yaml missing (scripts/install-deps.sh)"; exit 77; }
[ -x "$BIN" ] || fail "$BIN not built"
TMP=$(mktemp -d)
KS_PID=
cleanup() { [ -n "$KS_PID" ] && kill "$KS_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT
mkdir "$TMP/dump"
CSPARK_K8S_DUMP_DIR="$TMP/dump" "$BIN" >"$TMP/bin.log" 2>&1 || { cat "$TMP/bin.log"; fail "manifest builder test failed"; }
ls "$TMP/dump"/*.json >/dev/null 2>&1 || fail "no manifests dumped"
[ "$(ls "$TMP/dump"/*.json | wc -l)" -ge 7 ] || fail "expected at least 7 manifests"

"$PY" "$VALIDATE" --yaml "$TMP/dump/manifests.yaml" "$TMP/dump" || fail "cspark's manifests do not validate"

# the validator must catch mistakes, naming the path
mutate() { # <name> <python statement on obj> <expected text>
    mkdir -p "$TMP/$1"
    "$PY" - "$TMP/dump/01-driver-pod.json" "$TMP/$1/pod.json" "$2" <<'PYEOF'
import json, sys
obj = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(obj, open(sys.argv[2], "w"))
PYEOF
    if out=$("$PY" "$VALIDATE" "$TMP/$1" 2>&1); then
        echo "$out"; fail "validator accepted $1"
    fi
    grep -qF -- "$3" <<<"$out" || { echo "$out"; fail "validator output for $1 lacks '$3'"; }
}
mutate misspelled 'c = obj["spec"]["containers"][-1]; c["resurces"] = c.pop("resources")' \
    'Pod.spec.containers[1].resurces: unknown field'
mutate wrongtype 'obj["spec"]["containers"][-1]["ports"][0]["containerPort"] = "7078"' \
    'Pod.spec.containers[1].ports[0].containerPort: expected an integer'
mutate missing 'del obj["spec"]["containers"][-1]["name"]' \
    'Pod.spec.containers[1].name: required field missing'
mutate badmount 'obj["spec"]["containers"][-1]["volumeMounts"][0]["name"] = "nope"' \
    "no volume named 'nope'"
mutate nested 'obj["spec"]["volumes"][0]["secret"]["secretNam"] = "x"' \
    'Pod.spec.volumes[0].secret.secretNam: unknown field'
# kubectl reads the dry-run stream and kubesim accepts every object
if [ -x "$BUILD/bin/kubesim" ] && [ -x /usr/bin/kubectl ]; then
    "$BUILD/bin/kubesim" --kubeconfig-out "$TMP/kubeconfig" --no-kubelet >"$TMP/kubesim.log" 2>&1 &
    KS_PID=$!
    for _ in $(seq 100); do [ -s "$TMP/kubeconfig" ] && break; sleep 0.1; done
    [ -s "$TMP/kubeconfig" ] || { cat "$TMP/kubesim.log"; fail "kubesim did not start"; }
    export KUBECONFIG="$TMP/kubeconfig"
    ns=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["namespace"])' "$TMP/dump/01-driver-pod.json")
    kubectl create namespace "$ns" >/dev/null
    out=$(kubectl create -f "$TMP/dump/manifests.yaml" 2>&1) || { echo "$out"; fail "kubectl create of the dry-run YAML failed"; }
    want=$(ls "$TMP/dump"/*.json | wc -l)
    got=$(grep -c ' created$' <<<"$out" || true)
    [ "$got" -eq "$want" ] || { echo "$out"; fail "kubectl created $got of $want objects"; }
fi
echo "PASS: manifests validate against the Kubernetes schema; the validator rejects mistakes"
