#!/usr/bin/env bash
# bench/run.sh — cspark's benchmark suite (`make bench`); not part of CI.
#
# usage: bench/run.sh [BUILD_DIR]      (default: build)
#        bench/run.sh sql [ARGS]        the SQL benchmark instead: bench/sql/run.sh ARGS (TPC-H on
#                                       cspark-sql, Spark 4 and peers; bench/sql/README.md)
#
# Generates the inputs under bench/data/ when missing (deterministic: same bytes every time), runs
# every workload BENCH_REPS times (default 3) and takes the median, then prints a Markdown table
# and saves it to bench/results/latest.md. Workloads and peers:
#   word count 200 MB     cspark local[2]   vs Dask LocalCluster(2 procs x 1 thread), wc_single (C)
#   sort 2,000,000 recs   cspark local[2]   vs LC_ALL=C sort -S 4G --parallel=2
#   100,000 empty tasks   cspark local[2]   vs Dask client.map + gather (1 run: it is slow)
#   1,000 tiny jobs       cspark local[2]   vs Dask bag count (median latency)
#   sort 1 GB, 256m       cspark local[2] --conf spark.executor.memory=256m, peak RSS
#                                           vs LC_ALL=C sort -S 256M --parallel=2
#   Apache Spark          every workload above plus pagerank and the all-to-all shuffle against
#                         Spark 4 itself, whole-process and job-only: bench/spark_vs_cspark.sh,
#                         run last and appended to the table (BENCH_SKIP_SPARK=1 skips it)
# Times: cspark and the C/coreutils peers are wall clock of the whole process (start-up
# included); Dask times exclude its cluster start-up (which favours Dask). Peak RSS comes from
# bench/peak_rss (getrusage of children). Sizes can be shrunk for a smoke run with BENCH_WC_BYTES,
# BENCH_SORT_RECORDS, BENCH_TASKS, BENCH_JOBS, BENCH_BIG_RECORDS; BENCH_SKIP_DASK=1 skips Dask;
# such smoke runs write bench/results/tmp/smoke.md instead of latest.md.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = sql ]; then
    shift
    exec "$SRC/bench/sql/run.sh" "$@"
fi
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "bench: no build dir ${1:-build}" >&2; exit 2; }
BIN=$BUILD/bin
EX=$BUILD/examples
SUBMIT=$BIN/cspark-submit
DATA=${BENCH_DATA:-$SRC/bench/data}
RESULTS=$SRC/bench/results
TMP=$RESULTS/tmp
REPS=${BENCH_REPS:-3}
WC_BYTES=${BENCH_WC_BYTES:-200000000}
SORT_RECORDS=${BENCH_SORT_RECORDS:-2000000}
TASKS=${BENCH_TASKS:-100000}
JOBS=${BENCH_JOBS:-1000}
BIG_RECORDS=${BENCH_BIG_RECORDS:-10000000}
PY=/usr/bin/python3
# Smoke runs (any size changed) do not replace the published table.
OUTMD=$RESULTS/latest.md
[ -n "${BENCH_WC_BYTES:-}${BENCH_SORT_RECORDS:-}${BENCH_TASKS:-}${BENCH_JOBS:-}${BENCH_BIG_RECORDS:-}${BENCH_SKIP_DASK:-}" ] &&
    OUTMD=$TMP/smoke.md

for f in "$SUBMIT" "$BIN/peak_rss" "$BIN/gen_text" "$BIN/gen_records" "$BIN/wc_single" \
    "$EX/wordcount.so" "$EX/sort.so" "$EX/emptytasks.so" "$EX/tinyjobs.so" "$EX/shufflebench.so" \
    "$BIN/cspark-executor" "$BUILD/tests/jobs/testjobs.so"; do
    [ -x "$f" ] || [ -f "$f" ] || { echo "bench: missing $f (build first)" >&2; exit 2; }
done
mkdir -p "$DATA" "$TMP"

