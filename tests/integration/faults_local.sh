#!/usr/bin/env bash
# faults_local.sh — task failures in local mode: local[N] runs a task once (Spark's
# MAX_LOCAL_TASK_FAILURES, whatever spark.task.maxFailures says), local[N,F] up to F times, a task
# that always fails, a crash inside a user function, and the map-emits-one contract.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS"

# fails twice then succeeds: local[2,4] retries it
out=$("$SUBMIT" --master 'local[2,4]' --class fail_twice "$JOBS" 2>"$T/err1") ||
    fail "fail_twice exited non-zero: $(tail -3 "$T/err1")"
assert_eq "count=1000" "$out" "fail_twice result"
grep -q "planned failure of attempt 1" "$T/err1" || fail "the retried failures were not logged"

# local[N,F]: F=2 attempts are not enough for a task that fails twice
if "$SUBMIT" --master 'local[2,2]' --class fail_twice "$JOBS" >/dev/null 2>"$T/err2"; then
    fail "local[2,2] should fail a task that fails twice"
fi
grep -q "failed 2 times" "$T/err2" || fail "local[2,2]: no 'failed 2 times' in: $(tail -2 "$T/err2")"

# always fails: non-zero exit after 4 attempts (local[2,4]) with the task's own error
if "$SUBMIT" --master 'local[2,4]' --class always_fail "$JOBS" >"$T/out3" 2>"$T/err3"; then
    fail "always_fail exited 0"
fi
last=$(tail -1 "$T/err3")
case "$last" in
*"failed 4 times"*"boom from always_fail_map"*) ;;
*) fail "always_fail: last line should name 4 failures and the task's error, got: $last" ;;
esac
[ "$(grep -c 'event=task_failed' "$T/err3")" -ge 4 ] || fail "always_fail: fewer than 4 attempts logged"

# local[N] runs a task once, whatever spark.task.maxFailures says (Spark's local mode): a
# failure there is deterministic, so the job fails at the first one, not after four attempts
"$SUBMIT" --master 'local[1]' --conf spark.task.maxFailures=2 --class always_fail "$JOBS" >/dev/null 2>"$T/err4" &&
    fail "always_fail on local[1] exited 0"
grep -q "failed 1 times" "$T/err4" || fail "local[1]: the task ran more than once: $(tail -1 "$T/err4")"
assert_eq "$(grep -c 'event=task_failed' "$T/err4")" 1 "local[1]: attempts of always_fail"
if "$SUBMIT" --master 'local[2]' --class fail_twice "$JOBS" >/dev/null 2>"$T/err4b"; then
    fail "local[2] retried fail_twice"
fi
grep -q "failed 1 times" "$T/err4b" || fail "local[2]: no 'failed 1 times' in: $(tail -2 "$T/err4b")"

# a SIGSEGV inside a user function: non-zero exit, the crash names stage, task and function
rc=0
("$SUBMIT" --master 'local[2]' --class segv "$JOBS" >"$T/out5" 2>"$T/err5") 2>/dev/null || rc=$?
[ "$rc" -ne 0 ] || fail "segv exited 0"
grep -q "not reached" "$T/out5" && fail "segv: the job went on after the crash"
grep -E "SIGSEGV in task [0-9]+ \(stage [0-9]+\.[0-9]+, partition 1, attempt 0\) in function 'crash_here'" "$T/err5" >/dev/null ||
    fail "segv: crash report missing or incomplete: $(cat "$T/err5" | tail -3)"

# a map that emits two records fails with an explanation
"$SUBMIT" --master 'local[1]' --conf spark.task.maxFailures=1 --class map_contract "$JOBS" >/dev/null 2>"$T/err6" &&
    fail "map_contract exited 0"
grep -q "map function emits_two emitted 2 records" "$T/err6" || fail "map contract message missing"

# a shuffle computed by one job is reused by the next (its map stage runs once)
out=$("$SUBMIT" --master 'local[2]' --class shuffle_reuse "$JOBS" 2>"$T/err7") || fail "shuffle_reuse failed"
assert_eq "counts=10000,10000" "$out" "shuffle_reuse counts"
n=$(grep -c 'name="range at testjobs.so:shuffle_reuse" event=submitted' "$T/err7")
assert_eq "1" "$n" "map stage submissions across two jobs"
# a lost map output: the next job's fetch failure resubmits only that map, same answer
mkdir "$T/local"
out=$("$SUBMIT" --master 'local[2]' --conf spark.local.dir="$T/local" --class lost_map_output "$JOBS" 2>"$T/err8") ||
    fail "lost_map_output failed: $(tail -2 "$T/err8")"
assert_eq "keys=10,10 sums=4999950000,4999950000" "$out" "lost_map_output result"
grep -q 'event=resubmit reason="FetchFailed(shuffle 0, map 0)' "$T/err8" || fail "no fetch-failure resubmission logged"
grep -q 'stage=0 attempt=1 tasks=1 name="map at testjobs.so:lost_map_output" event=submitted' "$T/err8" ||
    fail "the map stage was not resubmitted for exactly its one lost output"
# Regression (issue 10 item 5): the resubmitted attempt logged tasks=1 when submitted and tasks=4
# (all the stage's partitions) when completed; both lines give the attempt's own task count.
grep -q 'stage=0 attempt=1 tasks=1 name="map at testjobs.so:lost_map_output" event=completed' "$T/err8" ||
    fail "the resubmitted attempt's completed line does not say tasks=1: $(grep 'stage=0 attempt=1' "$T/err8" | tail -1)"
# SIGTERM during a job: the job is aborted, the context stops cleanly (local files removed),
# exit status 128 + 15, and the last line says why
mkdir "$T/local2"
"$SUBMIT" --master 'local[2]' --conf spark.local.dir="$T/local2" --class slow "$JOBS" 500 >"$T/out9" 2>"$T/err9" &
pid=$!
for _ in $(seq 200); do grep -q "event=submitted" "$T/err9" && break; sleep 0.05; done
kill -TERM $pid
rc=0
wait $pid || rc=$?
assert_eq "143" "$rc" "exit status after SIGTERM"
assert_eq "cspark-submit: the application was interrupted by Terminated" "$(tail -1 "$T/err9")" "last line after SIGTERM"
assert_eq "0" "$(find "$T/local2" -mindepth 1 | wc -l)" "local files left after SIGTERM"
echo "PASS: $TEST_NAME"
