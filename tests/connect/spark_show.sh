#!/usr/bin/env bash
# spark_show.sh — tests/connect/show_strings.py (df.show()'s text and createDataFrame of data
# above the inline limit, through the pinned pyspark 4.0.1 client) against Apache Spark 4.0.1's own
# Spark Connect server (SparkConnectServer from the pinned pyspark package's jars) and against
# cspark-connect-server: every show() text must be the same, character for character, the
# local data read back the same, and the errors' message parameters the same. Both servers are
# stopped by the trap whatever happens.
# Usage: spark_show.sh BUILD_DIR
set -u
BUILD=${1:?usage: spark_show.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: spark_show: $SERVER was not built (cmake found no Spark Connect .proto files:" \
    "run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
SPARK_HOME=$("$SRC/scripts/install-spark.sh") || { echo "SKIP: spark_show: no Spark install"; exit 77; }
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: spark_show: the pinned PySpark client cannot be installed"
  exit 77
}
T=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: spark_show: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  exit 1
}
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# wait_listening NAME PID PORT SECONDS
wait_listening() {
  for _ in $(seq $(($4 * 10))); do
    "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $3), timeout=1)" 2>/dev/null &&
      return 0
    kill -0 "$2" 2>/dev/null || fail "$1 ended before it listened"
    sleep 0.1
  done
  fail "$1 did not listen on $3 within $4 s"
}

SP=$(free_port)
"$SPARK_HOME/bin/spark-submit" --class org.apache.spark.sql.connect.service.SparkConnectServer \
  --master 'local[2]' --conf spark.ui.enabled=false --conf "spark.connect.grpc.binding.port=$SP" \
  >"$T/spark.log" 2>&1 &
spark_pid=$!
pids+=($spark_pid)
CP=$(free_port)
"$SERVER" --master 'local[2]' --conf spark.ui.enabled=false \
  --conf "spark.connect.grpc.binding.port=$CP" >"$T/cspark.log" 2>&1 &
pids+=($!)
wait_listening cspark-connect-server "$!" "$CP" 60
wait_listening "Spark's Connect server" "$spark_pid" "$SP" 300

timeout 600 "$PY" "$SRC/tests/connect/show_strings.py" "sc://localhost:$SP" "$T/spark.json" --record \
  >"$T/client-spark.log" 2>&1 || fail "the program against Spark: $(tail -n 5 "$T/client-spark.log")"
timeout 600 "$PY" "$SRC/tests/connect/show_strings.py" "sc://localhost:$CP" "$T/cspark.json" \
  >"$T/client-cspark.log" 2>&1 || fail "the program against cspark: $(tail -n 5 "$T/client-cspark.log")"
"$PY" - "$T/spark.json" "$T/cspark.json" <<'PYEOF' || fail "the answers differ"
import json, sys
spark, cspark = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
for section in ("show", "local", "errors"):
    for key in sorted(set(spark[section]) | set(cspark[section])):
        a, b = spark[section].get(key), cspark[section].get(key)
        if a != b:
            bad += 1
            print("%s.%s differs:\n--- Spark\n%s\n--- cspark\n%s" % (section, key, a, b))
sys.exit(1 if bad else 0)
PYEOF
echo "PASS spark_show"
