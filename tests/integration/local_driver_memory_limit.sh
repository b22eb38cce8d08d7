#!/usr/bin/env bash
# local_driver_memory_limit.sh — local mode had no memory cap (issue 21 item 8): with
# --driver-memory 512m a task allocated 4.8 GB. Now the driver, which runs the tasks in local
# mode, gets the data limit an executor of the same memory gets from local-cluster (memory plus
# Spark's overhead plus per-thread room), logged as event=memory_limit: a task of local[1]
# allocating 4 GiB fails with a message naming the limit and spark.driver.memory (exit 1, not a
# kill), one allocating 100 MiB runs (with the UI on), and spark.executor.memory, when set, is
# the memory named. Sanitizer builds set no limit (AddressSanitizer reserves terabytes) and say so.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$BUILD/tests/jobs/badjobs.so
need "$APP"

SUBMIT_OPTS=(--driver-memory 512m --class over_allocate)
submit_ok 'local[1]' "$APP" 100 # well within 512 MiB + overhead, UI on
assert_eq "$(cat "$T/stdout")" "rc=0 count=2" "100 MiB per task in local[1] with 512m"
if [ "${CSPARK_SANITIZE:-0}" = 1 ]; then
    grep -q 'event=memory_limit_not_set memory_mb=512 reason="not in a sanitizer build"' "$T/stderr" ||
        fail "sanitizer build: no memory_limit_not_set line: $(grep memory_limit "$T/stderr")"
    echo "$TEST_NAME: sanitizer build: the driver memory limit is not enforced, not checked"
    echo "PASS: $TEST_NAME"
    exit 0
fi
grep -q "local executor=driver event=memory_limit data_limit_mb=1168 key=spark.driver.memory" "$T/stderr" ||
    fail "the driver did not log its memory limit: $(grep memory_limit "$T/stderr")"

SUBMIT_OPTS=(--driver-memory 512m --conf spark.ui.enabled=false --class over_allocate)
rc=0
run_submit 'local[1]' "$APP" 4096 || rc=$?
assert_eq "$rc" 1 "4 GiB per task in local[1] with 512m: exit status"
grep -Eq "^rc=-[0-9]+ count=0$" "$T/stdout" || fail "4 GiB per task: the job succeeded: $(cat "$T/stdout")"
tail -1 "$T/stderr" | grep -q "^cspark-submit: .*grow: cannot allocate 4096 MiB (the driver, which runs the tasks in local mode, is limited to 1168 MiB of memory: spark.driver.memory 512 MiB plus overhead)\$" ||
    fail "over-allocation: $(tail -1 "$T/stderr")"

# spark.executor.memory, when set, is the memory of local mode's executor (the driver)
SUBMIT_OPTS=(--driver-memory 512m --conf spark.executor.memory=1g --conf spark.ui.enabled=false --class over_allocate)
rc=0
run_submit 'local[2]' "$APP" 4096 || rc=$?
assert_eq "$rc" 1 "4 GiB per task in local[2] with spark.executor.memory=1g: exit status"
tail -1 "$T/stderr" | grep -q "grow: cannot allocate 4096 MiB (the driver, which runs the tasks in local mode, is limited to 1696 MiB of memory: spark.executor.memory 1024 MiB plus overhead)\$" ||
    fail "over-allocation with spark.executor.memory: $(tail -1 "$T/stderr")"
echo "PASS: $TEST_NAME"
