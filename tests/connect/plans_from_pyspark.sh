#!/usr/bin/env bash
# plans_from_pyspark.sh — the plans the pinned PySpark client (scripts/install-pyspark-client.sh)
# sends for ~50 DataFrame calls (tests/connect/plans_from_pyspark.py: select, filter, groupBy with
# rollup / cube / grouping sets / pivot, joins on columns of each DataFrame and USING, set
# operations, withColumn(s), na.*, windows, spark.sql with arguments and DataFrames,
# createDataFrame, describe, ...) are translated by cspark and analyzed to the same tree as the
# SQL written for each (build/tests/connect_plan_check). No server runs: the client builds its
# plans without one. Usage: plans_from_pyspark.sh BUILD_DIR
set -u
BUILD=${1:?usage: plans_from_pyspark.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
CHECK=$BUILD/tests/connect_plan_check
if [ ! -x "$CHECK" ]; then
  echo "SKIP: plans_from_pyspark: $CHECK was not built (cmake found no Spark Connect .proto" \
    "files: run scripts/install-spark.sh, then cmake again)"
  exit 77
fi
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
  echo "SKIP: plans_from_pyspark: the pinned PySpark client cannot be installed"
  exit 77
}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
if ! timeout 300 "$PY" "$SRC/tests/connect/plans_from_pyspark.py" "$T" >"$T/gen.log" 2>&1; then
  echo "FAIL: plans_from_pyspark: the PySpark client did not make its plans"
  tail -n 30 "$T/gen.log"
  exit 1
fi
if ! "$CHECK" "$T" >"$T/check.log" 2>&1; then
  echo "FAIL: plans_from_pyspark: plans that are not their SQL's"
  grep -v '^ok ' "$T/check.log" | head -n 200
  exit 1
fi
echo "PASS: plans_from_pyspark: $(tail -n 1 "$T/check.log")"
