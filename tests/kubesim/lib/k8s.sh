# k8s.sh — shared frame of the end-to-end Kubernetes tests (tests/kubesim/k8s_*.sh): each writes
# its checks into "$T/inner.sh", which runs against a fresh kubesim (scripts/kubesim-run, image
# cspark:dev mapped to the build) and prints "inner ok" when every check passed.
#   . "$(dirname "$0")/lib/k8s.sh"; k8s_test_init "$@"     sets BUILD, SRC, T (removed on exit)
#   k8s_run_inner SECONDS [KUBESIM_FLAGS...]                runs inner.sh; exits 1 on failure
# inner.sh runs after a prelude (set -u) that gives it SERVER (the API server's URL),
# fail MESSAGE (prints "FAIL: <test>: MESSAGE", exits 1) and expect_nothing_left [CONTEXT] (waits
# up to 20 s for the namespace to hold no pod, ConfigMap or Secret — deleted pods may still be
# terminating — then fails naming what is left).
set -euo pipefail
K8S_TEST=$(basename "${0%.sh}")

k8s_test_init() {
    BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
    SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
    T=$(mktemp -d)
    trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT # KEEP_T=1 keeps it for a look
    chmod 755 "$T" # pods run the test's files
}

k8s_run_inner() {
    local secs=$1
    shift
    local flags=()
    [ $# -gt 0 ] && flags=("$@" --)
    {
        cat <<PRELUDE
set -u
fail() { echo "FAIL: $K8S_TEST: \$*" >&2; exit 1; }
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
expect_nothing_left() {
    for _ in \$(seq 100); do [ -z "\$(kubectl get pods,configmaps,secrets -o name)" ] && return 0; sleep 0.2; done
    fail "\${1:+\$1: }left behind: \$(kubectl get pods,configmaps,secrets -o name)"
}
PRELUDE
        cat "$T/inner.sh"
    } >"$T/run-inner.sh"
    CSPARK_BUILD_DIR="$BUILD" timeout "$secs" "$SRC/scripts/kubesim-run" "${flags[@]}" bash "$T/run-inner.sh" \
        >"$T/run.log" 2>&1 || {
        tail -30 "$T/run.log" >&2
        echo "FAIL: $K8S_TEST" >&2
        exit 1
    }
    grep -q "inner ok" "$T/run.log" || {
        tail -20 "$T/run.log" >&2
        echo "FAIL: $K8S_TEST: incomplete" >&2
        exit 1
    }
}
