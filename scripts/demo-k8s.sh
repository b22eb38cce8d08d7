#!/usr/bin/env bash
# demo-k8s.sh — `make demo-k8s`: word count in cluster mode on kubesim (a Kubernetes API server
# with a process kubelet) with 3 executor pods; prints the top words and the pod timeline. The
# pods run the image cspark:dev (`make image`) as its user 185, with the driver's service account
# from deploy/rbac.yaml; the corpus and the output directory reach them as a hostPath volume.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
DATA=$BUILD/run-data
mkdir -p "$DATA"
chmod 1777 "$DATA" # the pods' user writes the output here
[ -s "$DATA/corpus.txt" ] || "$BUILD/bin/gen_text" -s 7 20000000 >"$DATA/corpus.txt"
rm -rf "$DATA/k8s-out"
cat >"$DATA/demo-inner.sh" <<INNER
SERVER=\$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
kubectl apply -f "$ROOT/deploy/rbac.yaml" >/dev/null
VOL=()
for role in driver executor; do
    VOL+=(--conf spark.kubernetes.\$role.volumes.hostPath.data.mount.path="$DATA"
          --conf spark.kubernetes.\$role.volumes.hostPath.data.options.path="$DATA")
done
echo "\\$ cspark-submit --master k8s://\$SERVER --deploy-mode cluster --conf spark.executor.instances=3 ... wordcount.so"
"$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name wordcount \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=3 \
    --conf spark.kubernetes.authenticate.driver.serviceAccountName=spark "\${VOL[@]}" \
    local:///opt/spark/examples/wordcount.so "$DATA/corpus.txt" "$DATA/k8s-out" || exit \$?
DRIVER=\$(kubectl get pods -o name | grep -- -driver | head -1)
echo "--- driver output (kubectl logs \${DRIVER#pod/}):"
kubectl logs "\${DRIVER#pod/}" | grep -v '^[A-Z]* 20'
echo "--- pods now:"
kubectl get pods
INNER
CSPARK_BUILD_DIR="$BUILD" exec "$ROOT/scripts/kubesim-run" bash "$DATA/demo-inner.sh"
