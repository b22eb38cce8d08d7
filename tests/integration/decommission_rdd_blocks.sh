#!/usr/bin/env bash
# decommission_rdd_blocks.sh — cached partitions survive a decommissioned executor
# (local-cluster[2,1,512], cachejobs.so decommission_cached: 8 cached partitions counted, then
# counted again after executor 1 got SIGPWR and left):
#  - with spark.decommission.enabled and spark.storage.decommission.enabled (rddBlocks.enabled
#    at its default, true), executor 1 hands its cached partitions to executor 2 before it exits
#    0: the second count computes nothing (the accumulator counting computations stays at 8), no
#    cached block is reported lost, the event log's last stage sees all 8 partitions cached and
#    its block updates (the Storage view's source) show each moved block on executor 2 and gone
#    from executor 1;
#  - with spark.storage.decommission.rddBlocks.enabled=false the same partitions are recomputed.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/cachejobs.so
need "$BIN/cspark-executor" "$JOBS"
. "$SRC/tests/integration/lib/decommission.sh"

# run NAME CONF...: the job with executor 1 decommissioned between its two counts; sets held (the
# cached partitions executor 1 had when drained)
run() {
    local name=$1
    shift
    mkdir -p "$T/ev-$name"
    decom_run "$name" 1 "$T/gate-$name" --master 'local-cluster[2,1,512]' \
        --conf spark.decommission.enabled=true --conf spark.storage.decommission.enabled=true \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-$name" \
        --conf spark.eventLog.logBlockUpdates.enabled=true "$@" --class decommission_cached "$JOBS" 8 "$T/gate-$name"
    grep -qx 'first computations=8' "$T/$name.out" || fail "$name: first count: $(head -1 "$T/$name.out")"
    held=$(grep -o 'event=executor_drained executor=1 map_outputs=0 rdd_blocks=[0-9]*' "$T/$name.err" |
        sed 's/.*rdd_blocks=//')
    [ -n "$held" ] || fail "$name: executor 1 was not drained"
}

run on
[ "$held" -ge 1 ] || fail "on: executor 1 held no cached partition (the test proves nothing)"
grep -qx 'second computations=8 count=1000' "$T/on.out" ||
    fail "on: cached partitions were recomputed after the decommission: $(tail -1 "$T/on.out")"
moved=$(grep -c 'event=rdd_block_moved block=rdd_[0-9]*_[0-9]* from=1 to=2' "$T/on.err")
[ "$moved" -eq "$held" ] || fail "on: $moved of the $held cached partitions of executor 1 moved"
grep -q 'event=cached_blocks_lost executor=1' "$T/on.err" && fail "on: cached blocks were lost with executor 1"
cat_event_log "$T"/ev-on/* >"$T/ev-on.json" || fail "on: cannot read the event log"
grep -o 'event=rdd_block_moved block=rdd_[0-9]*_[0-9]*' "$T/on.err" | sed 's/.*block=//' >"$T/moved"
$PY - "$T/ev-on.json" "$T/moved" <<'PY' || fail "on: the event log does not show the cached RDD whole after the decommission"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
moved = set(open(sys.argv[2]).read().split())
done = [e for e in evs if e["Event"] == "SparkListenerStageCompleted"]
infos = [r for r in done[-1]["Stage Info"]["RDD Info"] if r["Storage Level"]["Use Memory"]]
if not infos or infos[0]["Number of Cached Partitions"] != 8:
    sys.exit("last stage's cached RDD info: %r" % infos)
# the Storage view's source: each moved block updated as held by executor 2, gone from executor 1
upd = [e["Block Updated Info"] for e in evs if e["Event"] == "SparkListenerBlockUpdated"]
held = {u["Block ID"] for u in upd if u["Block Manager ID"]["Executor ID"] == "2"
        and u["Storage Level"]["Use Memory"]}
gone = {u["Block ID"] for u in upd if u["Block Manager ID"]["Executor ID"] == "1"
        and not u["Storage Level"]["Use Memory"] and not u["Storage Level"]["Use Disk"]}
if not moved <= held or not moved <= gone:
    sys.exit("block updates: moved %s, held by 2 %s, gone from 1 %s" % (sorted(moved), sorted(held), sorted(gone)))
PY

run off --conf spark.storage.decommission.rddBlocks.enabled=false
[ "$held" -eq 0 ] || fail "off: executor 1 was asked to hand over $held cached partitions"
held=$(grep -o 'event=cached_blocks_lost executor=1 blocks=[0-9]*' "$T/off.err" | sed 's/.*blocks=//')
[ -n "$held" ] && [ "$held" -ge 1 ] || fail "off: executor 1 held no cached partition (the test proves nothing)"
grep -qx "second computations=$((8 + held)) count=1000" "$T/off.out" ||
    fail "off: expected executor 1's $held partitions recomputed: $(tail -1 "$T/off.out")"
echo "PASS: $TEST_NAME"
