#!/usr/bin/env bash
# bench/spark_k8s_alloc.sh — Spark's Kubernetes allocator against cspark's, on the real control plane
# (issue 16, point 3). Called by bench/k8s_bench.sh (`make bench-k8s`) unless BENCH_SKIP_SPARK=1;
# runs alone too. Not part of CI. Needs root (scripts/k8s-run), Java 17 and the pinned Spark
# (scripts/install-spark.sh installs both once).
#
# usage: bench/spark_k8s_alloc.sh [BUILD_DIR]      (default: build)
#
# One cluster (scripts/k8s-run: etcd, kube-apiserver, scheduler, controller manager, K8S_BENCH_FAKE_NODES
# (4) fake nodes of the node agent, which mark pods Running without running their image), and in it,
# one after the other, each client-mode driver asking for K8S_BENCH_EXECUTORS (1000) executors:
#   cspark        cspark-submit --deploy-mode client, testjobs.so --class slow (a job that waits for
#                 executors), allocator defaults (batch size 10, batch delay 1 s, 50 pod creations per second)
#   spark         Spark 4.0.1's own backend, spark-submit --deploy-mode client, class IdleDriver
#                 (bench/spark/src: a context and nothing else), every setting at Spark's default
#   spark-tuned   the same with spark.kubernetes.allocation.batch.size=50, batch.delay=1s
# SPARK_K8S_ALLOC_RUNS picks and orders them (default "cspark spark spark-tuned"). The executors never
# register (no image runs), so each driver holds its pods and keeps its target; both use the cluster's
# admin kubeconfig (Spark through fabric8's kubeconfig support), namespace `default`, and the
# executor image is a name only (cspark:dev, apache/spark:4.0.1).
#
# Per run, from a pod watch (bench/spark/alloc_watch.py, started before the driver): first executor pod
# seen after the driver's launch; time from the first executor pod to 100, N/2 and N pods Running (and
# N from the launch); executor pods created, those beyond the target, and duplicates (a second pod for
# an executor id, a name seen twice). From kube-apiserver's /metrics (apiserver_request_total) before the launch and when N pods run:
# the driver's requests per executor — writes and GETs on pods, ConfigMaps, Secrets and Services without
# a subresource (the scheduler's bindings and the nodes' status updates are subresources), the filter of
# bench/k8s_bench.sh (d) — with pod LISTs apart, and kube-apiserver's CPU seconds. Then SIGTERM to the
# driver (a user stopping the application: both stop their context, which deletes the executor pods):
# time to the driver's exit, executor pods left 30 s after it, ConfigMaps/Secrets/Services left, and the
# requests from launch to the end (their DELETEs include the node agents' final deletes, one per pod).
# SPARK_K8S_ALLOC_STOP_EARLY=1 sends the SIGTERM as soon as N pods run instead, which with a small N
# lands while the context still waits for executors (what a user stopping a starting application sees).
# The load average before each run is reported: the machine is shared.
#
# Writes bench/results/spark-k8s-alloc.md (bench/results/tmp/spark-k8s-alloc-smoke.md when
# K8S_BENCH_EXECUTORS is not 1000; SPARK_K8S_ALLOC_OUT names another file).
# Acceptance (issue 16): cspark all Running >= 3x sooner than Spark with defaults, with no more API
# requests per executor than Spark.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "spark_k8s_alloc: no build dir ${1:-build}" >&2; exit 2; }
NEXEC=${K8S_BENCH_EXECUTORS:-1000}
RUNS=${SPARK_K8S_ALLOC_RUNS:-cspark spark spark-tuned}
FAKE_NODES=${K8S_BENCH_FAKE_NODES:-4}
TIMEOUT=${SPARK_K8S_ALLOC_TIMEOUT:-400} # seconds per run to reach N Running
OUTMD=$SRC/bench/results/spark-k8s-alloc.md
[ "$NEXEC" != 1000 ] && OUTMD=$SRC/bench/results/tmp/spark-k8s-alloc-smoke.md
OUTMD=${SPARK_K8S_ALLOC_OUT:-$OUTMD}
PY=/usr/bin/python3
log() { echo "spark_k8s_alloc: $*" >&2; }

