#!/usr/bin/env bash
# s3a_path_slashes.sh — an s3a:// output path with a trailing slash broke the job (issue 20 item
# 5): `wordcount.so s3a://b/in/ s3a://b/out/` wrote its parts, then its second job read
# "s3a://b/out//part-*" and failed with "matches 0 files". Paths are now normalised as Hadoop's
# Path does: repeated and trailing slashes go, globs included, so "s3a://b/out/" and
# "s3a://b/out" are one place, its keys are "out/part-NNNNN", and reading names files by their
# normalised URL.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
JOBS=$BUILD/tests/jobs/pathjobs.so
need "$EX/wordcount.so" "$JOBS"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

printf 'a b\nc\n' >"$T/a.txt"
printf 'd\n' >"$T/b.txt"
s3_put "$T/a.txt" data/in/a.txt && s3_put "$T/b.txt" data/in/b.txt || fail "upload"
submit_ok "local[2]" "$EX/wordcount.so" "$T/a.txt,$T/b.txt" "$T/wc-local"
cat_parts "$T/wc-local" | sort >"$T/wc-local.txt" # part counts differ with the cores: sorted

for m in "local[2]" "local-cluster[1,1,512]"; do
    tag=$(echo "$m" | tr -c 'a-z0-9\n' '-')
    submit_ok "$m" "$EX/wordcount.so" "s3a://data/in/" "s3a://data/wc-$tag/"
    s3_cat_parts data "wc-$tag" >"$T/wc-$tag.raw" || fail "$m: output incomplete: $(s3_keys data "wc-$tag")"
    sort "$T/wc-$tag.raw" >"$T/wc-$tag.txt"
    assert_files_eq "$T/wc-$tag.txt" "$T/wc-local.txt" "$m: the word count differs"
    keys=$(s3_keys data "wc-$tag" | tr '\n' ' ')
    [[ "$keys" != *"//"* ]] || fail "$m: keys with an empty component: $keys"
    [ -z "$(s3_uploads data)" ] || fail "$m: multipart uploads left behind: $(s3_uploads data)"
done

# names PATH: the files of PATH are s3a://data/in/{a,b}.txt, 3 lines read
names() {
    submit_ok 'local[2]' --class file_names "$JOBS" "$1"
    printf 's3a://data/in/a.txt\ns3a://data/in/b.txt\nlines=3\n' >"$T/want"
    assert_files_eq "$T/stdout" "$T/want" "files of '$1'"
}
names "s3a://data/in/"
names "s3a://data//in//"
names "s3a://data/in/*/"
names "s3a://data/in//*.txt"
names "s3a://data//in/[ab].txt/"

# an existing output named with a trailing slash is the same output
run_submit "local[2]" "$EX/wordcount.so" "s3a://data/in" "s3a://data/wc-local-2-//" && fail "existing output accepted"
assert_contains "$T/stderr" "Output directory s3a://data/wc-local-2- already exists" "existing output message"
log "ok"
