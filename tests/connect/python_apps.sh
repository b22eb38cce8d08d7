#!/usr/bin/env bash
# python_apps.sh — `cspark-submit app.py`: an unchanged PySpark program (tests/connect/python_app/
# app.py) run against the Spark Connect server cspark-submit starts on loopback with a generated
# token, with the pinned PySpark client's python (spark.pyspark.python): DataFrames, a groupBy of
# an aliased expression, SQL over a temporary view, a Python UDF from a --py-files module,
# the program's arguments and its exit status as cspark-submit's (0 and 3), with --master
# local[2] and local-cluster[2,1,1024]; the program's stdout passes through. Bad inputs give one
# "cspark-submit: " line and exit 1: a missing .py, an interpreter that does not exist, a
# --py-files entry that does not exist; the missing .py and --py-files entry also in cluster mode
# on Kubernetes, refused before the API server is contacted (tests/k8s/python_cluster.sh runs
# cluster mode). SIGTERM to cspark-submit ends the program too (exit status 143). No process is
# left behind.
# Usage: python_apps.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init python_apps "$@"
SUBMIT=$BUILD/bin/cspark-submit
APP=$SRC/tests/connect/python_app
echo "a shipped file" >"$T/data.txt"

# run NAME MASTER STATUS: the program with STATUS as its exit status; checks what it wrote
run() {
  local name=$1 master=$2 want=$3 rc
  timeout 600 "$SUBMIT" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.pyspark.python=$PY" --py-files "$APP/helpers.py" --files "$T/data.txt" \
    "$APP/app.py" "$T/$name.out" "$want" alpha beta gamma >"$T/$name.log" 2>&1
  rc=$?
  [ "$rc" = "$want" ] || fail "$name: cspark-submit exited $rc, the program's status is $want"
  grep -qx "app: done" "$T/$name.log" || fail "$name: the program's stdout did not pass through"
  local expect="connect=True
groups=0:22;1:15;2:18
sql=3,14
udf=135
remote=True"
  [ "$(cat "$T/$name.out" 2>/dev/null)" = "$expect" ] ||
    fail "$name: the program computed: $(cat "$T/$name.out" 2>/dev/null)"
}
run local_ok 'local[2]' 0
run local_fail 'local[2]' 3
run cluster_ok 'local-cluster[2,1,1024]' 0

# bad_input NAME PATTERN ARGS...: exit 1 with one line matching PATTERN
bad_input() {
  local name=$1 pattern=$2 rc
  shift 2
  timeout 120 "$SUBMIT" --master 'local[1]' --conf spark.ui.enabled=false "$@" >"$T/$name.log" 2>&1
  rc=$?
  [ "$rc" = 1 ] || fail "$name: exit $rc, expected 1"
  [ "$(wc -l <"$T/$name.log")" = 1 ] || fail "$name: expected one line, got: $(cat "$T/$name.log")"
  grep -q "^cspark-submit: .*$pattern" "$T/$name.log" || fail "$name: $(cat "$T/$name.log")"
}
bad_input missing_py "cannot read the Python application" --conf "spark.pyspark.python=$PY" \
  "$T/nope.py"
bad_input no_python "no Python interpreter '$T/no-python'" \
  --conf "spark.pyspark.python=$T/no-python" "$APP/app.py"
PYSPARK_PYTHON=no-such-python-here bad_input no_python_env "PYSPARK_PYTHON" "$APP/app.py"
bad_input missing_py_file "spark.submit.pyFiles entry '$T/gone.py'" \
  --conf "spark.pyspark.python=$PY" --py-files "$T/gone.py" "$APP/app.py"
# cluster mode on Kubernetes checks the program before it reaches for the API server (none here)
bad_input cluster_missing_py "cannot read the Python application $T/nope.py" \
  --master k8s://https://127.0.0.1:9 --deploy-mode cluster "$T/nope.py"
bad_input cluster_missing_py_file "spark.submit.pyFiles entry '$T/gone.py' cannot be read" \
  --master k8s://https://127.0.0.1:9 --deploy-mode cluster --py-files "$T/gone.py" "$APP/app.py"

# SIGTERM to cspark-submit while the program runs: the program is ended too, status 128+15
cat >"$T/waits.py" <<'PY'
import sys, time
from pyspark.sql import SparkSession
print("count=%d" % SparkSession.builder.getOrCreate().range(5).count(), flush=True)
time.sleep(600)
PY
"$SUBMIT" --master 'local[1]' --conf spark.ui.enabled=false --conf "spark.pyspark.python=$PY" \
  "$T/waits.py" >"$T/sigterm.log" 2>&1 &
spid=$!
_connect_pids+=($spid)
for _ in $(seq 1200); do
  grep -qx "count=5" "$T/sigterm.log" && break
  kill -0 "$spid" 2>/dev/null || fail "sigterm: cspark-submit ended before the program counted"
  sleep 0.1
done
grep -qx "count=5" "$T/sigterm.log" || fail "sigterm: the program did not count within 120 s"
kill -TERM "$spid"
wait "$spid"
rc=$?
[ "$rc" = 143 ] || fail "sigterm: cspark-submit exited $rc, expected 143"
pgrep -f "$T/waits.py" >/dev/null && fail "sigterm: the program is still running"

# nothing left running: no interpreter on the program, no Python worker
pgrep -f "$APP/app.py" >/dev/null && fail "a Python program is still running"
echo "PASS python_apps"
