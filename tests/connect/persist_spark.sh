#!/usr/bin/env bash
# persist_spark.sh — the judge for cache() / persist() / unpersist(): tests/connect/persist.py
# against Apache Spark 4.0.1's own Connect server and against cspark-connect-server, each over a
# folder of its own; every step's answer (counts before and after a file is added, storage levels)
# must be the same (tests/connect/compare_results.py). Both servers are stopped by the trap
# whatever happens.
# Usage: persist_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init persist_spark "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log"
start_spark "$SP" "$T/spark.log"
run_client spark "$SP" persist "$T/spark-data" "$T/spark.json"
run_client cspark "$CP" persist "$T/cspark-data" "$T/cspark.json"
compare_answers
echo "PASS persist_spark"
