#!/usr/bin/env bash
# stop_during_registration.sh — issue 10 item 7: SIGTERM and SIGINT while the driver waits for its
# executors to register (spark.scheduler.maxRegisteredResourcesWaitingTime=600s) are acted on at
# once. The executors never register: local-cluster starts the cspark-executor found next to
# cspark-submit, and a copy of cspark-submit in the test's directory has a `cspark-executor` there
# that only sleeps. The driver must be gone within a bounded wait (60 s, where the wait it was in
# lasts 600 s), say it was interrupted, exit 128 + the signal, and leave no executor process and no
# local directory. Outcomes only.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
mkdir -p "$T/bin" "$T/local"
cp "$SUBMIT" "$T/bin/cspark-submit" || fail "cannot copy cspark-submit"
printf '#!/bin/sh\nexec sleep 600\n' >"$T/bin/cspark-executor"
chmod +x "$T/bin/cspark-executor"
APP=$BUILD/tests/jobs/stopjobs.so
need "$APP"

for sig in TERM INT; do
    # a log of its own per run: the shell truncates a reused one only once the child has started,
    # so the wait below could read the last run's lines
    "$T/bin/cspark-submit" --master 'local-cluster[2,1,1024]' --conf spark.local.dir="$T/local" \
        --conf spark.scheduler.maxRegisteredResourcesWaitingTime=600s \
        --class stuck "$APP" "$T" >"$T/out-$sig" 2>"$T/err-$sig" &
    pid=$!
    trap 'kill -9 $pid 2>/dev/null; _lib_cleanup' EXIT
    wait_for_log "$T/err-$sig" "event=executor_started executor=2" 60
    sleeping=$(pgrep -P $pid | tr '\n' ' ')
    [ -n "$sleeping" ] || fail "SIG$sig: no executor process started"
    kill -$sig $pid
    timeout 60 tail --pid=$pid -f /dev/null || fail "SIG$sig during the registration wait was not acted on within 60 s"
    rc=0
    wait $pid || rc=$?
    want=$((128 + $(kill -l $sig)))
    [ $rc -eq $want ] || { tail -5 "$T/err-$sig" >&2; fail "SIG$sig: exit status $rc, expected $want"; }
    grep -q "cspark-submit: the application was interrupted by" "$T/err-$sig" || fail "SIG$sig: no line says the application was interrupted"
    for p in $sleeping; do
        kill -0 "$p" 2>/dev/null && { kill -9 "$p"; fail "SIG$sig: executor process $p left running"; }
    done
    [ -z "$(ls -A "$T/local")" ] || fail "SIG$sig: left in spark.local.dir: $(ls -A "$T/local")"
    trap _lib_cleanup EXIT
done
echo "PASS: $TEST_NAME"
