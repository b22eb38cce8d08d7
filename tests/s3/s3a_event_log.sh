#!/usr/bin/env bash
# s3a_event_log.sh — event logs on an object store and compressed (spark.eventLog.dir=s3a://...,
# spark.eventLog.compress, spark.eventLog.compression.codec): with Spark 4's defaults the log is a
# rolled directory eventlog_v2_<app>/ of zstd files and a complete appstatus_<app>; a plain
# single-file log (rolling and compression off) appears under its final name when the application
# ends (no upload left stored); both hold Spark's JSON events from SparkListenerLogStart to
# SparkListenerApplicationEnd; a single compressed log is named <app>.zstd and read back with the
# zstd tool; lz4 (Spark's is lz4-java's block framing, which cspark does not write) and codecs
# cspark does not know are refused naming the key, nothing written.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; _lib_cleanup' EXIT
need "$EX/wordcount.so" "$BIN/gen_text"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"
"$BIN/gen_text" -s 3 200000 >"$T/words.txt"

# check_log FILE WHAT: Spark's event log from start to end
check_log() {
    head -1 "$1" | grep -q '"Event":"SparkListenerLogStart"' || fail "$2: no SparkListenerLogStart first"
    grep -q '"Event":"SparkListenerApplicationEnd"' "$1" || fail "$2: no SparkListenerApplicationEnd"
    grep -q '"Event":"SparkListenerTaskEnd"' "$1" || fail "$2: no task events"
    /usr/bin/python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$1" || fail "$2: not JSON lines"
}

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://data/rolled-events)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out0"
keys=$(s3_keys data rolled-events/ | tr ' ' '\n' | sort)
app=$(echo "$keys" | sed -n 's|^rolled-events/eventlog_v2_\([^/]*\)/appstatus_.*|\1|p')
[ -n "$app" ] && echo "$keys" | grep -qx "rolled-events/eventlog_v2_$app/appstatus_$app" ||
    fail "no complete appstatus in the rolled log: $keys"
echo "$keys" | grep -qx "rolled-events/eventlog_v2_$app/events_1_$app.zstd" ||
    fail "no events_1_$app.zstd in the rolled log: $keys"
s3_get "data/rolled-events/eventlog_v2_$app/events_1_$app.zstd" | zstd -qdc >"$T/log0" ||
    fail "zstd cannot read the rolled log's events_1_$app.zstd"
check_log "$T/log0" "s3a event log with Spark 4's defaults"

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://data/spark-events
    --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out1"
keys=$(s3_keys data spark-events/)
[ "$(echo "$keys" | wc -w)" = 1 ] || fail "expected one event log, got: $keys"
case "$keys" in spark-events/local-*) ;; *) fail "event log name: $keys" ;; esac
s3_get "data/$keys" >"$T/log1" || fail "cannot read $keys"
check_log "$T/log1" "s3a event log"
[ -z "$(s3_uploads data spark-events/)" ] || fail "event log uploads left stored"

# regression: lz4 wrote an LZ4 frame stream, which Spark's History Server (lz4-java's
# LZ4BlockInputStream) cannot read; now refused with one line naming the key
SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://data/lz4-events
    --conf spark.eventLog.compress=true --conf spark.eventLog.compression.codec=lz4)
run_submit "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out2" && fail "lz4 accepted"
assert_contains "$T/stderr" "invalid value for spark.eventLog.compression.codec: 'lz4' (expected zstd" \
    "lz4 refused"
[ -z "$(s3_keys data lz4-events/)" ] || fail "a refused lz4 event log was written: $(s3_keys data lz4-events/)"
[ ! -e "$T/out2" ] || fail "a refused application wrote output"

mkdir "$T/events"
SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file://$T/events"
    --conf spark.eventLog.compress=true --conf spark.eventLog.rolling.enabled=false)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out3"
f=$(ls "$T/events")
case "$f" in local-*.zstd) ;; *) fail "zstd event log name: $f" ;; esac
zstd -dc "$T/events/$f" >"$T/log3" || fail "zstd cannot read $f"
check_log "$T/log3" "zstd event log"

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file://$T/events"
    --conf spark.eventLog.compress=true --conf spark.eventLog.compression.codec=snappy)
run_submit "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out4" && fail "snappy accepted"
assert_contains "$T/stderr" "spark.eventLog.compression.codec: 'snappy'" "unknown codec message"
[ ! -e "$T/out4" ] || fail "a refused application wrote output"
log ok
