#!/usr/bin/env bash
# bench/ui_overhead.sh — what the web UI (spark.ui.enabled, on by default) costs: the benchmark
# figures with the UI on and off, runs alternating so both medians come from the same minutes of
# a shared machine. Not part of CI.
#
# usage: bench/ui_overhead.sh [BUILD_DIR]      (default: build)
#
# Workloads (bench/run.sh's): word count 200 MB local[2] (whole-process wall clock), 100,000
# empty tasks local[2] (tasks/s of the job), 1,000 tiny jobs local[2] (median latency), 20,000
# empty tasks over RPC on local-cluster[2,1,1024] (tasks/s). BENCH_REPS (default 7) runs of each
# side (tiny jobs: three times as many, their medians being the noisiest); sizes shrink with BENCH_WC_BYTES, BENCH_TASKS, BENCH_JOBS. Besides each workload's own
# figure it reports the driver process's CPU time (user + system, from peak_rss), which a shared
# machine's load disturbs far less than wall-clock figures. Prints a Markdown table with on/off
# changes and saves it to bench/results/ui.md (smoke runs: bench/results/tmp/ui-smoke.md).
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "ui_overhead: no build dir ${1:-build}" >&2; exit 2; }
BIN=$BUILD/bin
EX=$BUILD/examples
SUBMIT=$BIN/cspark-submit
DATA=${BENCH_DATA:-$SRC/bench/data}
TMP=$SRC/bench/results/tmp
REPS=${BENCH_REPS:-7}
WC_BYTES=${BENCH_WC_BYTES:-200000000}
TASKS=${BENCH_TASKS:-100000}
JOBS=${BENCH_JOBS:-1000}
RPC_TASKS=20000
TJ_RUNS=3
OUT=$SRC/bench/results/ui.md
[ -n "${BENCH_WC_BYTES:-}${BENCH_TASKS:-}${BENCH_JOBS:-}" ] && OUT=$TMP/ui-smoke.md
mkdir -p "$DATA" "$TMP"
TEXT=$DATA/text-$WC_BYTES.txt
[ -s "$TEXT" ] || { "$BIN/gen_text" -s 1 "$WC_BYTES" >"$TEXT.tmp" && mv "$TEXT.tmp" "$TEXT"; } || exit 1

log() { echo "ui_overhead: $*" >&2; }
median() { sort -g | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]; else print ""}'; }

# one SIDE NAME COMMAND...: runs COMMAND with the UI on or off; its output in $TMP/ui-NAME-SIDE.out
one() {
    local side=$1 name=$2
    shift 2
    local enabled=true
    [ "$side" = off ] && enabled=false
    "$BIN/peak_rss" -o "$TMP/ui-$name-$side.stats" "$SUBMIT" --conf spark.ui.enabled=$enabled \
        --conf spark.ui.port=0 "$@" >"$TMP/ui-$name-$side.out" 2>"$TMP/ui-$name-$side.err" ||
        { log "$name ($side) failed: $(tail -3 "$TMP/ui-$name-$side.err")"; return 1; }
}

rm -f "$TMP"/ui-*.vals "$TMP"/ui-*.stats
for rep in $(seq "$REPS"); do
    log "round $rep of $REPS"
    # alternate which side goes first
    sides="off on"
    [ $((rep % 2)) -eq 0 ] && sides="on off"
    for side in $sides; do
        one "$side" wc --master 'local[2]' "$EX/wordcount.so" "$TEXT" "$TMP/ui-wc-$side" || exit 1
        rm -rf "$TMP/ui-wc-$side"
        grep -o 'elapsed_s=[0-9.]*' "$TMP/ui-wc-$side.stats" | tail -1 | cut -d= -f2 >>"$TMP/ui-wc-$side.vals"
        one "$side" et --master 'local[2]' "$EX/emptytasks.so" "$TASKS" || exit 1
        grep -o 'tasks in [0-9.]*' "$TMP/ui-et-$side.out" | awk '{print $3}' >>"$TMP/ui-et-$side.vals"
        # a tiny job's median latency moves by +-15% from one run to the next (wake-ups on 2
        # cores): TJ_RUNS runs per round, so its median comes from 3 x REPS runs a side
        for _ in $(seq "$TJ_RUNS"); do
            one "$side" tj --master 'local[2]' "$EX/tinyjobs.so" "$JOBS" || exit 1
            grep -o 'median [0-9]*' "$TMP/ui-tj-$side.out" | awk '{print $2}' >>"$TMP/ui-tj-$side.vals"
        done
        one "$side" rpc --master 'local-cluster[2,1,1024]' "$EX/emptytasks.so" "$RPC_TASKS" || exit 1
        grep -o 'tasks in [0-9.]*' "$TMP/ui-rpc-$side.out" | awk '{print $3}' >>"$TMP/ui-rpc-$side.vals"
    done
