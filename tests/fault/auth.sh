#!/usr/bin/env bash
# auth.sh — spark.authenticate in local-cluster: executors without the secret, or with a wrong
# one, are refused and the refusal is logged; the secret never appears in logs, in `ps` output,
# in the executors' command lines or in the event log.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$BIN/cspark-executor" "$JOBS"
SECRET="s3cr3t-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
mkdir "$T/events"

_SPARK_AUTH_SECRET=$SECRET "$SUBMIT" --master 'local-cluster[2,1,1024]' \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/events" \
    --class slow "$JOBS" 200 >"$T/out" 2>"$T/err" &
pid=$!
wait_for_log "$T/err" "event=listening" 30
port=$(grep -o "event=listening host=127.0.0.1 port=[0-9]*" "$T/err" | grep -o "[0-9]*$")
wait_for_log "$T/err" "event=executors_registered" 60
app=$(grep -o "context app=[^ ]*" "$T/err" | head -1 | cut -d= -f2)
ps -eo args >"$T/ps.txt"

# a rogue executor with a wrong secret, then one with none
rc=0
_SPARK_AUTH_SECRET=wrong-secret timeout 30 "$BIN/cspark-executor" --driver-url "spark://CoarseGrainedScheduler@127.0.0.1:$port" \
    --executor-id rogue1 --cores 1 --app-id "$app" --hostname 127.0.0.1 >/dev/null 2>"$T/rogue1" || rc=$?
[ $rc -ne 0 ] || fail "an executor with a wrong secret was accepted"
grep -qi "auth" "$T/rogue1" || fail "the rogue executor's error does not mention authentication: $(cat "$T/rogue1")"
rc=0
env -u _SPARK_AUTH_SECRET timeout 30 "$BIN/cspark-executor" --driver-url "spark://CoarseGrainedScheduler@127.0.0.1:$port" \
    --executor-id rogue2 --cores 1 --app-id "$app" --hostname 127.0.0.1 >/dev/null 2>"$T/rogue2" || rc=$?
[ $rc -ne 0 ] || fail "an executor without a secret was accepted"

timeout 120 tail --pid=$pid -f /dev/null || fail "job hangs"
wait $pid || fail "the job failed: $(tail -3 "$T/err")"
assert_eq "count=16" "$(cat "$T/out")" "job result"
[ "$(grep -c 'event=auth_failed' "$T/err")" -ge 2 ] || fail "the driver did not log both refusals"
grep -q "event=executor_registered executor=rogue" "$T/err" && fail "a rogue executor registered"
# the event log as its lines (it is zstd-compressed: grep would not see the secret in it)
cat_event_log "$T"/events/* >"$T/events.json" || fail "cannot read the event log"
for f in "$T/err" "$T/out" "$T/rogue1" "$T/rogue2" "$T/ps.txt" "$T/events.json"; do
    grep -qF -- "$SECRET" "$f" && fail "the secret appears in $f"
done
echo "PASS: $TEST_NAME"
