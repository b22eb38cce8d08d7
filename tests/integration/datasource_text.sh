#!/usr/bin/env bash
# datasource_text.sh — the data source C API end to end on the `text` format (issue 23 items 5
# and 6), on local[2] and local-cluster[2,1,1024]: a table in key=value folders (a gzip file, a
# null partition, hidden files) is read as column batches with its partition columns, written
# back with partitionBy in each save mode (errorifexists, ignore, append, overwrite) with
# Spark's part-file names and _SUCCESS, and read back identical; the read options
# recursiveFileLookup, pathGlobFilter, wholetext and lineSep; and a write whose task fails
# midway leaves nothing visible: no new output directory, nothing added to an existing one.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
EXJOB=$EX/datasource.so
JOBS=$BUILD/tests/jobs/dsjobs.so
need "$EXJOB" "$JOBS" "$BIN/cspark-executor"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

mkdir -p "$T/in/year=2024/month=1" "$T/in/year=2024/month=2" \
    "$T/in/year=2025/month=__HIVE_DEFAULT_PARTITION__"
printf 'a\nb\n' >"$T/in/year=2024/month=1/x.txt"
printf 'c\n' | gzip >"$T/in/year=2024/month=2/y.txt.gz"
printf 'd\r\ne' >"$T/in/year=2025/month=__HIVE_DEFAULT_PARTITION__/z.txt"
touch "$T/in/_SUCCESS"
echo hidden >"$T/in/year=2024/.x.txt.crc"
mkdir -p "$T/in/_temporary/0" && echo stale >"$T/in/_temporary/0/w.txt"

cat >"$T/want_rows" <<'EOF'
value=a | year=2024 | month=1
value=b | year=2024 | month=1
value=c | year=2024 | month=2
value=d | year=2025 | month=null
value=e | year=2025 | month=null
EOF

# rows MASTER PATH OUT MODE [COLS..]: runs the example; its rows (sorted) in $T/rows
rows() {
    submit_ok "$@"
    grep -v '^rows=' "$T/stdout" | sort >"$T/rows"
}

# layout DIR: the files under DIR with the job's uuid replaced by UUID, sorted
layout() {
    (cd "$1" && find . -type f | sed -E 's/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/UUID/' | sort)
}

