#!/usr/bin/env bash
# spark_compare.sh — the same PySpark program (tests/connect/pyspark_client.py, the pinned pyspark
# 4.0.1 client) against Apache Spark 4.0.1's own Spark Connect server (SparkConnectServer from the
# pinned pyspark package's jars, started through its spark-submit) and against
# cspark-connect-server: the rows of every query (collect() and toPandas()), their schemas, and the
# exception type and error class of each error must be the same (tests/connect/compare_results.py).
# Both servers are stopped by the trap whatever happens.
# Usage: spark_compare.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init spark_compare "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log"
start_spark "$SP" "$T/spark.log"

timeout 600 "$PY" "$SRC/tests/connect/pyspark_client.py" "sc://localhost:$SP" "$T/spark.json" \
  >"$T/client-spark.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client-spark.log")"
timeout 600 "$PY" "$SRC/tests/connect/pyspark_client.py" "sc://localhost:$CP" "$T/cspark.json" \
  >"$T/client-cspark.log" 2>&1 || fail "the program against cspark: $(tail -n 5 "$T/client-cspark.log")"
"$PY" "$SRC/tests/connect/compare_results.py" "$T/spark.json" "$T/cspark.json" || fail "the answers differ"
echo "PASS spark_compare"
