#!/usr/bin/env bash
# bench/broadcast.sh — a 100 MiB broadcast to 4 executors (issue 13: broadcast variables), cspark
# against Apache Spark on the same machine in the same minutes; not part of CI.
#
# usage: bench/broadcast.sh [BUILD_DIR]      (default: build)
#
# Both sides run local-cluster[4,1,1024] (four one-core executor processes) with
# tests/jobs/sharedvars.so's bcast_rss and its Java twin bench/spark/src/.../BroadcastRss.java:
# each executor's RSS is measured in a task before the broadcast, then after ROUNDS jobs of 8
# tasks that each read the whole value and hash every byte; the first of those jobs is timed in
# the driver (it includes the transfer). Runs alternate BENCH_REPS times (default 3). Reported:
# the median first-round time per side and the ratio (Spark / cspark, above 1: cspark faster),
# each executor's RSS growth (one copy of the value each: about the value's size, not a multiple
# of it), and for cspark the bytes the driver and the executors sent (the driver's log line:
# at most 2 x the value, the issue's bound). Results: bench/results/broadcast.md.
# Sizes: BENCH_BCAST_MB (default 100), BENCH_BCAST_ROUNDS (default 2); BENCH_SKIP_SPARK=1 runs
# cspark alone.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "broadcast: no build dir ${1:-build}" >&2; exit 2; }
SUBMIT=$BUILD/bin/cspark-submit
JOB=$BUILD/tests/jobs/sharedvars.so
REPS=${BENCH_REPS:-3}
MB=${BENCH_BCAST_MB:-100}
ROUNDS=${BENCH_BCAST_ROUNDS:-2}
MASTER='local-cluster[4,1,1024]'
RESULTS=$SRC/bench/results
TMP=$RESULTS/tmp/broadcast
PY=/usr/bin/python3
log() { echo "broadcast: $*" >&2; }
for f in "$SUBMIT" "$JOB" "$BUILD/bin/cspark-executor"; do
    [ -e "$f" ] || { log "missing $f (build first)"; exit 2; }
done
rm -rf "$TMP" && mkdir -p "$TMP" || exit 1

SPARK=0
if [ "${BENCH_SKIP_SPARK:-0}" != 1 ]; then
    SPARK_HOME=$("$SRC/scripts/install-spark.sh") || { log "cannot install Spark (scripts/install-spark.sh)"; exit 1; }
    export SPARK_HOME
    JAR_DIR=$BUILD/bench-spark-broadcast
    rm -rf "$JAR_DIR" && mkdir -p "$JAR_DIR/classes" || exit 1
    javac -nowarn -d "$JAR_DIR/classes" -cp "$SPARK_HOME/jars/*" \
        "$SRC/bench/spark/src/org/cspark/bench/Bench.java" \
        "$SRC/bench/spark/src/org/cspark/bench/BroadcastRss.java" || { log "javac failed"; exit 1; }
    jar cf "$JAR_DIR/broadcast.jar" -C "$JAR_DIR/classes" org || exit 1
    SPARK=1
fi

field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" "$2" | tail -1; }
for rep in $(seq 1 "$REPS"); do
    log "rep $rep/$REPS: cspark"
    timeout 600 "$SUBMIT" --master "$MASTER" --class bcast_rss "$JOB" "$MB" 8 "$ROUNDS" \
        >"$TMP/cspark-$rep.out" 2>"$TMP/cspark-$rep.err" || { log "cspark failed: $(tail -2 "$TMP/cspark-$rep.err")"; exit 1; }
    if [ $SPARK = 1 ]; then
        log "rep $rep/$REPS: Spark"
        timeout 600 "$SPARK_HOME/bin/spark-submit" --master "$MASTER" \
            --driver-java-options "-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
            --conf "spark.executor.extraJavaOptions=-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
            --conf spark.ui.enabled=false --class org.cspark.bench.BroadcastRss "$JAR_DIR/broadcast.jar" \
            "$MB" 8 "$ROUNDS" >"$TMP/spark-$rep.out" 2>"$TMP/spark-$rep.err" ||
            { log "Spark failed: $(tail -2 "$TMP/spark-$rep.err")"; exit 1; }
    fi
done

median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
c_time=$(for r in $(seq 1 "$REPS"); do field first_round_s "$TMP/cspark-$r.out"; done | median)
c_lo=$(field min_delta_mb "$TMP/cspark-$REPS.out")
c_hi=$(field max_delta_mb "$TMP/cspark-$REPS.out")
c_drv=$(sed -n 's/.*broadcast=0 event=destroyed served_by_driver=\([0-9]*\).*/\1/p' "$TMP/cspark-$REPS.err")
c_exe=$(sed -n 's/.*served_by_executors=\([0-9]*\).*/\1/p' "$TMP/cspark-$REPS.err")
OUT=$RESULTS/broadcast.md
{
    echo "# Broadcast: $MB MiB to 4 executors, local-cluster[4,1,1024]"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$SRC" rev-parse --short HEAD), $(nproc) CPUs, median of $REPS alternating runs per side."
    echo "Command: \`bench/broadcast.sh\` (tests/jobs/sharedvars.so bcast_rss $MB 8 $ROUNDS; Spark: BroadcastRss.java)."
    echo
    echo "| | cspark | Spark |"
    echo "|---|---|---|"
    if [ $SPARK = 1 ]; then
        s_time=$(for r in $(seq 1 "$REPS"); do field first_round_s "$TMP/spark-$r.out"; done | median)
        s_lo=$(field min_delta_mb "$TMP/spark-$REPS.out")
        s_hi=$(field max_delta_mb "$TMP/spark-$REPS.out")
        echo "| first job (transfer + 8 tasks hashing the value) | ${c_time} s | ${s_time} s |"
        echo "| ratio Spark / cspark | $(awk -v a="$s_time" -v b="$c_time" 'BEGIN { printf "%.2f", a / b }') | |"
        echo "| executor RSS growth after $ROUNDS jobs (min-max) | ${c_lo}-${c_hi} MiB | ${s_lo}-${s_hi} MiB |"
    else
        echo "| first job (transfer + 8 tasks hashing the value) | ${c_time} s | (not run) |"
        echo "| executor RSS growth after $ROUNDS jobs (min-max) | ${c_lo}-${c_hi} MiB | (not run) |"
    fi
    echo "| bytes sent by the driver | $c_drv ($(awk -v a="$c_drv" -v m="$MB" 'BEGIN { printf "%.2f", a / (m * 1048576) }') x the value) | |"
    echo "| bytes sent by executors to each other | $c_exe | |"
    echo
    echo "Each executor holds one copy of the value (RSS growth about $MB MiB, the rest being buffers"
    echo "and allocator arenas), whatever the number of its tasks and jobs that read it."
    echo
    echo "Per executor (cspark, last run):"
    echo
    grep executor_pid "$TMP/cspark-$REPS.out" | sed 's/^/    /'
    if [ $SPARK = 1 ]; then
        echo
        echo "Per executor (Spark, last run):"
        echo
        grep executor_pid "$TMP/spark-$REPS.out" | sed 's/^/    /'
    fi
} >"$OUT"
cat "$OUT"
