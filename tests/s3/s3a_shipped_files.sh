#!/usr/bin/env bash
# s3a_shipped_files.sh — --files and --archives given as s3a:// URIs on the tests' S3 server, on
# local[2] and local-cluster[2,1,512]: the driver and every executor download them into their own
# directories and tasks read them (cspark_files_get); a missing object fails the application
# with one line naming it, before any task runs.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
JOB=$BUILD/tests/jobs/filesjob.so
need "$JOB"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb files || fail "cannot create bucket files"
mkdir -p "$T/in/inner" "$T/local"
printf 'alpha,5\nbeta,7\ngamma,30\n' >"$T/in/lookup.csv"
echo "hello from the archive" >"$T/in/inner/hello.txt"
(cd "$T/in" && tar czf data.tgz inner)
s3_put "$T/in/lookup.csv" files/ship/lookup.csv && s3_put "$T/in/data.tgz" files/ship/data.tgz ||
    fail "cannot upload the files"
SUBMIT_OPTS=(--conf spark.local.dir="$T/local")
want=$(printf 'task %d sum=42 archive=hello from the archive\n' 0 1 2 3; echo "driver sum=42")
for master in "local[2]" "local-cluster[2,1,512]"; do
    submit_ok "$master" --files s3a://files/ship/lookup.csv --archives s3a://files/ship/data.tgz "$JOB" data.tgz
    got=$(grep -E '^(task|driver) ' "$T/stdout")
    [ "$got" = "$want" ] || fail "$master: got [$got], want [$want]"
    [ -z "$(ls -A "$T/local")" ] || fail "$master: left in spark.local.dir: $(ls -A "$T/local")"
done
rc=0
run_submit "local[2]" --files s3a://files/ship/nope.csv "$JOB" || rc=$?
[ $rc -eq 1 ] || fail "missing object: exit status $rc"
[ "$(grep -Evc '^(INFO|WARN) ' "$T/stderr")" -eq 1 ] || fail "missing object: not one line: $(cat "$T/stderr")"
grep -q '^cspark-submit: spark.files: cannot fetch s3a://files/ship/nope.csv: .*no such object' "$T/stderr" ||
    fail "missing object: $(cat "$T/stderr")"
grep -q '^task' "$T/stdout" && fail "missing object: the job ran"
echo "PASS s3a_shipped_files"