done

m() { median <"$TMP/ui-$1-$2.vals"; }
# cpu NAME SIDE: median CPU seconds of the runs (local-cluster: the driver only)
cpu() { grep -o 'cpu_s=[0-9.]*' "$TMP/ui-$1-$2.stats" | cut -d= -f2 | median; }
# ratio ON OFF: on / off for times (above 1: the UI costs that much)
pct() { awk -v on="$1" -v off="$2" 'BEGIN{ if (on == "" || off == "" || off == 0) print "—"; else printf "%+.1f%%", (on / off - 1) * 100 }'; }
wc_off=$(m wc off) wc_on=$(m wc on)
et_off=$(m et off) et_on=$(m et on)
tj_off=$(m tj off) tj_on=$(m tj on)
rpc_off=$(m rpc off) rpc_on=$(m rpc on)
MB=$(awk -v b="$WC_BYTES" 'BEGIN{printf "%.0f", b / 1e6}')
{
    echo "# cspark: the web UI's cost"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs, median of $REPS alternating runs per side."
    echo "Tiny jobs: the median over $((TJ_RUNS * REPS)) runs a side of each run's median latency."
    echo "Change = UI on / UI off - 1 (positive: slower with the UI; for rates, the time per task)."
    echo "CPU = the driver process's user + system time, start-up included (the UI server's start is"
    echo "a fixed cost of a few milliseconds, visible on the short tiny-jobs runs)."
    echo
    echo "| workload | UI off | UI on | change | CPU off | CPU on | CPU change |"
    echo "|---|---|---|---|---|---|---|"
    c() { echo "$(cpu "$1" off) $(cpu "$1" on) $(pct "$(cpu "$1" on)" "$(cpu "$1" off)")"; }
    read -r c1 c2 c3 <<<"$(c wc)"
    awk -v a="$wc_off" -v b="$wc_on" -v p="$(pct "$wc_on" "$wc_off")" -v mb="$MB" -v c1="$c1" -v c2="$c2" -v c3="$c3" \
        'BEGIN{printf "| word count %s MB, local[2] | %.3f s | %.3f s | %s | %.3f s | %.3f s | %s |\n", mb, a, b, p, c1, c2, c3}'
    read -r c1 c2 c3 <<<"$(c et)"
    awk -v a="$et_off" -v b="$et_on" -v n="$TASKS" -v p="$(pct "$et_on" "$et_off")" -v c1="$c1" -v c2="$c2" -v c3="$c3" \
        'BEGIN{printf "| %d empty tasks, local[2] | %.0f tasks/s | %.0f tasks/s | %s | %.3f s | %.3f s | %s |\n", n, n / a, n / b, p, c1, c2, c3}'
    read -r c1 c2 c3 <<<"$(c tj)"
    awk -v a="$tj_off" -v b="$tj_on" -v n="$JOBS" -v p="$(pct "$tj_on" "$tj_off")" -v c1="$c1" -v c2="$c2" -v c3="$c3" \
        'BEGIN{printf "| %d tiny jobs, median latency, local[2] | %.3f ms | %.3f ms | %s | %.3f s | %.3f s | %s |\n", n, a / 1000, b / 1000, p, c1, c2, c3}'
    read -r c1 c2 c3 <<<"$(c rpc)"
    awk -v a="$rpc_off" -v b="$rpc_on" -v n="$RPC_TASKS" -v p="$(pct "$rpc_on" "$rpc_off")" -v c1="$c1" -v c2="$c2" -v c3="$c3" \
        'BEGIN{printf "| %d empty tasks over RPC, local-cluster[2,1,1024] | %.0f tasks/s | %.0f tasks/s | %s | %.3f s | %.3f s | %s |\n", n, n / a, n / b, p, c1, c2, c3}'
    echo
    echo "Load average while it ran: $(cut -d' ' -f1-3 /proc/loadavg) (a shared machine: wall-clock changes are noisy; CPU time is the cost)."
} >"$OUT"
cat "$OUT"
