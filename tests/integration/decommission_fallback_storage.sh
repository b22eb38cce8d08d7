#!/usr/bin/env bash
# decommission_fallback_storage.sh — the last executor's map outputs go to the fallback storage
# (local-cluster[1,1,512], decomjobs.so shuffle_gate: a reduce_by_key counted, then collected
# again from the same map outputs after executor 1, the only one, got SIGPWR and left):
#  - with spark.storage.decommission.fallbackStorage.path=file:<dir>/ (and .cleanUp=false), no
#    live executor can take executor 1's 4 map outputs, so it copies them to
#    <dir>/<appId>/0/shuffle_0_<map>_0.data and .index (Spark's layout) before it exits 0; the
#    replacement executor reads them from there: the answer is right, no map task ran twice (event
#    log) and the files stay after the application;
#  - with .cleanUp=true the same run leaves <dir>/<appId> removed at the end;
#  - a path without a trailing '/' is refused with one line naming the key, nothing started.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/decomjobs.so
need "$BIN/cspark-executor" "$JOBS"
. "$SRC/tests/integration/lib/decommission.sh"

# run NAME CONF...: shuffle_gate with executor 1 decommissioned between its two actions
run() {
    local name=$1
    shift
    mkdir -p "$T/ev-$name" "$T/fb-$name"
    decom_run "$name" 1 "$T/gate-$name" --master 'local-cluster[1,1,512]' \
        --conf spark.decommission.enabled=true --conf spark.storage.decommission.enabled=true \
        --conf spark.storage.decommission.fallbackStorage.path="file:$T/fb-$name/" \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-$name" "$@" \
        --class shuffle_gate "$JOBS" 4 "$T/gate-$name"
    grep -qx 'first keys=10' "$T/$name.out" || fail "$name: first action: $(head -1 "$T/$name.out")"
    grep -qx 'second keys=10 sum=1000' "$T/$name.out" ||
        fail "$name: wrong answer after the decommission: $(tail -1 "$T/$name.out")"
    grep -q 'event=executor_drained executor=1 map_outputs=4 rdd_blocks=0 peers=0' "$T/$name.err" ||
        fail "$name: executor 1 did not leave with its 4 map outputs and no peer"
    [ "$(grep -c 'event=map_output_moved shuffle=0 map=[0-3] from=1 to=fallback' "$T/$name.err")" -eq 4 ] ||
        fail "$name: the map outputs were not registered at the fallback storage"
    cat_event_log "$T"/ev-"$name"/* >"$T/ev-$name.json" || fail "$name: cannot read the event log"
    $PY - "$T/ev-$name.json" <<'PY' || fail "$name: map tasks ran again"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
maps = [e["Task Info"]["Index"] for e in evs if e["Event"] == "SparkListenerTaskEnd"
        and e["Task Type"] == "ShuffleMapTask" and e["Task End Reason"]["Reason"] == "Success"]
again = [e for e in evs if e["Event"] == "SparkListenerStageSubmitted"
         and e["Stage Info"]["Stage Attempt ID"] > 0]
sys.exit(0 if sorted(maps) == [0, 1, 2, 3] and not again else "map tasks %s, resubmitted %s" % (maps, again))
PY
}

run keep
dir=$(ls -d "$T"/fb-keep/*/ 2>/dev/null | head -1)
[ -n "$dir" ] || fail "keep: nothing in the fallback storage"
for m in 0 1 2 3; do
    [ -s "$dir/0/shuffle_0_${m}_0.index" ] && [ -f "$dir/0/shuffle_0_${m}_0.data" ] ||
        fail "keep: no shuffle_0_${m}_0.index/.data under $dir/0: $(ls -R "$dir")"
done

run clean --conf spark.storage.decommission.fallbackStorage.cleanUp=true
grep -q 'event=map_output_moved shuffle=0 map=0 from=1 to=fallback' "$T/clean.err" || fail "clean: nothing went to the fallback storage"
[ -z "$(ls -A "$T/fb-clean")" ] || fail "clean: the application's directory was left: $(ls -R "$T/fb-clean")"

# a path Spark refuses: one line naming the key, non-zero exit, no executor started
rc=0
timeout 60 "$SUBMIT" --master 'local-cluster[1,1,512]' \
    --conf spark.storage.decommission.fallbackStorage.path="file:$T/nosep" \
    --class shuffle_gate "$JOBS" 4 "$T/none" >/dev/null 2>"$T/bad.err" || rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "a path without a trailing separator was accepted (exit $rc)"
tail -1 "$T/bad.err" | grep -q "spark.storage.decommission.fallbackStorage.path.*Path should end with separator" ||
    fail "bad path: $(tail -1 "$T/bad.err")"
grep -q "executor_started" "$T/bad.err" && fail "an executor was started with a bad fallback path"
echo "PASS: $TEST_NAME"
