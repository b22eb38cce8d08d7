#!/usr/bin/env bash
# scripts/kubesim-run on a read-only build (issue 10 item 14: it wrote its image directory and
# entrypoint.tmp into the build tree, so it failed on a read-only build and parallel runs collided on
# the same file). In a mount namespace of its own the build directory is bound read-only, then:
#  1. two runs at once, each running a pod of cspark:dev (the image `make image` built), both pass;
#  2. with the build's image hidden, a run falls back to the stand-in image it makes in its own work
#     directory (scripts/lib/dev-image.sh), and its pod runs too.
# Usage: tests/kubesim/kubesim_run_readonly.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd) || { echo "FAIL: no build dir" >&2; exit 1; }
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    echo "SKIP: kubesim_run_readonly: needs root for a mount namespace (unshare -m)" >&2
    exit 77
fi
if [ ! -f "$BUILD/image/cspark-dev/config.json" ]; then
    echo "SKIP: kubesim_run_readonly: no image cspark:dev in $BUILD/image (make image)" >&2
    exit 77
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cat >"$T/pod.sh" <<'EOF'
set -e
kubectl run probe --image=cspark:dev --restart=Never -- sh -c 'echo RUN=$(id -u):$SPARK_HOME'
for _ in $(seq 300); do
    p=$(kubectl get pod probe -o jsonpath='{.status.phase}')
    [ "$p" = Succeeded ] || [ "$p" = Failed ] && break
    sleep 0.1
done
echo "PHASE=$p"
kubectl logs probe
EOF
cat >"$T/ro.sh" <<EOF
set -u
mount --make-rprivate / && mount --bind "$BUILD" "$BUILD" && mount -o remount,bind,ro "$BUILD" || exit 3
touch "$BUILD/.rw-probe" 2>/dev/null && { echo "the build is still writable"; exit 3; }
CSPARK_BUILD_DIR="$BUILD" "$ROOT/scripts/kubesim-run" -- bash "$T/pod.sh" >"$T/a.out" 2>&1 &
a=\$!
CSPARK_BUILD_DIR="$BUILD" "$ROOT/scripts/kubesim-run" -- bash "$T/pod.sh" >"$T/b.out" 2>&1 &
b=\$!
wait \$a; echo "A=\$?"
wait \$b; echo "B=\$?"
mkdir -p "$T/empty" && mount --bind "$T/empty" "$BUILD/image" || exit 3
CSPARK_BUILD_DIR="$BUILD" "$ROOT/scripts/kubesim-run" -- bash "$T/pod.sh" >"$T/c.out" 2>&1
echo "C=\$?"
EOF
timeout 300 unshare -m bash "$T/ro.sh" >"$T/ro.out" 2>&1
rc=$?
fail() {
    echo "FAIL: kubesim_run_readonly: $*" >&2
    for f in ro a b c; do [ -f "$T/$f.out" ] && sed "s/^/  $f| /" "$T/$f.out" >&2; done
    exit 1
}
[ $rc = 0 ] || fail "the mount namespace script exited $rc"
for run in A B C; do
    grep -qx "$run=0" "$T/ro.out" || fail "run $run did not pass on the read-only build"
done
for f in a b; do
    grep -qx 'PHASE=Succeeded' "$T/$f.out" && grep -qx 'RUN=185:/opt/spark' "$T/$f.out" ||
        fail "run $f: the image's pod did not run as user 185 with SPARK_HOME"
done
grep -qx 'PHASE=Succeeded' "$T/c.out" && grep -q '^RUN=[0-9]*:/opt/spark$' "$T/c.out" ||
    fail "run c: the stand-in image's pod did not run"
grep -q 'no image in .*cspark:dev maps /opt/spark to the build' "$T/c.out" ||
    fail "run c did not say it used the stand-in image"
echo "PASS: kubesim_run_readonly"
