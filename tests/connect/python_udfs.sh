#!/usr/bin/env bash
# python_udfs.sh — Python UDFs (udf, pandas_udf, applyInPandas, a UDF that raises) from the pinned
# PySpark client (scripts/install-pyspark-client.sh) through cspark-connect-server, run by PySpark
# workers (`python -m pyspark.worker` of the same install, spark.pyspark.python) on the executors:
# tests/connect/python_udfs.py checks every answer against values it computes itself, first with
# --master local[2], then with local-cluster[2,1,1024] (executor processes start the workers).
# No Python process (daemon or worker) is left running once the server has stopped. Servers are stopped by the trap whatever happens.
# Usage: python_udfs.sh BUILD_DIR
set -u
BUILD=${1:?usage: python_udfs.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: python_udfs: $SERVER was not built (cmake found no Spark Connect .proto files)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: python_udfs: the pinned PySpark client cannot be installed"
  exit 77
}
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: python_udfs: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 40 "$f"; }; done
  exit 1
}
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# run MASTER NAME: a server on MASTER, the client's checks, the server stopped
run() {
  local master=$1 name=$2 port
  port=$(free_port)
  CSPARK_PYUDF_TEST_MARK="$T" "$SERVER" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" \
    >"$T/$name.log" 2>&1 &
  local pid=$!
  pids+=($pid)
  local up=0
  for _ in $(seq 600); do
    grep -q "Spark Connect server started at: 127.0.0.1:$port" "$T/$name.log" && { up=1; break; }
    kill -0 "$pid" 2>/dev/null || fail "$name: the server ended before it listened"
    sleep 0.1
  done
  [ $up = 1 ] || fail "$name: the server did not listen on $port within 60 s"
  timeout 600 "$PY" "$SRC/tests/connect/python_udfs.py" "sc://localhost:$port" ${GROUP_MAP_FLAG:-} \
    >"$T/$name-client.log" 2>&1 || fail "$name: $(tail -n 5 "$T/$name-client.log")"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  # idle workers wait for the next task while the server runs (spark.python.worker.reuse); once it
  # has stopped, none of its Python processes (they inherit the mark) is left
  local left=0 e
  for _ in $(seq 100); do
    left=0
    for e in /proc/[0-9]*/environ; do
      tr '\0' '\n' 2>/dev/null <"$e" | grep -qx "CSPARK_PYUDF_TEST_MARK=$T" || continue
      grep -q 'pyspark' "${e%/environ}/cmdline" 2>/dev/null && left=$((left + 1))
    done
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  [ "$left" = 0 ] || fail "$name: $left Python processes left running after the server stopped"
  echo "ok $name"
}
run 'local[2]' local
run 'local-cluster[2,1,1024]' cluster
echo "PASS python_udfs"
