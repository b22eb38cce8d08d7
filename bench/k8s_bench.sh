#!/usr/bin/env bash
# bench/k8s_bench.sh — Kubernetes scheduling benchmarks on kubesim (not part of CI; run by hand).
#
# usage: bench/k8s_bench.sh [BUILD_DIR]        (default: build)
#
# Prints a Markdown table and appends it (with date, commit and host) to bench/results/k8s.md.
#   (a) 1,000 executor pods Running with kubesim's fake kubelet, allocator defaults (batch size 10,
#       batch delay 1 s): a client-mode driver asks for K8S_BENCH_EXECUTORS (1000) executors and runs a
#       job that waits (testjobs.so --class slow; the fake executors never register, and
#       spark.scheduler.maxRegisteredResourcesWaitingTime=600s keeps it waiting). Measured from
#       /kubesim/pod-history: first executor pod creation -> last of them Running; from kubesim's
#       /metrics before the driver starts and when the count is reached: API requests per executor
#       except LISTs (the periodic resync; reported apart), and the breakdown by verb/resource;
#       duplicate executor pod names (must be 0). The driver is stopped afterwards.
#   (b) process kubelet (2 nodes of 8 CPUs: room for the driver and 10 one-core executors), cluster
#       mode, K8S_BENCH_REG_EXECUTORS (10) executors x BENCH_REPS runs:
#       per executor, the driver's `event=executor_registered executor=N` log time minus the time
#       pod <prefix>-exec-N went Running in the pod history (both wall-clock ms on this host); median.
#   (c) process kubelet, cluster mode, pi.so with defaults (2 executors) x BENCH_REPS runs: time from
#       cspark-submit's start to the driver's first `stage=... event=submitted` line (kubectl logs); median.
#   (d) the same as (a) against the real control plane (scripts/k8s-run: kube-apiserver, scheduler,
#       controller manager; K8S_BENCH_FAKE_NODES (4) fake nodes of the node agent): first executor pod
#       created -> last Running from a pod watch (tests/k8s/lib/pod_history.py), API requests per
#       executor from kube-apiserver's /metrics — the driver's own: writes and GETs on pods,
#       ConfigMaps, Secrets and Services without a subresource (the scheduler's bindings and the
#       nodes' status patches are subresources; LISTs reported apart) — and kube-apiserver's CPU
#       seconds over the run (/proc/<pid>/stat). K8S_BENCH_REAL=0 skips it.
# Then, unless BENCH_SKIP_SPARK=1 (or K8S_BENCH_REAL=0): Spark's own Kubernetes allocator against cspark's
# on the real control plane, 1,000 executors each (bench/spark_k8s_alloc.sh; its own table, appended to
# bench/results/spark-k8s-alloc.md).
# Targets (issue 5): (a) <= 25 s, <= 1.2 requests/executor, no duplicates; (b) <= 100 ms; (c) <= 2 s;
# (issue 12): (d) <= 30 s, <= 1.2 requests/executor, no duplicates.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "k8s_bench: no build dir ${1:-build}" >&2; exit 2; }
REPS=${BENCH_REPS:-3}
NEXEC=${K8S_BENCH_EXECUTORS:-1000}
NREG=${K8S_BENCH_REG_EXECUTORS:-10}
OUTMD=${K8S_BENCH_OUT:-$SRC/bench/results/k8s.md}
for f in "$BUILD/bin/kubesim" "$BUILD/bin/cspark-submit" "$BUILD/bin/cspark-executor" "$BUILD/examples/pi.so" \
    "$BUILD/tests/jobs/testjobs.so"; do
    [ -e "$f" ] || { echo "k8s_bench: missing $f (build first)" >&2; exit 2; }
done
T=$(mktemp -d /tmp/k8s-bench-XXXXXX)
trap '[ -n "${K8S_BENCH_KEEP:-}" ] || rm -rf "$T"' EXIT
chmod 755 "$T"
log() { echo "k8s_bench: $*" >&2; }

