#!/usr/bin/env bash
# analyze_schemas.sh — cspark's SQL parser and analyzer against Spark 4's goldens, nothing
# executed: every corpus statement must get Spark's result schema (column names and types) or
# Spark's parse/analysis error class, except those listed in analyze_schemas.known (each with
# its reason; a listed statement that matches fails the test too). tests/tools/sql_analyze_check
# prints the schemas, analyze_schemas.py compares. Usage: analyze_schemas.sh BUILD_DIR
set -euo pipefail
BUILD=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
TOOL=$BUILD/tests/sql_analyze_check
[ -x "$TOOL" ] || { echo "FAIL: $TOOL is not built"; exit 1; }
DATA=$BUILD/sql-data
if ! "$SRC/scripts/sql-testdata.sh" "$DATA" files >/dev/null; then
  echo "SKIP: the corpus data files cannot be made (scripts/sql-testdata.sh)"
  exit 77
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for sql in "$HERE"/corpus/*.sql; do
  name=$(basename "$sql" .sql)
  "$TOOL" "$sql" "$DATA/files" >"$OUT/$name.out"
done
/usr/bin/python3 "$HERE/analyze_schemas.py" "$HERE/golden/corpus" "$OUT" "$HERE/analyze_schemas.known"