log() { echo "bench: $*" >&2; }

# gen FILE COMMAND...: writes COMMAND's stdout to FILE unless FILE exists (atomically).
gen() {
    local file=$1
    shift
    [ -s "$file" ] && return 0
    log "generating $file"
    "$@" >"$file.tmp" && mv "$file.tmp" "$file"
}

TEXT=$DATA/text-$WC_BYTES.txt
RECS=$DATA/records-$SORT_RECORDS.txt
BIG=$DATA/records-$BIG_RECORDS.txt
gen "$TEXT" "$BIN/gen_text" -s 1 "$WC_BYTES" || exit 1
gen "$RECS" "$BIN/gen_records" -s 2 "$SORT_RECORDS" || exit 1
gen "$BIG" "$BIN/gen_records" -s 3 "$BIG_RECORDS" || exit 1

# run NAME OUT COMMAND...: runs COMMAND under peak_rss; stdout to $TMP/NAME.out; appends
# "elapsed_s=.. maxrss_kb=.. status=.." to $TMP/NAME.stats; removes OUT (an output path) before
# the run and leaves the new one for the caller to check and remove.
run() {
    local name=$1 out=$2
    shift 2
    [ -n "$out" ] && rm -rf "$out"
    "$BIN/peak_rss" -o "$TMP/$name.stats" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    local rc=$?
    [ $rc -eq 0 ] || log "$name failed (exit $rc): $(tail -n 3 "$TMP/$name.err" | tr '\n' ' ')"
    return $rc
}

# repeat N NAME OUT COMMAND...: N runs; fails when any run fails.
repeat() {
    local n=$1 name=$2
    shift 2
    rm -f "$TMP/$name.stats" "$TMP/$name.vals"
    for _ in $(seq "$n"); do run "$name" "$@" || return 1; done
}

# median of the numbers on stdin
median() { sort -g | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]; else print ""}'; }
# stat NAME KEY: median of KEY=value over NAME's runs
stat() { grep -o "$2=[0-9.]*" "$TMP/$1.stats" 2>/dev/null | cut -d= -f2 | median; }
secs() { awk -v x="$1" 'BEGIN{ if (x == "") print "—"; else if (x < 1) printf "%.3f s", x; else printf "%.2f s", x }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "" || b == "" || a == 0) print "—"; else printf "%.2fx", b / a }'; }

# check_sorted OUTDIR LINES: the part files in name order have LINES lines with sorted keys.
check_sorted() {
    local n
    n=$(cat "$1"/part-* | wc -l)
    [ "$n" == "$2" ] || { log "CHECK FAILED: $1 has $n lines, expected $2"; return 1; }
    cat "$1"/part-* | cut -c1-10 | LC_ALL=C sort -c 2>/dev/null || { log "CHECK FAILED: $1 is not sorted"; return 1; }
}
CHECKS=ok

ROWS=()
row() { ROWS+=("| $1 | $2 | $3 | $4 | $5 | $6 |"); }
MB=$(awk -v b="$WC_BYTES" 'BEGIN{printf "%.0f", b / 1e6}')

# ---- word count -------------------------------------------------------------------------------
log "word count ${MB} MB"
# cspark and Dask runs alternate, so both medians come from the same minutes of a shared,
# noisy machine (three sub-second cspark runs in a row could all land in one burst of load).
wc_t=""
wc_ok=1
rm -f "$TMP/wc_cspark.stats" "$TMP/wc_dask.vals" "$TMP/wc_dask_total.vals"
for _ in $(seq "$REPS"); do
    run wc_cspark "$TMP/wc-out" "$SUBMIT" --master 'local[2]' "$EX/wordcount.so" "$TEXT" "$TMP/wc-out" || wc_ok=0
    rm -rf "$TMP/wc-out"
    if [ "${BENCH_SKIP_DASK:-0}" != 1 ]; then
        if run wc_dask "$TMP/wc-dask" "$PY" "$SRC/bench/dask_wordcount.py" "$TEXT" "$TMP/wc-dask"; then
            grep -o 'dask_wordcount: [0-9.]*' "$TMP/wc_dask.out" | awk '{print $2}' >>"$TMP/wc_dask.vals"
            grep -o '[0-9.]* s with cluster start-up' "$TMP/wc_dask.out" | awk '{print $1}' >>"$TMP/wc_dask_total.vals"
        fi
        rm -rf "$TMP/wc-dask"
    fi
