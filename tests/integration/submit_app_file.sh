#!/usr/bin/env bash
# submit_app_file.sh — a missing application file is reported by path with exit status 1,
# after configuration is validated, for both relative and absolute paths; a directory, a FIFO
# or a file that is not a shared object is named as such (a directory was reported "not found").
# Usage: submit_app_file.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"

expect_error "cspark-submit: application file /x/app.so not found" /x/app.so
expect_error "cspark-submit: application file $T/missing.so not found" --master 'local[2]' "$T/missing.so" a b
expect_error "cspark-submit: application file $T is a directory (expected a shared object .so)" "$T"
mkfifo "$T/fifo.so"
expect_error "cspark-submit: application file $T/fifo.so is not a regular file (expected a shared object .so)" "$T/fifo.so"
printf 'int main;\n' >"$T/text.so"
expect_error "cspark-submit: application file $T/text.so is not a shared object (no ELF header; build it with cc -shared -fPIC)" "$T/text.so"
expect_error "cspark-submit: application file $SUBMIT is a program, not a shared object (build it with cc -shared -fPIC)" "$SUBMIT"
(cd "$T" && "$SUBMIT" rel.so >/dev/null 2>"$T/err"; [ $? -eq 1 ] || echo bad >>"$T/err")
[ "$(cat "$T/err")" = "cspark-submit: application file rel.so not found" ] || fail "relative path: $(cat "$T/err")"

echo "PASS submit_app_file"
