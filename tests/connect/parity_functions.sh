#!/usr/bin/env bash
# parity_functions.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/parity_functions.py: the function calls PySpark's own Connect test modules found
# failing (first and last with and without ignoreNulls in one aggregation, levenshtein with a
# threshold, bigint arguments to INT parameters, the hyperbolic and reciprocal trigonometric
# functions, posexplode_outer and inline_outer, the exception class of a malformed cast, the
# VARIANT functions and a variant column collected as VariantVal).
# parity_functions_spark.sh runs the same program against Spark 4's own server. The server is
# stopped by the trap whatever happens.
# Usage: parity_functions.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init parity_functions "${1:-}"
PORT=$(free_port)
start_cspark "$PORT" "$T/server.log"
timeout 600 "$PY" "$SRC/tests/connect/parity_functions.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "$(tail -n 5 "$T/client.log")"
echo "PASS parity_functions"