done
[ "$wc_ok" = 1 ] && wc_t=$(stat wc_cspark elapsed_s)
wc_rate=$(awk -v t="$wc_t" -v b="$WC_BYTES" 'BEGIN{ if (t == "") print "—"; else printf "%.1f MB/s", b / 1e6 / t }')
single_t=""
repeat "$REPS" wc_single "" "$BIN/wc_single" "$TEXT" "$TMP/wc_single.txt" && single_t=$(stat wc_single elapsed_s)
rm -f "$TMP/wc_single.txt"
# The example and the C loop print the same summary and top 10.
if [ -n "$wc_t" ] && [ -n "$single_t" ] && ! cmp -s "$TMP/wc_cspark.out" "$TMP/wc_single.out"; then
    log "CHECK FAILED: wordcount.so and wc_single printed different counts"
    CHECKS=failed
fi
row "word count ${MB} MB" "$(secs "$wc_t")" "$wc_rate" "wc_single (1 thread C)" "$(secs "$single_t")" "$(ratio "$wc_t" "$single_t")"
if [ "${BENCH_SKIP_DASK:-0}" != 1 ]; then
    dask_t=$(median <"$TMP/wc_dask.vals")
    dask_total_t=$(median <"$TMP/wc_dask_total.vals")
    row "word count ${MB} MB" "$(secs "$wc_t")" "$wc_rate" "Dask bag, 2 procs (job only)" "$(secs "$dask_t")" "$(ratio "$wc_t" "$dask_t")"
    row "word count ${MB} MB" "$(secs "$wc_t")" "$wc_rate" "Dask bag, 2 procs (with cluster start-up)" "$(secs "$dask_total_t")" "$(ratio "$wc_t" "$dask_total_t")"
fi

# ---- sort -------------------------------------------------------------------------------------
log "sort $SORT_RECORDS records"
sort_t=""
if repeat "$REPS" sort_cspark "$TMP/sort-out" "$SUBMIT" --master 'local[2]' "$EX/sort.so" "$RECS" "$TMP/sort-out"; then
    sort_t=$(stat sort_cspark elapsed_s)
    check_sorted "$TMP/sort-out" "$SORT_RECORDS" || CHECKS=failed
fi
rm -rf "$TMP/sort-out"
gsort_t=""
repeat "$REPS" sort_gnu "$TMP/sort-gnu.txt" env LC_ALL=C sort -S 4G --parallel=2 -o "$TMP/sort-gnu.txt" "$RECS" && gsort_t=$(stat sort_gnu elapsed_s)
rm -f "$TMP/sort-gnu.txt"
sort_rate=$(awk -v t="$sort_t" -v n="$SORT_RECORDS" 'BEGIN{ if (t == "") print "—"; else printf "%.1f MB/s", n * 100 / 1e6 / t }')
row "sort $SORT_RECORDS x 100 B" "$(secs "$sort_t")" "$sort_rate" "LC_ALL=C sort -S 4G --parallel=2" "$(secs "$gsort_t")" "$(ratio "$sort_t" "$gsort_t")"

# ---- empty tasks ------------------------------------------------------------------------------
log "$TASKS empty tasks"
et_t=""
rm -f "$TMP/et.vals"
for _ in $(seq "$REPS"); do
    run et_cspark "" "$SUBMIT" --master 'local[2]' "$EX/emptytasks.so" "$TASKS" || break
    grep -o 'tasks in [0-9.]*' "$TMP/et_cspark.out" | awk '{print $3}' >>"$TMP/et.vals"