# ---- (a) 1,000 executor pods, fake kubelet ----------------------------------------------------
cat >"$T/a.sh" <<EOF
set -u
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
curl -sk "\$SERVER/metrics" >"$T/a.m0"
date +%s%3N >"$T/a.t0"
"$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --class slow --name k8s-bench-alloc \\
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=$NEXEC \\
    --conf spark.scheduler.maxRegisteredResourcesWaitingTime=600s --conf spark.scheduler.minRegisteredResourcesRatio=1.0 \\
    "$BUILD/tests/jobs/testjobs.so" 600000 >"$T/a.out" 2>"$T/a.err" &
DPID=\$!
ok=0
for _ in \$(seq 600); do   # at most ~300 s
    curl -sk "\$SERVER/kubesim/pod-history" >"$T/a.hist"
    n=\$(/usr/bin/python3 -c 'import json,sys; print(sum(1 for p in json.load(open(sys.argv[1]))["pods"] if "-exec-" in p["name"] and any(x["phase"]=="Running" for x in p["phases"])))' "$T/a.hist")
    [ "\$n" -ge $NEXEC ] && { ok=1; break; }
    kill -0 \$DPID 2>/dev/null || break
    sleep 0.5
done
curl -sk "\$SERVER/metrics" >"$T/a.m1"
curl -sk "\$SERVER/kubesim/pod-history" >"$T/a.hist"
kill -TERM \$DPID 2>/dev/null
for _ in \$(seq 100); do kill -0 \$DPID 2>/dev/null || break; sleep 0.2; done
kill -KILL \$DPID 2>/dev/null
wait \$DPID 2>/dev/null
[ \$ok = 1 ] || { echo "only \$n of $NEXEC executor pods Running; driver log:" >&2; tail -5 "$T/a.err" >&2; exit 1; }
EOF
log "(a) $NEXEC executor pods with the fake kubelet"
CSPARK_BUILD_DIR="$BUILD" timeout 400 "$SRC/scripts/kubesim-run" --fake-kubelet --nodes 8 --node-cpu 1000 \
    --node-memory 4Ti -- bash "$T/a.sh" >"$T/a.log" 2>&1 || { log "(a) failed:"; tail -20 "$T/a.log" >&2; }

/usr/bin/python3 - "$T" "$NEXEC" >"$T/a.res" <<'EOF' || log "(a) no result"
import json, re, sys, collections
t, n = sys.argv[1], int(sys.argv[2])
def metrics(path):
    m = collections.Counter()
    for line in open(path):
        if not line.startswith("apiserver_request_total{"):
            continue
        lab = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        res = lab.get("resource", "") + ("/" + lab["subresource"] if lab.get("subresource") else "")
        m[(lab.get("verb"), res)] += int(float(line.split()[-1]))
    return m
d = metrics(t + "/a.m1"); d.subtract(metrics(t + "/a.m0"))
d = {k: v for k, v in d.items() if v > 0}
lists = sum(v for (verb, _), v in d.items() if verb == "LIST")
other = sum(v for (verb, _), v in d.items() if verb != "LIST")
pods = [p for p in json.load(open(t + "/a.hist"))["pods"] if "-exec-" in p["name"]]
names = [p["name"] for p in pods]
dups = len(names) - len(set(names))
running = sorted(next(x["timeMs"] for x in p["phases"] if x["phase"] == "Running")
                 for p in pods if any(x["phase"] == "Running" for x in p["phases"]))
first = min(p["createdMs"] for p in pods)
secs = (running[n - 1] - first) / 1000.0 if len(running) >= n else float("nan")
breakdown = " ".join("%s %s=%d" % (k[0], k[1], v) for k, v in sorted(d.items()))
print("a_secs=%.1f" % secs)
print("a_req=%.2f" % (other / n))
print("a_lists=%d" % lists)
print("a_pods=%d" % len(names))
print("a_dups=%d" % dups)
print("a_breakdown=%s" % breakdown)
EOF

# ---- (d) 1,000 executor pods on the real control plane, fake nodes ---------------------------
if [ "${K8S_BENCH_REAL:-1}" = 1 ]; then
    cat >"$T/d.sh" <<EOF
