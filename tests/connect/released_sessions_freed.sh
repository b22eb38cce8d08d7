#!/usr/bin/env bash
# released_sessions_freed.sh — Spark Connect sessions are freed when closed, as Spark 4's
# SparkConnectSessionManager frees them (a released session used to stay in a list whole, ~14 KB
# each, found by a linear search). Two cspark-connect-server runs with the pinned PySpark client:
#   1. tests/connect/released_sessions_freed.py: 2,000 sessions (each with a conf, a temporary
#      view, a persisted relation and a job) opened and released one after another: the server's
#      RSS stays bounded, a released id gets INVALID_HANDLE.SESSION_CLOSED (gRPC and PySpark),
#      ReleaseSession of an unknown or released session is a no-op; and one session's 2,000
#      ExecutePlans that are not reattachable leave nothing behind either;
#   2. tests/connect/idle_sessions_expire.py, the server started with
#      spark.connect.session.manager.defaultSessionTimeout=2s and maintenanceInterval=200ms: an
#      idle session is closed, one whose query runs longer than the timeout is not.
# Each server then stops on SIGTERM within 30 s without a crash or a sanitizer report in its log
# (in the sanitizer build: 300 sessions, no RSS bound, LeakSanitizer's report at exit judging).
# The servers are stopped by the trap whatever happens.
# Usage: released_sessions_freed.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init released_sessions_freed "$@"
N_SESSIONS=${CSPARK_TEST_SESSIONS:-2000}
MAX_GROWTH_KB=6144
if [ "${CSPARK_SANITIZE:-0}" = 1 ]; then
  # the sanitizer build: LeakSanitizer judges what is freed (at the server's exit); its RSS holds
  # freed memory in quarantine, so the bound is the normal build's
  N_SESSIONS=${CSPARK_TEST_SESSIONS:-300}
  MAX_GROWTH_KB=0
fi
# start_server LOG PORT [conf ...]: the server (pid: its process) listening on PORT
start_server() {
  start_cspark "$2" "$1" --conf "spark.pyspark.python=$PY" "${@:3}"
  pid=${_connect_pids[${#_connect_pids[@]} - 1]}
}
# stop_server LOG: SIGTERM; it must end within 30 s, as an interrupted application (0 or 143),
# without a crash or a sanitizer report in LOG
stop_server() {
  local log=$1 rc
  kill -0 "$pid" 2>/dev/null || fail "the server is gone"
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
  wait "$pid"
  rc=$?
  grep -q 'SIGSEGV\|AddressSanitizer\|LeakSanitizer\|runtime error' "$log" && fail "the server crashed or leaked"
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