done
et_t=$(median <"$TMP/et.vals")
et_rate=$(awk -v t="$et_t" -v n="$TASKS" 'BEGIN{ if (t == "") print "—"; else printf "%.0f tasks/s", n / t }')
dt_t=""
if [ "${BENCH_SKIP_DASK:-0}" != 1 ] && run et_dask "" "$PY" "$SRC/bench/dask_tasks.py" empty "$TASKS"; then
    dt_t=$(grep -o 'tasks in [0-9.]*' "$TMP/et_dask.out" | awk '{print $3}')
fi
row "$TASKS empty tasks (1 job)" "$(secs "$et_t")" "$et_rate" "Dask client.map+gather (1 run)" "$(secs "$dt_t")" "$(ratio "$et_t" "$dt_t")"

ms() { awk -v x="$1" 'BEGIN{ if (x == "") print "—"; else printf "%.3f ms", x / 1000 }'; }

# ---- tiny jobs --------------------------------------------------------------------------------
log "$JOBS tiny jobs"
tj=""
rm -f "$TMP/tj.vals"
for _ in $(seq "$REPS"); do
    run tj_cspark "" "$SUBMIT" --master 'local[2]' "$EX/tinyjobs.so" "$JOBS" || break
    grep -o 'median [0-9]*' "$TMP/tj_cspark.out" | awk '{print $2}' >>"$TMP/tj.vals"
done
tj=$(median <"$TMP/tj.vals")
tj_p90=$(grep -o 'p90 [0-9]*' "$TMP/tj_cspark.out" 2>/dev/null | awk '{print $2}')
dj=""
if [ "${BENCH_SKIP_DASK:-0}" != 1 ] && run tj_dask "" "$PY" "$SRC/bench/dask_tasks.py" tiny "$JOBS"; then
    dj=$(grep -o 'median [0-9]*' "$TMP/tj_dask.out" | awk '{print $2}')
fi
row "$JOBS tiny jobs, median latency" "$(ms "$tj")" "p90 $(ms "$tj_p90")" "Dask bag count, 2 partitions" "$(ms "$dj")" "$(ratio "$tj" "$dj")"

# ---- big sort under a memory limit --------------------------------------------------------------
BIG_MB=$(awk -v n="$BIG_RECORDS" 'BEGIN{printf "%.0f", n * 100 / 1e6}')
log "sort $BIG_MB MB with spark.executor.memory=256m"
big_t="" big_rss=""
if repeat 1 big_cspark "$TMP/big-out" "$SUBMIT" --master 'local[2]' --conf spark.executor.memory=256m "$EX/sort.so" "$BIG" "$TMP/big-out"; then
    big_t=$(stat big_cspark elapsed_s)
    big_rss=$(stat big_cspark maxrss_kb)
    check_sorted "$TMP/big-out" "$BIG_RECORDS" || CHECKS=failed
fi
rm -rf "$TMP/big-out"
gbig_t="" gbig_rss=""
if repeat 1 big_gnu "$TMP/big-gnu.txt" env LC_ALL=C sort -S 256M --parallel=2 -T "$TMP" -o "$TMP/big-gnu.txt" "$BIG"; then
    gbig_t=$(stat big_gnu elapsed_s)
    gbig_rss=$(stat big_gnu maxrss_kb)
fi
rm -f "$TMP/big-gnu.txt"
mbk() { awk -v x="$1" 'BEGIN{ if (x == "") print "—"; else printf "%.0f MB peak RSS", x / 1024 }'; }
row "sort $BIG_MB MB, executor.memory=256m" "$(secs "$big_t")" "$(mbk "$big_rss")" "sort -S 256M --parallel=2" "$(secs "$gbig_t"), $(mbk "$gbig_rss")" "$(ratio "$big_t" "$gbig_t")"

