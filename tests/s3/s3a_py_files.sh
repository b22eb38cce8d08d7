#!/usr/bin/env bash
# s3a_py_files.sh — --py-files given as s3a:// URIs on the tests' S3 server (an s3a:// .py and an
# s3a:// .zip holding a module), with `cspark-submit app.py` (tests/s3/py_files_app/app.py) on
# local[2] and local-cluster[2,1,1024]: the program imports both modules, and so do its Python
# UDFs. On local-cluster the executors fetch both as spark.files entries into their own files
# directories and their Python workers import them from there (SparkFiles' root and python
# includes, as Spark ships --py-files), never from the driver's copies. A missing object fails
# in one line before the program starts.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
need "$BUILD/bin/cspark-connect-server" # cspark-submit runs .py programs only with the server built
PY=$("$SRC/scripts/install-pyspark-client.sh") || {
    echo "SKIP: s3a_py_files: the pinned PySpark client cannot be installed"
    exit 77
}
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb pyfiles || fail "cannot create bucket pyfiles"
mkdir -p "$T/mods/zip" "$T/local"
printf 'def f(x):\n    return x * 3 + 1\n' >"$T/mods/s3mod.py"
printf 'def g(x):\n    return x * 5\n' >"$T/mods/zip/zmod.py"
(cd "$T/mods/zip" && "$PY" -c 'import zipfile; z = zipfile.ZipFile("../zmods.zip", "w"); z.write("zmod.py"); z.close()')
s3_put "$T/mods/s3mod.py" pyfiles/mods/s3mod.py && s3_put "$T/mods/zmods.zip" pyfiles/mods/zmods.zip ||
    fail "cannot upload the modules"
APP=$SRC/tests/s3/py_files_app/app.py
for master in "local[2]" "local-cluster[2,1,1024]"; do
    out=$T/out-${master%%[*}
    timeout 600 "$SUBMIT" --master "$master" --conf spark.ui.enabled=false \
        --conf "spark.pyspark.python=$PY" --conf spark.local.dir="$T/local" \
        --py-files s3a://pyfiles/mods/s3mod.py,s3a://pyfiles/mods/zmods.zip "$APP" "$out" \
        >"$T/stdout" 2>"$T/stderr" || fail "$master: cspark-submit failed: $(tail -n 20 "$T/stderr")"
    assert_eq "$(sed -n 1,2p "$out")" "driver=7,10
udf=145,225" "$master: what the program computed"
    where=$(sed -n 's/^where=//p' "$out")
    echo "$master: the UDFs imported from: $where"
    if [ "$master" != "local[2]" ]; then
        # each executor's own copies: <spark.local.dir>/cspark-executor-<id>/files[/zmods.zip]
        for pair in ${where//;/ }; do
            case "$pair" in
            "$T"/local/*/cspark-executor-*/files\|"$T"/local/*/cspark-executor-*/files/zmods.zip) ;;
            *) fail "$master: a UDF imported its modules from $pair, not its executor's files" ;;
            esac
        done
    fi
    [ -z "$(ls -A "$T/local")" ] || fail "$master: left in spark.local.dir: $(ls -A "$T/local")"
done
rc=0
timeout 600 "$SUBMIT" --master "local[2]" --conf "spark.pyspark.python=$PY" \
    --py-files s3a://pyfiles/mods/nope.py "$APP" "$T/out-missing" >"$T/stdout" 2>"$T/stderr" || rc=$?
[ $rc -eq 1 ] || fail "missing object: exit status $rc"
grep -q "^cspark-submit: spark.submit.pyFiles entry 's3a://pyfiles/mods/nope.py' cannot be fetched" "$T/stderr" ||
    fail "missing object: $(cat "$T/stderr")"
[ -e "$T/out-missing" ] && fail "missing object: the program ran"
echo "PASS s3a_py_files"
