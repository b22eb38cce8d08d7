#!/usr/bin/env bash
# pyspark-connect-tests.sh — runs PySpark's own Spark Connect test modules (Apache Spark's
# python/pyspark/sql/tests/connect/, release 4.0.1) against cspark-connect-server and prints, per
# module, how many tests ran, passed, failed, errored and were skipped.
#
# The test modules are not in any package a registry serves (neither pyspark nor pyspark-client
# on PyPI ships pyspark/sql/tests), so they come from a checkout of Apache Spark's repository
# given with --spark-source; they are read there and never copied into this repository. The
# script builds, in a temporary directory outside the source tree (removed at the end), a copy of
# the pinned pyspark package of scripts/install-pyspark-client.sh (its cache directory) with the
# checkout's pyspark/sql/tests laid over it, starts one cspark-connect-server on a free loopback
# port, and runs each module with unittest in remote-only mode, each bounded by a timeout:
# SPARK_CONNECT_TESTING_REMOTE names the server and SPARK_SKIP_CONNECT_COMPAT_TESTS=1 makes the
# tests that compare with a local classic Spark skip themselves (the switches Apache Spark's
# tests read for a remote server). The server runs without an authentication token: the test
# base class sets the spark.connect.authenticate.token conf, which the client only passes on as
# a conf.
#
#   scripts/pyspark-connect-tests.sh --spark-source DIR --build BUILD_DIR [--log-dir DIR]
#       [--timeout SECONDS] [--against-spark] [MODULE ...]
#
# --against-spark runs the same modules against Apache Spark 4.0.1's own Connect server
# (SparkConnectServer of scripts/install-spark.sh, 2 GiB of heap, in a temporary directory)
# instead of cspark's: the judge, which tells the failures a checkout's version skew causes
# (they fail there too) from cspark's own.
#
# MODULE is a module name under pyspark.sql.tests.connect (e.g. test_parity_column, or
# pandas.test_parity_pandas_udf for one in a subpackage); without any, every test_parity_* and
# test_connect_* module the checkout has there or in its pandas/ subpackage is run. The table goes to
# stdout; each module's unittest output goes to LOG_DIR/MODULE.log (default: a temporary
# directory, removed at the end unless --log-dir is given). The server is stopped by the trap
# whatever happens. Exit: 0 when the modules ran (whatever their results); 1 with one line on
# stderr for a usage error or when the server or the client cannot be set up.
set -euo pipefail

usage() {
  echo "usage: pyspark-connect-tests.sh --spark-source DIR --build BUILD_DIR [--log-dir DIR]" \
    "[--timeout SECONDS] [--against-spark] [MODULE ...]" >&2
  exit 1
}
fail() {
  echo "pyspark-connect-tests: $*" >&2
  exit 1
}

SRC_DIR=$(cd "$(dirname "$0")/.." && pwd)
SPARK_SOURCE=""
BUILD=""
LOG_DIR=""
TIMEOUT=900
AGAINST_SPARK=0
MODULES=()
while [ $# -gt 0 ]; do
  case $1 in
  --spark-source) SPARK_SOURCE=${2:-} && shift 2 || usage ;;
  --build) BUILD=${2:-} && shift 2 || usage ;;
  --log-dir) LOG_DIR=${2:-} && shift 2 || usage ;;
  --timeout) TIMEOUT=${2:-} && shift 2 || usage ;;
  --against-spark) AGAINST_SPARK=1 && shift ;;
  -h | --help) usage ;;
  -*) fail "unknown option $1 (expected --spark-source, --build, --log-dir, --timeout or --against-spark)" ;;
  *) MODULES+=("$1") && shift ;;
  esac