# ---- local-cluster: separate executor processes, network shuffle, RPC -------------------------
LC='local-cluster[2,1,1024]'
RPC_TASKS=${BENCH_RPC_TASKS:-20000}
SHUFFLE_MB=${BENCH_SHUFFLE_MB:-1000}
log "local-cluster workloads"
lc_wc_t=""
if repeat "$REPS" lc_wc "$TMP/lc-wc-out" "$SUBMIT" --master "$LC" "$EX/wordcount.so" "$TEXT" "$TMP/lc-wc-out"; then
    lc_wc_t=$(stat lc_wc elapsed_s)
    cmp -s "$TMP/lc_wc.out" "$TMP/wc_cspark.out" || { log "CHECK FAILED: local-cluster word count differs"; CHECKS=failed; }
fi
rm -rf "$TMP/lc-wc-out"
lc_wc_rate=$(awk -v t="$lc_wc_t" -v b="$WC_BYTES" 'BEGIN{ if (t == "") print "—"; else printf "%.1f MB/s", b / 1e6 / t }')
if [ "${BENCH_SKIP_DASK:-0}" != 1 ]; then
    row "word count ${MB} MB, $LC" "$(secs "$lc_wc_t")" "$lc_wc_rate" "Dask bag, 2 procs (job only)" "$(secs "$dask_t")" "$(ratio "$lc_wc_t" "$dask_t")"
fi
lc_sort_t=""
if repeat "$REPS" lc_sort "$TMP/lc-sort-out" "$SUBMIT" --master "$LC" "$EX/sort.so" "$RECS" "$TMP/lc-sort-out"; then
    lc_sort_t=$(stat lc_sort elapsed_s)
    check_sorted "$TMP/lc-sort-out" "$SORT_RECORDS" || CHECKS=failed
fi
rm -rf "$TMP/lc-sort-out"
lc_sort_rate=$(awk -v t="$lc_sort_t" -v n="$SORT_RECORDS" 'BEGIN{ if (t == "") print "—"; else printf "%.1f MB/s", n * 100 / 1e6 / t }')
row "sort $SORT_RECORDS x 100 B, $LC" "$(secs "$lc_sort_t")" "$lc_sort_rate" "LC_ALL=C sort -S 4G --parallel=2" "$(secs "$gsort_t")" "$(ratio "$lc_sort_t" "$gsort_t")"

rm -f "$TMP/lc_et.vals"
for _ in $(seq "$REPS"); do
    run lc_et "" "$SUBMIT" --master "$LC" "$EX/emptytasks.so" "$RPC_TASKS" || break
    grep -o 'tasks in [0-9.]*' "$TMP/lc_et.out" | awk '{print $3}' >>"$TMP/lc_et.vals"
done
lc_et_t=$(median <"$TMP/lc_et.vals")
lc_et_rate=$(awk -v t="$lc_et_t" -v n="$RPC_TASKS" 'BEGIN{ if (t == "") print "—"; else printf "%.0f tasks/s", n / t }')
row "$RPC_TASKS empty tasks over RPC, $LC" "$(secs "$lc_et_t")" "$lc_et_rate" "target" "≥ 10,000 tasks/s" "—"

rm -f "$TMP/lc_tj.vals"
for _ in $(seq "$REPS"); do
    run lc_tj "" "$SUBMIT" --master "$LC" "$EX/tinyjobs.so" "$JOBS" || break
    grep -o 'median [0-9]*' "$TMP/lc_tj.out" | awk '{print $2}' >>"$TMP/lc_tj.vals"
done
lc_tj=$(median <"$TMP/lc_tj.vals")
lc_tj_p90=$(grep -o 'p90 [0-9]*' "$TMP/lc_tj.out" 2>/dev/null | awk '{print $2}')
row "$JOBS tiny jobs, median latency, $LC" "$(ms "$lc_tj")" "p90 $(ms "$lc_tj_p90")" "Dask bag count, 2 partitions" "$(ms "$dj")" "$(ratio "$lc_tj" "$dj")"

