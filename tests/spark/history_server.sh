#!/usr/bin/env bash
# history_server.sh — Apache Spark's own History Server reads cspark's event logs.
#
# Installs the pinned Spark (scripts/install-spark.sh: a cache dir, once; exit 77 = SKIP only when
# that fails), runs cspark applications with spark.eventLog.enabled into one directory:
#   hs-wordcount            word count, local[2]: input/output/shuffle figures known from outside
#   hs-sort-spill           sort in local-cluster[2,1,8]: spills to disk, remote and local reads
#   hs-failed               a job whose task fails 4 times, local[2,4] (local[N] tries a task once, as Spark)
#   hs-lost-executor        local-cluster: a task kills its executor; retried elsewhere, replaced
#   hs-resubmitted-stage    a lost map output: fetch failure, the map stage resubmitted for 1 task
#   hs-dynamic-allocation   local-cluster with dynamic allocation: executors added and removed
#   hs-accumulators         named long, double and custom accumulators, with failed attempts
#   hs-cached               local-cluster: two RDDs cached (MEMORY_ONLY), read twice each: the
#                           Storage tab lists both with their storage level
# then starts org.apache.spark.deploy.history.HistoryServer on that directory (loopback, a free
# port) and checks through its REST API (tests/spark/check_history.py) that every application,
# job, stage attempt, task and executor is there with cspark's figures. The server is stopped on
# every exit.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
SHARED=$BUILD/tests/jobs/sharedvars.so
need "$BIN/cspark-executor" "$JOBS" "$SHARED" "$EX/wordcount.so" "$EX/sort.so" "$EX/sleep.so" "$BIN/gen_text" "$BIN/gen_records"

SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
EV=$T/events
mkdir -p "$EV" "$T/local"
EVOPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=$EV")
FACTS="{"

# app NAME EXPECTED_RC MASTER SUBMIT_ARGS...: one cspark application into the event directory.
app() {
    local name=$1 want=$2 master=$3 rc=0
    shift 3
    timeout 180 "$SUBMIT" --master "$master" --name "$name" "${EVOPTS[@]}" "$@" \
        >"$T/$name.out" 2>"$T/$name.err" || rc=$?
    [ $rc -eq "$want" ] || { tail -5 "$T/$name.err" >&2; fail "$name exited $rc, expected $want"; }
}
fact() { FACTS="$FACTS${FACTS:+$([ "$FACTS" = "{" ] || echo ,)}\"$1\": {$2}"; }

"$BIN/gen_text" -s 31 3000000 >"$T/text.txt"
app hs-wordcount 0 'local[2]' "$EX/wordcount.so" "$T/text.txt" "$T/wc-out"
distinct=$(head -1 "$T/hs-wordcount.out" | awk '{print $1}')
fact hs-wordcount "\"input_bytes\": $(stat -c %s "$T/text.txt"), \"input_records\": $(wc -l <"$T/text.txt"),
    \"output_records\": $distinct, \"output_bytes\": $(cat "$T"/wc-out/part-* | wc -c), \"shuffle_balanced\": true"

"$BIN/gen_records" -s 32 300000 >"$T/records.txt"
app hs-sort-spill 0 'local-cluster[2,1,8]' --conf spark.default.parallelism=3 "$EX/sort.so" "$T/records.txt" "$T/sort-out"
fact hs-sort-spill '"spills": true, "remote_reads": true, "shuffle_balanced": true'

app hs-failed 1 'local[2,4]' --class always_fail "$JOBS"
fact hs-failed '"job_failed": true, "max_failures": 4'

app hs-lost-executor 0 'local-cluster[2,1,1024]' --class crash_once "$JOBS"
fact hs-lost-executor '"executor_lost": true'

app hs-resubmitted-stage 0 'local[2]' --conf "spark.local.dir=$T/local" --class lost_map_output "$JOBS"
fact hs-resubmitted-stage '"resubmitted": true'

app hs-dynamic-allocation 0 'local-cluster[3,1,256]' --conf spark.dynamicAllocation.enabled=true \
    --conf spark.dynamicAllocation.maxExecutors=3 --conf spark.dynamicAllocation.executorIdleTimeout=1s \
    --conf spark.dynamicAllocation.shuffleTracking.timeout=1s "$EX/sleep.so" 24 150 3000
fact hs-dynamic-allocation '"dynamic": true'

app hs-accumulators 0 'local-cluster[2,1,1024]' --class acc_counts "$SHARED" flaky
fact hs-accumulators '"accumulators": {"records": "10000", "half": "2.49975E7", "max": "0x800000000000270f"}'

# cache()/persist(): the stages' RDD Info carries the storage level and, with
# spark.eventLog.logBlockUpdates.enabled (as in Spark, off by default), the block updates give
# their cached partitions: Spark's History Server lists both RDDs in the Storage tab (/storage/rdd)
need "$BUILD/tests/jobs/cachejobs.so"
head -200000 "$T/text.txt" >"$T/cached.txt"
app hs-cached 0 'local-cluster[2,1,1024]' --conf spark.eventLog.logBlockUpdates.enabled=true --class cache_twice "$BUILD/tests/jobs/cachejobs.so" "$T/cached.txt"
fact hs-cached '"cached_rdds": {"1": "Memory Deserialized 1x Replicated", "3": "Memory Deserialized 1x Replicated"}'
FACTS="$FACTS}"
echo "$FACTS" >"$T/facts.json"
# the logs are rolled and zstd-compressed (Spark 4's defaults, cspark's too): their lines, one file
# per application, are what check_history.py compares with the History Server
mkdir "$T/lines"
for f in "$EV"/*; do
    case $f in *.inprogress) fail "event log $f was left in progress" ;; esac
    [ ! -d "$f" ] || [ -z "$(ls "$f" | grep '^appstatus_.*\.inprogress$')" ] ||
        fail "event log $f was left in progress"
    cat_event_log "$f" >"$T/lines/${f##*/}" || fail "cannot read the event log $f"
done

# ---- the History Server -----------------------------------------------------------------------
PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/history.conf" <<EOF
spark.history.fs.logDirectory file:$EV
spark.history.ui.port $PORT
spark.history.fs.update.interval 1s
spark.ui.bindAddress 127.0.0.1
EOF
SPARK_LOCAL_IP=127.0.0.1 "$SPARK_HOME/bin/spark-class" \
    "-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
    org.apache.spark.deploy.history.HistoryServer --properties-file "$T/history.conf" \
    >"$T/history.log" 2>&1 &
HS_PID=$!
stop_history() { kill "$HS_PID" 2>/dev/null && wait "$HS_PID" 2>/dev/null; _lib_cleanup; }
trap stop_history EXIT

$PY "$SRC/tests/spark/check_history.py" "http://127.0.0.1:$PORT" "$T/lines" "$T/facts.json" || {
    echo "--- History Server log (last 30 lines)" >&2
    tail -30 "$T/history.log" >&2
    fail "Spark's History Server does not show cspark's event logs as cspark wrote them"
}
grep -E "ERROR|Exception" "$T/history.log" | grep -v "^\s*at " >"$T/history.errors" || true
[ -s "$T/history.errors" ] && fail "the History Server logged errors reading cspark's logs: $(head -3 "$T/history.errors")"
echo "PASS: $TEST_NAME"
