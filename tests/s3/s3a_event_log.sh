#!/usr/bin/env bash
# s3a_event_log.sh — event logs on an object store and compressed (spark.eventLog.dir=s3a://...,
# spark.eventLog.compress, spark.eventLog.compression.codec): the log appears under its final
# name when the application ends (no upload left stored), holds Spark's JSON events from
# SparkListenerLogStart to SparkListenerApplicationEnd, and compressed logs are named
# <app>.zstd / <app>.lz4 and read back with the zstd and lz4 tools; a codec cspark does not
# write is refused naming the key.
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

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://data/spark-events)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out1"
keys=$(s3_keys data spark-events/)
[ "$(echo "$keys" | wc -w)" = 1 ] || fail "expected one event log, got: $keys"
case "$keys" in spark-events/local-*) ;; *) fail "event log name: $keys" ;; esac
s3_get "data/$keys" >"$T/log1" || fail "cannot read $keys"
check_log "$T/log1" "s3a event log"
[ -z "$(s3_uploads data spark-events/)" ] || fail "event log uploads left stored"

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://data/lz4-events
    --conf spark.eventLog.compress=true --conf spark.eventLog.compression.codec=lz4)
submit_ok "local-cluster[2,1,1024]" "$EX/wordcount.so" "$T/words.txt" "$T/out2"
keys=$(s3_keys data lz4-events/)
case "$keys" in lz4-events/local-*.lz4) ;; *) fail "compressed event log name: $keys" ;; esac
s3_get "data/$keys" | lz4 -dc >"$T/log2" || fail "lz4 cannot read $keys"
check_log "$T/log2" "lz4 event log"

mkdir "$T/events"
SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file://$T/events"
    --conf spark.eventLog.compress=true)
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
