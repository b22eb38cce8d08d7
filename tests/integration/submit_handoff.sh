#!/usr/bin/env bash
# submit_handoff.sh — cspark-submit hands the application the effective conf, calls the entry
# symbol (--class) with argv = [app path, app args...] untouched, and exits with the entry's
# status. The job (tests/jobs/handoff.c) records what it was given. (It was an LD_PRELOAD shim
# over app_run; libcspark's internals are hidden now, so nothing outside can interpose them.)
# Usage: submit_handoff.sh BUILD_DIR
set -u
unset MASTER DEPLOY_MODE SPARK_DRIVER_MEMORY SPARK_EXECUTOR_MEMORY SPARK_EXECUTOR_CORES SPARK_HOME
B="${1:?usage: $0 BUILD_DIR}"
SUBMIT="$B/bin/cspark-submit"
SRC="${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
[ -x "$SUBMIT" ] || { echo "FAIL: $SUBMIT not built"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export SPARK_CONF_DIR="$T/conf"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

JOB="$B/tests/jobs/handoff.so"
cp "$JOB" "$T/wordcount.so" # the app name defaults to the file's name
printf 'spark.executor.memory 2g\nspark.executor.cores 3\n' >"$T/p.properties"

HANDOFF_OUT="$T/out" "$SUBMIT" --master 'local[2]' --class my_entry \
    --properties-file "$T/p.properties" --conf spark.executor.cores=4 --conf cspark.log.level=WARN \
    "$T/wordcount.so" in.txt --master -v "two words" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 7 ] || fail "exit status $rc, want the app's 7 (stderr: $(cat "$T/err"))"
[ -f "$T/out" ] || { echo "FAIL: the entry function was not called"; exit 1; }
expect() { grep -qxF -- "$1" "$T/out" || fail "missing '$1' in: $(tr '\n' ' ' <"$T/out")"; }
expect "entry=my_entry"
expect "argc=5"
expect "argv[0]=$T/wordcount.so"
expect "argv[1]=in.txt"
expect "argv[2]=--master"
expect "argv[3]=-v"
expect "argv[4]=two words"
expect "spark.master=local[2]"
expect "spark.app.name=wordcount"
expect "spark.executor.memory=2g"
expect "spark.executor.cores=4"
expect "cspark.log.level=WARN"
# WARN applied: the context's INFO lines are not printed
grep -q '^INFO' "$T/err" && fail "cspark.log.level=WARN not applied: $(head -1 "$T/err")"

# default entry, and the app's exit status 7 again without --class
rm -f "$T/out"
HANDOFF_OUT="$T/out" "$SUBMIT" "$T/wordcount.so" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 7 ] || fail "default entry: exit status $rc, want 7"
expect "entry=cspark_main"
expect "argc=1"
expect "spark.master=local[*]"

[ "$fails" -eq 0 ] && echo "PASS submit_handoff" || exit 1
