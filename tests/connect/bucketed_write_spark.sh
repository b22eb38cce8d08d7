#!/usr/bin/env bash
# bucketed_write_spark.sh — the judge for tests/connect/bucketed_write.py: the same program, whose
# every check is a value computed in the program, run against Apache Spark 4.0.1's own Spark
# Connect server (SparkConnectServer from the pinned pyspark package's jars, its Python workers
# from the same pinned install). A check that passes on cspark (bucketed_write.sh) and here gives
# the same answer on both, exception classes included. The server runs in a scratch directory
# (its spark-warehouse goes there) and is stopped by the trap whatever happens.
# Usage: bucketed_write_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init bucketed_write_spark "${1:-}" --spark
mkdir -p "$T/server" "$T/scratch" && cd "$T/server" || fail "cannot make $T/server"
PORT=$(free_port)
export PYSPARK_PYTHON="$PY" # Spark's Python workers
start_spark "$PORT" "$T/spark.log"
timeout 900 "$PY" "$SRC/tests/connect/bucketed_write.py" "sc://localhost:$PORT" "$T/scratch" \
  >"$T/client.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client.log")"
echo "PASS bucketed_write_spark"
