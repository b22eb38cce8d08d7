#!/usr/bin/env bash
# released_sessions_freed.sh — Spark Connect sessions are freed when closed, as Spark 4's
# SparkConnectSessionManager frees them (a released session used to stay in a list whole, ~14 KB
# each, found by a linear search). Two cspark-connect-server runs with the pinned PySpark client:
#   1. tests/connect/released_sessions_freed.py: 2,000 sessions (each with a conf, a temporary
#      view, a persisted relation and a job) opened and released one after another: the server's
#      RSS stays bounded, a released id gets INVALID_HANDLE.SESSION_CLOSED (gRPC and PySpark),
#      ReleaseSession of an unknown or released session is a no-op;
#   2. tests/connect/idle_sessions_expire.py, the server started with
#      spark.connect.session.manager.defaultSessionTimeout=2s and maintenanceInterval=200ms: an
#      idle session is closed, one whose query runs longer than the timeout is not.
# Each server then stops on SIGTERM within 30 s without a crash or a sanitizer report in its log
# (in the sanitizer build: 300 sessions, no RSS bound, LeakSanitizer's report at exit judging).
# The servers are stopped by the trap whatever happens.
# Usage: released_sessions_freed.sh BUILD_DIR
set -u
BUILD=${1:?usage: released_sessions_freed.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
N_SESSIONS=${CSPARK_TEST_SESSIONS:-2000}
MAX_GROWTH_KB=6144
if [ "${CSPARK_SANITIZE:-0}" = 1 ]; then
  # the sanitizer build: LeakSanitizer judges what is freed (at the server's exit); its RSS holds
  # freed memory in quarantine, so the bound is the normal build's
  N_SESSIONS=${CSPARK_TEST_SESSIONS:-300}
  MAX_GROWTH_KB=0
fi
if [ ! -x "$SERVER" ]; then
  echo "SKIP: released_sessions_freed: $SERVER was not built (cmake found no Spark Connect .proto" \
    "files: run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: released_sessions_freed: the pinned PySpark client cannot be installed"
  exit 77
}
T=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$T"
}
trap cleanup EXIT
fail() {
  echo "FAIL: released_sessions_freed: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# start_server LOG PORT [conf ...]: the server in the background (pid), listening
start_server() {
  local log=$1 port=$2
  shift 2
  "$SERVER" --master 'local[2]' --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" "$@" \
    >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 600); do
    grep -q "Spark Connect server started at: 127.0.0.1:$port" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || fail "the server ended before it listened"
    sleep 0.1
  done
  fail "the server did not listen within 60 s"
}
stop_server() {
  local log=$1
  kill -0 "$pid" 2>/dev/null || fail "the server is gone"
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
  wait "$pid"
  local rc=$?
  pid=
  grep -q 'SIGSEGV\|AddressSanitizer\|LeakSanitizer\|runtime error' "$log" && fail "the server crashed or leaked"
  # stopped by SIGTERM, the server exits as an interrupted application does (128 + 15)
  [ "$rc" -eq 0 ] || [ "$rc" -eq 143 ] || fail "the server exited with status $rc"
}

PORT=$(free_port)
start_server "$T/server.log" "$PORT"
timeout 800 "$PY" "$SRC/tests/connect/released_sessions_freed.py" "$PORT" "$pid" "$N_SESSIONS" "$MAX_GROWTH_KB" \
  >"$T/released.log" 2>&1 || fail "released sessions: $(tail -n 8 "$T/released.log")"
grep RSS "$T/released.log"
stop_server "$T/server.log"

PORT=$(free_port)
start_server "$T/expiry.log" "$PORT" --conf cspark.log.level=INFO \
  --conf spark.connect.session.manager.defaultSessionTimeout=2s \
  --conf spark.connect.session.manager.maintenanceInterval=200ms
timeout 600 "$PY" "$SRC/tests/connect/idle_sessions_expire.py" "$PORT" "$T/expiry.log" \
  >"$T/idle.log" 2>&1 || fail "idle sessions: $(tail -n 8 "$T/idle.log")"
stop_server "$T/expiry.log"
echo "PASS released_sessions_freed"
