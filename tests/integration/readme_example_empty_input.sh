#!/usr/bin/env bash
# readme_example_empty_input.sh — the README's "job of your own" on an empty input (issue 20
# item 8) ended with SIGSEGV (exit 139): it read cspark_records_get(r, 0) of an empty result,
# which had no bounds check. The example, compiled from the README as a user would, now prints
# "long lines: 0" for an empty input and the right count for a real one; an index out of range
# ends the application with one line naming the call, status 1, and nothing left behind.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/crashjobs.so
need "$JOBS" "$BUILD/lib/libcspark.so"
mkdir "$T/tmp"
export TMPDIR="$T/tmp" # the runs' local directories go here: it must be empty afterwards
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

# the example exactly as the README shows it, built as the README says
sed -n '/^A job of your own/,/^```sh/p' "$SRC/README.md" | sed -n '/^```c$/,/^```$/p' | sed '1d;$d' >"$T/myjob.c"
grep -q cspark_main "$T/myjob.c" || fail "no example found in README.md"
cc -O2 -fPIC -shared -o "$T/myjob.so" "$T/myjob.c" -I"$SRC/include" -L"$BUILD/lib" -lcspark ||
    fail "the README example does not compile"

: >"$T/empty.txt"
submit_ok 'local[2]' "$T/myjob.so" "$T/empty.txt"
assert_eq "$(cat "$T/stdout")" "long lines: 0" "empty input"

{ printf 'short\n'; printf '%090d\n' 0; printf '%085d\n' 1; printf 'x\n'; } >"$T/lines.txt"
submit_ok 'local[2]' "$T/myjob.so" "$T/lines.txt"
assert_eq "$(cat "$T/stdout")" "long lines: 2" "two long lines"

# the bounds check itself: one line naming the call, index and size, exit status 1
rc=0
run_submit 'local[2]' --class records_out_of_range "$JOBS" || rc=$?
assert_eq "$rc" 1 "records_out_of_range: exit status"
last=$(tail -1 "$T/stderr")
assert_eq "$last" "cspark-submit: cspark_records_get: index 0 out of range (0 records)" "last line"
grep -q "not reached" "$T/stdout" && fail "records_out_of_range: the job went on"
grep -q "crashed" "$T/stderr" && fail "records_out_of_range: reported as a crash: $(grep crashed "$T/stderr")"
[ -z "$(find "$T/tmp" -mindepth 1 | head -3)" ] || fail "left behind: $(find "$T/tmp" -mindepth 1 | head -3)"

# the same in local-cluster: the executors end with the driver
rc=0
run_submit 'local-cluster[1,1,256]' --class records_out_of_range "$JOBS" || rc=$?
assert_eq "$rc" 1 "local-cluster records_out_of_range: exit status"
assert_eq "$(tail -1 "$T/stderr")" "cspark-submit: cspark_records_get: index 0 out of range (0 records)" \
    "local-cluster last line"
echo "PASS: $TEST_NAME"
