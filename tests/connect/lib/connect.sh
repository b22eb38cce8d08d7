# tests/connect/lib/connect.sh — the frame of the Spark Connect tests that run the pinned PySpark
# client against servers (cspark-connect-server, and Apache Spark 4.0.1's own SparkConnectServer): sourced
# by tests/connect/*.sh.
#   connect_test_init NAME BUILD_DIR [--spark]
#       sets SRC, BUILD, SERVER (cspark-connect-server; SKIP, exit 77, when it was not built), PY
#       (the pinned client's python), with --spark SPARK_HOME (scripts/install-spark.sh), and T (a
#       directory removed on exit); every server started below is stopped on exit, whatever happens
#   fail MESSAGE            prints "FAIL: NAME: MESSAGE" and the tails of T's logs, exits 1
#   free_port               a free loopback port
#   wait_listening WHAT PID PORT SECONDS   fails unless PID listens on PORT within SECONDS
#   start_cspark PORT LOG [OPTIONS...]     cspark-connect-server --master local[2] on PORT (more
#                                          options after), output in LOG; waits until it listens
#   start_spark PORT LOG [OPTIONS...]      Spark's own Connect server on PORT (local[2], more
#                                          options after); waits
#   run_client WHO PORT PROGRAM ARGS...    tests/connect/PROGRAM.py sc://localhost:PORT ARGS... (10
#                                          minutes at most), output in $T/client-WHO.log; fails with
#                                          its tail ("the program against WHO")
#   compare_answers                        compare_results.py of $T/spark.json and $T/cspark.json
#   run_on_local_masters PROGRAM [OPTIONS...]
#                                          PROGRAM.py URL $T/NAME.json against a cspark-connect-server
#                                          of its own on local[2], then on local-cluster[2,1,1024]
#                                          (NAME local, local-cluster; Python workers $PY; OPTIONS
#                                          more server options), each server stopped after it
_connect_pids=()
_connect_cleanup() {
  local p
  for p in "${_connect_pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${_connect_pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$T"
}

connect_test_init() {
  CONNECT_TEST=$1
  BUILD=${2:?usage: $CONNECT_TEST.sh BUILD_DIR}
  SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
  SERVER=$BUILD/bin/cspark-connect-server
  if [ ! -x "$SERVER" ]; then
    echo "SKIP: $CONNECT_TEST: $SERVER was not built (cmake found no Spark Connect .proto files:" \
      "run scripts/install-spark.sh, then cmake again)"
    exit 77
  fi
  if [ "${3:-}" = --spark ]; then
    SPARK_HOME=$("$SRC/scripts/install-spark.sh") || {
      echo "SKIP: $CONNECT_TEST: no Spark install"
      exit 77
    }
  fi
  PY=$("$SRC/scripts/install-pyspark-client.sh") || {
    echo "SKIP: $CONNECT_TEST: the pinned PySpark client cannot be installed"
    exit 77
  }
  T=$(mktemp -d)
  trap _connect_cleanup EXIT
}

fail() {
  echo "FAIL: $CONNECT_TEST: $*"
  local f
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  exit 1
}

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

wait_listening() {
  local _
  for _ in $(seq $(($4 * 10))); do
    "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $3), timeout=1)" 2>/dev/null &&
      return 0
    kill -0 "$2" 2>/dev/null || fail "$1 ended before it listened"
    sleep 0.1
  done
  fail "$1 did not listen on $3 within $4 s"
}

start_cspark() {
  local port=$1 log=$2
  shift 2
  "$SERVER" --master 'local[2]' --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" "$@" >"$log" 2>&1 &
  local pid=$!
  _connect_pids+=($pid)
  wait_listening cspark-connect-server "$pid" "$port" 60
}

start_spark() {
  local port=$1 log=$2
  shift 2
  "$SPARK_HOME/bin/spark-submit" --class org.apache.spark.sql.connect.service.SparkConnectServer \
    --master 'local[2]' --conf spark.ui.enabled=false --conf "spark.connect.grpc.binding.port=$port" \
    "$@" >"$log" 2>&1 &
  local pid=$!
  _connect_pids+=($pid)
  wait_listening "Spark's Connect server" "$pid" "$port" 300
}

run_client() {
  local who=$1 port=$2 program=$3
  shift 3
  timeout 600 "$PY" "$SRC/tests/connect/$program.py" "sc://localhost:$port" "$@" \
    >"$T/client-$who.log" 2>&1 || fail "the program against $who: $(tail -n 5 "$T/client-$who.log")"
}

compare_answers() {
  "$PY" "$SRC/tests/connect/compare_results.py" "$T/spark.json" "$T/cspark.json" ||
    fail "the answers differ"
}

run_on_local_masters() {
  local program=$1 master port name pid
  shift
  for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    port=$(free_port)
    name=${master%%[*}
    "$SERVER" --master "$master" --conf spark.ui.enabled=false \
      --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" "$@" \
      >"$T/$name.log" 2>&1 &
    pid=$!
    _connect_pids+=($pid)
    wait_listening cspark-connect-server "$pid" "$port" 60
    run_client "$name" "$port" "$program" "$T/$name.json"
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    echo "ok $master"
  done
}
