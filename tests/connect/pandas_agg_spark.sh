#!/usr/bin/env bash
# pandas_agg_spark.sh — the judge for grouped-aggregate pandas UDFs: tests/connect/pandas_agg.py
# against Apache Spark 4.0.1's own Connect server (its Python workers from the same pinned client,
# spark.pyspark.python) and against cspark-connect-server; every case's rows, schema and pandas
# shape and every error's exception type must be the same (tests/connect/compare_results.py).
# Both servers are stopped by the trap whatever happens.
# Usage: pandas_agg_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init pandas_agg_spark "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log" --conf "spark.pyspark.python=$PY"
export PYSPARK_PYTHON="$PY" # the workers of both servers
start_spark "$SP" "$T/spark.log"
run_client spark "$SP" pandas_agg "$T/spark.json"
run_client cspark "$CP" pandas_agg "$T/cspark.json"
compare_answers
echo "PASS pandas_agg_spark"
