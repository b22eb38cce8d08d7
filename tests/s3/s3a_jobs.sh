#!/usr/bin/env bash
# s3a_jobs.sh — word count and sort from s3a:// to s3a:// against a real S3 server give output
# identical to the same jobs on local files, in local[2] and local-cluster[2,1,1024]; compressed
# inputs (.gz .bz2 .zst .lz4, locally and from the store) give the word count of the plain file;
# compressed output (mapreduce.output.fileoutputformat.compress) reads back as the plain output;
# a corrupt compressed file fails the job with one line naming it.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
need "$EX/wordcount.so" "$EX/sort.so" "$BIN/gen_text" "$BIN/gen_records"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"

"$BIN/gen_text" -m -s 7 3000000 >"$T/words.txt" || fail "gen_text failed"
"$BIN/gen_records" -s 3 40000 >"$T/records.txt" || fail "gen_records failed"
s3_put "$T/words.txt" data/in/words.txt || fail "upload"
s3_put "$T/records.txt" data/sortin/records.txt || fail "upload"

# local reference runs
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/wc-local"
cat_parts "$T/wc-local" >"$T/wc-local.txt"
submit_ok "local[2]" "$EX/sort.so" "$T/records.txt" "$T/sort-local"
cat_parts "$T/sort-local" >"$T/sort-local.txt"

for m in "local[2]" "local-cluster[2,1,1024]"; do
    tag=$(echo "$m" | tr -c 'a-z0-9\n' '-')
    submit_ok "$m" "$EX/wordcount.so" "s3a://data/in" "s3a://data/wc-$tag"
    s3_cat_parts data "wc-$tag" >"$T/wc-$tag.txt" || fail "$m: word count output incomplete"
    assert_files_eq "$T/wc-$tag.txt" "$T/wc-local.txt" "$m: s3a word count differs from the local one"
    submit_ok "$m" "$EX/sort.so" "s3a://data/sortin/records.txt" "s3a://data/sort-$tag"
    s3_cat_parts data "sort-$tag" >"$T/sort-$tag.txt" || fail "$m: sort output incomplete"
    assert_files_eq "$T/sort-$tag.txt" "$T/sort-local.txt" "$m: s3a sort differs from the local one"
    [ -z "$(s3_uploads data)" ] || fail "$m: multipart uploads left behind: $(s3_uploads data)"
done

# an existing output prefix is refused before anything runs
run_submit "local[2]" "$EX/wordcount.so" "s3a://data/in" "s3a://data/wc-local-2-" && fail "existing output accepted"
assert_contains "$T/stderr" "Output directory s3a://data/wc-local-2- already exists" "existing output message"

# compressed input: each codec, local and from the store, counts like the plain file
sort "$T/wc-local.txt" >"$T/wc-ref.txt"
for tool in "gzip:gz" "bzip2:bz2" "zstd -q:zst" "lz4 -q:lz4"; do
    cmd=${tool%%:*} ext=${tool##*:}
    $cmd -c "$T/words.txt" >"$T/words.txt.$ext" || fail "$cmd failed"
    submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt.$ext" "$T/wc-$ext"
    cat_parts "$T/wc-$ext" | sort >"$T/wc-$ext.txt"
    assert_files_eq "$T/wc-$ext.txt" "$T/wc-ref.txt" ".$ext input: word count differs"
    s3_put "$T/words.txt.$ext" "data/zin/words.txt.$ext" || fail "upload .$ext"
    submit_ok "local-cluster[2,1,1024]" "$EX/wordcount.so" "s3a://data/zin/words.txt.$ext" "s3a://data/wc-z-$ext"
    s3_cat_parts data "wc-z-$ext" | sort >"$T/wcs-$ext.txt"
    assert_files_eq "$T/wcs-$ext.txt" "$T/wc-ref.txt" "s3a .$ext input: word count differs"
done

# compressed output: part names carry the extension, and decompress to the plain output
SUBMIT_OPTS=(--conf spark.hadoop.mapreduce.output.fileoutputformat.compress=true
    --conf spark.hadoop.mapreduce.output.fileoutputformat.compress.codec=org.apache.hadoop.io.compress.GzipCodec)
submit_ok "local[2]" "$EX/wordcount.so" "s3a://data/in" "s3a://data/wc-gzout"
SUBMIT_OPTS=()
s3_keys data wc-gzout/ | grep -q '^wc-gzout/part-00000\.gz$' || fail "compressed output parts not named .gz: $(s3_keys data wc-gzout/)"
for k in $(s3_keys data wc-gzout/ | grep part-); do s3_get "data/$k" | gzip -dc; done >"$T/wc-gzout.txt"
assert_files_eq "$T/wc-gzout.txt" "$T/wc-local.txt" "gzip output differs"
SUBMIT_OPTS=(--conf spark.hadoop.mapreduce.output.fileoutputformat.compress=true
    --conf spark.hadoop.mapreduce.output.fileoutputformat.compress.codec=snappy)
run_submit "local[2]" "$EX/wordcount.so" "s3a://data/in" "s3a://data/wc-snappy" && fail "an unknown output codec was accepted"
assert_contains "$T/stderr" "compress.codec: 'snappy'" "unknown codec message"
SUBMIT_OPTS=()

# a corrupt compressed file fails the job naming it, leaving no output
head -c 20000 "$T/words.txt.gz" >"$T/cut.gz"
printf 'garbage that is not gzip' >>"$T/cut.gz"
s3_put "$T/cut.gz" data/bad/cut.gz || fail "upload"
run_submit "local[2]" "$EX/wordcount.so" "s3a://data/bad/cut.gz" "s3a://data/wc-bad" && fail "a corrupt .gz was read without an error"
assert_contains "$T/stderr" "cannot decompress s3a://data/bad/cut.gz (gzip)" "corrupt input message"
[ -z "$(s3_keys data wc-bad/)" ] || fail "a failed job left output: $(s3_keys data wc-bad/)"
[ -z "$(s3_uploads data wc-bad/)" ] || fail "a failed job left uploads"
log "ok"
