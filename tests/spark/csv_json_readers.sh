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
# And through the file formats (src/formats/csv/csv_format.c, json/json_format.c: batches of
# columns, files read in bounded buffers through src/fs), with build/tests/textformat_dump:
#   4. every case (schema inferred by the format) gives Spark's rows, and gives them again read as
#      byte ranges of many sizes (1 byte to 4 KiB: every split boundary inside quotes, line ends and
#      headers), one reader per split as tasks do;
#   5. the formats' writers write Spark's writer's text, and Spark reads back what they wrote, plain
#      and gzip-compressed (part files *.csv.gz, *.json.gz), with the values the formats read;
#   6. a 1 GB line (a sparse file, nothing stored) is one error naming the file and the line.
# Installs the pinned Spark (scripts/install-spark.sh; exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
DUMP=$BUILD/tests/csvjson_dump
FMT=$BUILD/tests/textformat_dump
need "$DUMP"
need "$FMT"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
HERE=$SRC/tests/spark/csv_json
$PY "$HERE/cases.py" "$T/corpus" || fail "cases.py failed"
"$DUMP" "$T/corpus" >"$T/cspark.txt" 2>"$T/cspark.err" || fail "csvjson_dump failed: $(tail -3 "$T/cspark.err")"
mkdir -p "$T/written"
"$DUMP" --write "$T/corpus" "$T/written" 2>>"$T/cspark.err" || fail "csvjson_dump --write failed"
"$FMT" "$T/corpus" >"$T/format.txt" 2>"$T/format.err" || fail "textformat_dump failed: $(tail -3 "$T/format.err")"
mkdir -p "$T/fwritten"
"$FMT" --write "$T/corpus" "$T/fwritten" 2>"$T/fwrite.err" || fail "textformat_dump --write failed"
[ -s "$T/fwrite.err" ] && { cat "$T/fwrite.err" >&2; fail "the formats' writers failed"; }
TZ=UTC timeout 900 "$SPARK_HOME/bin/spark-submit" --master 'local[1]' \
    --driver-java-options -Duser.timezone=UTC "$HERE/spark_read.py" "$T/corpus" "$T/written" \
    "$T/fwritten" "$T/fwritten_spark.raw" \
    >"$T/spark.raw" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
grep -E '^(== |schema: |row: |error$|error: )' "$T/spark.raw" >"$T/spark.txt"
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

# ---- the file formats: batches, splits, writers -------------------------------------------------
if ! diff "$T/spark.txt" "$T/format.txt" >"$T/diff.txt"; then
    head -40 "$T/diff.txt" >&2
    fail "the file formats' batches differ from Spark's rows (< Spark, > cspark)"
fi
sizes="1 2 3 5 8 13 21 34 55 89 144 233 377 1000 4096"
for bytes in $sizes; do
    "$FMT" "$T/corpus" "$bytes" >"$T/fsplit$bytes.txt" 2>/dev/null
    diff "$T/format.txt" "$T/fsplit$bytes.txt" >&2 || fail "reading in splits of $bytes bytes changes the rows"
done
fwritten=0
for f in "$T"/written/spark/*.csv "$T"/written/spark/*.json; do
    [ -f "$f" ] || continue
    name=$(basename "$f")
    [ -f "$T/fwritten/$name" ] || continue
    cmp -s "$f" "$T/fwritten/$name" || {
        diff "$f" "$T/fwritten/$name" | head -10 >&2
        fail "the file format's writer differs from Spark's for $name (< Spark, > cspark)"
    }
    fwritten=$((fwritten + 1))
done
[ "$fwritten" -gt 40 ] || fail "only $fwritten cases were written by the formats and Spark"
gz=$(ls "$T"/fwritten/*.csv.gz "$T"/fwritten/*.json.gz 2>/dev/null | wc -l)
[ "$gz" -gt 40 ] || fail "only $gz gzip part files were written"
grep -E '^(== |schema: |row: |error$|error: )' "$T/fwritten_spark.raw" >"$T/fwritten_spark.txt"
"$FMT" "$T/fwritten" >"$T/fwritten_cspark.txt" 2>"$T/fread.err" || fail "textformat_dump failed on the written files"
if ! diff "$T/fwritten_spark.txt" "$T/fwritten_cspark.txt" >"$T/diff.txt"; then
    head -40 "$T/diff.txt" >&2
    fail "Spark reads the formats' written files otherwise than cspark (< Spark, > cspark)"
fi
grep -q '^error$' "$T/fwritten_spark.txt" && fail "Spark failed to read a file the formats wrote"
# a gzip part file holds the rows of its plain twin
$PY - "$T/fwritten_cspark.txt" <<'PYEOF' >&2 || fail "a gzip part file does not hold its plain twin's rows"
import sys
blocks, name = {}, None
for line in open(sys.argv[1]):
    if line.startswith("== "):
        name = line[3:].strip()
        blocks[name] = []
    else:
        blocks[name].append(line)
bad = [n for n in blocks if n.endswith("_gz") and blocks[n] != blocks.get(n[:-3])]
if bad:
    sys.exit("differ from their plain twins: %s" % bad[:5])
PYEOF

# ---- a 1 GB line: one error naming the file and the line, nothing unbounded ---------------------
for fmt in csv json; do
    big=$T/one_gb_line.$fmt
    if [ $fmt = csv ]; then printf 'a,b\n1,2\n' >"$big"; else printf '{"a":1}\n{"a":2}\n' >"$big"; fi
    truncate -s 1G "$big"
    ( ulimit -v 1500000; "$FMT" --read $fmt "$big" header=true ) >"$T/big.out" 2>"$T/big.err"
    rc=$?
    rm -f "$big"
    [ $rc -eq 1 ] || fail "a 1 GB $fmt line: exit $rc, expected 1 ($(head -c 300 "$T/big.err"))"
    [ "$(wc -l <"$T/big.err")" -eq 1 ] || fail "a 1 GB $fmt line gives more than one line: $(head -3 "$T/big.err")"
    grep -q "input file .*one_gb_line.$fmt: the record at line 3 (byte " "$T/big.err" ||
        fail "a 1 GB $fmt line: the error does not name the file and line 3: $(cat "$T/big.err")"
done
echo "PASS: $TEST_NAME ($cases cases read as Spark reads them, in 1, 3 and 7 splits; $written written as Spark writes them; through the file formats: the same rows in batches, in splits of ${sizes// /,} bytes, $fwritten written as Spark writes them and read back by Spark, $gz gzip part files; a 1 GB line is one error)"
