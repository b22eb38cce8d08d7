#!/usr/bin/env bash
# relations_parity_spark.sh — the judge for tests/connect/relations_parity.py: the same program,
# whose every check is a value computed in the program, run against Apache Spark 4.0.1's own
# Spark Connect server (SparkConnectServer from the pinned pyspark package's jars). A check that
# passes on cspark (relations_parity.sh) and here gives the same answer on both, error classes
# included. The server runs in a scratch directory and is stopped by the trap whatever happens.
# Usage: relations_parity_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init relations_parity_spark "${1:-}" --spark
mkdir -p "$T/server" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
export PYSPARK_PYTHON="$PY" # Spark's Python workers
start_spark "$PORT" "$T/spark.log"
timeout 900 "$PY" "$SRC/tests/connect/relations_parity.py" "sc://localhost:$PORT" \
  >"$T/client.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client.log")"
echo "PASS relations_parity_spark"
