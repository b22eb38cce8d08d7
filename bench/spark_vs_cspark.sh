#!/usr/bin/env bash
# bench/spark_vs_cspark.sh — cspark against Apache Spark itself, same workloads, same machine, same
# minutes. Called by bench/run.sh (unless BENCH_SKIP_SPARK=1); runs alone too. Not part of CI.
#
# usage: bench/spark_vs_cspark.sh [BUILD_DIR]      (default: build)
#
# Installs the pinned Spark once (scripts/install-spark.sh: PyPI's pyspark into a cache dir, Java
# 17 from Debian), compiles bench/spark/src/*.java against its jars into BUILD_DIR/bench-spark/,
# generates the inputs under bench/data/ (the same files as bench/run.sh), then for every workload
# runs cspark and Spark BENCH_REPS times (default 3) alternately, so both medians come from the
# same minutes of a shared machine:
#   word count 200 MB        examples/wordcount.so   vs WordCount (RDD, reduceByKey: map-side
#                                                        combine) and WordCountDF (DataFrame)
#   sort 2,000,000 x 100 B   examples/sort.so        vs Sort (sortByKey, TeraSort-style)
#   100,000 empty tasks      examples/emptytasks.so  vs EmptyTasks (range(0,N,1,N).count)
#   1,000 tiny jobs          examples/tinyjobs.so    vs TinyJobs (range(0,100,1,2).count, median)
#   pagerank                 examples/pagerank.so    vs PageRank (Spark's SparkPageRank)
#   all-to-all shuffle       examples/shufflebench.so vs ShuffleBench (repartition().count)
# cspark runs `cspark-submit --master local[2]`, Spark `spark-submit --master local[2]`; with
# BENCH_SPARK_LOCAL_CLUSTER=1 (default) word count and sort also run on local-cluster[2,1,1024]
# on both sides (Spark's standalone workers and executor JVMs in one machine).
#
# Reported per workload: cspark whole-process wall clock; Spark whole-process wall clock (JVM
# start, context, shutdown included); Spark job-only time (sum over its jobs of JobEnd -
# JobStart from its event log, bench/spark/job_time.py); both ratios (Spark / cspark, above 1:
# cspark faster). The job-only ratio divides by cspark's whole-process time (cspark's start-up
# stays in, so it understates cspark). For empty tasks and tiny jobs both sides report the time
# measured inside the application around the action(s), as the examples print it.
# Outputs are checked equal: word count (both Spark variants) prints exactly wordcount.so's
# summary and top 10; sorts have byte-identical outputs; PageRank has the same pages and ranks
# (bench/spark/same_ranks.py); shuffle and task counts agree.
#
# Both sides run with their web UI on (the default of each). Spark runs with its defaults except: log
# level WARN (bench/spark/log4j2.properties), --driver-memory 4g in local mode (Spark's 1g would
# spill early; cspark's local[2] is not memory-limited either), and its event log on, single-file
# and uncompressed (needed for the job-only time). Sizes: BENCH_WC_BYTES, BENCH_SORT_RECORDS,
# BENCH_TASKS, BENCH_JOBS, BENCH_PR_NODES, BENCH_PR_EDGES, BENCH_PR_ITERS, BENCH_SHUFFLE_MB;
# a run with any size changed writes bench/results/tmp/spark-smoke.md, otherwise
# bench/results/spark.md (BENCH_SPARK_OUT names another file).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "bench: no build dir ${1:-build}" >&2; exit 2; }
BIN=$BUILD/bin
EX=$BUILD/examples
SUBMIT=$BIN/cspark-submit
DATA=${BENCH_DATA:-$SRC/bench/data}
RESULTS=$SRC/bench/results
TMP=$RESULTS/tmp/spark
REPS=${BENCH_REPS:-3}
WC_BYTES=${BENCH_WC_BYTES:-200000000}
SORT_RECORDS=${BENCH_SORT_RECORDS:-2000000}
TASKS=${BENCH_TASKS:-100000}
JOBS=${BENCH_JOBS:-1000}
PR_NODES=${BENCH_PR_NODES:-200000}
PR_EDGES=${BENCH_PR_EDGES:-2000000}
PR_ITERS=${BENCH_PR_ITERS:-10}
SHUFFLE_MB=${BENCH_SHUFFLE_MB:-1000}
LOCAL_CLUSTER=${BENCH_SPARK_LOCAL_CLUSTER:-1}
LC='local-cluster[2,1,1024]'
PY=/usr/bin/python3
OUTMD=$RESULTS/spark.md
[ -n "${BENCH_WC_BYTES:-}${BENCH_SORT_RECORDS:-}${BENCH_TASKS:-}${BENCH_JOBS:-}${BENCH_PR_NODES:-}${BENCH_PR_EDGES:-}${BENCH_PR_ITERS:-}${BENCH_SHUFFLE_MB:-}" ] &&
    OUTMD=$RESULTS/tmp/spark-smoke.md