for f in "$BUILD/bin/kubesim" "$BUILD/bin/cspark-submit" "$BUILD/tests/jobs/testjobs.so"; do
    [ -e "$f" ] || { log "missing $f (build first)"; exit 2; }
done
case "$NEXEC$FAKE_NODES$TIMEOUT" in
'' | *[!0-9]*) log "K8S_BENCH_EXECUTORS, K8S_BENCH_FAKE_NODES and SPARK_K8S_ALLOC_TIMEOUT take whole numbers (e.g. 1000, 4, 400)"; exit 2 ;;
esac
[ "$NEXEC" -ge 1 ] && [ "$FAKE_NODES" -ge 1 ] || { log "K8S_BENCH_EXECUTORS and K8S_BENCH_FAKE_NODES must be at least 1"; exit 2; }
for r in $RUNS; do
    case $r in cspark | spark | spark-tuned) ;; *) log "SPARK_K8S_ALLOC_RUNS: unknown run '$r' (cspark, spark, spark-tuned)"; exit 2 ;; esac
done
"$PY" -c 'import kubernetes' 2>/dev/null || { log "needs Debian's python3-kubernetes (apt-get install python3-kubernetes)"; exit 2; }
SPARK_HOME=$("$SRC/scripts/install-spark.sh") || { log "cannot install Spark (scripts/install-spark.sh)"; exit 1; }
SPARK_VERSION=$(basename "$(dirname "$SPARK_HOME")" | sed 's/^spark-//')
JAR=$("$SRC/bench/spark/build_jar.sh" "$SPARK_HOME" "$BUILD") || { log "cannot build the Spark side (bench/spark/build_jar.sh)"; exit 1; }
T=$(mktemp -d /tmp/spark-k8s-alloc-XXXXXX)
trap 'if [ -n "${SPARK_K8S_ALLOC_KEEP:-}" ]; then log "kept $T"; else rm -rf "$T"; fi' EXIT
chmod 755 "$T"

# ---- the runs, inside the cluster's network namespace -------------------------------------------
cat >"$T/inner.sh" <<EOF
set -u
T=$T
N=$NEXEC
SERVER=\$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
HOST=\${SERVER#https://}; HOST=\${HOST%%:*}
APID=
for p in \$(pgrep -x kube-apiserver); do [ "\$(readlink /proc/\$p/ns/net)" = "\$(readlink /proc/self/ns/net)" ] && APID=\$p; done
cpu() { awk '{ print \$14 + \$15 }' /proc/\$APID/stat; }
now() { date +%s%3N; }
DPID= REC=
stop_all() {
    [ -n "\$DPID" ] && kill -KILL \$DPID 2>/dev/null
    [ -n "\$REC" ] && kill \$REC 2>/dev/null
    wait 2>/dev/null
}
trap stop_all EXIT
objects() { kubectl get configmaps,secrets,services -o name | sort; }
getconf CLK_TCK >\$T/hz
# Spark's client (fabric8) reads a PKCS#8 key as RSA unless its PEM says EC: the same admin credentials,
# the key in SEC1 form ("EC PRIVATE KEY")
cp "\$KUBECONFIG" \$T/spark.kubeconfig
kubectl config view --raw --minify -o jsonpath='{.users[0].user.client-key-data}' | base64 -d | openssl ec -out \$T/admin-ec.key 2>/dev/null
KUBECONFIG=\$T/spark.kubeconfig kubectl config set-credentials "\$(kubectl config view --minify -o jsonpath='{.users[0].name}')" \\
    --client-key=\$T/admin-ec.key --embed-certs=true >/dev/null

driver() { # driver RUN: starts the run's driver in the background, pid in DPID
    case \$1 in
    cspark)
        "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --class slow --name alloc-cspark \\
            --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=\$N \\
            "$BUILD/tests/jobs/testjobs.so" 600000 >\$T/\$1.out 2>\$T/\$1.err &
        ;;
    spark | spark-tuned)
        local tune=()
        [ \$1 = spark-tuned ] && tune=(--conf spark.kubernetes.allocation.batch.size=50 --conf spark.kubernetes.allocation.batch.delay=1s)
        KUBECONFIG=\$T/spark.kubeconfig "$SPARK_HOME/bin/spark-submit" --master "k8s://\$SERVER" --deploy-mode client --name alloc-\$1 \\
            --class org.cspark.bench.IdleDriver --conf spark.executor.instances=\$N \\
            --conf spark.kubernetes.container.image=apache/spark:$SPARK_VERSION --conf spark.driver.host=\$HOST \\
            "\${tune[@]}" "$JAR" >\$T/\$1.out 2>\$T/\$1.err &
        ;;
    esac
    DPID=\$!
}

