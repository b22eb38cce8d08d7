#!/usr/bin/env bash
# dataframe_parity_spark.sh — the judge for tests/connect/dataframe_parity.py: the same program,
# whose every check is a value computed in the program, run against Apache Spark 4.0.1's own
# Spark Connect server (SparkConnectServer from the pinned pyspark package's jars). A check that
# passes on cspark (dataframe_parity.sh) and here gives the same answer on both, error classes
# included. The server runs in a scratch directory and is stopped by the trap whatever happens.
# Usage: dataframe_parity_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init dataframe_parity_spark "${1:-}" --spark
mkdir -p "$T/server" "$T/scratch" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
export PYSPARK_PYTHON="$PY" # Spark's Python workers
start_spark "$PORT" "$T/spark.log"
timeout 900 "$PY" "$SRC/tests/connect/dataframe_parity.py" "sc://localhost:$PORT" "$T/scratch" \
  >"$T/client.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client.log")"
echo "PASS dataframe_parity_spark"
