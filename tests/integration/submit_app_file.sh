#!/usr/bin/env bash
# submit_app_file.sh — a missing application file is reported by path with exit status 1,
# after configuration is validated, for both relative and absolute paths and directories.
# Usage: submit_app_file.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"

expect_error "cspark-submit: application file /x/app.so not found" /x/app.so
expect_error "cspark-submit: application file $T/missing.so not found" --master 'local[2]' "$T/missing.so" a b
expect_error "cspark-submit: application file $T not found" "$T"
(cd "$T" && "$SUBMIT" rel.so >/dev/null 2>"$T/err"; [ $? -eq 1 ] || echo bad >>"$T/err")
[ "$(cat "$T/err")" = "cspark-submit: application file rel.so not found" ] || fail "relative path: $(cat "$T/err")"

[ "$fails" -eq 0 ] && echo "PASS submit_app_file" || exit 1