rm -f "$TMP/lc_sb.vals"
for _ in $(seq "$REPS"); do
    run lc_sb "" "$SUBMIT" --master "$LC" "$EX/shufflebench.so" "$SHUFFLE_MB" 4 || break
    grep -o '[0-9]* MB/s' "$TMP/lc_sb.out" | awk '{print $1}' >>"$TMP/lc_sb.vals"
done
lc_sb=$(median <"$TMP/lc_sb.vals")
# The peer is the same job in one process (median of as many runs, not a single one). Both rates
# are whole-job: generating the records in the map tasks is included, so they are lower bounds
# of the shuffle's own throughput; half of the bytes cross between the two executors.
rm -f "$TMP/sb_local.vals"
for _ in $(seq "$REPS"); do
    run sb_local "" "$SUBMIT" --master 'local[2]' "$EX/shufflebench.so" "$SHUFFLE_MB" 4 || break
    grep -o '[0-9]* MB/s' "$TMP/sb_local.out" | awk '{print $1}' >>"$TMP/sb_local.vals"
done
sb_local=$(median <"$TMP/sb_local.vals")
row "all-to-all shuffle ${SHUFFLE_MB} MB, 2 executors" "${lc_sb:-—} MB/s" "whole job: generation + shuffle write + fetch + read" "same job in local[2]" "${sb_local:-—} MB/s" "—"

# idle executor: resident memory of executors waiting for work (a job sleeping in the driver's
# tasks keeps them registered; sampled from /proc)
"$SUBMIT" --master "$LC" --class slow "$BUILD/tests/jobs/testjobs.so" 1500 >/dev/null 2>"$TMP/idle.err" &
idle_pid=$!
for _ in $(seq 100); do grep -q "event=executors_registered" "$TMP/idle.err" 2>/dev/null && break; sleep 0.05; done
sleep 0.5
idle_rss=$(for p in $(pgrep -P $idle_pid -f cspark-executor); do awk '/VmRSS/{print $2}' /proc/$p/status; done | sort -n | tail -1)
wait $idle_pid
row "executor resident memory, $LC" "${idle_rss:-—} kB" "while registered and waiting" "target" "≤ 20 MB" "—"

# ---- table ------------------------------------------------------------------------------------
{
    echo "# cspark benchmarks"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), median of $REPS runs unless noted."
    echo "Ratio = peer time / cspark time (above 1: cspark faster). cspark and C peers: whole-process wall clock; Dask: job only, cluster start-up excluded."
    echo "Output checks (word count = wc_single's summary and top 10; sorts globally sorted, all lines): $CHECKS."
    echo
    echo "| workload | cspark | cspark rate | peer | peer time | ratio |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${ROWS[@]}"
} >"$OUTMD.tmp"
mv "$OUTMD.tmp" "$OUTMD"
cat "$OUTMD"

# ---- Apache Spark, side by side -----------------------------------------------------------------
if [ "${BENCH_SKIP_SPARK:-0}" != 1 ]; then
    log "Apache Spark side by side (bench/spark_vs_cspark.sh)"
    spark_md=$RESULTS/spark.md
    [ "$OUTMD" != "$RESULTS/latest.md" ] && spark_md=$RESULTS/tmp/spark-smoke.md
    rm -f "$spark_md"
    BENCH_SPARK_OUT=$spark_md "$SRC/bench/spark_vs_cspark.sh" "$BUILD" >/dev/null || log "bench/spark_vs_cspark.sh failed or a check failed"
    if [ -f "$spark_md" ]; then
        { echo; sed 's/^# /## /' "$spark_md"; } >>"$OUTMD"
        { echo; sed 's/^# /## /' "$spark_md"; }
    fi
fi
