#!/usr/bin/env bash
# path_slashes.sh — repeated and trailing slashes in local paths (issue 20 item 5), normalised as
# Hadoop's Path does for every scheme: "DIR/in/" is "DIR/in", "DIR//in" is "DIR/in", globs
# included. Before, a glob with a trailing slash ("DIR/in/*/") matched no file, and the files of
# "DIR//in/" were named "DIR//in/a.txt". Checked for bare paths and file: URLs (file:/x and
# file:///x); word count writes to "OUT/" and reads back "OUT//part-*".
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/pathjobs.so
need "$JOBS" "$EX/wordcount.so"
mkdir -p "$T/in" "$T/tmp"
export TMPDIR="$T/tmp"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)
printf 'a b\nc\n' >"$T/in/a.txt"
printf 'd\n' >"$T/in/b.txt"

# names PATH EXPECTED_PREFIX: the files of PATH are named EXPECTED_PREFIX{a,b}.txt, 3 lines read
names() {
    local path=$1 prefix=$2
    submit_ok 'local[2]' --class file_names "$JOBS" "$path"
    printf '%sa.txt\n%sb.txt\nlines=3\n' "$prefix" "$prefix" >"$T/want"
    assert_files_eq "$T/stdout" "$T/want" "files of '$path'"
}
names "$T/in/" "$T/in/"
names "$T//in//" "$T/in/"
names "$T/in/*/" "$T/in/"
names "$T/in//*.txt" "$T/in/"
names "file:$T//in/" "$T/in/"
names "file://$T/in/*/" "$T/in/"
names "file://$T//in//*.txt/" "$T/in/"

# an output path with a trailing slash, read back through OUT//part-* by the job itself
for out in "$T/wc1/" "file://$T//wc2//"; do
    submit_ok 'local[2]' "$EX/wordcount.so" "$T/in/" "$out"
done
[ -f "$T/wc1/_SUCCESS" ] && [ -f "$T/wc2/_SUCCESS" ] || fail "outputs not committed"
assert_eq "$(cat "$T"/wc1/part-* | sort | tr '\n' ' ')" "a	1 b	1 c	1 d	1 " "word count output"
echo "PASS: $TEST_NAME"