set -u
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
APID=
for p in \$(pgrep -x kube-apiserver); do [ "\$(readlink /proc/\$p/ns/net)" = "\$(readlink /proc/self/ns/net)" ] && APID=\$p; done
cpu() { awk '{ print \$14 + \$15 }' /proc/\$APID/stat; }
/usr/bin/python3 "$SRC/tests/k8s/lib/pod_history.py" record "$T/d.jsonl" & REC=\$!
sleep 1
kubectl get --raw /metrics >"$T/d.m0"
cpu >"$T/d.cpu0"
"$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --class slow --name k8s-bench-real \\
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=$NEXEC \\
    --conf spark.scheduler.maxRegisteredResourcesWaitingTime=600s --conf spark.scheduler.minRegisteredResourcesRatio=1.0 \\
    "$BUILD/tests/jobs/testjobs.so" 600000 >"$T/d.out" 2>"$T/d.err" &
DPID=\$!
ok=0
for _ in \$(seq 600); do
    n=\$(kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | grep -c .)
    [ "\$n" -ge $NEXEC ] && { ok=1; break; }
    kill -0 \$DPID 2>/dev/null || break
    sleep 0.5
done
kubectl get --raw /metrics >"$T/d.m1"
cpu >"$T/d.cpu1"
getconf CLK_TCK >"$T/d.hz"
sleep 1
/usr/bin/python3 "$SRC/tests/k8s/lib/pod_history.py" render "$T/d.jsonl" >"$T/d.hist"
kill \$REC
kill -TERM \$DPID 2>/dev/null
for _ in \$(seq 100); do kill -0 \$DPID 2>/dev/null || break; sleep 0.2; done
kill -KILL \$DPID 2>/dev/null
wait \$DPID 2>/dev/null
[ \$ok = 1 ] || { echo "only \$n of $NEXEC executor pods Running; driver log:" >&2; tail -5 "$T/d.err" >&2; exit 1; }
EOF
    log "(d) $NEXEC executor pods on the real control plane, ${K8S_BENCH_FAKE_NODES:-4} fake nodes"
    CSPARK_BUILD_DIR="$BUILD" timeout 600 "$SRC/scripts/k8s-run" --nodes 0 --fake-nodes "${K8S_BENCH_FAKE_NODES:-4}" -- \
        bash "$T/d.sh" >"$T/d.log" 2>&1 || { log "(d) failed:"; tail -20 "$T/d.log" >&2; }
    /usr/bin/python3 - "$T" "$NEXEC" >"$T/d.res" <<'EOF' || log "(d) no result"
import json, re, sys, collections
t, n = sys.argv[1], int(sys.argv[2])
def metrics(path):
    m = collections.Counter()
    for line in open(path):
        if not line.startswith("apiserver_request_total{"):
            continue
        lab = dict(re.findall(r'(\w+)="([^"]*)"', line.split("}")[0]))
        m[(lab.get("verb"), lab.get("resource"), lab.get("subresource"))] += int(float(line.split()[-1]))
    return m
d = metrics(t + "/d.m1"); d.subtract(metrics(t + "/d.m0"))
mine = {k: v for k, v in d.items() if v > 0 and k[1] in ("pods", "configmaps", "secrets", "services")
        and not k[2] and k[0] not in ("LIST", "WATCH")}
lists = sum(v for k, v in d.items() if v > 0 and k[0] == "LIST" and k[1] == "pods")
pods = [p for p in json.load(open(t + "/d.hist"))["pods"] if "-exec-" in p["name"]]
names = [p["name"] for p in pods]
running = sorted(next(x["timeMs"] for x in p["phases"] if x["phase"] == "Running")
                 for p in pods if any(x["phase"] == "Running" for x in p["phases"]))
first = min(p["createdMs"] for p in pods)
hz = float(open(t + "/d.hz").read())
cpu = (float(open(t + "/d.cpu1").read()) - float(open(t + "/d.cpu0").read())) / hz
print("d_secs=%.1f" % ((running[n - 1] - first) / 1000.0 if len(running) >= n else float("nan")))
print("d_req=%.2f" % (sum(mine.values()) / n))
print("d_lists=%d" % lists)
print("d_pods=%d" % len(names))
print("d_dups=%d" % (len(names) - len(set(names))))
print("d_cpu=%.1f" % cpu)
print("d_breakdown=%s" % " ".join("%s %s=%d" % (k[0], k[1], v) for k, v in sorted(mine.items())))
EOF
fi