OUTMD=${BENCH_SPARK_OUT:-$OUTMD}

log() { echo "bench: $*" >&2; }

for f in "$SUBMIT" "$BIN/peak_rss" "$BIN/gen_text" "$BIN/gen_records" "$BIN/gen_graph" \
    "$EX/wordcount.so" "$EX/sort.so" "$EX/emptytasks.so" "$EX/tinyjobs.so" "$EX/pagerank.so" \
    "$EX/shufflebench.so"; do
    [ -e "$f" ] || { log "missing $f (build first)"; exit 2; }
done
mkdir -p "$DATA" "$TMP"

# ---- Spark and the Java workloads -------------------------------------------------------------
SPARK_HOME=$("$SRC/scripts/install-spark.sh") || { log "cannot install Spark (scripts/install-spark.sh)"; exit 1; }
export SPARK_HOME
SPARK_VERSION=$(basename "$(dirname "$SPARK_HOME")")
JAR=$("$SRC/bench/spark/build_jar.sh" "$SPARK_HOME" "$BUILD") || { log "cannot build the Spark workloads"; exit 1; }

gen() {
    local file=$1
    shift
    [ -s "$file" ] && return 0
    log "generating $file"
    "$@" >"$file.tmp" && mv "$file.tmp" "$file"
}
TEXT=$DATA/text-$WC_BYTES.txt
RECS=$DATA/records-$SORT_RECORDS.txt
GRAPH=$DATA/graph-$PR_NODES-$PR_EDGES.txt
gen "$TEXT" "$BIN/gen_text" -s 1 "$WC_BYTES" || exit 1
gen "$RECS" "$BIN/gen_records" -s 2 "$SORT_RECORDS" || exit 1
gen "$GRAPH" "$BIN/gen_graph" -s 4 -c "$PR_NODES" "$PR_EDGES" || exit 1

# run NAME COMMAND...: runs COMMAND under peak_rss (wall clock, peak RSS) with stdout in
# $TMP/NAME.out and stderr in $TMP/NAME.err; appends the stats line to $TMP/NAME.stats.
run() {
    local name=$1
    shift
    "$BIN/peak_rss" -o "$TMP/$name.stats" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    local rc=$?
    [ $rc -eq 0 ] || log "$name failed (exit $rc): $(tail -n 3 "$TMP/$name.err" | tr '\n' ' ')"
    return $rc
}

