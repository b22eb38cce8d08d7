#!/usr/bin/env bash
# k8s/stopped_names_step.sh — a Kubernetes test stopped before its end says where it was: the frame
# (lib/k8s.sh) names the step, the wait (what it waits for, its bound, for how long) and the line of
# inner.sh, whether the test ran past its own limit (k8s_run_inner SECONDS) or was sent SIGTERM
# (ctest's timeout). A test script of the frame's shape (tests/k8s/*.sh) sets a step and
# waits for a file that never appears: once with a limit of 40 s, once killed with SIGTERM while it
# waits. Before the frame recorded them, both ended in "Terminated" and "FAIL: <test>".
# k8s-clusters: kubesim (the frame is the same on both clusters; kubesim starts in a second)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@" --no-image

mkdir -p "$T/child"
cat >"$T/child/k8s_child.sh" <<'CHILD'
. "$CSPARK_SOURCE_DIR/tests/k8s/lib/k8s.sh"
k8s_test_init "$1" --no-image
cat >"$T/inner.sh" <<INNER
step "the step before the wait"
wait_until 600 "a file that never appears" sh -c ': >"$MARK"; test -e "$MARK.never"'
echo "inner ok"
INNER
k8s_run_inner "$LIMIT"
echo "PASS: $K8S_TEST"
CHILD
export CSPARK_SOURCE_DIR="$SRC"
expect_where() { # expect_where LOG HOW — the child's last line says how it stopped and where it was
    local last
    last=$(grep '^FAIL: k8s_child: stopped' "$1" | tail -1) || true
    case "$last" in
    "FAIL: k8s_child: stopped $2 in step 'the step before the wait (from "*")', waiting for a file that never appears (up to 600 s), for "*" s, at line 2 of inner.sh: wait_until 600 "*) ;;
    *) echo "FAIL: $K8S_TEST: stopped $2: the message does not name the step, the wait and the line:" >&2
        cat "$1" >&2
        exit 1 ;;
    esac
}

# 1. its own limit
rc=0
MARK="$T/mark1" LIMIT=40 bash "$T/child/k8s_child.sh" "$BUILD" >"$T/limit.out" 2>"$T/limit.err" || rc=$?
[ "$rc" -eq 1 ] || { cat "$T/limit.err" >&2; echo "FAIL: $K8S_TEST: over its limit, the child exited $rc, want 1" >&2; exit 1; }
[ -e "$T/mark1" ] || { cat "$T/limit.err" >&2; echo "FAIL: $K8S_TEST: the child never reached its wait" >&2; exit 1; }
expect_where "$T/limit.err" "at its limit of 40 s"

# 2. SIGTERM while it waits (the mark appears once the wait is recorded)
MARK="$T/mark2" LIMIT=400 bash "$T/child/k8s_child.sh" "$BUILD" >"$T/term.out" 2>"$T/term.err" &
child=$!
start=$(date +%s)
until [ -e "$T/mark2" ]; do
    kill -0 "$child" 2>/dev/null || { cat "$T/term.err" >&2; echo "FAIL: $K8S_TEST: the child ended before its wait" >&2; exit 1; }
    [ $(($(date +%s) - start)) -lt 300 ] || { kill -TERM "$child"; echo "FAIL: $K8S_TEST: the child did not reach its wait within 300 s" >&2; exit 1; }
    sleep 0.2
done
kill -TERM "$child"
rc=0
wait "$child" || rc=$?
[ "$rc" -eq 143 ] || { cat "$T/term.err" >&2; echo "FAIL: $K8S_TEST: after SIGTERM the child exited $rc, want 143" >&2; exit 1; }
expect_where "$T/term.err" "by SIGTERM"
echo "PASS: $K8S_TEST"