# ---- (b) and (c): process kubelet, cluster mode ------------------------------------------------
cat >"$T/bc.sh" <<EOF
set -u
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
COMMON=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.kubernetes.report.interval=200ms)
for r in \$(seq $REPS); do
    # (b) registration latency, $NREG executors
    timeout 120 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name "k8s-bench-reg-\$r" --conf spark.executor.instances=$NREG \\
        --conf spark.scheduler.minRegisteredResourcesRatio=1.0 "$BUILD/examples/pi.so" 100 >/dev/null 2>"$T/b\$r.err" ||
        { echo "(b) run \$r failed" >&2; tail -5 "$T/b\$r.err" >&2; }
    d=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')
    echo "\${d%-driver}" >"$T/b\$r.prefix"
    kubectl logs "\$d" >"$T/b\$r.driver.log"
    curl -sk "\$SERVER/kubesim/pod-history" >"$T/b\$r.hist"
    kubectl delete pods --all --wait=true >/dev/null
    # (c) submit to first task, defaults
    t0=\$(date +%s%3N)
    timeout 120 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name "k8s-bench-first-\$r" "$BUILD/examples/pi.so" 10 \\
        >/dev/null 2>"$T/c\$r.err" || { echo "(c) run \$r failed" >&2; tail -5 "$T/c\$r.err" >&2; }
    echo "\$t0" >"$T/c\$r.t0"
    d=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')
    kubectl logs "\$d" >"$T/c\$r.driver.log"
    kubectl delete pods --all --wait=true >/dev/null
done
EOF
log "(b)+(c) process kubelet, $REPS runs"
CSPARK_BUILD_DIR="$BUILD" timeout 900 "$SRC/scripts/kubesim-run" --nodes 2 -- bash "$T/bc.sh" >"$T/bc.log" 2>&1 ||
    { log "(b)/(c) failed:"; tail -20 "$T/bc.log" >&2; }

/usr/bin/python3 - "$T" "$REPS" >"$T/bc.res" <<'EOF' || log "(b)/(c) no result"
import json, re, sys, statistics, datetime, os
t, reps = sys.argv[1], int(sys.argv[2])
def ms(ts):  # 2026-11-21T08:23:17.773Z -> epoch ms
    d = datetime.datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return int(round(d.timestamp() * 1000))
reg, first = [], []
for r in range(1, reps + 1):
    try:
        pods = {p["name"]: p for p in json.load(open("%s/b%d.hist" % (t, r)))["pods"]}
        prefix = open("%s/b%d.prefix" % (t, r)).read().strip()
        for line in open("%s/b%d.driver.log" % (t, r)):
            g = re.search(r"(\d{4}-\d\d-\d\dT[\d:.]+Z) .*event=executor_registered executor=(\d+)", line)
            if not g: continue
            pod = pods.get(prefix + "-exec-" + g[2])
            run = [x["timeMs"] for x in pod["phases"] if x["phase"] == "Running"] if pod else []
            if run: reg.append(ms(g[1]) - run[0])
    except (OSError, ValueError, KeyError) as e:
        print("b%d: %s" % (r, e), file=sys.stderr)
    try:
        t0 = int(open("%s/c%d.t0" % (t, r)).read())
        for line in open("%s/c%d.driver.log" % (t, r)):
            g = re.search(r"(\d{4}-\d\d-\d\dT[\d:.]+Z) .*stage=\d+ .*event=submitted", line)
            if g:
                first.append(ms(g[1]) - t0)
                break
    except (OSError, ValueError) as e:
        print("c%d: %s" % (r, e), file=sys.stderr)
print("b_n=%d" % len(reg))
print("b_median=%s" % (statistics.median(reg) if reg else "nan"))
print("b_range=%s" % ("%d..%d" % (min(reg), max(reg)) if reg else "-"))
print("c_n=%d" % len(first))
print("c_median=%s" % (statistics.median(first) if first else "nan"))
print("c_runs=%s" % (" ".join(str(x) for x in first) or "-"))
EOF

