# submit.sh — shared prelude of the cspark-submit command-line tests (tests/integration/submit_*.sh):
# sourced with the build dir as $1. Sets B, SUBMIT, T (temp dir, removed on exit), SPARK_CONF_DIR
# (an empty conf dir, so no spark-defaults.conf applies), clears the environment fallbacks, and
# defines fail (counts failures in $fails) and expect_error.
set -u
unset MASTER DEPLOY_MODE SPARK_DRIVER_MEMORY SPARK_EXECUTOR_MEMORY SPARK_EXECUTOR_CORES SPARK_HOME
B="${1:?usage: $0 BUILD_DIR}"
SUBMIT="$B/bin/cspark-submit"
[ -x "$SUBMIT" ] || { echo "FAIL: $SUBMIT not built"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export SPARK_CONF_DIR="$T/conf"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

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
