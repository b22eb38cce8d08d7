#!/usr/bin/env bash
# stat_functions_spark.sh — the judge for tests/connect/stat_functions.py: the same program,
# whose every check is a value computed in the program, run against Apache Spark 4.0.1's own Spark Connect
# server (SparkConnectServer from the pinned pyspark package's jars, its Python workers from the
# same pinned install through spark.pyspark.python). A check that passes on cspark
# (stat_functions.sh) and here gives the same answer on both, exception types included.
# The server is stopped by the trap whatever happens.
# Usage: stat_functions_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init stat_functions_spark "${1:-}" --spark
PORT=$(free_port)
export PYSPARK_PYTHON="$PY" # Spark's Python workers
start_spark "$PORT" "$T/spark.log"
timeout 900 "$PY" "$SRC/tests/connect/stat_functions.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "the program against Spark: $(tail -n 5 "$T/client.log")"
echo "PASS stat_functions_spark"
