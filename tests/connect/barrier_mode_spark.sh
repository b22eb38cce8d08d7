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
timeout 600 "$PY" "$SRC/tests/connect/barrier_mode.py" "sc://localhost:$SP" "$T/spark.json" \
  >"$T/client-spark.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client-spark.log")"
timeout 600 "$PY" "$SRC/tests/connect/barrier_mode.py" "sc://localhost:$CP" "$T/cspark.json" \
  >"$T/client-cspark.log" 2>&1 || fail "the program against cspark: $(tail -n 5 "$T/client-cspark.log")"
"$PY" "$SRC/tests/connect/compare_results.py" "$T/spark.json" "$T/cspark.json" || fail "the answers differ"
echo "PASS barrier_mode_spark"
