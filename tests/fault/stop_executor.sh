#!/usr/bin/env bash
# stop_executor.sh — SIGSTOP an executor during a job with a short spark.network.timeout: the
# driver expires it (heartbeat timeout), the launcher kills and replaces it, its tasks re-run
# elsewhere, and the job completes with the right answer.
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$BIN/cspark-executor" "$JOBS"

"$SUBMIT" --master 'local-cluster[2,1,1024]' --conf spark.network.timeout=2s \
    --conf spark.executor.heartbeatInterval=200ms --class slow "$JOBS" 300 >"$T/out" 2>"$T/err" &
pid=$!
wait_for_log "$T/err" "event=executors_registered" 60
wait_for_log "$T/err" "event=submitted" 30
mapfile -t execs < <(executor_pids $pid)
[ ${#execs[@]} -ge 1 ] || fail "no executor processes found"
kill -STOP "${execs[0]}"
timeout 120 tail --pid=$pid -f /dev/null || { kill -CONT "${execs[0]}"; fail "the job hangs with a stopped executor"; }
rc=0
wait $pid || rc=$?
[ $rc -eq 0 ] || { tail -5 "$T/err" >&2; fail "job failed with $rc"; }
assert_eq "count=16" "$(cat "$T/out")" "slow job result"
grep -q 'reason="Executor heartbeat timed out after' "$T/err" || fail "the stopped executor was not expired by heartbeat timeout"
grep -q "event=executor_started executor=3" "$T/err" || fail "the expired executor was not replaced"
kill -0 "${execs[0]}" 2>/dev/null && { kill -9 "${execs[0]}"; fail "the stopped executor process was left running"; }
echo "PASS: $TEST_NAME"
