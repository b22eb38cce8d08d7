#!/usr/bin/env bash
# bench/stop_latency.sh — how long stopping an application takes while its tasks sleep 600 s in
# user code and ignore being killed (issue 10 items 6-8, 18); not part of CI.
#
# usage: bench/stop_latency.sh [BUILD_DIR]      (default: build)
#
# tests/jobs/stopjobs.so's `stuck` job (8 tasks sleeping 600 s each) is started; once two tasks
# run it is stopped, and the seconds from the stop to the application being gone are measured:
#   local[2], local-cluster[2,1,1024]: SIGINT, SIGTERM, a double SIGINT (0.3 s apart), and a job
#     abort (`abort_stuck`: partition 0 fails, spark.task.maxFailures=1; measured from the
#     abort's log line) — until the driver process has exited;
#   Kubernetes on kubesim (scripts/kubesim-run, with the image `make image` built; skipped
#     without it): client mode SIGINT (until the driver process and every executor pod,
#     ConfigMap and Secret are gone) and cluster mode --kill (until no object of the application
#     is left; the pods' grace period is Kubernetes' default, 30 s, an upper bound the driver
#     does not need).
# BENCH_REPS runs of each (default 3); prints the median and the slowest per case. The target
# (issue 10): within 5 s, plus the pod grace period on Kubernetes. With the task reaper's default
# (spark.task.reaper.killTimeout=2s) the expected figure is about 2 s.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "stop_latency: no build dir ${1:-build}" >&2; exit 2; }
SUBMIT=$BUILD/bin/cspark-submit
JOBS=$BUILD/tests/jobs/stopjobs.so
REPS=${BENCH_REPS:-3}
for f in "$SUBMIT" "$JOBS" "$BUILD/bin/cspark-executor"; do
    [ -e "$f" ] || { echo "stop_latency: missing $f (build first)" >&2; exit 2; }
done
T=$(mktemp -d)
chmod 1777 "$T"
trap 'rm -rf "$T"' EXIT

now() { date +%s.%N; }
median_max() { sort -n | awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit} printf "median %.2f s  max %.2f s  (n=%d)\n", v[int((NR+1)/2)], v[NR], NR}'; }

# one_local MASTER HOW: prints the seconds from the stop to the driver's exit
one_local() {
    local master=$1 how=$2 cls=stuck opts=()
    rm -rf "$T/marks" "$T/local"
    mkdir -p "$T/marks" "$T/local"
    [ "$how" = abort ] && { cls=abort_stuck; opts=(--conf spark.task.maxFailures=1); }
    "$SUBMIT" --master "$master" --conf spark.local.dir="$T/local" "${opts[@]}" --class $cls "$JOBS" "$T/marks" \
        >/dev/null 2>"$T/err" &
    local pid=$! i t0
    for i in $(seq 600); do [ -e "$T/marks/started-1" ] && break; sleep 0.05; done
    case $how in
    INT | TERM) t0=$(now); kill -$how $pid ;;
    INT2) t0=$(now); kill -INT $pid; sleep 0.3; kill -INT $pid ;;
    abort) t0= ;;
    esac
    wait $pid
    local t1
    t1=$(now)
    if [ -z "$t0" ]; then # from the failure that aborted the job (its log line's time)
        local stamp
        stamp=$(grep -m1 'event=task_failed' "$T/err" | awk '{print $2}')
        t0=$(date -d "$stamp" +%s.%N)
    fi
    echo "$t1 - $t0" | bc
}

printf '%-28s %-8s %s\n' master stop latency
for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    for how in INT TERM INT2 abort; do
        for _ in $(seq "$REPS"); do one_local "$master" $how; done | median_max |
            xargs -0 printf '%-28s %-8s %s' "$master" "$how"
    done
done

if [ ! -f "$BUILD/image/cspark-dev/config.json" ]; then
    echo "k8s: skipped (no image cspark:dev in $BUILD/image: make image)"
    exit 0
fi
mkdir -p "$T/conf"
{
    echo "spark.kubernetes.authenticate.driver.serviceAccountName spark"
    for role in driver executor; do
        for v in "cspark-build $BUILD true" "bench-files $T false"; do
            set -- $v
            echo "spark.kubernetes.$role.volumes.hostPath.$1.mount.path $2"
            echo "spark.kubernetes.$role.volumes.hostPath.$1.options.path $2"
            echo "spark.kubernetes.$role.volumes.hostPath.$1.mount.readOnly $3"
        done
    done
} >"$T/conf/spark-defaults.conf"
cat >"$T/k8s.sh" <<EOF
set -u
export SPARK_CONF_DIR="$T/conf"
kubectl apply -f "$SRC/deploy/rbac.yaml" >/dev/null
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms)
left() { kubectl get pods,configmaps,secrets -o name | grep -v kube-root-ca.crt | grep -q .; }
started() { [ -e "$T/marks/started-1" ]; }
for i in \$(seq $REPS); do
    rm -rf "$T/marks"; mkdir -p "$T/marks"; chmod 1777 "$T/marks"
    "$SUBMIT" "\${COMMON[@]}" --deploy-mode client --class stuck "$JOBS" "$T/marks" >/dev/null 2>&1 &
    pid=\$!
    for _ in \$(seq 1200); do started && break; sleep 0.05; done
    t0=\$(date +%s.%N); kill -INT \$pid; wait \$pid
    for _ in \$(seq 1200); do left || break; sleep 0.05; done
    echo "client-INT \$(echo "\$(date +%s.%N) - \$t0" | bc)"
done
for i in \$(seq $REPS); do
    rm -rf "$T/marks"; mkdir -p "$T/marks"; chmod 1777 "$T/marks"
    "$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name stop-bench --conf spark.kubernetes.submission.waitAppCompletion=false \
        --class stuck "$JOBS" "$T/marks" >/dev/null 2>&1
    for _ in \$(seq 1200); do started && break; sleep 0.05; done
    t0=\$(date +%s.%N); "$SUBMIT" --master "k8s://\$SERVER" --kill 'stop-bench-*' >/dev/null
    for _ in \$(seq 1200); do left || break; sleep 0.05; done
    echo "cluster-kill \$(echo "\$(date +%s.%N) - \$t0" | bc)"
done
EOF
CSPARK_BUILD_DIR="$BUILD" timeout 900 "$SRC/scripts/kubesim-run" bash "$T/k8s.sh" >"$T/k8s.out" 2>"$T/k8s.log" ||
    { tail -20 "$T/k8s.log" >&2; echo "stop_latency: the Kubernetes runs failed" >&2; exit 1; }
for how in client-INT cluster-kill; do
    grep "^$how " "$T/k8s.out" | awk '{print $2}' | median_max | xargs -0 printf '%-28s %-8s %s' "k8s (kubesim)" "$how"
done
