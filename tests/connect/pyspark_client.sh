#!/usr/bin/env bash
# pyspark_client.sh — cspark-connect-server served to the pinned PySpark client (pyspark 4.0.1,
# scripts/install-pyspark-client.sh), over real gRPC on loopback ports:
#   1. a server without a token: tests/connect/pyspark_client.py (spark.version, spark.conf,
#      queries through collect() and toPandas() — ints, strings, decimals, dates, nulls, an empty
#      result, 300,000 rows in many batches —, a DataFrame's schema, AnalysisException,
#      ParseException and ArithmeticException with Spark's error classes, interruptAll of a long
#      query), then a client killed in the middle of a long query: its jobs are cancelled;
#   2. a server with spark.connect.authenticate.token and a 64 KiB message limit:
#      tests/connect/grpc_requests.py (malformed, oversized, cut-short and non-HTTP/2 requests and
#      calls without the token get gRPC errors while the server goes on serving), then the PySpark
#      client refused without the token and served with it;
#   3. both servers still running, then stopped by SIGTERM: each ends within 30 s.
# Servers are stopped by the trap whatever happens. CSPARK_PYSPARK_CLIENT_VERSION (4.0, the
# default, or 4.1) picks the client (pyspark_client_41.sh runs this with 4.1).
# Usage: pyspark_client.sh BUILD_DIR
set -u
BUILD=${1:?usage: pyspark_client.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
SERVER=$BUILD/bin/cspark-connect-server
if [ ! -x "$SERVER" ]; then
  echo "SKIP: pyspark_client: $SERVER was not built (cmake found no Spark Connect .proto files:" \
    "run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh" "${CSPARK_PYSPARK_CLIENT_VERSION:-4.0}") || {
  echo "SKIP: pyspark_client: the pinned PySpark client cannot be installed"
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
  echo "FAIL: pyspark_client: $*"
  for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }; done
  exit 1
}
free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# start_server NAME PORT [--conf k=v ...]: waits (60 s at most) for the server's started line
start_server() {
  local name=$1 port=$2
  shift 2
  "$SERVER" --master 'local[2]' --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" "$@" >"$T/$name.log" 2>&1 &
  pids+=($!)
  eval "${name}_pid=$!"
  for _ in $(seq 600); do
    grep -q "Spark Connect server started at: 127.0.0.1:$port" "$T/$name.log" && return 0
    kill -0 "$!" 2>/dev/null || fail "$name ended before it listened"
    sleep 0.1
  done
  fail "$name did not start listening on $port within 60 s"
}

P1=$(free_port)
CSPARK_LOG_LEVEL=INFO start_server plain "$P1" # INFO: its jobs' starts are logged
timeout 600 "$PY" "$SRC/tests/connect/pyspark_client.py" "sc://localhost:$P1" "$T/cspark.json" \
  --interrupt >"$T/client.log" 2>&1 || fail "the PySpark client against cspark: $(tail -n 5 "$T/client.log")"

# a client killed mid-query: its operation is cancelled (the stream is gone and no reattach
# comes), which the scheduler logs as the cancellation of the operation's job group. The kill
# comes once the query's job has started (the server's log says so; a fixed wait once killed the
# client before its query reached a loaded machine's server), and the query counts 9e12 pairs,
# so it is still running then (a sum of products once overflowed first on an idle machine, so
# nothing was left to cancel)
n_before=$(grep -c 'cancelled part of cancelled job group cspark-connect-' "$T/plain.log")
jobs_before=$(grep -c 'event=started stages=' "$T/plain.log")
"$PY" -c '
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
spark.sql("SELECT count(*) FROM range(0, 3000000) a CROSS JOIN range(0, 3000000) b").collect()
' "sc://localhost:$P1" >"$T/killed.log" 2>&1 &
client=$!
for _ in $(seq 1200); do
  [ "$(grep -c 'event=started stages=' "$T/plain.log")" -gt "$jobs_before" ] && break
  kill -0 "$client" 2>/dev/null || fail "the client ended before its query started: $(tail -n 5 "$T/killed.log")"
  sleep 0.1
done
[ "$(grep -c 'event=started stages=' "$T/plain.log")" -gt "$jobs_before" ] ||
  fail "the long query's job did not start within 120 s"
kill -KILL "$client" 2>/dev/null
wait "$client" 2>/dev/null
for _ in $(seq 300); do
  [ "$(grep -c 'cancelled part of cancelled job group cspark-connect-' "$T/plain.log")" -gt "$n_before" ] &&
    break
  sleep 0.1
done
[ "$(grep -c 'cancelled part of cancelled job group cspark-connect-' "$T/plain.log")" -gt "$n_before" ] ||
  fail "the query of a killed client was not cancelled within 30 s"

P2=$(free_port)
TOKEN=t0ken-$$
start_server secured "$P2" --conf "spark.connect.authenticate.token=$TOKEN" \
  --conf spark.connect.grpc.maxInboundMessageSize=65536
timeout 300 "$PY" "$SRC/tests/connect/grpc_requests.py" "$P2" 65536 "$TOKEN" >"$T/requests.log" 2>&1 ||
  fail "requests a client never sends: $(tail -n 5 "$T/requests.log")"
timeout 300 "$PY" "$SRC/tests/connect/bearer_token.py" "$P2" "$TOKEN" >"$T/token.log" 2>&1 ||
  fail "bearer token: $(tail -n 5 "$T/token.log")"

# both still serving, then SIGTERM: a clean stop
for name in plain secured; do
  pid=$(eval echo "\$${name}_pid")
  kill -0 "$pid" 2>/dev/null || fail "the $name server is gone"
  kill -TERM "$pid"
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "the $name server did not stop within 30 s of SIGTERM"
  grep -q 'SIGSEGV\|AddressSanitizer\|runtime error' "$T/$name.log" && fail "the $name server crashed"
done
echo "PASS pyspark_client"
