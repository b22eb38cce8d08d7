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

run_client spark "$SP" pyspark_client "$T/spark.json"
run_client cspark "$CP" pyspark_client "$T/cspark.json"
compare_answers
echo "PASS spark_compare"
