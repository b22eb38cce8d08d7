#!/usr/bin/env bash
# bucketed_write.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/bucketed_write.py: DataFrameWriter.bucketBy and sortBy (the calls of PySpark's
# test_readwriter.py::test_bucketed_write), how the catalog shows bucketed tables, their files,
# and Spark's errors.
# bucketed_write_spark.sh runs the same program against Spark 4's own server. The server runs in
# a scratch directory (its spark-warehouse goes there) and is stopped by the trap whatever
# happens.
# Usage: bucketed_write.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init bucketed_write "${1:-}"
mkdir -p "$T/server" "$T/scratch" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
start_cspark "$PORT" "$T/server.log"
timeout 600 "$PY" "$SRC/tests/connect/bucketed_write.py" "sc://localhost:$PORT" "$T/scratch" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS bucketed_write"
