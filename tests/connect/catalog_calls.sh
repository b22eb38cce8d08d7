#!/usr/bin/env bash
# catalog_calls.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/catalog_calls.py: spark.catalog's calls and the SQL commands over databases,
# tables and functions behind them (the ones PySpark's test_parity_catalog module exercises).
# catalog_calls_spark.sh runs the same program against Spark 4's own server. The server runs in
# a scratch directory (its spark-warehouse goes there) and is stopped by the trap whatever
# happens.
# Usage: catalog_calls.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init catalog_calls "${1:-}"
mkdir -p "$T/server" "$T/scratch" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
start_cspark "$PORT" "$T/server.log"
timeout 600 "$PY" "$SRC/tests/connect/catalog_calls.py" "sc://localhost:$PORT" "$T/scratch" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS catalog_calls"
