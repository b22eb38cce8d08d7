#!/usr/bin/env bash
# scripts/kubesim-run end to end: the cspark:dev image maps to the build (entrypoint + args, SPARK_HOME,
# /opt/spark/bin), the pod history is printed, the command's exit status is kept, kubesim is stopped;
# the nodes' bridges keep their MAC addresses while pods come and go (a bridge that takes its
# lowest port's MAC changes it when that pod goes, and the other pods' packets to the node are lost
# until their ARP entries go stale: k8s_faults_polling's surviving executor went silent for a minute).
# Usage: tests/kubesim/kubesim_run_kubelet.sh [BUILD_DIR]     (CTest passes the build directory)
set -uo pipefail
BUILD=${1:-${CSPARK_BUILD_DIR:-build}}
BUILD=$(cd "$BUILD" && pwd) || { echo "FAIL: no build dir" >&2; exit 1; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUN="$ROOT/scripts/kubesim-run"
OUT=$(mktemp /tmp/kubesim-run-test-XXXXXX)
trap 'rm -f "$OUT" "$OUT.cmd"' EXIT
fail() { echo "FAIL: $*" >&2; sed 's/^/  | /' "$OUT" >&2; exit 1; }

cat >"$OUT.cmd" <<'EOF'
set -e
echo "KC=$KUBECONFIG"
bridge_macs() { ip -o link show type bridge | grep -o 'link/ether [0-9a-f:]*' | tr '\n' ' '; }
echo "MACS_BEFORE=$(bridge_macs)"
# no command: the image's entrypoint runs with the args (Docker ENTRYPOINT/CMD rules)
kubectl run probe --image=cspark:dev --restart=Never -- sh -c 'echo HOME=$SPARK_HOME; test -d /opt/spark/bin && echo BIN=ok; pwd'
for i in $(seq 300); do
    p=$(kubectl get pod probe -o jsonpath='{.status.phase}')
    [ "$p" = Succeeded ] || [ "$p" = Failed ] && break
    sleep 0.1
done
echo "PHASE=$p"
echo "MACS_WITH_POD=$(bridge_macs)"
kubectl logs probe
kubectl get pod probe -o jsonpath='{.spec.nodeName}{"\n"}'
kubectl delete pod probe --wait=true >/dev/null
echo "MACS_AFTER=$(bridge_macs)"
exit 7
EOF
KUBESIM_KEEP=1 CSPARK_BUILD_DIR="$BUILD" "$RUN" --nodes 2 -- bash "$OUT.cmd" >"$OUT" 2>&1
rc=$?
[ "$rc" = 7 ] || fail "kubesim-run exited $rc, expected the command's 7"
grep -qx 'PHASE=Succeeded' "$OUT" || fail "pod did not succeed"
grep -qx 'HOME=/opt/spark' "$OUT" || fail "image env not applied"
grep -qx 'BIN=ok' "$OUT" || fail "/opt/spark/bin not mapped into the pod"
grep -qx '/opt/spark/work-dir' "$OUT" || fail "image workdir not applied"
grep -q 'default/probe: Pending@[0-9]* .*Running@[0-9]* .*Succeeded@[0-9]*' "$OUT" || fail "no pod history summary"
grep -q '^kubesim-node-[12]$' "$OUT" || fail "kubesim flags (--nodes 2) not passed"
macs=$(sed -n 's/^MACS_BEFORE=//p' "$OUT")
[ "$(echo "$macs" | wc -w)" = 4 ] || fail "expected the 2 nodes' bridges, got MACs '$macs'"
for when in WITH_POD AFTER; do
    [ "$(sed -n "s/^MACS_$when=//p" "$OUT")" = "$macs" ] || fail "a node bridge's MAC changed (MACS_$when)"
done
# kubesim was stopped: no process still names this run's kubeconfig
KC=$(sed -n 's/^KC=//p' "$OUT")
[ -n "$KC" ] || fail "KUBECONFIG not set for the command"
trap 'rm -f "$OUT" "$OUT.cmd"; rm -rf "$(dirname "$KC")"' EXIT
pgrep -f -- "--kubeconfig-out $KC" >/dev/null && fail "kubesim still running after kubesim-run returned"
echo "PASS: kubesim_run_kubelet"
