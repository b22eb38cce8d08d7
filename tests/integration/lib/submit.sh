# submit.sh — helpers of the cspark-submit command-line tests (tests/integration/submit_*.sh), over
# the one prelude (tests/lib/prelude.sh): sourced with the build dir as $1. Sets what lib_init sets
# (BUILD, SUBMIT, T, ...) and B (= BUILD), SPARK_CONF_DIR (an empty conf dir, so no
# spark-defaults.conf applies), clears the environment fallbacks, and defines expect_error.
. "$(dirname "${BASH_SOURCE[0]}")/../../lib/prelude.sh"
set -u
unset MASTER DEPLOY_MODE SPARK_DRIVER_MEMORY SPARK_EXECUTOR_MEMORY SPARK_EXECUTOR_CORES SPARK_HOME
lib_init "$@"
B=$BUILD
export SPARK_CONF_DIR="$T/conf"

# expect_error EXPECTED_STDERR_LINE ARGS...: cspark-submit ARGS exits 1 with exactly that one
# line on stderr and nothing on stdout.
expect_error() {
    local want="$1"
    shift
    "$SUBMIT" "$@" >"$T/out" 2>"$T/err"
    local rc=$?
    [ "$rc" -eq 1 ] || fail "'$*': exit $rc, want 1"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*': stderr is not one line: $(cat "$T/err")"
    [ "$(cat "$T/err")" = "$want" ] || fail "'$*': stderr '$(cat "$T/err")', want '$want'"
    [ ! -s "$T/out" ] || fail "'$*': unexpected stdout: $(cat "$T/out")"
}
