#!/usr/bin/env bash
# s3a_fallback_storage.sh — decommissioning's fallback storage on an object store
# (spark.storage.decommission.fallbackStorage.path=s3a://data/fallback/, local-cluster[1,1,512],
# decomjobs.so shuffle_gate): the only executor, decommissioned between the job's two actions,
# copies its 4 map outputs to s3a://data/fallback/<appId>/0/shuffle_0_<map>_0.data and .index;
# the replacement executor reads its reduce blocks from the store (no map task runs twice) and
# the answer is right; no multipart upload is left. With .cleanUp=true the application's prefix
# is gone after the run.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
JOBS=$BUILD/tests/jobs/decomjobs.so
need "$BIN/cspark-executor" "$JOBS"
. "$SRC/tests/integration/lib/decommission.sh"
trap '[ -n "$DECOM_PID" ] && kill $DECOM_PID 2>/dev/null; s3_server_stop; _lib_cleanup' EXIT
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"

# run NAME CONF...: shuffle_gate with executor 1 decommissioned between its two actions
run() {
    local name=$1
    shift
    mkdir -p "$T/ev-$name"
    decom_run "$name" 1 "$T/gate-$name" --master 'local-cluster[1,1,512]' \
        --conf spark.decommission.enabled=true --conf spark.storage.decommission.enabled=true \
        --conf spark.storage.decommission.fallbackStorage.path="s3a://data/fallback-$name/" \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-$name" "$@" \
        --class shuffle_gate "$JOBS" 4 "$T/gate-$name"
    grep -qx 'second keys=10 sum=1000' "$T/$name.out" ||
        fail "$name: wrong answer after the decommission: $(tail -1 "$T/$name.out")"
    [ "$(grep -c 'event=map_output_moved shuffle=0 map=[0-3] from=1 to=fallback' "$T/$name.err")" -eq 4 ] ||
        fail "$name: the map outputs were not registered at the fallback storage"
    cat_event_log "$T"/ev-"$name"/* >"$T/ev-$name.json" || fail "$name: cannot read the event log"
    $PY - "$T/ev-$name.json" <<'PY' || fail "$name: map tasks ran again"
import json, sys
evs = [json.loads(l) for l in open(sys.argv[1])]
maps = [e["Task Info"]["Index"] for e in evs if e["Event"] == "SparkListenerTaskEnd"
        and e["Task Type"] == "ShuffleMapTask" and e["Task End Reason"]["Reason"] == "Success"]
sys.exit(0 if sorted(maps) == [0, 1, 2, 3] else "map tasks %s" % maps)
PY
    [ -z "$(s3_uploads data)" ] || fail "$name: multipart uploads left behind: $(s3_uploads data)"
}

run keep
keys=$(s3_keys data fallback-keep/)
for m in 0 1 2 3; do
    for ext in data index; do
        echo "$keys" | tr ' ' '\n' | grep -q "^fallback-keep/[^/]*/0/shuffle_0_${m}_0\.$ext\$" ||
            fail "keep: no shuffle_0_${m}_0.$ext under s3a://data/fallback-keep/<appId>/0/: $keys"
    done
done

run clean --conf spark.storage.decommission.fallbackStorage.cleanUp=true
[ -z "$(s3_keys data fallback-clean/)" ] || fail "clean: objects left: $(s3_keys data fallback-clean/)"
echo "PASS: $TEST_NAME"