get() { sed -n "s/^$1=//p" "$T/$2" 2>/dev/null | head -1; }
verdict() { /usr/bin/python3 -c "import sys,math; v=float(sys.argv[1]); print('no result' if math.isnan(v) else ('met' if v <= float(sys.argv[2]) else 'missed'))" "${1:-nan}" "$2" 2>/dev/null || echo "no result"; }
A_SECS=$(get a_secs a.res); A_REQ=$(get a_req a.res); A_DUPS=$(get a_dups a.res); A_PODS=$(get a_pods a.res)
A_LISTS=$(get a_lists a.res); A_BRK=$(get a_breakdown a.res)
B_MED=$(get b_median bc.res); B_N=$(get b_n bc.res); B_RANGE=$(get b_range bc.res)
C_MED=$(get c_median bc.res); C_N=$(get c_n bc.res); C_RUNS=$(get c_runs bc.res)
D_SECS=$(get d_secs d.res); D_REQ=$(get d_req d.res); D_DUPS=$(get d_dups d.res); D_PODS=$(get d_pods d.res)
D_LISTS=$(get d_lists d.res); D_BRK=$(get d_breakdown d.res); D_CPU=$(get d_cpu d.res)
C_S=$(/usr/bin/python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / 1000))" "${C_MED:-nan}" 2>/dev/null || echo nan)
DUPV=$([ "${A_DUPS:-x}" = 0 ] && echo met || echo "missed")
TABLE=$(cat <<EOF
| benchmark | target | measured | verdict | notes |
|---|---|---|---|---|
| (a) $NEXEC executor pods Running, fake kubelet, defaults | ≤ 25 s | ${A_SECS:-?} s | $(verdict "${A_SECS:-nan}" 25) | first executor pod created → last Running (pod history); ${A_PODS:-?} executor pods created |
| (a) API requests per executor (LISTs apart) | ≤ 1.2 | ${A_REQ:-?} | $(verdict "${A_REQ:-nan}" 1.2) | ${A_LISTS:-?} LIST(s) apart; ${A_BRK:-?} |
| (a) duplicate executor pod names | 0 | ${A_DUPS:-?} | $DUPV | |
| (d) $NEXEC executor pods Running, real control plane, ${K8S_BENCH_FAKE_NODES:-4} fake nodes | ≤ 30 s | ${D_SECS:-?} s | $(verdict "${D_SECS:-nan}" 30) | first executor pod created → last Running (pod watch); ${D_PODS:-?} executor pods created; kube-apiserver CPU ${D_CPU:-?} s |
| (d) API requests per executor, real control plane (LISTs apart) | ≤ 1.2 | ${D_REQ:-?} | $(verdict "${D_REQ:-nan}" 1.2) | ${D_LISTS:-?} pod LIST(s) apart; ${D_BRK:-?} |
| (d) duplicate executor pod names, real control plane | 0 | ${D_DUPS:-?} | $([ "${D_DUPS:-x}" = 0 ] && echo met || echo missed) | |
| (b) executor pod Running → \`event=executor_registered\`, process kubelet | ≤ 100 ms median | ${B_MED:-?} ms | $(verdict "${B_MED:-nan}" 100) | ${B_N:-?} executors over $REPS runs of $NREG; range ${B_RANGE:-?} ms |
| (c) cspark-submit start → first stage submitted, cluster mode | ≤ 2 s median | ${C_S} s | $(verdict "${C_S}" 2) | $REPS runs (ms): ${C_RUNS:-?} |
EOF
)
echo "$TABLE"
{
    echo
    echo "## $(date -u +%Y-%m-%dT%H:%MZ) — commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, build $(basename "$BUILD")"
    echo
    echo "Command: \`bench/k8s_bench.sh $(basename "$BUILD")\` (BENCH_REPS=$REPS, K8S_BENCH_EXECUTORS=$NEXEC, K8S_BENCH_REG_EXECUTORS=$NREG)"
    echo
    echo "$TABLE"
} >>"$OUTMD"
log "appended to $OUTMD"

# ---- Spark's allocator against cspark's, real control plane ------------------------------------
if [ "${BENCH_SKIP_SPARK:-0}" != 1 ] && [ "${K8S_BENCH_REAL:-1}" = 1 ]; then
    log "Spark's Kubernetes allocator against cspark's (bench/spark_k8s_alloc.sh; BENCH_SKIP_SPARK=1 skips it)"
    "$SRC/bench/spark_k8s_alloc.sh" "$BUILD" || log "bench/spark_k8s_alloc.sh failed"
fi
