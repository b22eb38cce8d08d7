#!/usr/bin/env bash
# collations.sh — string collations from the pinned PySpark client through cspark-connect-server
# (tests/connect/collations.py): PySpark's own test_create_df_with_collation and test_collation,
# and grouping, dropDuplicates, filters, ordering and joins of collated strings.
# collations_spark.sh compares the same program's answers with Apache Spark's. The server is
# stopped by the trap whatever happens.
# Usage: collations.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init collations "${1:-}"
port=$(free_port)
start_cspark "$port" "$T/cspark.log"
timeout 600 "$PY" "$SRC/tests/connect/collations.py" "sc://localhost:$port" "$T/out.json" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
echo "PASS collations"
