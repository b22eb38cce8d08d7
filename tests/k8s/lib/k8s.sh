# k8s.sh — shared frame of the end-to-end Kubernetes tests (tests/k8s/*.sh): each writes
# its checks into "$T/inner.sh", which runs against a fresh cluster — kubesim (scripts/kubesim-run)
# or, with K8S_CLUSTER=real, the real control plane with 3 node agents (scripts/k8s-run) — with the
# image cspark:dev mapped to the build, and prints "inner ok" when every check passed. CTest registers
# each script twice (<name> and <name>_real), except the scripts marked `# k8s-clusters: kubesim`
# (they need kubesim's fault injection, pod history or --rbac file, which the real server lacks).
# Pods run the image `make image` built (<build>/image/cspark-dev; without it a test says SKIP and
# exits 77) from its own root filesystem, as user 185; the build and the test's directory T are
# mounted into the driver and executor pods at the same paths (hostPath volumes in
# $T/conf/spark-defaults.conf), so tests pass files by their paths as before.
#   . "$(dirname "$0")/lib/k8s.sh"; k8s_test_init "$@" [--no-image]
#                                        sets BUILD, SRC, T (removed on exit); --no-image: the test
#                                        runs no pod, so it needs no image and never says SKIP
#   k8s_step TEXT                        records the step the test is in (see below)
#   k8s_run_inner SECONDS [KUBESIM_FLAGS...]                runs inner.sh; exits 1 on failure
#       (on the real cluster --nodes N, --node-memory Q and --node-resource NAME=N are given to the
#       node agents; inner.sh sees K8S_CLUSTER). SECONDS bounds inner.sh; the real cluster's start gets 180 s more; the
#       sum must stay 60 s below ctest's TIMEOUT (K8S_TEST_TIMEOUT), which ends a test silently.
# inner.sh runs after a prelude (set -u) that gives it SERVER (the API server's URL), pod_history
# (kubesim's /kubesim/pod-history, or the same JSON from a pod watch on the real cluster), objects,
# fail MESSAGE (prints "FAIL: <test>: MESSAGE", exits 1), expect_nothing_left [CONTEXT] (waits
# up to 60 s for the namespace to hold no pod, ConfigMap or Secret — deleted pods may still be
# terminating — then fails naming what is left), step TEXT (records the step it is in) and
# wait_until SECONDS WHAT COMMAND... (polls COMMAND every 0.2 s until it succeeds, as the wait for
# WHAT; returns 1 after SECONDS of the clock, whatever the load, saying WHAT did not happen).
# A test stopped before it ends — by its own limit (SECONDS), or by SIGTERM/SIGINT (ctest's
# timeout, Ctrl-C) — says where it was: "FAIL: <test>: stopped by ... in step '<step>', waiting
# for <what> (up to N s, for M s), at line L of inner.sh: <the line>", from the step and wait files
# the frame and the prelude keep in T and the line inner.sh's TERM trap records.
# The outer script has the one prelude's helpers (tests/lib/prelude.sh: fail, log, assert_*),
# naming the test as the frame does (<name>_real on the real control plane).
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/prelude.sh"
set -euo pipefail
K8S_TEST=$(basename "${0%.sh}")
K8S_CLUSTER=${K8S_CLUSTER:-kubesim} # kubesim | real
case "$K8S_CLUSTER" in
kubesim | real) ;;
*) echo "FAIL: $K8S_TEST: K8S_CLUSTER must be kubesim or real, not '$K8S_CLUSTER'" >&2; exit 1 ;;
esac
[ "$K8S_CLUSTER" = real ] && K8S_TEST="${K8S_TEST}_real"
TEST_NAME=$K8S_TEST

k8s_test_init() {
    BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
    SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
    if [ "${2:-}" != --no-image ] && [ ! -f "$BUILD/image/cspark-dev/config.json" ]; then
        echo "SKIP: $K8S_TEST: no image cspark:dev in $BUILD/image (make image; scripts/image says why)" >&2
        exit 77
    fi
    T=$(mktemp -d)
    trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT # KEEP_T=1 keeps it for a look
    chmod 1777 "$T" # pods run as the image's user (185) and write their outputs here
}

# k8s_step TEXT — the step the test is in, named when it is stopped (inner.sh's step writes the same file)
k8s_step() {
    printf '%s (from %s)\n' "$*" "$(date -u +%T)" >"$T/.k8s-step"
    rm -f "$T/.k8s-wait"
}

