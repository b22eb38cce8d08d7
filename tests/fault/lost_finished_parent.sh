#!/usr/bin/env bash
# lost_finished_parent.sh — regression for a job that hung for good after an executor loss (issue
# 20 item 3). A join of two shuffled sides in local-cluster[2,4,1024]: side A's map stage
# finishes at once, side B's map tasks wait for a file. The executor that ran side A's tasks is
# SIGKILLed after A's stage completed and while B's still runs, then B is let go. The join must
# still finish with the fault-free answer: A's lost outputs are computed again when the join
# stage finds them missing. Before the fix the driver logged executor_lost, re-ran B's lost
# outputs, and then waited with no stage running (the job never ended). The order of events is
# set by files and log lines, never by timing.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/dagshapes.so
need "$BIN/cspark-executor" "$JOBS"

mkdir -p "$T/ref" && touch "$T/ref/go"
submit_ok 'local[2]' --class gated_join "$JOBS" "$T/ref"
ref=$(cat "$T/stdout")
case $ref in shape=gated_join\ records=*) ;; *) fail "reference run printed '$ref'" ;; esac

mkdir -p "$T/gate"
"$SUBMIT" --master 'local-cluster[2,4,1024]' --conf spark.shuffle.io.retryWait=50ms \
    --conf spark.shuffle.io.maxRetries=1 --class gated_join "$JOBS" "$T/gate" \
    >"$T/out" 2>"$T/err" &
pid=$!
trap 'touch "$T/gate/go"; kill $pid 2>/dev/null; _lib_cleanup' EXIT
# side A is stage 0: it completes while every task of side B (stage 1) waits for the gate
wait_for_log "$T/err" "stage=0 attempt=0 .*event=completed" 120
victims=()
for f in "$T/gate"/a-*; do
    [ -e "$f" ] || continue
    p=${f##*/a-}
    pgrep -P $pid -f cspark-executor | grep -qx "$p" && victims+=("$p")
done
[ ${#victims[@]} -ge 1 ] || fail "no executor process ran side A (markers: $(ls "$T/gate"))"
kill -9 "${victims[0]}"
wait_for_log "$T/err" "event=executor_lost" 120
grep -q "event=executor_lost .*map_outputs_lost=[1-9]" "$T/err" ||
    fail "the lost executor held no map output: the test proves nothing ($(grep event=executor_lost "$T/err"))"
touch "$T/gate/go"
timeout 300 tail --pid=$pid -f /dev/null || {
    grep -E "event=(submitted|completed|resubmit|stalled|executor_lost)" "$T/err" | tail -20 >&2
    fail "the job hangs after losing the executor that held side A's outputs"
}
rc=0
wait $pid || rc=$?
[ $rc -eq 0 ] || { tail -20 "$T/err" >&2; fail "the job failed with $rc"; }
assert_eq "$(cat "$T/out")" "$ref" "join result after the loss"
grep -q "stage=0 attempt=1 .*event=submitted" "$T/err" || fail "side A's stage was not run again"
echo "PASS: $TEST_NAME (side A recomputed after its executor was lost; result as fault-free)"
