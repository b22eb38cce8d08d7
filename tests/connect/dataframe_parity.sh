#!/usr/bin/env bash
# dataframe_parity.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/dataframe_parity.py: inputFiles, Spark's provider class names as formats, nested
# duplicate field names in results, struct sort keys, saveAsTable's clusterBy and overwrite.
# dataframe_parity_spark.sh runs the same program against Spark 4's own server. The server runs
# in a scratch directory (its spark-warehouse goes there) and is stopped by the trap whatever
# happens.
# Usage: dataframe_parity.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init dataframe_parity "${1:-}"
mkdir -p "$T/server" "$T/scratch" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
start_cspark "$PORT" "$T/server.log"
timeout 600 "$PY" "$SRC/tests/connect/dataframe_parity.py" "sc://localhost:$PORT" "$T/scratch" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS dataframe_parity"