# k8s_where — where the test is: its step, the wait it is in (and for how long), the line of inner.sh
k8s_where() {
    local step wait line since
    step=$(cat "$T/.k8s-step" 2>/dev/null) || step="before any step"
    printf "in step '%s'" "$step"
    if read -r since wait 2>/dev/null <"$T/.k8s-wait"; then
        printf ', waiting for %s, for %s s' "$wait" "$(($(date +%s) - since))"
    fi
    line=$(cat "$T/.k8s-line" 2>/dev/null) && printf ', at %s' "$line"
    echo
}

# k8s_stopped SIGNAL — the test was told to stop (ctest's timeout, Ctrl-C): stop the cluster runner
# (timeout passes the signal on to it and to inner.sh, whose trap records its line), say where it was
k8s_stopped() {
    trap - TERM INT
    if [ -n "${K8S_RUNNER_PID:-}" ]; then
        kill -TERM "$K8S_RUNNER_PID" 2>/dev/null
        wait "$K8S_RUNNER_PID" 2>/dev/null || true # bounded: timeout --kill-after
        [ -f "$T/run.log" ] && tail -15 "$T/run.log" >&2
    fi
    echo "FAIL: $K8S_TEST: stopped by SIG$1 $(k8s_where)" >&2
    [ "$1" = INT ] && exit 130
    exit 143
}

