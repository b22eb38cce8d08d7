#!/usr/bin/env bash
# submit_handoff.sh — cspark-submit hands the application to app_run() with the effective conf,
# the application path, the entry symbol (--class) and argv = [app path, app args...] untouched,
# and exits with app_run's status. app_run is replaced by an LD_PRELOAD shim that records its
# arguments, so this checks the front end alone, independent of the engine.
# Usage: submit_handoff.sh BUILD_DIR
set -u
unset MASTER DEPLOY_MODE SPARK_DRIVER_MEMORY SPARK_EXECUTOR_MEMORY SPARK_EXECUTOR_CORES SPARK_HOME
B="${1:?usage: $0 BUILD_DIR}"
SUBMIT="$B/bin/cspark-submit"
SRC="${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
[ -x "$SUBMIT" ] || { echo "FAIL: $SUBMIT not built"; exit 1; }
CC="${CC:-cc}"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export SPARK_CONF_DIR="$T/conf"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

cat >"$T/shim.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include "common/conf.h"
#include "common/log.h"
int app_run(const cs_conf *conf, const char *app_path, const char *entry, int argc, char **argv)
{
    FILE *f = fopen(getenv("SHIM_OUT"), "w");
    fprintf(f, "path=%s\nentry=%s\nargc=%d\n", app_path, entry, argc);
    for (int i = 0; i < argc; i++)
        fprintf(f, "argv[%d]=%s\n", i, argv[i]);
    fprintf(f, "master=%s\nname=%s\nexecmem=%s\ncores=%s\nloglevel=%d\n",
            conf_get(conf, "spark.master"), conf_get(conf, "spark.app.name"),
            conf_get(conf, "spark.executor.memory"), conf_get(conf, "spark.executor.cores"),
            (int)cs_log_get_level());
    fclose(f);
    return 7;
}
C
"$CC" -shared -fPIC -I"$SRC/src" -o "$T/shim.so" "$T/shim.c" || { echo "FAIL: cannot build shim"; exit 1; }
: >"$T/wordcount.so"
printf 'spark.executor.memory 2g\nspark.executor.cores 3\n' >"$T/p.properties"

SHIM_OUT="$T/out" LD_PRELOAD="$T/shim.so" "$SUBMIT" --master 'local[2]' --class my_entry \
    --properties-file "$T/p.properties" --conf spark.executor.cores=4 --conf cspark.log.level=WARN \
    "$T/wordcount.so" in.txt --master -v "two words" >/dev/null 2>"$T/err"
rc=$?
[ "$rc" -eq 7 ] || fail "exit status $rc, want the app's 7 (stderr: $(cat "$T/err"))"
[ -f "$T/out" ] || { echo "FAIL: app_run was not called"; exit 1; }
expect() { grep -qxF -- "$1" "$T/out" || fail "missing '$1' in: $(tr '\n' ' ' <"$T/out")"; }
expect "path=$T/wordcount.so"
expect "entry=my_entry"
expect "argc=5"
expect "argv[0]=$T/wordcount.so"
expect "argv[1]=in.txt"
expect "argv[2]=--master"
expect "argv[3]=-v"
expect "argv[4]=two words"
expect "master=local[2]"
expect "name=wordcount"
expect "execmem=2g"
expect "cores=4"
expect "loglevel=2"   # CS_LOG_WARN applied from cspark.log.level

# default entry, and the app's exit status 7 again without --class
rm -f "$T/out"
SHIM_OUT="$T/out" LD_PRELOAD="$T/shim.so" "$SUBMIT" "$T/wordcount.so" >/dev/null 2>&1
expect "entry=cspark_main"
expect "argc=1"
expect "master=local[*]"

[ "$fails" -eq 0 ] && echo "PASS submit_handoff" || exit 1
