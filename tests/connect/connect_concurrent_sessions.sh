#!/usr/bin/env bash
# connect_concurrent_sessions.sh — cspark-connect-server (local[2]) with the pinned PySpark client:
# one session's short queries answer while another session's one-task query waits in a Python UDF
# for a file the test creates only after those answers arrived (tests/connect/
# connect_concurrent_sessions.py); the waiting query then ends with its exact rows. Statements of
# different sessions run at once (the scheduler's concurrent jobs); outcome-based, no timing.
# The server is stopped by the trap whatever happens.
# Usage: connect_concurrent_sessions.sh BUILD_DIR
set -u
BUILD=${1:?usage: connect_concurrent_sessions.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: connect_concurrent_sessions: $SERVER was not built (cmake found no Spark Connect" \
    ".proto files: run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: connect_concurrent_sessions: the pinned PySpark client cannot be installed"
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
  echo "FAIL: connect_concurrent_sessions: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$SERVER" --master 'local[2]' --conf spark.ui.enabled=false --conf "spark.connect.grpc.binding.port=$PORT" \
  --conf "spark.pyspark.python=$PY" >"$T/server.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  grep -q "Spark Connect server started at: 127.0.0.1:$PORT" "$T/server.log" && break
  kill -0 "$pid" 2>/dev/null || fail "the server ended before it listened"
  sleep 0.1
done
grep -q "Spark Connect server started at" "$T/server.log" || fail "the server did not listen within 60 s"
mkdir -p "$T/gates"
timeout 900 "$PY" "$SRC/tests/connect/connect_concurrent_sessions.py" "sc://localhost:$PORT" "$T/gates" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 8 "$T/client.log")"
grep -q "session B answered while session A's query waited" "$T/client.log" || fail "no proof of overlap"
kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
pid=
grep -q 'SIGSEGV\|AddressSanitizer\|runtime error' "$T/server.log" && fail "the server crashed"
echo "PASS connect_concurrent_sessions"