# spark NAME MASTER CLASS ARGS...: one Spark run with its own event log directory; appends the
# job-only seconds to $TMP/NAME.job.
spark() {
    local name=$1 master=$2 class=$3
    shift 3
    local ev=$TMP/events-$name
    rm -rf "$ev" && mkdir -p "$ev"
    local mem=(--driver-memory 4g)
    [ "$master" = "$LC" ] && mem=()
    run "$name" "$SPARK_HOME/bin/spark-submit" --master "$master" "${mem[@]}" \
        --driver-java-options "-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
        --conf "spark.executor.extraJavaOptions=-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
        --conf spark.eventLog.enabled=true \
        --conf "spark.eventLog.dir=file:$ev" --conf spark.eventLog.rolling.enabled=false \
        --conf spark.eventLog.compress=false \
        --class "org.cspark.bench.$class" "$JAR" "$@" || return 1
    local f
    f=$(ls "$ev"/* 2>/dev/null | head -1)
    [ -n "$f" ] || { log "$name: no event log in $ev"; return 1; }
    "$PY" "$SRC/bench/spark/job_time.py" "$f" | grep -o 'job_s=[0-9.]*' | cut -d= -f2 >>"$TMP/$name.job"
    rm -rf "$ev"
}

median() { sort -g | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]; else print ""}'; }
stat() { grep -o "$2=[0-9.]*" "$TMP/$1.stats" 2>/dev/null | cut -d= -f2 | median; }
secs() { awk -v x="$1" 'BEGIN{ if (x == "") print "—"; else if (x < 1) printf "%.3f s", x; else printf "%.2f s", x }'; }
ms() { awk -v x="$1" 'BEGIN{ if (x == "") print "—"; else printf "%.3f ms", x / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "" || a == 0) print "—"; else printf "%.1fx", b / a }'; }
reset() { for n in "$@"; do rm -f "$TMP/$n.stats" "$TMP/$n.job" "$TMP/$n.vals"; done; }

CHECKS=ok
check_fail() { log "CHECK FAILED: $*"; CHECKS=failed; }
ROWS=()
# row WORKLOAD CSPARK SPARK_WHOLE SPARK_JOB RATIO_WHOLE RATIO_JOB CHECK
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 | $7 |"); }

# ---- word count and sort (whole-process and job-only) -------------------------------------------
# pair_rows WORKLOAD CSPARK_NAME SPARK_NAME PEER_LABEL CHECK: one table row from the medians.
pair_row() {
    local c s j
    c=$(stat "$2" elapsed_s)
    s=$(stat "$3" elapsed_s)
    j=$(median <"$TMP/$3.job" 2>/dev/null)
    row "$1 — $4" "$(secs "$c")" "$(secs "$s")" "$(secs "$j")" "$(ratio "$c" "$s")" "$(ratio "$c" "$j")" "$5"
}

MB=$(awk -v b="$WC_BYTES" 'BEGIN{printf "%.0f", b / 1e6}')
wordcount() { # MASTER SUFFIX
    local m=$1 x=$2 ok_rdd=ok ok_df=ok
    log "word count ${MB} MB, $m"
    reset "wc_cspark$x" "wc_spark$x" "wc_sparkdf$x"
    for _ in $(seq "$REPS"); do
        rm -rf "$TMP/wc-c" "$TMP/wc-s" "$TMP/wc-d"
        run "wc_cspark$x" "$SUBMIT" --master "$m" "$EX/wordcount.so" "$TEXT" "$TMP/wc-c" || ok_rdd=failed
        spark "wc_spark$x" "$m" WordCount "$TEXT" "$TMP/wc-s" || ok_rdd=failed
        cmp -s "$TMP/wc_cspark$x.out" "$TMP/wc_spark$x.out" || { check_fail "word count: Spark RDD output differs ($m)"; ok_rdd=failed; }
        if [ -z "$x" ]; then
            spark "wc_sparkdf$x" "$m" WordCountDF "$TEXT" "$TMP/wc-d" || ok_df=failed
            cmp -s "$TMP/wc_cspark$x.out" "$TMP/wc_sparkdf$x.out" || { check_fail "word count: Spark DataFrame output differs"; ok_df=failed; }
        fi
    done
    rm -rf "$TMP/wc-c" "$TMP/wc-s" "$TMP/wc-d"
    pair_row "word count ${MB} MB, $m" "wc_cspark$x" "wc_spark$x" "Spark RDD" "$ok_rdd"
    [ -z "$x" ] && pair_row "word count ${MB} MB, $m" "wc_cspark$x" "wc_sparkdf$x" "Spark DataFrame" "$ok_df"
}

sortbench() { # MASTER SUFFIX
    local m=$1 x=$2 ok=ok
    log "sort $SORT_RECORDS records, $m"
    reset "sort_cspark$x" "sort_spark$x"
    for _ in $(seq "$REPS"); do
        rm -rf "$TMP/sort-c" "$TMP/sort-s"
        run "sort_cspark$x" "$SUBMIT" --master "$m" "$EX/sort.so" "$RECS" "$TMP/sort-c" || ok=failed
        spark "sort_spark$x" "$m" Sort "$RECS" "$TMP/sort-s" || ok=failed
        cmp -s <(cat "$TMP"/sort-c/part-*) <(cat "$TMP"/sort-s/part-*) || { check_fail "sort: Spark's output differs from cspark's ($m)"; ok=failed; }
    done
    [ "$(cat "$TMP"/sort-c/part-* | wc -l)" = "$SORT_RECORDS" ] || { check_fail "sort: wrong line count"; ok=failed; }
    rm -rf "$TMP/sort-c" "$TMP/sort-s"
    pair_row "sort $SORT_RECORDS x 100 B, $m" "sort_cspark$x" "sort_spark$x" "Spark RDD" "$ok"
}

wordcount 'local[2]' ""
sortbench 'local[2]' ""

# ---- pagerank -----------------------------------------------------------------------------------
log "pagerank $PR_NODES nodes, $PR_EDGES edges, $PR_ITERS iterations"
reset pr_cspark pr_spark
pr_ok=ok
for _ in $(seq "$REPS"); do
    rm -rf "$TMP/pr-c" "$TMP/pr-s"
    run pr_cspark "$SUBMIT" --master 'local[2]' "$EX/pagerank.so" "$GRAPH" "$PR_ITERS" "$TMP/pr-c" || pr_ok=failed
    spark pr_spark 'local[2]' PageRank "$GRAPH" "$PR_ITERS" "$TMP/pr-s" || pr_ok=failed
    "$PY" "$SRC/bench/spark/same_ranks.py" "$TMP/pr-c" "$TMP/pr-s" >"$TMP/pr_check.out" || { check_fail "pagerank: $(cat "$TMP/pr_check.out")"; pr_ok=failed; }
done
rm -rf "$TMP/pr-c" "$TMP/pr-s"
pair_row "pagerank $PR_NODES nodes, $PR_EDGES edges, $PR_ITERS iterations, local[2]" pr_cspark pr_spark "Spark RDD (SparkPageRank)" "$pr_ok"

# ---- empty tasks and tiny jobs (times measured inside the application) --------------------------
# inapp_row WORKLOAD CSPARK_NAME SPARK_NAME PATTERN FORMAT CHECK: cspark and Spark values of
# PATTERN ("tasks in" seconds or "median" microseconds) from their outputs.
inapp() { grep -o "$2 [0-9.]*" "$TMP/$1.out" | awk '{print $NF}' >>"$TMP/$1.vals"; }

log "$TASKS empty tasks"
reset et_cspark et_spark
et_ok=ok
for _ in $(seq "$REPS"); do
    run et_cspark "$SUBMIT" --master 'local[2]' "$EX/emptytasks.so" "$TASKS" && inapp et_cspark "tasks in" || et_ok=failed
    spark et_spark 'local[2]' EmptyTasks "$TASKS" && inapp et_spark "tasks in" || et_ok=failed
done
et_c=$(median <"$TMP/et_cspark.vals") et_s=$(median <"$TMP/et_spark.vals")
rate() { awk -v t="$1" -v n="$TASKS" 'BEGIN{ if (t == "" || t == 0) print "—"; else printf "%.0f tasks/s", n / t }'; }
row "$TASKS empty tasks (1 job), local[2]: tasks/s inside the job; whole process" \
    "$(rate "$et_c"); $(secs "$(stat et_cspark elapsed_s)")" "$(secs "$(stat et_spark elapsed_s)")" \
    "$(rate "$et_s")" "$(ratio "$(stat et_cspark elapsed_s)" "$(stat et_spark elapsed_s)")" "$(ratio "$et_c" "$et_s")" "$et_ok"

log "$JOBS tiny jobs"
reset tj_cspark tj_spark
tj_ok=ok
for _ in $(seq "$REPS"); do
    run tj_cspark "$SUBMIT" --master 'local[2]' "$EX/tinyjobs.so" "$JOBS" && inapp tj_cspark median || tj_ok=failed
    spark tj_spark 'local[2]' TinyJobs "$JOBS" && inapp tj_spark median || tj_ok=failed
done
tj_c=$(median <"$TMP/tj_cspark.vals") tj_s=$(median <"$TMP/tj_spark.vals")
row "$JOBS tiny jobs, local[2]: median latency; whole process" \
    "$(ms "$tj_c"); $(secs "$(stat tj_cspark elapsed_s)")" "$(secs "$(stat tj_spark elapsed_s)")" \
    "$(ms "$tj_s")" "$(ratio "$(stat tj_cspark elapsed_s)" "$(stat tj_spark elapsed_s)")" "$(ratio "$tj_c" "$tj_s")" "$tj_ok"

# ---- all-to-all shuffle -------------------------------------------------------------------------
log "all-to-all shuffle $SHUFFLE_MB MB"
reset sb_cspark sb_spark
sb_ok=ok
for _ in $(seq "$REPS"); do
    run sb_cspark "$SUBMIT" --master 'local[2]' "$EX/shufflebench.so" "$SHUFFLE_MB" 4 || sb_ok=failed
    spark sb_spark 'local[2]' ShuffleBench "$SHUFFLE_MB" 4 || sb_ok=failed
    a=$(grep -o '[0-9]* records' "$TMP/sb_cspark.out") b=$(grep -o '[0-9]* records' "$TMP/sb_spark.out")
    [ -n "$a" ] && [ "$a" = "$b" ] || { check_fail "shuffle: cspark counted '$a', Spark '$b'"; sb_ok=failed; }
done
pair_row "all-to-all shuffle $SHUFFLE_MB MB (4 partitions), local[2]" sb_cspark sb_spark "Spark RDD (repartition)" "$sb_ok"

# ---- local-cluster ------------------------------------------------------------------------------
if [ "$LOCAL_CLUSTER" = 1 ]; then
    wordcount "$LC" _lc
    sortbench "$LC" _lc
fi

# ---- table --------------------------------------------------------------------------------------
{
    echo "# cspark against Apache Spark"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), Spark ${SPARK_VERSION#spark-} (PyPI pyspark, $(java -version 2>&1 | head -1)), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), median of $REPS alternating runs."
    echo "Ratios = Spark time / cspark time (above 1: cspark faster). Whole process: wall clock of cspark-submit / spark-submit, start-up included."
    echo "Spark job only: sum of its jobs' JobEnd - JobStart from its event log; its ratio divides by cspark's whole-process time (cspark's start-up included)."
    echo "Empty tasks and tiny jobs: both sides' times measured inside the application around the action(s)."
    echo "Spark: defaults (web UI on, as cspark's), plus log level WARN, --driver-memory 4g in local mode, event log on (single file, uncompressed). Output checks: $CHECKS."
    echo
    echo "| workload — Spark side | cspark | Spark whole process | Spark job only | ratio whole process | ratio job only | outputs equal |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
} >"$OUTMD.tmp"
mv "$OUTMD.tmp" "$OUTMD"
cat "$OUTMD"
[ "$CHECKS" = ok ]
