#!/usr/bin/env bash
# sql_parser_errors.sh — cspark's SQL parser (src/sql) accepts what Spark 4's parser accepts and
# refuses what it refuses with Spark's error text and position, over tests/spark/sql_parser/
# cases.sql (syntax errors at a token, at the end of the input and as extra input; unclosed
# quotes; bad DATE / TIMESTAMP / INTERVAL / X'' literals; numbers out of their type's range;
# clause words taken as aliases; and statements both accept). Spark's side is its session's
# parser (tests/spark/sql_parser/spark_parse.py), cspark's the tool build/tests/sql_parse_check;
# their outputs must be equal. Installs the pinned Spark (scripts/install-spark.sh; exit 77 =
# SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
CHECK=$BUILD/tests/sql_parse_check
need "$CHECK"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
HERE=$SRC/tests/spark/sql_parser
"$CHECK" "$HERE/cases.sql" >"$T/cspark.txt" || fail "sql_parse_check failed"
TZ=UTC timeout 900 "$SPARK_HOME/bin/spark-submit" --master 'local[1]' \
    --driver-java-options -Duser.timezone=UTC "$HERE/spark_parse.py" "$HERE/cases.sql" \
    >"$T/spark.raw" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
grep -E '^(=== |OK$|ERR )' "$T/spark.raw" >"$T/spark.txt"
cases=$(grep -c '^=== ' "$T/spark.txt")
[ "$cases" -ge 40 ] || fail "Spark printed only $cases cases"
if ! diff "$T/spark.txt" "$T/cspark.txt" >"$T/diff.txt"; then
    head -40 "$T/diff.txt" >&2
    fail "cspark's parser differs from Spark's (< Spark, > cspark)"
fi
errors=$(grep -c '^ERR ' "$T/spark.txt")
echo "PASS: $TEST_NAME ($cases statements: $errors refused with Spark's text and position, the rest accepted by both)"
