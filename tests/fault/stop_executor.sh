#!/usr/bin/env bash
# stop_executor.sh — SIGSTOP an executor during a job with a short spark.network.timeout: the
# driver expires it (heartbeat timeout), the launcher kills and replaces it, its tasks re-run
# elsewhere, and the job completes with the right answer.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
start_slow_job 300 --conf spark.network.timeout=2s --conf spark.executor.heartbeatInterval=200ms
mapfile -t execs < <(executor_pids $pid)
[ ${#execs[@]} -ge 1 ] || fail "no executor processes found"
kill -STOP "${execs[0]}"
finish_slow_job "with a stopped executor"
grep -q 'reason="Executor heartbeat timed out after' "$T/err" || fail "the stopped executor was not expired by heartbeat timeout"
grep -q "event=executor_started executor=3" "$T/err" || fail "the expired executor was not replaced"
kill -0 "${execs[0]}" 2>/dev/null && { kill -9 "${execs[0]}"; fail "the stopped executor process was left running"; }
echo "PASS: $TEST_NAME"