for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    out=$T/out-${master%%\[*}
    rows "$master" "$EXJOB" "$T/in" "$out" errorifexists year month
    assert_files_eq "$T/rows" "$T/want_rows" "$master: rows read with their partition columns"
    grep -q '^rows=5 partitions=2$' "$T/stdout" || fail "$master: $(tail -1 "$T/stdout")"
    cat >"$T/want_layout" <<'EOF'
./_SUCCESS
./year=2024/month=1/part-00000-UUID.c000.txt
./year=2024/month=2/part-00000-UUID.c000.txt
./year=2025/month=__HIVE_DEFAULT_PARTITION__/part-00001-UUID.c000.txt
EOF
    layout "$out" >"$T/layout"
    assert_files_eq "$T/layout" "$T/want_layout" "$master: written layout"
    assert_eq "$(cat "$out/year=2025/month=__HIVE_DEFAULT_PARTITION__"/part-*)" "$(printf 'd\ne')" \
        "$master: a written part file"

    # the output reads back as the input did (its own partition folders)
    rows "$master" "$EXJOB" "$out" "$T/copy-${master%%\[*}" errorifexists year month
    assert_files_eq "$T/rows" "$T/want_rows" "$master: rows read back"

    # errorifexists on an existing path: Spark's error, nothing changed
    rc=0
    run_submit "$master" "$EXJOB" "$T/in" "$out" errorifexists year month || rc=$?
    [ $rc -ne 0 ] || fail "$master: errorifexists wrote over $out"
    assert_contains "$T/stderr" "[PATH_ALREADY_EXISTS] Path file:$out already exists. Set mode as \"overwrite\" to overwrite the existing path."
    layout "$out" >"$T/layout"
    assert_files_eq "$T/layout" "$T/want_layout" "$master: layout after errorifexists"

    # ignore: nothing written
    submit_ok "$master" "$EXJOB" "$T/in" "$out" ignore year month
    layout "$out" >"$T/layout"
    assert_files_eq "$T/layout" "$T/want_layout" "$master: layout after ignore"

    # append: a second set of part files beside the first
    submit_ok "$master" "$EXJOB" "$T/in" "$out" append year month
    assert_eq "$(find "$out" -name 'part-*' | wc -l)" 6 "$master: part files after append"
    rows "$master" "$EXJOB" "$out" "$T/copy2-${master%%\[*}" ignore year month
    assert_eq "$(wc -l <"$T/rows")" 10 "$master: rows after append"

    # overwrite: as the first write
    submit_ok "$master" "$EXJOB" "$T/in" "$out" overwrite year month
    layout "$out" >"$T/layout"
    assert_files_eq "$T/layout" "$T/want_layout" "$master: layout after overwrite"

    # a bad mode: Spark's message
    rc=0
    run_submit "$master" "$EXJOB" "$T/in" "$out" sometimes year || rc=$?
    [ $rc -ne 0 ] || fail "$master: a bad mode was accepted"
    assert_contains "$T/stderr" '[INVALID_SAVE_MODE] The specified save mode "sometimes" is invalid.'

    # a task failing after writing part of its output: nothing of the job is visible
    mkdir -p "$T/bad"
    printf 'ok line long enough to come first\n' >"$T/bad/a.txt"
    printf 'boom\n' >"$T/bad/b.txt"
    FAIL_OPTS=(--conf spark.sql.files.openCostInBytes=1 --conf spark.sql.files.minPartitionNum=1)
    rc=0
    run_submit "$master" "${FAIL_OPTS[@]}" --class write_failing "$JOBS" "$T/bad" "$T/failed" \
        errorifexists || rc=$?
    [ $rc -ne 0 ] || fail "$master: the failing write succeeded"
    assert_contains "$T/stderr" "boom in the data"
    [ ! -e "$T/failed" ] || fail "$master: a failed write left $(find "$T/failed")"
    rc=0
    run_submit "$master" "${FAIL_OPTS[@]}" --class write_failing "$JOBS" "$T/bad" "$out" append ||
        rc=$?
    [ $rc -ne 0 ] || fail "$master: the failing append succeeded"
    layout "$out" >"$T/layout"
    assert_files_eq "$T/layout" "$T/want_layout" "$master: layout after a failed append"
    rm -rf "$T/failed"
done

# read options
read_opts() {
    submit_ok 'local[2]' --class read_options "$JOBS" "$@"
    sort "$T/stdout" >"$T/rows"
}
read_opts "$T/in" recursiveFileLookup true
printf '%s\n' partitions=2 value=a value=b value=c value=d value=e >"$T/want"
assert_files_eq "$T/rows" "$T/want" "recursiveFileLookup: no partition columns, hidden names skipped"
read_opts "$T/in" pathGlobFilter '*.gz'
printf '%s\n' 'partitions=1' 'value=c | year=2024 | month=2' >"$T/want"
assert_files_eq "$T/rows" "$T/want" "pathGlobFilter"
read_opts "$T/in/year=2025/month=__HIVE_DEFAULT_PARTITION__/z.txt" wholetext true
printf 'partitions=1\nvalue=d\r\ne\n' | sort >"$T/want"
assert_files_eq "$T/rows" "$T/want" "wholetext"
printf 'one;two;three' >"$T/semi.txt"
read_opts "$T/semi.txt" lineSep ';'
printf '%s\n' partitions=1 value=one value=three value=two >"$T/want"
assert_files_eq "$T/rows" "$T/want" "lineSep"
read_opts "$T/in/year=*/month=1" basePath "$T/in"
printf '%s\n' partitions=1 'value=a | year=2024 | month=1' 'value=b | year=2024 | month=1' >"$T/want"
assert_files_eq "$T/rows" "$T/want" "glob with basePath"
# a user schema names the column; partition columns keep their discovered types
read_opts "$T/in/year=2024" schema '`line` STRING, month INT'
printf '%s\n' 'line=a | month=1' 'line=b | month=1' 'line=c | month=2' partitions=2 >"$T/want"
assert_files_eq "$T/rows" "$T/want" "user schema"
rc=0
run_submit 'local[2]' --class read_options "$JOBS" "$T/in" schema 'value STRANG' || rc=$?
[ $rc -ne 0 ] || fail "a bad schema was taken"
assert_contains "$T/stderr" "schema 'value STRANG': unknown or unsupported data type 'STRANG'"
rc=0
run_submit 'local[2]' --class read_options "$JOBS" "$T/nothing" || rc=$?
[ $rc -ne 0 ] || fail "a missing path was read"
assert_contains "$T/stderr" "[PATH_NOT_FOUND] Path does not exist: file:$T/nothing."
echo "PASS: $TEST_NAME"
