#!/usr/bin/env bash
# connect_sessions.sh — cspark-connect-server with the pinned PySpark client (4.0.1) on what
# concerns many sessions and large data, over real gRPC on a loopback port; one server, started
# with spark.connect.grpc.arrow.maxBatchSize=1m:
#   1. tests/connect/show_strings.py: df.show()'s table text (ShowString), and createDataFrame of
#      data above the inline limit (AddArtifacts / ArtifactStatus of cache/<hash>, then
#      CachedLocalRelation) read back through toPandas();
#   2. tests/connect/concurrent_sessions.py: 50 sessions running small queries at once get their
#      own answers while another session's long query is interrupted;
#   3. tests/connect/result_batches.py: every ArrowBatch of a ~10 MB result within 70% of the
#      limit, the rows whole;
# then the server still serving and stopped by SIGTERM within 30 s, without a crash in its log.
# The server is stopped by the trap whatever happens.
# Usage: connect_sessions.sh BUILD_DIR
set -u
BUILD=${1:?usage: connect_sessions.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: connect_sessions: $SERVER was not built (cmake found no Spark Connect .proto files:" \
    "run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: connect_sessions: the pinned PySpark client cannot be installed"
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
  echo "FAIL: connect_sessions: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
MAX_BATCH=1048576
"$SERVER" --master 'local[2]' --conf spark.ui.enabled=false --conf "spark.connect.grpc.binding.port=$PORT" \
  --conf "spark.connect.grpc.arrow.maxBatchSize=$MAX_BATCH" >"$T/server.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  grep -q "Spark Connect server started at: 127.0.0.1:$PORT" "$T/server.log" && break
  kill -0 "$pid" 2>/dev/null || fail "the server ended before it listened"
  sleep 0.1
done
grep -q "Spark Connect server started at" "$T/server.log" || fail "the server did not listen within 60 s"
URL=sc://localhost:$PORT

timeout 600 "$PY" "$SRC/tests/connect/show_strings.py" "$URL" "$T/show.json" >"$T/show.log" 2>&1 ||
  fail "show and local data: $(tail -n 5 "$T/show.log")"
timeout 600 "$PY" "$SRC/tests/connect/concurrent_sessions.py" "$URL" 50 >"$T/sessions.log" 2>&1 ||
  fail "50 concurrent sessions: $(tail -n 8 "$T/sessions.log")"
timeout 600 "$PY" "$SRC/tests/connect/result_batches.py" "$URL" "$MAX_BATCH" >"$T/batches.log" 2>&1 ||
  fail "result batches: $(tail -n 5 "$T/batches.log")"
cat "$T/batches.log"

kill -0 "$pid" 2>/dev/null || fail "the server is gone"
kill -TERM "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the server did not stop within 30 s of SIGTERM"
pid=
grep -q 'SIGSEGV\|AddressSanitizer\|runtime error' "$T/server.log" && fail "the server crashed"
echo "PASS connect_sessions"
