#!/usr/bin/env bash
# kubesim stopped by SIGTERM right after it starts (--port 0, the HTTPS default with its CA) exits 0
# and, in the sanitizer build, LeakSanitizer finds nothing: the controllers' state (its copy of the
# CA, ks_controllers_start) leaked 547 bytes at every stop before main.c freed it after the store.
# In the normal build it checks the clean stop; the leak itself shows in CI's ASan pass.
# Usage: tests/kubesim/sigterm_after_start_leak.sh BUILD_DIR
set -uo pipefail
BUILD=${1:?usage: $0 BUILD_DIR}
KUBESIM="$BUILD/bin/kubesim"
[ -x "$KUBESIM" ] || { echo "FAIL: $KUBESIM not built" >&2; exit 1; }
TMP=$(mktemp -d)
PID=
cleanup() {
    [ -n "$PID" ] && kill -KILL "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT
fail() {
    echo "FAIL: sigterm_after_start_leak: $*" >&2
    sed 's/^/  kubesim| /' "$TMP/kubesim.log" >&2
    exit 1
}
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1" \
    "$KUBESIM" --port 0 --no-kubelet --kubeconfig-out "$TMP/kubeconfig" >"$TMP/kubesim.log" 2>&1 &
PID=$!
for _ in $(seq 600); do
    grep -q 'kubesim listening' "$TMP/kubesim.log" && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
grep -q 'kubesim listening' "$TMP/kubesim.log" || fail "kubesim did not start"
kill -TERM "$PID"
rc=
for _ in $(seq 600); do
    kill -0 "$PID" 2>/dev/null || { wait "$PID"; rc=$?; break; }
    sleep 0.1
done
[ -n "$rc" ] || fail "kubesim still runs 60 s after SIGTERM"
PID=
grep -q 'LeakSanitizer' "$TMP/kubesim.log" && fail "LeakSanitizer reports a leak at the stop"
[ "$rc" = 0 ] || fail "kubesim exited $rc after SIGTERM (expected 0)"
grep -q 'kubesim stopping signal=15' "$TMP/kubesim.log" || fail "no 'kubesim stopping signal=15' line"
echo "PASS: sigterm_after_start_leak: kubesim stopped cleanly (exit 0, no leak report)"