one_run() { # one_run RUN
    local r=\$1 i n=0 running=0 alive=0
    # a clean namespace: no executor pod of an earlier run
    for i in \$(seq 120); do [ -z "\$(kubectl get pods -l spark-role=executor -o name)" ] && break; sleep 0.5; done
    objects >\$T/\$r.objects0
    "$PY" "$SRC/bench/spark/alloc_watch.py" record \$T/\$r.events \$T/\$r.status 2>\$T/\$r.watch.err & REC=\$!
    for i in \$(seq 100); do [ -s \$T/\$r.status ] && break; sleep 0.1; done
    sleep 1
    cut -d' ' -f1-3 /proc/loadavg >\$T/\$r.load
    kubectl get --raw /metrics >\$T/\$r.m0
    cpu >\$T/\$r.cpu0
    now >\$T/\$r.t0
    driver \$r
    for i in \$(seq \$((TIMEOUT_S * 5))); do
        read -r running alive _ <\$T/\$r.status 2>/dev/null
        running=\${running#running=}
        [ "\${running:-0}" -ge \$N ] && break
        kill -0 \$DPID 2>/dev/null || break
        sleep 0.2
    done
    kubectl get --raw /metrics >\$T/\$r.m1
    cpu >\$T/\$r.cpu1
    now >\$T/\$r.t1
    [ "\${running:-0}" -ge \$N ] || { echo "\$r: only \${running:-0} of \$N executor pods Running; driver log:" >&2; tail -5 \$T/\$r.err >&2; }
    # Both drivers wait up to spark.scheduler.maxRegisteredResourcesWaitingTime (30 s) for executors while
    # their context starts, and only then take SIGTERM as "stop the application" (Spark registers the
    # shutdown hook that stops its context at the end of the constructor; cspark's interrupt watcher starts
    # after the context): stop each once its application runs, as a user would.
    local ready='context ready'
    [ \$r = cspark ] && ready='event=executors_registered'
    if [ "${SPARK_K8S_ALLOC_STOP_EARLY:-0}" != 1 ]; then
        for i in \$(seq 600); do grep -q "\$ready" \$T/\$r.out \$T/\$r.err 2>/dev/null && break; kill -0 \$DPID 2>/dev/null || break; sleep 0.2; done
    fi
    now >\$T/\$r.tstop
    kill -TERM \$DPID 2>/dev/null
    local status=
    for i in \$(seq 1200); do kill -0 \$DPID 2>/dev/null || break; sleep 0.1; done
    if kill -0 \$DPID 2>/dev/null; then kill -KILL \$DPID; echo killed >\$T/\$r.exit; fi
    wait \$DPID; status=\$?
    [ -s \$T/\$r.exit ] || echo \$status >\$T/\$r.exit
    DPID=
    now >\$T/\$r.texit
    for i in \$(seq 300); do
        read -r running alive _ <\$T/\$r.status 2>/dev/null
        [ "\${alive#alive=}" = 0 ] && break
        sleep 0.1
    done
    now >\$T/\$r.tgone
    echo "\${alive#alive=}" >\$T/\$r.left
    kubectl get --raw /metrics >\$T/\$r.m2
    kill \$REC; wait \$REC 2>/dev/null; REC=
    objects >\$T/\$r.objects1
    # leave the namespace clean for the next run
    kubectl delete pods -l spark-role=executor --wait=true >/dev/null 2>&1
    comm -13 \$T/\$r.objects0 \$T/\$r.objects1 | xargs -r kubectl delete >/dev/null 2>&1
}
TIMEOUT_S=$TIMEOUT
for r in $RUNS; do
    echo "run \$r" >&2
    one_run \$r
done
EOF
log "$NEXEC executors each for: $RUNS (real control plane, $FAKE_NODES fake nodes)"
CSPARK_BUILD_DIR="$BUILD" timeout $((TIMEOUT * 4 + 900)) "$SRC/scripts/k8s-run" --nodes 0 --fake-nodes "$FAKE_NODES" -- \
    bash "$T/inner.sh" >"$T/run.log" 2>&1 || { log "the cluster run failed:"; tail -20 "$T/run.log" >&2; }

# ---- figures ------------------------------------------------------------------------------------
for r in $RUNS; do
    [ -s "$T/$r.events" ] || { log "$r: no pod events"; continue; }
    "$PY" "$SRC/bench/spark/alloc_watch.py" summary "$T/$r.events" "$NEXEC" "$(cat "$T/$r.t0")" >"$T/$r.res"
    grep -h -m3 -iE 'exception|error' "$T/$r.err" >&2
done
TABLE=$("$PY" - "$T" "$NEXEC" "$SPARK_VERSION" $RUNS <<'EOF'
import collections, math, re, sys
t, n, sv, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]

def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default

def metrics(path):
    m = collections.Counter()
    try:
        lines = open(path).readlines()
    except OSError:
        return m
    for line in lines:
        if not line.startswith("apiserver_request_total{"):
            continue
        lab = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        m[(lab.get("verb"), lab.get("resource"), lab.get("subresource"))] += int(float(line.split()[-1]))
    return m

def delta(a, b):
    d = metrics(t + "/" + b)
    d.subtract(metrics(t + "/" + a))
    return {k: v for k, v in d.items() if v > 0}

def driver_own(d):
    return {k: v for k, v in d.items() if k[1] in ("pods", "configmaps", "secrets", "services")
            and not k[2] and k[0] not in ("LIST", "WATCH")}

def brk(d):
    return ", ".join("%s %s %d" % (k[0], k[1], v) for k, v in sorted(d.items())) or "none"

label = {"cspark": "cspark, defaults (batch 10, 1 s, 50 creates/s)",
         "spark": "Spark %s, defaults (batch 10, 1 s)" % sv,
         "spark-tuned": "Spark %s, batch.size 50, batch.delay 1s" % sv}
col = {}
for r in runs:
    res = dict(l.split("=", 1) for l in read("%s/%s.res" % (t, r)).splitlines() if "=" in l)
    d1, d2 = delta(r + ".m0", r + ".m1"), delta(r + ".m0", r + ".m2")
    own1, own2 = driver_own(d1), driver_own(d2)
    hz = float(read(t + "/hz", "100"))
    try:
        cpu = "%.1f" % ((float(read("%s/%s.cpu1" % (t, r))) - float(read("%s/%s.cpu0" % (t, r)))) / hz)
    except ValueError:
        cpu = "?"
    def ms(a, b):
        try:
            return "%.1f" % ((int(read("%s/%s.%s" % (t, r, b))) - int(read("%s/%s.%s" % (t, r, a)))) / 1000.0)
        except ValueError:
            return "?"
    left_objs = sorted(set(read("%s/%s.objects1" % (t, r)).split()) - set(read("%s/%s.objects0" % (t, r)).split()))
    col[r] = {
        "load": read("%s/%s.load" % (t, r), "?"),
        "first": res.get("first_pod_after_launch_s", "?"),
        "r100": res.get("running_100_s", "?"),
        "rhalf": res.get("running_%d_s" % (n // 2), "?"),
        "rall": res.get("running_%d_s" % n, "?"),
        "rall_launch": res.get("running_%d_launch_s" % n, "?"),
        "req": "%.3f" % (sum(own1.values()) / n),
        "req_lists": "%.3f" % ((sum(own1.values()) + sum(v for k, v in d1.items() if k[0] == "LIST" and k[1] == "pods")) / n),
        "req_brk": brk(own1),
        "lists": str(sum(v for k, v in d1.items() if k[0] == "LIST" and k[1] == "pods")),
        "cpu": cpu,
        "pods": "%s (%+d)" % (res["pods"], int(res["pods"]) - n) if res.get("pods", "").isdigit() else "?",
        "dups": "%s / %s" % (res.get("duplicate_ids", "?"), res.get("duplicate_names", "?")),
        "exit": "%s s, exit %s" % (ms("tstop", "texit"), read("%s/%s.exit" % (t, r), "?")),
        "left": read("%s/%s.left" % (t, r), "?"),
        "gone": ms("texit", "tgone") if read("%s/%s.left" % (t, r)) == "0" else "not all within 30 s",
        "objs": ", ".join(left_objs) or "none",
        "req_all": brk(own2),
    }

def f(x):
    try:
        return float(x)
    except ValueError:
        return math.nan

rows = [
    ("load average (1, 5, 15 min) before the run", "load"),
    ("first executor pod seen, after the driver's launch (s)", "first"),
    ("100 pods Running, from the first pod (s)", "r100"),
    ("%d pods Running, from the first pod (s)" % (n // 2), "rhalf"),
    ("**%d pods Running, from the first pod (s)**" % n, "rall"),
    ("%d pods Running, from the driver's launch (s)" % n, "rall_launch"),
    ("**API requests per executor until all Running** (driver's writes and GETs)", "req"),
    ("  of which", "req_brk"),
    ("pod LISTs until all Running (apart)", "lists"),
    ("API requests per executor until all Running, pod LISTs included", "req_lists"),
    ("kube-apiserver CPU until all Running (s)", "cpu"),
    ("executor pods created (beyond the target)", "pods"),
    ("duplicate pods (second pod for an executor id / name seen twice)", "dups"),
    ("SIGTERM → driver exited", "exit"),
    ("executor pods left 30 s after the driver exited", "left"),
    ("driver exited → last executor pod gone (s)", "gone"),
    ("ConfigMaps, Secrets, Services left", "objs"),
    ("requests launch → end (writes and GETs; DELETEs include the nodes' final ones)", "req_all"),
]
print("| | " + " | ".join(label[r] for r in runs) + " |")
print("|---|" + "---|" * len(runs))
for title, key in rows:
    print("| %s | %s |" % (title, " | ".join(col[r][key] for r in runs)))
if "cspark" in col:
    for r in [x for x in runs if x != "cspark"]:
        ratio = f(col[r]["rall"]) / f(col["cspark"]["rall"])
        print("| %d Running: %s / cspark | %s |" % (n, label[r], " | ".join(
            ("**%.2f×**" % ratio if not math.isnan(ratio) else "?") if x == r else "" for x in runs)))
    if "spark" in col:
        ratio = f(col["spark"]["rall"]) / f(col["cspark"]["rall"])
        req_ok = f(col["cspark"]["req"]) <= f(col["spark"]["req"])
        all_ok = f(col["cspark"]["req_lists"]) <= f(col["spark"]["req_lists"])
        print()
        print("Acceptance (issue 16): cspark all Running ≥ 3× sooner than Spark with defaults: %s (%.2f×); "
              "no more API requests per executor than Spark: writes and GETs %s (%s vs %s), "
              "pod LISTs included %s (%s vs %s)." % (
                  "met" if ratio >= 3 else "missed", ratio,
                  "met" if req_ok else "missed", col["cspark"]["req"], col["spark"]["req"],
                  "met" if all_ok else "missed", col["cspark"]["req_lists"], col["spark"]["req_lists"]))
EOF
)
echo "$TABLE"
mkdir -p "$(dirname "$OUTMD")"
{
    [ -s "$OUTMD" ] || printf '# Spark'"'"'s Kubernetes allocator against cspark'"'"'s (bench/spark_k8s_alloc.sh)\n'
    echo
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) — commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, Spark $SPARK_VERSION"
    echo
    echo "Command: \`bench/spark_k8s_alloc.sh $(basename "$BUILD")\` (K8S_BENCH_EXECUTORS=$NEXEC, K8S_BENCH_FAKE_NODES=$FAKE_NODES, runs in this order: $RUNS; one cluster, one run each${SPARK_K8S_ALLOC_STOP_EARLY:+; SPARK_K8S_ALLOC_STOP_EARLY=1})"
    echo
    echo "$TABLE"
} >>"$OUTMD"
log "appended to $OUTMD"
