#!/usr/bin/env bash
# dynamic_allocation.sh — dynamic allocation with local-cluster executors:
#  - sleep.so 64 200 with maxExecutors=4: the target rises above 1 (never above 4) while tasks
#    wait, falls to minExecutors (0) when they are done, and the idle executors are removed (exit
#    0, not counted as failures) while the application lingers; the output is right. (The ramp's
#    shape depends on timing; tests/unit/sched/test_allocation_policy.c checks it over explicit
#    times.)
#  - shuffle tracking: in a join whose second map stage runs long, the executors holding the
#    first stage's map outputs sit idle longer than the idle timeout but stay until the job ends
#    (no stage runs twice), then go once their outputs are no longer needed.
#  - bad combinations are refused with Spark's messages and start nothing.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$BIN/cspark-executor" "$JOBS" "$EX/sleep.so"
CHECK="/usr/bin/python3 $SRC/tests/k8s/lib/eventlog_check.py"
DA=(--conf spark.dynamicAllocation.enabled=true --conf spark.dynamicAllocation.executorIdleTimeout=1s
    --conf spark.dynamicAllocation.shuffleTracking.timeout=1s --conf spark.eventLog.enabled=true)

mkdir -p "$T/ev1" "$T/ev2"
out=$(timeout 120 "$SUBMIT" --master 'local-cluster[4,1,256]' "${DA[@]}" \
    --conf spark.dynamicAllocation.maxExecutors=4 --conf spark.eventLog.dir="$T/ev1" \
    "$EX/sleep.so" 64 200 6000 2>"$T/err1") || fail "sleep.so failed: $(tail -3 "$T/err1")"
assert_eq "tasks run: 64" "$out" "sleep.so output"
cat_event_log "$T"/ev1/* >"$T/ev1.json" || fail "cannot read the event log of sleep.so"
$CHECK scaled "$T/ev1.json" 0 4 >"$T/ramp" || fail "$(cat "$T/ramp")"
grep -q "event=executor_exited executor=.* expected=true" "$T/err1" || fail "no executor left as asked"
grep -q "failures=" "$T/err1" && fail "removed executors were counted as failures: $(grep failures= "$T/err1" | head -1)"

out=$(timeout 120 "$SUBMIT" --master 'local-cluster[2,1,256]' "${DA[@]}" \
    --conf spark.dynamicAllocation.initialExecutors=2 --conf spark.dynamicAllocation.maxExecutors=2 \
    --conf spark.eventLog.dir="$T/ev2" --class tracked_join "$JOBS" 750 4000 2>"$T/err2") ||
    fail "tracked_join failed: $(tail -3 "$T/err2")"
assert_eq "count=400" "$out" "join output"
log2=$T/ev2.json
cat_event_log "$T"/ev2/* >"$log2" || fail "cannot read the event log of tracked_join"
$CHECK kept "$log2" 1500 >"$T/kept" || fail "$(cat "$T/kept")"
$CHECK attempts "$log2" >"$T/att" || fail "$(cat "$T/att")"
[ "$(grep -c 'event=remove_idle' "$T/err2")" -eq 2 ] || fail "the executors were not removed after the job"

# bad combinations: one line naming the keys, non-zero exit, no executor started
bad() {
    local want=$1
    shift
    rc=0
    timeout 60 "$SUBMIT" --master 'local-cluster[2,1,256]' --conf spark.dynamicAllocation.enabled=true "$@" \
        "$EX/sleep.so" 2 1 >/dev/null 2>"$T/bad" || rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "accepted $*: exit $rc"
    tail -1 "$T/bad" >"$T/bad.last"
    assert_contains "$T/bad.last" "$want"
    grep -q "executor_started" "$T/bad" && fail "an executor was started for $*"
    return 0
}
bad "spark.dynamicAllocation.minExecutors (3) must be less than or equal to spark.dynamicAllocation.maxExecutors (2)" \
    --conf spark.dynamicAllocation.minExecutors=3 --conf spark.dynamicAllocation.maxExecutors=2
bad "spark.dynamicAllocation.initialExecutors (5) must be less than or equal to spark.dynamicAllocation.maxExecutors (2)" \
    --conf spark.dynamicAllocation.initialExecutors=5 --conf spark.dynamicAllocation.maxExecutors=2
bad "requires one of the following conditions" --conf spark.dynamicAllocation.shuffleTracking.enabled=false
bad "spark.executor.decommission.signal" --conf spark.executor.decommission.signal=NOPE
# initialExecutors below minExecutors: Spark's warning, and the minimum is used
out=$(timeout 60 "$SUBMIT" --master 'local-cluster[2,1,256]' --conf spark.dynamicAllocation.enabled=true \
    --conf spark.dynamicAllocation.minExecutors=2 --conf spark.dynamicAllocation.initialExecutors=1 \
    "$EX/sleep.so" 2 1 2>"$T/warn") || fail "initial < min failed: $(tail -3 "$T/warn")"
assert_eq "tasks run: 2" "$out" "initial < min output"
grep -q "spark.dynamicAllocation.initialExecutors (1) less than spark.dynamicAllocation.minExecutors (2) is invalid" \
    "$T/warn" || fail "no warning for initialExecutors below minExecutors"
echo "PASS: $TEST_NAME"
