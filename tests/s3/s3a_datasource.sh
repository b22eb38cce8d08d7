#!/usr/bin/env bash
# s3a_datasource.sh — the data source C API on a real S3 server (issue 23 item 5: every file
# system): a text table in key=value folders under s3a:// (a gzip object, a null partition,
# hidden objects) is read with its partition columns and written back with partitionBy to
# s3a:// (uploads staged on the executor and completed at job commit: part files named as
# Spark's, _SUCCESS, no upload left stored), on local[2] and local-cluster[2,1,1024]; a write
# whose task fails midway leaves no object and no upload.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
EXJOB=$EX/datasource.so
JOBS=$BUILD/tests/jobs/dsjobs.so
need "$EXJOB" "$JOBS" "$BIN/cspark-executor"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

printf 'a\nb\n' >"$T/x.txt"
printf 'c\n' | gzip >"$T/y.txt.gz"
printf 'd\ne' >"$T/z.txt"
# keys with "=" are sent encoded (curl signs the path as given)
s3_put "$T/x.txt" "data/in/year%3D2024/month%3D1/x.txt" &&
    s3_put "$T/y.txt.gz" "data/in/year%3D2024/month%3D2/y.txt.gz" &&
    s3_put "$T/z.txt" "data/in/year%3D2025/month%3D__HIVE_DEFAULT_PARTITION__/z.txt" &&
    s3_put "$T/x.txt" "data/in/_SUCCESS" && s3_put "$T/x.txt" "data/in/year%3D2024/.x.crc" ||
    fail "upload"
cat >"$T/want_rows" <<'EOF'
value=a | year=2024 | month=1
value=b | year=2024 | month=1
value=c | year=2024 | month=2
value=d | year=2025 | month=null
value=e | year=2025 | month=null
EOF
cat >"$T/want_keys" <<'EOF'
_SUCCESS
year=2024/month=1/part-00000-UUID.c000.txt
year=2024/month=2/part-00000-UUID.c000.txt
year=2025/month=__HIVE_DEFAULT_PARTITION__/part-00001-UUID.c000.txt
EOF
uuid_re='[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'

for m in 'local[2]' 'local-cluster[2,1,1024]'; do
    tag=$(echo "$m" | tr -c 'a-z0-9\n' '-')
    submit_ok "$m" "$EXJOB" "s3a://data/in" "s3a://data/out-$tag" errorifexists year month
    grep -v '^rows=' "$T/stdout" | sort >"$T/rows"
    assert_files_eq "$T/rows" "$T/want_rows" "$m: rows read from s3a"
    s3_keys data "out-$tag/" | sed -E "s|^out-$tag/||; s/$uuid_re/UUID/" >"$T/keys"
    assert_files_eq "$T/keys" "$T/want_keys" "$m: objects written"
    [ -z "$(s3_uploads data "out-$tag/")" ] || fail "$m: uploads left: $(s3_uploads data "out-$tag/")"
    # read back from s3a
    submit_ok "$m" "$EXJOB" "s3a://data/out-$tag" "s3a://data/copy-$tag" overwrite year month
    grep -v '^rows=' "$T/stdout" | sort >"$T/rows"
    assert_files_eq "$T/rows" "$T/want_rows" "$m: rows read back"
    rc=0
    run_submit "$m" "$EXJOB" "s3a://data/in" "s3a://data/out-$tag" errorifexists year || rc=$?
    [ $rc -ne 0 ] || fail "$m: errorifexists wrote over an existing output"
    assert_contains "$T/stderr" "[PATH_ALREADY_EXISTS] Path s3a://data/out-$tag already exists."

    # a task failing midway: no object, no upload
    s3_put "$T/x.txt" "data/bad/a-long-enough-name.txt" || fail "upload"
    printf 'ok line long enough to come first\n' >"$T/ok.txt"
    printf 'boom\n' >"$T/boom.txt"
    s3_put "$T/ok.txt" "data/bad/a.txt" && s3_put "$T/boom.txt" "data/bad/b.txt" || fail "upload"
    rc=0
    run_submit "$m" --conf spark.sql.files.openCostInBytes=1 --conf spark.sql.files.minPartitionNum=1 \
        --class write_failing "$JOBS" "s3a://data/bad" "s3a://data/failed-$tag" errorifexists || rc=$?
    [ $rc -ne 0 ] || fail "$m: the failing write succeeded"
    assert_contains "$T/stderr" "boom in the data"
    [ -z "$(s3_keys data "failed-$tag/")" ] || fail "$m: a failed job left $(s3_keys data "failed-$tag/")"
    [ -z "$(s3_uploads data "failed-$tag/")" ] || fail "$m: a failed job left uploads"
done
echo "PASS: $TEST_NAME"
