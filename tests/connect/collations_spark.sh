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
timeout 600 "$PY" "$SRC/tests/connect/collations.py" "sc://localhost:$SP" "$T/spark.json" \
  >"$T/client-spark.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client-spark.log")"
timeout 600 "$PY" "$SRC/tests/connect/collations.py" "sc://localhost:$CP" "$T/cspark.json" \
  >"$T/client-cspark.log" 2>&1 || fail "the program against cspark: $(tail -n 5 "$T/client-cspark.log")"
"$PY" "$SRC/tests/connect/compare_results.py" "$T/spark.json" "$T/cspark.json" || fail "the answers differ"
echo "PASS collations_spark"
