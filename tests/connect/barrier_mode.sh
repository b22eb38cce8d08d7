#!/usr/bin/env bash
# barrier_mode.sh — barrier execution mode (tests/connect/barrier_mode.py: mapInPandas and
# mapInArrow with barrier=True see a BarrierTaskContext, barrier() and allGather in every task,
# getTaskInfos, and Spark's [SPARK-24819] error for a barrier stage wider than the slots) from the
# pinned PySpark client through cspark-connect-server --master local[2], run by PySpark workers
# (spark.pyspark.python). barrier_mode_spark.sh compares the answers with Apache Spark's.
# Usage: barrier_mode.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init barrier_mode "${1:-}"
port=$(free_port)
start_cspark "$port" "$T/cspark.log" --conf "spark.pyspark.python=$PY" \
  --conf spark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s \
  --conf spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=1
timeout 600 "$PY" "$SRC/tests/connect/barrier_mode.py" "sc://localhost:$port" "$T/cspark.json" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS barrier_mode"
