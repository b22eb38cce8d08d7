#!/usr/bin/env bash
# bench/operator_bench.sh — cspark-operator at scale (issue 27; not part of CI; run by hand).
#
# usage: bench/operator_bench.sh [BUILD_DIR]        (default: build; needs root, as scripts/k8s-run)
#
# On the real control plane with fake nodes (scripts/k8s-run --nodes 0 --fake-nodes N: the node
# agent marks pods Running without processes), K8S_BENCH_APPS (100) SparkApplication objects are
# applied at once (one `kubectl apply` of one file) while cspark-operator runs beside the cluster.
# Measured: apply -> driver pod created for each application (the operator's `event=submitted` log
# line, written right after the driver pod's create returned, minus the wall-clock time just
# before `kubectl apply`; median and p99); the time until every application is RUNNING (its driver
# pod Running); then, because a fake node's pods never end by themselves, each driver pod's status
# is set to Succeeded (kubectl patch --subresource=status, as a kubelet reports an exit 0) and the
# time until every application is COMPLETED; the operator's peak and final resident memory (VmHWM,
# VmRSS) and its CPU seconds. Appends a Markdown table to bench/results/operator.md.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "operator_bench: no build dir ${1:-build}" >&2; exit 2; }
NAPPS=${K8S_BENCH_APPS:-100}
NFAKE=${K8S_BENCH_FAKE_NODES:-4}
OUTMD=${OPERATOR_BENCH_OUT:-$SRC/bench/results/operator.md}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
log() { echo "operator_bench: $*" >&2; }

for i in $(seq "$NAPPS"); do
    cat <<YAML
---
apiVersion: sparkoperator.k8s.io/v1beta2
kind: SparkApplication
metadata:
  name: bench-$i
  namespace: default
spec:
  type: Java
  mode: cluster
  image: cspark:dev
  mainApplicationFile: local:///opt/spark/examples/pi.so
  sparkVersion: 4.0.1
  restartPolicy: {type: Never}
  driver: {cores: 1, memory: 512m, serviceAccount: spark}
  executor: {cores: 1, instances: 1, memory: 512m}
YAML
done >"$T/apps.yaml"

cat >"$T/inner.sh" <<EOF
set -u
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
kubectl apply -f "$SRC/deploy/rbac.yaml" -f "$SRC/deploy/operator/sparkapplications.yaml" \
    -f "$SRC/deploy/operator/scheduledsparkapplications.yaml" >/dev/null || exit 1
kubectl wait --for condition=established --timeout=60s crd/sparkapplications.sparkoperator.k8s.io >/dev/null || exit 1
"$BUILD/bin/cspark-operator" --master "k8s://\$SERVER" --namespace default >"$T/op.log" 2>&1 &
OP=\$!
trap 'kill \$OP 2>/dev/null' EXIT
sleep 2
cpu0=\$(awk '{print \$14 + \$15}' /proc/\$OP/stat)
date +%s%3N >"$T/t0"
kubectl apply -f "$T/apps.yaml" >/dev/null || exit 1
date +%s%3N >"$T/t_applied"
count() { kubectl get sparkapp -o jsonpath='{.items[*].status.applicationState.state}' | tr ' ' '\n' | grep -cx "\$1"; }
for _ in \$(seq 600); do [ "\$(count RUNNING)" -ge $NAPPS ] && break; sleep 0.5; done
date +%s%3N >"$T/t_running"
kubectl get pods -l spark-role=driver -o name | xargs -P 8 -I{} kubectl patch {} --subresource=status --type=merge \
    -p '{"status":{"phase":"Succeeded","containerStatuses":[{"name":"spark-kubernetes-driver","ready":false,"restartCount":0,"image":"cspark:dev","imageID":"","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}}' >/dev/null
date +%s%3N >"$T/t_patched"
for _ in \$(seq 600); do [ "\$(count COMPLETED)" -ge $NAPPS ] && break; sleep 0.5; done
date +%s%3N >"$T/t_completed"
count RUNNING >"$T/n_running"; count COMPLETED >"$T/n_completed"
grep -E 'VmHWM|VmRSS' /proc/\$OP/status >"$T/mem"
echo \$(( \$(awk '{print \$14 + \$15}' /proc/\$OP/stat) - cpu0 )) >"$T/cpu_ticks"
EOF
log "$NAPPS SparkApplications on the real control plane, $NFAKE fake nodes"
CSPARK_BUILD_DIR="$BUILD" timeout 900 "$SRC/scripts/k8s-run" --nodes 0 --fake-nodes "$NFAKE" -- \
    bash "$T/inner.sh" >"$T/run.log" 2>&1 || { log "failed:"; tail -20 "$T/run.log" >&2; exit 1; }

/usr/bin/python3 - "$T" "$NAPPS" >"$T/res" <<'EOF' || { log "no result"; exit 1; }
import re, sys, datetime, statistics, os
t, n = sys.argv[1], int(sys.argv[2])
rd = lambda f: open(os.path.join(t, f)).read().strip()
t0 = int(rd("t0"))
lat = {}
for line in open(os.path.join(t, "op.log")):
    m = re.match(r"INFO (\S+) operator app=default/(bench-\d+) attempt=1 .*event=submitted", line)
    if m and m.group(2) not in lat:
        ts = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc)
        lat[m.group(2)] = ts.timestamp() * 1000 - t0
v = sorted(lat.values())
p = lambda q: v[min(len(v) - 1, int(round(q * (len(v) - 1))))]
mem = dict(l.split(":") for l in rd("mem").splitlines())
print("created=%d" % len(v))
print("median_ms=%.0f" % statistics.median(v))
print("p99_ms=%.0f" % p(0.99))
print("max_ms=%.0f" % v[-1])
print("apply_ms=%d" % (int(rd("t_applied")) - t0))
print("running_s=%.1f" % ((int(rd("t_running")) - t0) / 1000))
print("completed_s=%.1f" % ((int(rd("t_completed")) - int(rd("t_patched"))) / 1000))
print("n_running=%s" % rd("n_running"))
print("n_completed=%s" % rd("n_completed"))
print("hwm=\"%s\"" % mem["VmHWM"].strip())
print("rss=\"%s\"" % mem["VmRSS"].strip())
print("cpu_s=%.2f" % (int(rd("cpu_ticks")) / os.sysconf("SC_CLK_TCK")))
EOF
. "$T/res"
table="## $(date -u +%F) $(git -C "$SRC" rev-parse --short HEAD) on $(nproc) cores

$NAPPS SparkApplication objects applied at once (\`bench/operator_bench.sh\`), real control plane, $NFAKE fake nodes.

| measure | value |
|---|---|
| applications whose driver pod was created | $created of $NAPPS |
| apply -> driver pod created, median | $median_ms ms |
| apply -> driver pod created, p99 (max) | $p99_ms ms ($max_ms ms) |
| \`kubectl apply\` of the $NAPPS objects itself | $apply_ms ms |
| apply -> all RUNNING | $running_s s |
| driver pods set Succeeded -> all COMPLETED | $completed_s s ($n_completed of $NAPPS) |
| operator memory: peak (VmHWM), at the end (VmRSS) | $hwm, $rss |
| operator CPU over the run | $cpu_s s |
"
echo "$table"
mkdir -p "$(dirname "$OUTMD")"
{ [ -s "$OUTMD" ] || printf '# cspark-operator benchmark (bench/operator_bench.sh)\n\n'; echo "$table"; } >>"$OUTMD"
