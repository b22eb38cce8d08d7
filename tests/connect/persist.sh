#!/usr/bin/env bash
# persist.sh — DataFrame.cache() / persist(level) / unpersist() / storageLevel / is_cached from
# the pinned PySpark client through cspark-connect-server (tests/connect/persist.py): a cached
# DataFrame over a folder of CSV files is not read again when a file is added (nor are the
# DataFrames built on it), an uncached read and the DataFrame after unpersist() see the new rows,
# and the storage levels asked are reported back. persist_spark.sh compares the same program's
# answers with Apache Spark's. The server is stopped by the trap whatever happens.
# Usage: persist.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init persist "${1:-}"
port=$(free_port)
start_cspark "$port" "$T/cspark.log"
timeout 600 "$PY" "$SRC/tests/connect/persist.py" "sc://localhost:$port" "$T/data" "$T/out.json" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS persist"
