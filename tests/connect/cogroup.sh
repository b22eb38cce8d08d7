#!/usr/bin/env bash
# cogroup.sh — cogroup(...).applyInPandas and applyInArrow (tests/connect/cogroup.py: keys on
# both sides and on one side only, the key argument, string, null, two-column and computed keys,
# empty sides, 97 keys over shuffled partitions, an aggregate above, a function that raises)
# from the pinned PySpark client through cspark-connect-server, run by
# PySpark workers (spark.pyspark.python) with --master local[2] and local-cluster[2,1,1024].
# cogroup_spark.sh compares the same program's answers with Apache Spark's.
# Usage: cogroup.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init cogroup "${1:-}"
for master in 'local[2]' 'local-cluster[2,1,1024]'; do
  port=$(free_port)
  name=${master%%[*}
  "$SERVER" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" \
    >"$T/$name.log" 2>&1 &
  pid=$!
  _connect_pids+=($pid)
  wait_listening cspark-connect-server "$pid" "$port" 60
  timeout 600 "$PY" "$SRC/tests/connect/cogroup.py" "sc://localhost:$port" "$T/$name.json" \
    >"$T/$name-client.log" 2>&1 || fail "$master: $(tail -n 5 "$T/$name-client.log")"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  echo "ok $master"
done
echo "PASS cogroup"
