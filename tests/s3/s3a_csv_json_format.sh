#!/usr/bin/env bash
# s3a_csv_json_format.sh — the CSV and JSON file formats (src/formats/csv/csv_format.c,
# json/json_format.c) read and write s3a:// objects through src/fs as they do local files: the
# corpus of tests/spark/csv_json/cases.py uploaded to the tests' S3 server reads (schema
# inferred, batches printed by build/tests/textformat_dump) exactly as the local files do, whole
# and as byte ranges of 13 and 377 bytes (ranged GETs); a gzip part file written to s3a:// holds
# the bytes the same writer writes locally and reads back with the same rows; and a missing
# object is one error naming its URL.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
FMT=$BUILD/tests/textformat_dump
need "$FMT"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"
$PY "$SRC/tests/spark/csv_json/cases.py" "$T/corpus" || fail "cases.py failed"
n=0
for f in "$T"/corpus/*.csv "$T"/corpus/*.json; do
    s3_put "$f" "data/corpus/$(basename "$f")" || fail "upload $f"
    n=$((n + 1))
done
"$FMT" "$T/corpus" >"$T/local.txt" 2>/dev/null || fail "textformat_dump (local) failed"
for bytes in 0 13 377; do
    "$FMT" "$T/corpus" $bytes s3a://data/corpus >"$T/s3a-$bytes.txt" 2>"$T/s3a.err" ||
        fail "textformat_dump (s3a, splits of $bytes) failed: $(tail -3 "$T/s3a.err")"
    assert_files_eq "$T/s3a-$bytes.txt" "$T/local.txt" "s3a:// read in splits of $bytes bytes"
done

for fmt in csv json; do
    src=$T/corpus/${fmt}_multiline.$fmt
    [ -f "$src" ] || src=$(ls "$T"/corpus/*."$fmt" | head -1)
    opts=(inferSchema=true compression=gzip)
    [ $fmt = csv ] && opts+=(header=true)
    "$FMT" --copy $fmt "$src" "$T/part.$fmt.gz" "${opts[@]}" >"$T/local-copy.txt" ||
        fail "$fmt: local copy failed"
    "$FMT" --copy $fmt "$src" "s3a://data/out/part.$fmt.gz" "${opts[@]}" >"$T/s3a-copy.txt" 2>"$T/err" ||
        fail "$fmt: writing to s3a:// failed: $(cat "$T/err")"
    s3_get "data/out/part.$fmt.gz" >"$T/got.gz" || fail "$fmt: no object out/part.$fmt.gz"
    cmp -s <(gunzip -c "$T/got.gz") <(gunzip -c "$T/part.$fmt.gz") || fail "$fmt: the s3a:// part file differs"
    [ -z "$(s3_uploads data)" ] || fail "$fmt: multipart uploads left behind: $(s3_uploads data)"
    "$FMT" --read $fmt "s3a://data/out/part.$fmt.gz" "${opts[@]}" >"$T/back.txt" || fail "$fmt: read back failed"
    assert_files_eq "$T/back.txt" "$T/local-copy.txt" "$fmt: rows read back from s3a://"
done

"$FMT" --read csv s3a://data/corpus/no-such.csv >/dev/null 2>"$T/err" && fail "a missing object was read"
[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "s3a://data/corpus/no-such.csv" "$T/err" ||
    fail "a missing object: not one line naming it: $(cat "$T/err")"
echo "PASS: $TEST_NAME ($n files read from s3a:// whole and in splits as locally; gzip part files written and read back)"
