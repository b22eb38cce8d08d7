#!/usr/bin/env bash
# parity_functions.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh) over real gRPC on a loopback port, running
# tests/connect/parity_functions.py: the function calls PySpark's own Connect test modules found
# failing (first and last with and without ignoreNulls in one aggregation, levenshtein with a
# threshold, bigint arguments to INT parameters, the hyperbolic and reciprocal trigonometric
# functions, posexplode_outer and inline_outer, the exception class of a malformed cast).
# parity_functions_spark.sh runs the same program against Spark 4's own server. The server is
# stopped by the trap whatever happens.
# Usage: parity_functions.sh BUILD_DIR
set -u
BUILD=${1:?usage: parity_functions.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: parity_functions: $SERVER was not built (cmake found no Spark Connect .proto files:" \
    "run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: parity_functions: the pinned PySpark client cannot be installed"
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
  echo "FAIL: parity_functions: $*"
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
timeout 600 "$PY" "$SRC/tests/connect/parity_functions.py" "sc://localhost:$PORT" >"$T/client.log" 2>&1 ||
  fail "$(tail -n 5 "$T/client.log")"
echo "PASS parity_functions"
