#!/usr/bin/env bash
# Scale check of kubesim's fake kubelet (--fake-kubelet, kwok-like): creates N pods (default 500 in the
# suite; run by hand with KUBESIM_SCALE_PODS=5000), waits until every one is Running with a distinct pod IP,
# deletes them all and waits until they are gone; prints the figures. kubesim is always stopped (trap).
# Usage: tests/kubesim/scale_fake_kubelet.sh [BUILD_DIR]     (CTest passes the build directory)
set -euo pipefail
BUILD=${1:-${CSPARK_BUILD_DIR:-build}}
N=${KUBESIM_SCALE_PODS:-500}
KUBESIM="$BUILD/bin/kubesim"
[ -x "$KUBESIM" ] || { echo "FAIL: $KUBESIM not built" >&2; exit 1; }
TMP=$(mktemp -d /tmp/kubesim-scale-XXXXXX)
PID=
cleanup() {
    if [ -n "$PID" ] && kill -0 "$PID" 2>/dev/null; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null || true
    fi
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM
"$KUBESIM" --kubeconfig-out "$TMP/kubeconfig" --fake-kubelet --fake-delay-ms 100 --nodes 4 \
    --state-dir "$TMP/state" >"$TMP/kubesim.log" 2>&1 &
PID=$!
for _ in $(seq 300); do [ -s "$TMP/kubeconfig" ] && break; kill -0 "$PID" || break; sleep 0.1; done
[ -s "$TMP/kubeconfig" ] || { echo "FAIL: kubesim did not start" >&2; cat "$TMP/kubesim.log" >&2; exit 1; }

KUBECONFIG="$TMP/kubeconfig" N="$N" /usr/bin/python3 - <<'EOF'
import concurrent.futures, os, sys, time
from kubernetes import client, config
n = int(os.environ["N"])
cfg = client.Configuration()
config.load_kube_config(config_file=os.environ["KUBECONFIG"], client_configuration=cfg)
cfg.connection_pool_maxsize = 16
v1 = client.CoreV1Api(client.ApiClient(cfg))
sel = "scale=fake"

def create(i):
    v1.create_namespaced_pod("default", {"metadata": {"name": "scale-%05d" % i, "labels": {"scale": "fake"}},
        "spec": {"containers": [{"name": "c", "image": "cspark:dev",
                                 "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}}}]}})

t0 = time.time()
with concurrent.futures.ThreadPoolExecutor(16) as ex:
    list(ex.map(create, range(n)))
t_created = time.time() - t0
import json

def pods():
    # raw JSON: the client's model deserialization of 5,000 pods would dominate the timing
    r = v1.list_namespaced_pod("default", label_selector=sel, _preload_content=False)
    return json.loads(r.data)["items"]

deadline = time.time() + 600
while True:
    items = pods()
    running = [p for p in items if p.get("status", {}).get("phase") == "Running" and p["status"].get("podIP")]
    if len(running) == n:
        break
    if time.time() > deadline:
        print("FAIL: %d/%d Running after 600 s" % (len(running), n)); sys.exit(1)
    time.sleep(0.2)
t_running = time.time() - t0
ips = {p["status"]["podIP"] for p in running}
if len(ips) != n:
    print("FAIL: %d distinct pod IPs for %d pods" % (len(ips), n)); sys.exit(1)
t1 = time.time()
v1.delete_collection_namespaced_pod("default", label_selector=sel)
while pods():
    if time.time() - t1 > 600:
        print("FAIL: pods not deleted after 600 s"); sys.exit(1)
    time.sleep(0.5)
print("fake kubelet: %d pods created in %.1f s, all Running in %.1f s, deleted in %.1f s"
      % (n, t_created, t_running, time.time() - t1))
EOF
echo "PASS: scale_fake_kubelet ($N pods)"
