#!/usr/bin/env bash
# collations_spark.sh — the judge for string collations: tests/connect/collations.py against
# Apache Spark 4.0.1's own Connect server and against cspark-connect-server; every step's answer
# must be the same (tests/connect/compare_results.py). Both servers are stopped by the trap
# whatever happens.
# Usage: collations_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init collations_spark "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log"
start_spark "$SP" "$T/spark.log"
run_client spark "$SP" collations "$T/spark.json"
run_client cspark "$CP" collations "$T/cspark.json"
compare_answers
echo "PASS collations_spark"
