#!/usr/bin/env bash
# last_error_is_latest.sh — cspark_last_error returned the first error a context recorded, not
# the last (issue 22 item 3). Two refused transformations in a row (tests/jobs/badjobs.c,
# two_errors): after the second, cspark_last_error names the second; cspark-submit's last line
# still names the first, the failure that failed the context; the exit status is non-zero.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/badjobs.so
need "$JOBS"
rc=0
SUBMIT_OPTS=(--conf spark.ui.enabled=false --class two_errors)
run_submit 'local[1]' "$JOBS" || rc=$?
assert_eq "$rc" 1 "exit status"
first="coalesce: number of partitions must be between 1 and"
latest="repartition: number of partitions must be between 1 and"
assert_contains "$T/stdout" "first: $first" "cspark_last_error after the first refusal"
assert_contains "$T/stdout" "latest: $latest" "cspark_last_error after the second refusal"
tail -1 "$T/stderr" | grep -q "^cspark-submit: $first" ||
    fail "the last line does not name the first failure: $(tail -1 "$T/stderr")"
echo "PASS: $TEST_NAME"
