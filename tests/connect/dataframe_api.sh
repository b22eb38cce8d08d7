#!/usr/bin/env bash
# dataframe_api.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/dataframe_api.py: the DataFrame and Column API calls PySpark's own Connect test
# modules found failing (withField / dropFields, to(schema) by name, crossJoin.enabled=false,
# conf.get with a None default and conf.set of None, unpivot without a common type, withColumn
# and withColumnsRenamed over a join with a shared column name, pivot without values,
# freqItems, groupBy of an aliased expression with an aggregate: grouped_alias_aggregate). The
# server is stopped by the trap whatever happens.
# Usage: dataframe_api.sh BUILD_DIR
set -u
BUILD=${1:?usage: dataframe_api.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: dataframe_api: $SERVER was not built (cmake found no Spark Connect .proto files:" \
    "run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: dataframe_api: the pinned PySpark client cannot be installed"
  exit 77
}
T=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  fi
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: dataframe_api: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SERVER" --master 'local[2]' --conf spark.ui.enabled=false \
  --conf "spark.connect.grpc.binding.port=$PORT" >"$T/server.log" 2>&1 &
pid=$!
started=0
for _ in $(seq 600); do
  grep -qs "Spark Connect server started at: 127.0.0.1:$PORT" "$T/server.log" && started=1 && break
  kill -0 "$pid" 2>/dev/null || fail "the server ended before it listened"
  sleep 0.1
done
[ "$started" = 1 ] || fail "the server did not start listening on $PORT within 60 s"
timeout 600 "$PY" "$SRC/tests/connect/dataframe_api.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "$(tail -n 5 "$T/client.log")"
echo "PASS dataframe_api"
