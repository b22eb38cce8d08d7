#!/usr/bin/env bash
# bench/kill_executor.sh — what losing an executor mid-shuffle costs (issue 10 item 17); not
# part of CI.
#
# usage: bench/kill_executor.sh [BUILD_DIR]      (default: build)
#
# The 1 GB sort of bench/run.sh (examples/sort.so over 10,000,000 records of 100 bytes) on
# local-cluster[2,1,1024] (two one-core executor processes, network shuffle), run normally and
# with `kill -9` of executor 1 once the reduce stage (sort + save) has been running for
# BENCH_KILL_DELAY_MS (default 300 ms): it is fetching map outputs from both executors then.
# Runs alternate (normal, killed) BENCH_REPS times (default 3) so both medians come from the same
# minutes of a shared machine. Every output is checked: as many lines as records, keys in order,
# the same bytes as a normal run. Prints the medians, the ratio killed/normal and the target
# (at most 2x: recovery costs about one recomputation of the lost map outputs and the reduce
# tasks they feed). Exits 1 when an output is wrong or the job failed, 0 otherwise (the ratio is
# reported, not enforced: the machine's load moves it).
# Sizes: BENCH_KILL_RECORDS (default 10000000); inputs are generated under BENCH_DATA (default
# bench/data) when missing, as bench/run.sh does.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "kill_executor: no build dir ${1:-build}" >&2; exit 2; }
SUBMIT=$BUILD/bin/cspark-submit
SORT=$BUILD/examples/sort.so
DATA=${BENCH_DATA:-$SRC/bench/data}
REPS=${BENCH_REPS:-3}
RECORDS=${BENCH_KILL_RECORDS:-10000000}
DELAY_MS=${BENCH_KILL_DELAY_MS:-300}
MASTER='local-cluster[2,1,1024]'
for f in "$SUBMIT" "$SORT" "$BUILD/bin/gen_records" "$BUILD/bin/cspark-executor"; do
    [ -e "$f" ] || { echo "kill_executor: missing $f (build first)" >&2; exit 2; }
done
mkdir -p "$DATA"
IN=$DATA/records-$RECORDS.txt
if [ ! -s "$IN" ]; then
    echo "kill_executor: generating $IN" >&2
    "$BUILD/bin/gen_records" -s 3 "$RECORDS" >"$IN.tmp" && mv "$IN.tmp" "$IN" || exit 1
fi
T=$(mktemp -d)
JOB=
cleanup() {
    [ -n "$JOB" ] && kill "$JOB" 2>/dev/null && wait "$JOB" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

now() { date +%s.%N; }
median() { sort -g | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]}'; }

# check OUTDIR: RECORDS lines, keys sorted; prints a digest of the content
check() {
    local n
    n=$(cat "$1"/part-* | wc -l)
    [ "$n" -eq "$RECORDS" ] || { echo "kill_executor: $1 has $n lines, expected $RECORDS" >&2; return 1; }
    cat "$1"/part-* | cut -c1-10 | LC_ALL=C sort -c 2>/dev/null || { echo "kill_executor: $1 is not sorted" >&2; return 1; }
    cat "$1"/part-* | md5sum | cut -d' ' -f1
}

# run_once KILL: one sort; with KILL=1, executor 1 is killed mid-shuffle. Prints the seconds.
run_once() {
    local kill=$1 out=$T/out err=$T/err t0 t1 pid= rc=0
    rm -rf "$out"
    t0=$(now)
    "$SUBMIT" --master "$MASTER" --conf spark.ui.showConsoleProgress=false "$SORT" "$IN" "$out" \
        >/dev/null 2>"$err" &
    JOB=$!
    if [ "$kill" = 1 ]; then
        # the reduce stage is the sort's last: stage 2 (0 samples the keys, 1 writes map outputs)
        for _ in $(seq 6000); do
            grep -q 'stage=2 attempt=0 .*event=submitted' "$err" 2>/dev/null && break
            kill -0 "$JOB" 2>/dev/null || break
            sleep 0.01
        done
        sleep "$(awk -v ms="$DELAY_MS" 'BEGIN{print ms / 1000}')"
        pid=$(grep -o 'event=executor_started executor=1 pid=[0-9]*' "$err" | head -1 | sed 's/.*pid=//')
        [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
    fi
    wait "$JOB" || rc=$?
    JOB=
    t1=$(now)
    if [ $rc -ne 0 ]; then
        echo "kill_executor: the sort failed (exit $rc): $(tail -n 3 "$err" | tr '\n' ' ')" >&2
        return 1
    fi
    if [ "$kill" = 1 ] && ! grep -q 'event=executor_lost executor=1' "$err"; then
        echo "kill_executor: executor 1 was not lost (the job ended before the kill?)" >&2
        return 1
    fi
    [ "$kill" = 1 ] && cp "$err" "$T/last-killed.log"
    awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f\n", b - a}'
}

ok=1
ref=""
: >"$T/normal" && : >"$T/killed"
for i in $(seq "$REPS"); do
    for kill in 0 1; do
        s=$(run_once "$kill") || { ok=0; continue; }
        digest=$(check "$T/out") || { ok=0; continue; }
        [ -z "$ref" ] && ref=$digest
        [ "$digest" = "$ref" ] || { echo "kill_executor: run $i (kill=$kill) output differs" >&2; ok=0; }
        echo "$s" >>"$T/$([ "$kill" = 1 ] && echo killed || echo normal)"
        echo "kill_executor: run $i $([ "$kill" = 1 ] && echo "with kill -9" || echo normal): $s s" >&2
    done
done
normal=$(median <"$T/normal")
killed=$(median <"$T/killed")
echo "| 1 GB sort, $MASTER | normal | executor 1 killed mid-shuffle | ratio (target <= 2x) |"
echo "|---|---|---|---|"
awk -v n="$normal" -v k="$killed" -v r="$RECORDS" 'BEGIN{
    if (n == "" || k == "") { print "| " r " records | — | — | — |"; exit }
    printf "| %d records | %.2f s | %.2f s | %.2fx |\n", r, n, k, k / n }'
if [ -f "$T/last-killed.log" ]; then
    echo
    echo "last killed run: $(grep -c 'event=fetch_retry' "$T/last-killed.log") fetch retries logged," \
        "$(grep -c 'event=resubmit' "$T/last-killed.log") stage resubmissions"
fi
[ "$ok" = 1 ]
