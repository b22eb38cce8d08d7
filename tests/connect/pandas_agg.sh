#!/usr/bin/env bash
# pandas_agg.sh — grouped-aggregate pandas UDFs (tests/connect/pandas_agg.py: groupBy().agg, agg
# and select with one and two UDFs, keys of several kinds, nulls, empty inputs, UDFs that raise,
# a built-in aggregate beside them)
# from the pinned PySpark client through cspark-connect-server, run by
# PySpark workers (spark.pyspark.python) with --master local[2] and local-cluster[2,1,1024].
# pandas_agg_spark.sh compares the same program's answers with Apache Spark's.
# Usage: pandas_agg.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init pandas_agg "${1:-}"
for master in 'local[2]' 'local-cluster[2,1,1024]'; do
  port=$(free_port)
  name=${master%%[*}
  "$SERVER" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" \
    >"$T/$name.log" 2>&1 &
  pid=$!
  _connect_pids+=($pid)
  wait_listening cspark-connect-server "$pid" "$port" 60
  timeout 600 "$PY" "$SRC/tests/connect/pandas_agg.py" "sc://localhost:$port" "$T/$name.json" \
    >"$T/$name-client.log" 2>&1 || fail "$master: $(tail -n 5 "$T/$name-client.log")"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  echo "ok $master"
done
echo "PASS pandas_agg"
