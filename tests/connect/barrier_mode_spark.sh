#!/usr/bin/env bash
# barrier_mode_spark.sh — the judge for barrier execution mode: tests/connect/barrier_mode.py
# against Apache Spark 4.0.1's own Connect server (its Python workers from the same pinned client)
# and against cspark-connect-server, both local[2] with the slots check every 1 s at most once
# (spark.scheduler.barrier.maxConcurrentTasksCheck.*) and syncs timing out after 3 s
# (spark.barrier.sync.timeout); every case's rows and schema and the
# error's type and text checks must be the same (tests/connect/compare_results.py).
# Usage: barrier_mode_spark.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init barrier_mode_spark "${1:-}" --spark
checks=(--conf spark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s
  --conf spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=1 --conf spark.barrier.sync.timeout=3s)
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log" --conf "spark.pyspark.python=$PY" "${checks[@]}"
export PYSPARK_PYTHON="$PY" # the workers of both servers
start_spark "$SP" "$T/spark.log" "${checks[@]}"
run_client spark "$SP" barrier_mode "$T/spark.json"
run_client cspark "$CP" barrier_mode "$T/cspark.json"
compare_answers
echo "PASS barrier_mode_spark"
