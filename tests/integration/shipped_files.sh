#!/usr/bin/env bash
# shipped_files.sh — --files, --archives, spark.files and spark.archives on local[2] and
# local-cluster[2,1,512] (executor processes fetching into their own directories): every task
# finds lookup.csv with cspark_files_get and reads it, the driver with cspark_files_get_driver;
# archives (.tgz, .tar, .tar.bz2, .zip, .jar) are unpacked into a directory named after them or
# their #name; the driver's and executors' copies are gone after the application. Bad input is
# one line and a non-zero exit before anything runs: a missing file, a directory, a .7z archive,
# an hdfs:// URI, two entries with one name; an archive whose entry climbs out with ".." (tar or
# zip) or a corrupt .zip fails the application naming the archive and writes nothing outside the
# archive's directory.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOB=$BUILD/tests/jobs/filesjob.so
need "$JOB"
mkdir -p "$T/in/inner" "$T/local"
printf 'alpha,5\nbeta,7\ngamma,30\n' >"$T/in/lookup.csv"
echo "hello from the archive" >"$T/in/inner/hello.txt"
(cd "$T/in" && tar czf data.tgz inner && tar cf data.tar inner && tar cjf data.tar.bz2 inner && touch notes.7z)
# zip and jar as Python's zipfile writes them (deflated, with a directory entry)
(cd "$T/in" && "$PY" -c 'import sys, zipfile
for out in sys.argv[1:]:
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.write("inner", "inner/")
        z.write("inner/hello.txt", "inner/hello.txt")' data.zip data.JAR) || fail "cannot build the zip archives"
SUBMIT_OPTS=(--conf spark.local.dir="$T/local")

# expect ARCHIVE_NAME: four tasks and the driver saw the lookup table, tasks the archive
expect() {
    local want got
    want=$(printf 'task %d sum=42 archive=%s\n' 0 "$1" 1 "$1" 2 "$1" 3 "$1"; echo "driver sum=42")
    got=$(grep -E '^(task|driver) ' "$T/stdout")
    [ "$got" = "$want" ] || fail "$2: got [$got], want [$want]"
    [ -z "$(ls -A "$T/local")" ] || fail "$2: left in spark.local.dir: $(ls -A "$T/local")"
}
HELLO="hello from the archive"
for master in "local[2]" "local-cluster[2,1,512]"; do
    submit_ok "$master" --files "$T/in/lookup.csv" --archives "$T/in/data.tgz" "$JOB" data.tgz
    expect "$HELLO" "$master --files --archives .tgz"
    submit_ok "$master" --conf spark.files="file://$T/in/lookup.csv" \
        --conf spark.archives="$T/in/data.tar#env,$T/in/data.tar.bz2" "$JOB" env
    expect "$HELLO" "$master spark.files file:// spark.archives .tar#env"
    submit_ok "$master" --files "$T/in/lookup.csv" --archives "$T/in/data.tar.bz2" "$JOB" data.tar.bz2
    expect "$HELLO" "$master .tar.bz2"
    submit_ok "$master" --files "$T/in/lookup.csv" --archives "$T/in/data.zip,$T/in/data.JAR#jar" "$JOB" data.zip
    expect "$HELLO" "$master .zip"
done
submit_ok "local[2]" --files "$T/in/lookup.csv" --archives "$T/in/data.JAR#jar" "$JOB" jar
expect "$HELLO" "local[2] .JAR#jar"
# a file shipped under another name is not found by its old one
submit_ok "local[2]" --files "$T/in/lookup.csv#other.csv" "$JOB"
grep -q '^task 0 sum=-1 archive=none' "$T/stdout" || fail "#other.csv: lookup.csv was found: $(cat "$T/stdout")"

# refused CASE PATTERN ARGS...: one line matching PATTERN, exit 1, nothing run
refused() {
    local case=$1 pat=$2 rc=0
    shift 2
    run_submit "local[2]" "$@" || rc=$?
    [ $rc -eq 1 ] || fail "$case: exit status $rc"
    [ "$(grep -Evc '^(INFO|WARN) ' "$T/stderr")" -eq 1 ] || fail "$case: not one line: $(cat "$T/stderr")"
    grep -Eq -- "$pat" "$T/stderr" || fail "$case: message does not match /$pat/: $(cat "$T/stderr")"
    grep -q '^task' "$T/stdout" && fail "$case: the job ran"
    [ -z "$(ls -A "$T/local")" ] || fail "$case: left in spark.local.dir: $(ls -A "$T/local")"
    echo "ok $case: $(grep -Ev '^(INFO|WARN) ' "$T/stderr")"
}
refused "missing file" "^cspark-submit: spark.files: $T/in/nope.csv: No such file or directory\$" \
    --files "$T/in/nope.csv" "$JOB"
refused "a directory" "^cspark-submit: spark.files: $T/in is not a regular file\$" --files "$T/in" "$JOB"
refused "7z archive" "^cspark-submit: spark.archives: cannot unpack '$T/in/notes.7z': only .zip, .jar, .tar, .tar.gz and .tgz" \
    --archives "$T/in/notes.7z" "$JOB"
refused "hdfs:// file" "^cspark-submit: spark.files: cannot ship 'hdfs://nn/x.csv': only local paths, file:, local:// and s3a://" \
    --files hdfs://nn/x.csv "$JOB"
refused "one name twice" "^cspark-submit: .*spark.files: '$T/in/inner/hello.txt#lookup.csv' is shipped twice under the name 'lookup.csv'" \
    --files "$T/in/lookup.csv,$T/in/inner/hello.txt#lookup.csv" "$JOB"

# an archive climbing out of its directory: the application fails naming the entry
"$PY" -c 'import io, sys, tarfile
with tarfile.open(sys.argv[1], "w") as t:
    i = tarfile.TarInfo("../escape.txt"); i.size = 6; t.addfile(i, io.BytesIO(b"pwned\n"))' "$T/in/evil.tar" ||
    fail "cannot build evil.tar"
rc=0
run_submit "local[2]" --archives "$T/in/evil.tar" "$JOB" evil.tar || rc=$?
[ $rc -ne 0 ] || fail "evil.tar: the application ran"
grep -q "evil.tar: entry '../escape.txt' would be written outside the archive's directory" "$T/stderr" ||
    fail "evil.tar: $(tail -3 "$T/stderr")"
[ -z "$(ls -A "$T/local")" ] || fail "evil.tar: left in spark.local.dir: $(ls -A "$T/local")"
[ ! -e "$T/escape.txt" ] && [ ! -e "$T/local/escape.txt" ] || fail "evil.tar: escape.txt was written"

# the same with a zip, and a zip that is not one: the application fails naming the archive
"$PY" -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("ok.txt", "fine\n"); z.writestr("../escape.txt", "pwned\n")' "$T/in/evil.zip" ||
    fail "cannot build evil.zip"
"$PY" -c 'import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("big.bin", os.urandom(65536))' "$T/in/whole.zip" || fail "cannot build whole.zip"
head -c 20000 "$T/in/whole.zip" >"$T/in/cut.zip" # cut inside big.bin's data
for bad in evil.zip cut.zip; do
    rc=0
    run_submit "local[2]" --archives "$T/in/$bad" "$JOB" "$bad" || rc=$?
    [ $rc -ne 0 ] || fail "$bad: the application ran"
    case $bad in
    evil.zip) want="evil.zip: entry '../escape.txt' would be written outside the archive's directory" ;;
    cut.zip) want="cut.zip: cannot unpack entry .big.bin.: .*(a truncated or corrupt archive)" ;;
    esac
    grep -q "$want" "$T/stderr" || fail "$bad: $(tail -3 "$T/stderr")"
    [ -z "$(ls -A "$T/local")" ] || fail "$bad: left in spark.local.dir: $(ls -A "$T/local")"
    [ ! -e "$T/escape.txt" ] && [ ! -e "$T/local/escape.txt" ] || fail "$bad: escape.txt was written"
    echo "ok $bad: $(grep -o "$want.*" "$T/stderr" | head -1)"
done
echo "PASS shipped_files"
