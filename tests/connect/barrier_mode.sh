#!/usr/bin/env bash
# barrier_mode.sh — barrier execution mode (tests/connect/barrier_mode.py: mapInPandas and
# mapInArrow with barrier=True see a BarrierTaskContext, barrier() and allGather in every task,
# getTaskInfos, and Spark's [SPARK-24819] error for a barrier stage wider than the slots) from the
# pinned PySpark client through cspark-connect-server with --master local[2] (tasks of the driver's
# process) and local-cluster[2,1,1024] (executors syncing with the driver over RPC), run by PySpark
# workers (spark.pyspark.python). barrier_mode_spark.sh compares the answers with Apache Spark's.
# Usage: barrier_mode.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init barrier_mode "${1:-}"
run_on_local_masters barrier_mode --conf spark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s \
  --conf spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=3 --conf spark.barrier.sync.timeout=3s
echo "PASS barrier_mode"
