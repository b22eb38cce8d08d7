#!/usr/bin/env bash
# submit_usage.sh — cspark-submit usage handling: --help/-h (exit 0, lists the options),
# --version, unknown options, --conf without '=', missing option values, unsupported Spark options.
# Usage: submit_usage.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"

for h in --help -h; do
    "$SUBMIT" $h >"$T/out" 2>"$T/err"; rc=$?
    [ "$rc" -eq 0 ] || fail "$h: exit $rc, want 0"
    grep -q '^Usage: cspark-submit' "$T/out" || fail "$h: no usage text"
    for o in --master --deploy-mode --class --name --conf --properties-file --driver-memory \
             --driver-cores --executor-memory --executor-cores --num-executors \
             --total-executor-cores --kill --status --verbose --help --version; do
        grep -q -- "$o" "$T/out" || fail "$h: usage does not list $o"
    done
done
"$SUBMIT" --help x.so --bogus >/dev/null 2>&1 || fail "--help before app file must exit 0"

"$SUBMIT" --version >"$T/out" 2>&1; rc=$?
[ "$rc" -eq 0 ] || fail "--version: exit $rc"
grep -q 'cspark-submit version [0-9]' "$T/out" || fail "--version: $(cat "$T/out")"

expect_error "cspark-submit: unknown option '--foo' (run cspark-submit --help for usage)" --foo app.so
expect_error "cspark-submit: unknown option '--foo=1' (run cspark-submit --help for usage)" --foo=1
expect_error "cspark-submit: --conf 'spark.executor.memory' has no '=' (expected --conf key=value)" \
    --conf spark.executor.memory app.so
expect_error "cspark-submit: --conf 'spark.x' has no '=' (expected --conf key=value)" --conf=spark.x app.so
expect_error "cspark-submit: option --master requires a value" --master
expect_error "cspark-submit: option --jars is not supported by cspark (run cspark-submit --help for the supported options)" \
    --jars a.jar app.so
expect_error "cspark-submit: missing application file (usage: cspark-submit [options] <app.so> [app arguments]; see --help)" \
    --master local

echo "PASS submit_usage"
