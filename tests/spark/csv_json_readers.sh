#!/usr/bin/env bash
# csv_json_readers.sh — cspark's CSV and JSON readers and writers (src/formats/csv, src/formats/json)
# give Apache Spark 4's results on a generated corpus of hard cases (tests/spark/csv_json/cases.py:
# quoting and escapes, multiLine records, nulls and empty strings, missing and extra columns,
# malformed rows in PERMISSIVE / DROPMALFORMED / FAILFAST with and without _corrupt_record,
# numbers at the int/long/decimal/double boundaries, dates and timestamps, nested and mixed-type
# JSON). In the same run:
#   1. Spark's spark.read.csv/json (tests/spark/csv_json/spark_read.py) and cspark's readers
#      (build/tests/csvjson_dump) print each case's schema and rows in one canonical form: equal;
#   2. cspark reading each file as 3 and as 7 byte-range splits (non-multiLine), as tasks do,
#      gives the same rows;
#   3. cspark's writers and Spark's writers, given the same rows and options, write the same text.
# Installs the pinned Spark (scripts/install-spark.sh; exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
DUMP=$BUILD/tests/csvjson_dump
need "$DUMP"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
HERE=$SRC/tests/spark/csv_json
$PY "$HERE/cases.py" "$T/corpus" || fail "cases.py failed"
"$DUMP" "$T/corpus" >"$T/cspark.txt" 2>"$T/cspark.err" || fail "csvjson_dump failed: $(tail -3 "$T/cspark.err")"
mkdir -p "$T/written"
"$DUMP" --write "$T/corpus" "$T/written" 2>>"$T/cspark.err" || fail "csvjson_dump --write failed"
TZ=UTC timeout 600 "$SPARK_HOME/bin/spark-submit" --master 'local[1]' \
    --driver-java-options -Duser.timezone=UTC "$HERE/spark_read.py" "$T/corpus" "$T/written" \
    >"$T/spark.raw" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
grep -E '^(== |schema: |row: |error$)' "$T/spark.raw" >"$T/spark.txt"
cases=$(grep -c '^== ' "$T/spark.txt")
[ "$cases" -gt 50 ] || fail "Spark printed only $cases cases"
if ! diff "$T/spark.txt" "$T/cspark.txt" >"$T/diff.txt"; then
    head -40 "$T/diff.txt" >&2
    fail "cspark's readers differ from Spark's (< Spark, > cspark)"
fi
for splits in 3 7; do
    "$DUMP" "$T/corpus" $splits >"$T/split$splits.txt" 2>/dev/null
    diff "$T/cspark.txt" "$T/split$splits.txt" >&2 || fail "reading in $splits splits changes the rows"
done
written=0
for f in "$T"/written/spark/*.csv "$T"/written/spark/*.json; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    cmp -s "$f" "$T/written/$name" || {
        diff "$f" "$T/written/$name" | head -10 >&2
        fail "cspark's writer differs from Spark's for $name (< Spark, > cspark)"
    }
    written=$((written + 1))
done
[ "$written" -gt 40 ] || fail "only $written cases were written by both"
echo "PASS: $TEST_NAME ($cases cases read as Spark reads them, in 1, 3 and 7 splits; $written written as Spark writes them)"
