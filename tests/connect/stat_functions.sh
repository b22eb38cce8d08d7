#!/usr/bin/env bash
# stat_functions.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/stat_functions.py: df.stat.crosstab, approxQuantile and sampleBy.
# stat_functions_spark.sh runs the same program against Spark 4's own server. The server is
# stopped by the trap whatever happens.
# Usage: stat_functions.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init stat_functions "${1:-}"
PORT=$(free_port)
start_cspark "$PORT" "$T/server.log"
timeout 600 "$PY" "$SRC/tests/connect/stat_functions.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "$(tail -n 5 "$T/client.log")"
echo "PASS stat_functions"
