#!/usr/bin/env bash
# driver_paused.sh — issue 10 item 25: a driver paused (SIGSTOP) for longer than
# spark.network.timeout must not, once resumed (SIGCONT), expire the executors whose heartbeats
# wait unread in its sockets: they are healthy. The job finishes with the right answer, no
# executor is lost, none is replaced. Outcomes only; the pause is simply longer than the timeout.
# Two rules make it so: the expiry is decided after the input already in the sockets is read, and
# the time the driver itself did not run is not counted against the executors (event=driver_stalled:
# under a loaded machine's ASan run, a heartbeat sent during the pause was once still not readable
# when the resumed driver checked).
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
start_slow_job 1000 --conf spark.network.timeout=2s --conf spark.executor.heartbeatInterval=200ms
kill -STOP $pid
sleep 5 # 2.5 x spark.network.timeout: every executor looks silent to a clock-only rule
kill -CONT $pid
finish_slow_job "after the driver was paused"
grep -q "event=driver_stalled" "$T/err" || fail "the driver did not notice its own pause"
grep -q "Executor heartbeat timed out" "$T/err" && fail "a healthy executor was expired: $(grep -m1 'heartbeat timed out' "$T/err")"
grep -q "event=executor_lost" "$T/err" && fail "an executor was lost: $(grep -m1 'event=executor_lost' "$T/err")"
grep -q "event=executor_started executor=3" "$T/err" && fail "an executor was replaced"
echo "PASS: $TEST_NAME"
