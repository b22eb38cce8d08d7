#!/usr/bin/env bash
# cogroup_spark.sh — the judge for cogrouped maps: tests/connect/cogroup.py
# against Apache Spark 4.0.1's own Connect server (its Python workers from the same pinned client,
# spark.pyspark.python) and against cspark-connect-server; every case's rows, schema and pandas
# shape and every error's exception type must be the same (tests/connect/compare_results.py).
# Both servers are stopped by the trap whatever happens.
# Usage: cogroup_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init cogroup_spark "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log" --conf "spark.pyspark.python=$PY"
export PYSPARK_PYTHON="$PY" # the workers of both servers
start_spark "$SP" "$T/spark.log"
run_client spark "$SP" cogroup "$T/spark.json"
run_client cspark "$CP" cogroup "$T/cspark.json"
compare_answers
echo "PASS cogroup_spark"