done
[ -n "$SPARK_SOURCE" ] || fail "--spark-source is required: a checkout of Apache Spark (v4.0.1)"
[ -n "$BUILD" ] || [ "$AGAINST_SPARK" = 1 ] || fail "--build is required: cspark's build directory"
case $TIMEOUT in '' | *[!0-9]*) fail "--timeout $TIMEOUT: expected a number of seconds" ;; esac
TESTS=$SPARK_SOURCE/python/pyspark/sql/tests
[ -d "$TESTS/connect" ] || fail "--spark-source $SPARK_SOURCE has no python/pyspark/sql/tests/connect"
SERVER=$BUILD/bin/cspark-connect-server
[ "$AGAINST_SPARK" = 1 ] || [ -x "$SERVER" ] ||
  fail "$SERVER was not built (run scripts/install-spark.sh, then cmake again)"
if [ ${#MODULES[@]} -eq 0 ]; then
  for f in "$TESTS"/connect/test_parity_*.py "$TESTS"/connect/test_connect_*.py \
    "$TESTS"/connect/pandas/test_parity_*.py; do
    [ -f "$f" ] || continue
    case $f in
    */connect/pandas/*) MODULES+=("pandas.$(basename "$f" .py)") ;;
    *) MODULES+=("$(basename "$f" .py)") ;;
    esac
  done
fi
for m in "${MODULES[@]}"; do
  [ -f "$TESTS/connect/${m//.//}.py" ] || fail "module $m: no $TESTS/connect/${m//.//}.py"
done

PY=$("$SRC_DIR/scripts/install-pyspark-client.sh") || fail "scripts/install-pyspark-client.sh failed"
# the wrapper puts its own pyspark first on the path, so the runs call its interpreter directly
# with the overlaid package first and the wrapper's other packages after it
read -r INTERP PKG_PARENT SITE < <("$PY" -c 'import os, sys, pyspark, grpc
d = lambda m: os.path.dirname(os.path.dirname(m.__file__))
print(sys.executable, d(pyspark), d(grpc))') || fail "the client from scripts/install-pyspark-client.sh does not import"
T=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null
    wait "$server_pid" 2>/dev/null || true # its TERM status is not the run's
  fi
  rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP
trap 'exit 130' INT
[ -n "$LOG_DIR" ] || LOG_DIR=$T/logs
mkdir -p "$LOG_DIR" || fail "cannot create $LOG_DIR"

# the pyspark package with the checkout's tests laid over it: Python code only (the jars are not
# needed by a remote-only client), made for this run so that it follows the checkout
RUNTIME=$T/runtime
mkdir -p "$RUNTIME" || fail "cannot create $RUNTIME"
(cd "$PKG_PARENT" && tar cf - --exclude='pyspark/jars' --exclude='__pycache__' pyspark) |
  (cd "$RUNTIME" && tar xf -) || fail "cannot copy the pyspark package into $RUNTIME"
rm -rf "$RUNTIME/pyspark/sql/tests"
(cd "$SPARK_SOURCE/python" && tar cf - --exclude='__pycache__' pyspark/sql/tests) |
  (cd "$RUNTIME" && tar xf -) || fail "cannot copy $TESTS into $RUNTIME"

PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# the Python UDF workers run the pinned client's pyspark.worker through its wrapper
if [ "$AGAINST_SPARK" = 1 ]; then
  SPARK_HOME_JUDGE=$("$SRC_DIR/scripts/install-spark.sh") || fail "scripts/install-spark.sh failed"
  mkdir -p "$T/spark" || fail "cannot create $T/spark"
  # in its own directory, so that its spark-warehouse and metastore stay in $T
  (cd "$T/spark" && PYSPARK_PYTHON="$PY" exec "$SPARK_HOME_JUDGE/bin/spark-submit" \
    --class org.apache.spark.sql.connect.service.SparkConnectServer --master 'local[4]' \
    --driver-memory 2g --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$PORT") >"$LOG_DIR/server.log" 2>&1 &
  server_pid=$!
  WHAT="Spark's Connect server"
  tries=3000
else
  SERVER=$(cd "$(dirname "$SERVER")" && pwd)/$(basename "$SERVER")
  mkdir -p "$T/cspark" || fail "cannot create $T/cspark"
  # in its own directory too: the tests' managed tables go to its spark-warehouse
  (cd "$T/cspark" && exec "$SERVER" --master 'local[4]' --conf spark.ui.enabled=false \
    --conf "spark.pyspark.python=$PY" --conf "spark.connect.grpc.binding.port=$PORT") \
    >"$LOG_DIR/server.log" 2>&1 &
  server_pid=$!
  WHAT=cspark-connect-server
  tries=600
fi
started=0
for _ in $(seq "$tries"); do
  "$PY" -c "import socket; socket.create_connection(('127.0.0.1', $PORT), timeout=1)" 2>/dev/null &&
    started=1 && break
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
[ "$started" = 1 ] || fail "$WHAT did not start on port $PORT: $(tail -n 3 "$LOG_DIR/server.log")"

# one module: unittest's summary ("Ran N tests", then "OK" or "FAILED (failures=F, errors=E,
# skipped=S)") gives the counts (a class whose setUpClass failed is one error and runs none of
# its tests); a module that died before its summary (a timeout) is counted from the verbose
# lines it printed, which warnings written in the middle of a line may hide
count_outcomes() {
  local log=$1
  local ran status passed failed errored skipped
  ran=$(sed -n 's/^Ran \([0-9][0-9]*\) tests* in .*/\1/p' "$log" | tail -n 1)
  status=$(grep -E '^(OK|FAILED)( \(.*\))?$' "$log" | tail -n 1 || true)
  if [ -n "$ran" ] && [ -n "$status" ]; then
    field() { echo "$status" | sed -n "s/.*[(, ]$1=\([0-9][0-9]*\).*/\1/p"; }
    failed=$(field failures)
    errored=$(field errors)
    skipped=$(field skipped)
    failed=${failed:-0} errored=${errored:-0} skipped=${skipped:-0}
    passed=$((ran - failed - errored - skipped))
    [ "$passed" -ge 0 ] || passed=0
  else
    passed=$(grep -cE ' \.\.\. (ok|expected failure)$' "$log" || true)
    failed=$(grep -cE '^FAIL: ' "$log" || true)
    errored=$(grep -cE '^ERROR: ' "$log" || true)
    skipped=$(grep -cE ' \.\.\. skipped' "$log" || true)
  fi
  echo "$((passed + failed + errored + skipped)) $passed $failed $errored $skipped"
}

printf '%-40s %5s %7s %7s %6s %8s\n' module run passed failed error skipped
total=(0 0 0 0 0)
for m in "${MODULES[@]}"; do
  log=$LOG_DIR/$m.log
  # SPARK_HOME: pyspark.testing looks for one at import (the pinned install has it; nothing runs it)
  SPARK_HOME="$PKG_PARENT/pyspark" PYTHONPATH="$RUNTIME:$SITE" SPARK_CONNECT_TESTING_REMOTE="sc://localhost:$PORT" \
    SPARK_SKIP_CONNECT_COMPAT_TESTS=1 SPARK_TESTING=1 PYARROW_IGNORE_TIMEZONE=1 \
    timeout "$TIMEOUT" "$INTERP" -m unittest -v "pyspark.sql.tests.connect.$m" >"$log" 2>&1 || true
  read -r run passed failed errored skipped < <(count_outcomes "$log")
  printf '%-40s %5d %7d %7d %6d %8d\n' "$m" "$run" "$passed" "$failed" "$errored" "$skipped"
  total=($((total[0] + run)) $((total[1] + passed)) $((total[2] + failed)) $((total[3] + errored))
    $((total[4] + skipped)))
  kill -0 "$server_pid" 2>/dev/null || fail "$WHAT ended during $m: $(tail -n 3 "$LOG_DIR/server.log")"
done
printf '%-40s %5d %7d %7d %6d %8d\n' total "${total[@]}"
