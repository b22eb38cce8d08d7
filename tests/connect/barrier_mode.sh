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
for master in 'local[2]' 'local-cluster[2,1,1024]'; do
  port=$(free_port)
  name=${master%%[*}
  "$SERVER" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" \
    --conf spark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s \
    --conf spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=3 \
    --conf spark.barrier.sync.timeout=3s \
    >"$T/$name.log" 2>&1 &
  pid=$!
  _connect_pids+=($pid)
  wait_listening cspark-connect-server "$pid" "$port" 60
  timeout 600 "$PY" "$SRC/tests/connect/barrier_mode.py" "sc://localhost:$port" "$T/$name.json" \
    >"$T/$name-client.log" 2>&1 || fail "$master: $(tail -n 5 "$T/$name-client.log")"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  echo "ok $master"
done
echo "PASS barrier_mode"
