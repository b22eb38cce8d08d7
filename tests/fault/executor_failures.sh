#!/usr/bin/env bash
# executor_failures.sh — a user function that crashes its executor fails only that task
# attempt (the executor is replaced, the retry succeeds); a function that always crashes
# exhausts spark.executor.maxNumFailures and the job fails with that reason, without hanging.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$BIN/cspark-executor" "$JOBS"

out=$(timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --class crash_once "$JOBS" 2>"$T/err1") ||
    { tail -5 "$T/err1" >&2; fail "crash_once failed"; }
assert_eq "count=1000" "$out" "crash_once result"
grep -q "event=executor_exited executor=[12] exit code 139" "$T/err1" || fail "the crash was not reported as SIGSEGV (139)"
grep -q "SIGSEGV in task .* in function 'crash_first_attempt'" "$T/err1" || fail "the executor's crash report is missing"
grep -q "event=task_failed .* partition=1 attempt=0 error=\"ExecutorLostFailure" "$T/err1" || fail "the crashed attempt was not failed as ExecutorLostFailure"

rc=0
timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --conf spark.executor.maxNumFailures=3 \
    --conf spark.task.maxFailures=10 --class crash_always "$JOBS" >/dev/null 2>"$T/err2" || rc=$?
[ $rc -ne 124 ] || fail "crash_always hangs"
[ $rc -ne 0 ] || fail "crash_always exited 0"
last=$(tail -1 "$T/err2")
[ "$(grep -c 'event=executor_started' "$T/err2")" -ge 3 ] || fail "crash_always: crashed executors were not replaced"
case "$last" in
*"Max number of executor failures (3) reached"*) ;;
*) fail "crash_always: expected the executor-failure limit as the reason, got: $last" ;;
esac
# Regression (issue 10 item 4): the abort message said "(localhost executor driver)" whichever
# executor the task ran on; as Spark, it names the host and executor of the last attempt, the one
# ExecutorLostFailure names.
rc=0
timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --conf spark.task.maxFailures=2 \
    --conf spark.executor.maxNumFailures=10 --class crash_always "$JOBS" >/dev/null 2>"$T/err3" || rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "crash_always with maxFailures=2 exited $rc"
last=$(tail -1 "$T/err3")
lost=$(echo "$last" | sed -nE 's/.*: ExecutorLostFailure \(executor ([0-9]+) .*/\1/p')
[ -n "$lost" ] || fail "abort message without ExecutorLostFailure: $last"
case "$last" in
*"failed 2 times, most recent failure: Lost task 1.1 in stage 0.0 (TID "*") (127.0.0.1 executor $lost): ExecutorLostFailure"*) ;;
*) fail "abort message does not name the task's host and executor ($lost): $last" ;;
esac

echo "PASS: $TEST_NAME"