k8s_run_inner() {
    local secs=$1
    shift
    [ "$K8S_CLUSTER" = real ] && secs=$((secs + 180)) # the control plane's start on a loaded machine
    # ctest's timeout (K8S_TEST_TIMEOUT, tests/CMakeLists.txt) must leave the frame time to speak
    if [ -n "${K8S_TEST_TIMEOUT:-}" ] && [ "$secs" -gt $((K8S_TEST_TIMEOUT - 60)) ]; then
        echo "FAIL: $K8S_TEST: its limit of $secs s is not 60 s below ctest's TIMEOUT of $K8S_TEST_TIMEOUT s (tests/CMakeLists.txt)" >&2
        exit 1
    fi
    local flags=() runner=kubesim-run
    if [ "$K8S_CLUSTER" = real ]; then
        runner=k8s-run
        while [ $# -gt 0 ]; do
            case "$1" in
            --nodes) flags+=(--nodes "$2"); shift 2 ;;
            --node-memory) export K8S_UP_NODE_MEMORY=$2; shift 2 ;;
            --node-resource) export K8S_UP_NODE_RESOURCE=$2; shift 2 ;;
            *) echo "FAIL: $K8S_TEST: kubesim flag $1 has no meaning on the real cluster" >&2; exit 1 ;;
            esac
        done
    else
        flags=("$@")
    fi
    [ ${#flags[@]} -gt 0 ] && flags+=(--)
    {
        cat <<PRELUDE
set -u
umask 0000 # what this shell makes in T (a client-mode driver's output directories) the pods' user writes to
K8S_CLUSTER=$K8S_CLUSTER
fail() { echo "FAIL: $K8S_TEST: \$*" >&2; exit 1; }
step() { printf '%s (from %s)\\n' "\$*" "\$(date -u +%T)" >"$T/.k8s-step"; rm -f "$T/.k8s-wait"; echo "step: \$*" >&2; }
wait_until() {
    local secs=\$1 what=\$2 start=\$(date +%s)
    shift 2
    echo "\$start \$what (up to \$secs s)" >"$T/.k8s-wait"
    until "\$@" >/dev/null 2>&1; do
        if [ \$((\$(date +%s) - start)) -ge "\$secs" ]; then
            echo "wait: \$what did not happen within \$secs s" >&2
            rm -f "$T/.k8s-wait"
            return 1
        fi
        sleep 0.2
    done
    rm -f "$T/.k8s-wait"
}
# the line inner.sh is at (the DEBUG trap runs before each command of the script's own lines, not
# inside its functions: a function's caller is the line), named when it is stopped
_k8s_line=0
_k8s_first=0 # the first line of inner.sh in this script, set where it starts
trap '_k8s_line=\$LINENO' DEBUG
_k8s_stopped() {
    local text where="line \$_k8s_line of the frame's prelude"
    text=\$(sed -n "\${_k8s_line}p" "\$0" | tr -s ' \\t' ' ' | sed 's/^ //' | cut -c1-200)
    [ "\$_k8s_first" -gt 0 ] && [ "\$_k8s_line" -ge "\$_k8s_first" ] && where="line \$((_k8s_line - _k8s_first + 1)) of inner.sh"
    echo "\$where: \$text (running: \$1)" >"$T/.k8s-line"
    echo "FAIL: $K8S_TEST: inner.sh stopped by SIGTERM at \$(cat "$T/.k8s-line")" >&2
    exit 143
}
trap '_k8s_stopped "\$BASH_COMMAND"' TERM
step "inner.sh (the cluster is up)"
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
# objects [KUBECTL_ARGS] — the namespace's pods, services, ConfigMaps and Secrets, one "kind/name" a
# line, less what every namespace of a real cluster holds (the kube-root-ca.crt ConfigMap, the
# kubernetes Service)
objects() {
    kubectl get pods,services,configmaps,secrets -o name "\$@" | grep -v -e '^configmap/kube-root-ca.crt\$' -e '^service/kubernetes\$' || true
}
expect_nothing_left() {
    _k8s_nothing() { [ -z "\$(objects | grep -v ^service/)" ]; }
    wait_until 60 "the namespace to be empty\${1:+ (\$1)}" _k8s_nothing ||
        fail "\${1:+\$1: }left behind: \$(objects | grep -v ^service/)"
}
PRELUDE
        # every object is created with fieldValidation=Strict: a field the server does not know fails
        mkdir -p "$T/conf"
        echo "cspark.kubernetes.fieldValidation Strict" >"$T/conf/spark-defaults.conf"
        # pods run from the image's own root filesystem: the build (the jobs' .so files) and the
        # test's directory (inputs, outputs) are hostPath volumes at the same paths, as a user
        # shares files with the driver and executors on one node
        local role vol dir ro
        for role in driver executor; do
            printf '%s %s %s\n' cspark-build "$BUILD" true test-files "$T" false | while read -r vol dir ro; do
                echo "spark.kubernetes.$role.volumes.hostPath.$vol.mount.path $dir"
                echo "spark.kubernetes.$role.volumes.hostPath.$vol.options.path $dir"
                echo "spark.kubernetes.$role.volumes.hostPath.$vol.mount.readOnly $ro"
            done
        done >>"$T/conf/spark-defaults.conf"
        echo "export SPARK_CONF_DIR='$T/conf'"
        # the driver's service account as deploy/rbac.yaml grants it, and nothing more (kubesim
        # authorizes service accounts by the stored Roles and bindings, as the real server)
        echo "spark.kubernetes.authenticate.driver.serviceAccountName spark" >>"$T/conf/spark-defaults.conf"
        echo "kubectl apply -f '$SRC/deploy/rbac.yaml' >/dev/null || fail 'deploy/rbac.yaml refused'"
        if [ "$K8S_CLUSTER" = real ]; then
            # the pod history kubesim keeps, recorded from a watch. The Python client writes the
            # kubeconfig's certificates to temporary files it removes only at a clean exit, and the
            # recorder is killed: they go under the test's directory, removed with it.
            echo "TMPDIR='$T' /usr/bin/python3 '$SRC/tests/k8s/lib/pod_history.py' record '$T/pods.jsonl' & PH_PID=\$!"
            echo "trap 'kill \$PH_PID 2>/dev/null' EXIT"
            echo "pod_history() { sleep 1; TMPDIR='$T' /usr/bin/python3 '$SRC/tests/k8s/lib/pod_history.py' render '$T/pods.jsonl'; }"
        else
            echo "pod_history() { kubectl get --raw /kubesim/pod-history; }"
        fi
        echo '_k8s_first=$((LINENO + 1))'
        cat "$T/inner.sh"
    } >"$T/run-inner.sh"
    k8s_step "starting the cluster (scripts/$runner)"
    rm -f "$T/.k8s-line"
    # timeout's own process group holds the runner and inner.sh: at the limit all get SIGTERM
    CSPARK_BUILD_DIR="$BUILD" timeout --kill-after=60 "$secs" "$SRC/scripts/$runner" ${flags[@]+"${flags[@]}"} \
        bash "$T/run-inner.sh" >"$T/run.log" 2>&1 &
    K8S_RUNNER_PID=$!
    trap 'k8s_stopped TERM' TERM
    trap 'k8s_stopped INT' INT
    local rc=0
    wait "$K8S_RUNNER_PID" || rc=$?
    trap - TERM INT
    K8S_RUNNER_PID=
    [ "$rc" -eq 0 ] || {
        # the test's own last lines (a driver's log it printed), then the cluster runner's summary
        sed '/^kubesim-run: pod history/,$d' "$T/run.log" | tail -25 >&2
        echo "---- the cluster's summary:" >&2
        tail -30 "$T/run.log" >&2
        grep -h "^FAIL: " "$T/run.log" >&2 # the check that failed, above the cluster's own logs
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
            echo "FAIL: $K8S_TEST: stopped at its limit of $secs s $(k8s_where)" >&2
        else
            echo "FAIL: $K8S_TEST" >&2
        fi
        exit 1
    }
    grep -q "inner ok" "$T/run.log" || {
        tail -20 "$T/run.log" >&2
        echo "FAIL: $K8S_TEST: incomplete" >&2
        exit 1
    }
}
