# k8s.sh — shared frame of the end-to-end Kubernetes tests (tests/kubesim/k8s_*.sh): each writes
# its checks into "$T/inner.sh", which runs against a fresh cluster — kubesim (scripts/kubesim-run)
# or, with K8S_CLUSTER=real, the real control plane with 3 node agents (scripts/k8s-run) — with the
# image cspark:dev mapped to the build, and prints "inner ok" when every check passed. CTest registers
# each script twice (<name> and <name>_real), except the scripts marked `# k8s-clusters: kubesim`
# (they need kubesim's fault injection, pod history or --rbac file, which the real server lacks).
# Pods run the image `make image` built (<build>/image/cspark-dev; without it a test says SKIP and
# exits 77) from its own root filesystem, as user 185; the build and the test's directory T are
# mounted into the driver and executor pods at the same paths (hostPath volumes in
# $T/conf/spark-defaults.conf), so tests pass files by their paths as before.
#   . "$(dirname "$0")/lib/k8s.sh"; k8s_test_init "$@"     sets BUILD, SRC, T (removed on exit)
#   k8s_run_inner SECONDS [KUBESIM_FLAGS...]                runs inner.sh; exits 1 on failure
#       (on the real cluster --nodes N and --node-memory Q are given to the node agents; inner.sh
#       sees K8S_CLUSTER)
# inner.sh runs after a prelude (set -u) that gives it SERVER (the API server's URL), pod_history
# (kubesim's /kubesim/pod-history, or the same JSON from a pod watch on the real cluster), objects,
# fail MESSAGE (prints "FAIL: <test>: MESSAGE", exits 1) and expect_nothing_left [CONTEXT] (waits
# up to 20 s for the namespace to hold no pod, ConfigMap or Secret — deleted pods may still be
# terminating — then fails naming what is left).
set -euo pipefail
K8S_TEST=$(basename "${0%.sh}")
K8S_CLUSTER=${K8S_CLUSTER:-kubesim} # kubesim | real
case "$K8S_CLUSTER" in
kubesim | real) ;;
*) echo "FAIL: $K8S_TEST: K8S_CLUSTER must be kubesim or real, not '$K8S_CLUSTER'" >&2; exit 1 ;;
esac
[ "$K8S_CLUSTER" = real ] && K8S_TEST="${K8S_TEST}_real"

k8s_test_init() {
    BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
    SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
    if [ ! -f "$BUILD/image/cspark-dev/config.json" ]; then
        echo "SKIP: $K8S_TEST: no image cspark:dev in $BUILD/image (make image; scripts/image says why)" >&2
        exit 77
    fi
    T=$(mktemp -d)
    trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT # KEEP_T=1 keeps it for a look
    chmod 1777 "$T" # pods run as the image's user (185) and write their outputs here
}

k8s_run_inner() {
    local secs=$1
    shift
    [ "$K8S_CLUSTER" = real ] && secs=$((secs + 90)) # the control plane's start (and a warm rebuild)
    local flags=() runner=kubesim-run
    if [ "$K8S_CLUSTER" = real ]; then
        runner=k8s-run
        while [ $# -gt 0 ]; do
            case "$1" in
            --nodes) flags+=(--nodes "$2"); shift 2 ;;
            --node-memory) export K8S_UP_NODE_MEMORY=$2; shift 2 ;;
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
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
# objects [KUBECTL_ARGS] — the namespace's pods, services, ConfigMaps and Secrets, one "kind/name" a
# line, less what every namespace of a real cluster holds (the kube-root-ca.crt ConfigMap, the
# kubernetes Service)
objects() {
    kubectl get pods,services,configmaps,secrets -o name "\$@" | grep -v -e '^configmap/kube-root-ca.crt\$' -e '^service/kubernetes\$' || true
}
expect_nothing_left() {
    for _ in \$(seq 100); do [ -z "\$(objects | grep -v ^service/)" ] && return 0; sleep 0.2; done
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
            # the pod history kubesim keeps, recorded from a watch
            echo "/usr/bin/python3 '$SRC/tests/kubesim/lib/pod_history.py' record '$T/pods.jsonl' & PH_PID=\$!"
            echo "trap 'kill \$PH_PID 2>/dev/null' EXIT"
            echo "pod_history() { sleep 1; /usr/bin/python3 '$SRC/tests/kubesim/lib/pod_history.py' render '$T/pods.jsonl'; }"
        else
            echo "pod_history() { kubectl get --raw /kubesim/pod-history; }"
        fi
        cat "$T/inner.sh"
    } >"$T/run-inner.sh"
    CSPARK_BUILD_DIR="$BUILD" timeout "$secs" "$SRC/scripts/$runner" ${flags[@]+"${flags[@]}"} bash "$T/run-inner.sh" \
        >"$T/run.log" 2>&1 || {
        # the test's own last lines (a driver's log it printed), then the cluster runner's summary
        sed '/^kubesim-run: pod history/,$d' "$T/run.log" | tail -25 >&2
        echo "---- the cluster's summary:" >&2
        tail -30 "$T/run.log" >&2
        grep -h "^FAIL: " "$T/run.log" >&2 # the check that failed, above the cluster's own logs
        echo "FAIL: $K8S_TEST" >&2
        exit 1
    }
    grep -q "inner ok" "$T/run.log" || {
        tail -20 "$T/run.log" >&2
        echo "FAIL: $K8S_TEST: incomplete" >&2
        exit 1
    }
}
