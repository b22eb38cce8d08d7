#!/usr/bin/env bash
# submit_app_file.sh — a missing application file is reported by path with exit status 1,
# after configuration is validated, for both relative and absolute paths and directories.
# Usage: submit_app_file.sh BUILD_DIR
set -u
unset MASTER DEPLOY_MODE SPARK_DRIVER_MEMORY SPARK_EXECUTOR_MEMORY SPARK_EXECUTOR_CORES SPARK_HOME
B="${1:?usage: $0 BUILD_DIR}"
SUBMIT="$B/bin/cspark-submit"
[ -x "$SUBMIT" ] || { echo "FAIL: $SUBMIT not built"; exit 1; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export SPARK_CONF_DIR="$T/conf"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

expect_error() {
    local want="$1"; shift
    "$SUBMIT" "$@" >"$T/out" 2>"$T/err"; local rc=$?
    [ "$rc" -eq 1 ] || fail "'$*': exit $rc, want 1"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$*': stderr is not one line: $(cat "$T/err")"
    [ "$(cat "$T/err")" = "$want" ] || fail "'$*': stderr '$(cat "$T/err")', want '$want'"
}

expect_error "cspark-submit: application file /x/app.so not found" /x/app.so
expect_error "cspark-submit: application file $T/missing.so not found" --master 'local[2]' "$T/missing.so" a b
expect_error "cspark-submit: application file $T not found" "$T"
(cd "$T" && "$SUBMIT" rel.so >/dev/null 2>"$T/err"; [ $? -eq 1 ] || echo bad >>"$T/err")
[ "$(cat "$T/err")" = "cspark-submit: application file rel.so not found" ] || fail "relative path: $(cat "$T/err")"

[ "$fails" -eq 0 ] && echo "PASS submit_app_file" || exit 1
