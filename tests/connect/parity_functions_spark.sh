#!/usr/bin/env bash
# parity_functions_spark.sh — the judge for tests/connect/parity_functions.py: the same program,
# whose every check is a value computed in the program, run against Apache Spark 4.0.1's own Spark Connect
# server (SparkConnectServer from the pinned pyspark package's jars, its Python workers from the
# same pinned install through spark.pyspark.python). A check that passes on cspark
# (parity_functions.sh) and here gives the same answer on both, exception types included.
# The server is stopped by the trap whatever happens.
# Usage: parity_functions_spark.sh BUILD_DIR
set -u
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SPARK_HOME=$("$SRC/scripts/install-spark.sh") || { echo "SKIP: parity_functions_spark: no Spark install"; exit 77; }
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: parity_functions_spark: the pinned PySpark client cannot be installed"
  exit 77
}
command -v java >/dev/null 2>&1 || [ -n "${JAVA_HOME:-}" ] || {
  echo "SKIP: parity_functions_spark: no Java for Spark's server"
  exit 77
}
T=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && { kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; }
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: parity_functions_spark: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PYSPARK_PYTHON="$PY" "$SPARK_HOME/bin/spark-submit" \
  --class org.apache.spark.sql.connect.service.SparkConnectServer --master 'local[2]' \
  --conf spark.ui.enabled=false --conf "spark.connect.grpc.binding.port=$PORT" \
  --conf "spark.pyspark.python=$PY" >"$T/spark.log" 2>&1 &
pid=$!
up=0
for _ in $(seq 3000); do
  "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=1)" 2>/dev/null &&
    { up=1; break; }
  kill -0 "$pid" 2>/dev/null || fail "Spark's server ended before it listened"
  sleep 0.1
done
[ $up = 1 ] || fail "Spark's server did not listen on $PORT within 300 s"
timeout 900 "$PY" "$SRC/tests/connect/parity_functions.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "the program against Spark: $(tail -n 5 "$T/client.log")"
echo "PASS parity_functions_spark"
