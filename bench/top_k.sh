#!/usr/bin/env bash
# bench/top_k.sh — top(k) with a bounded heap per task against a full sort (sort_by_key
# descending + take k) over N generated records (examples/topk.so: 8-byte hashed keys, 24-byte
# values), with count as the baseline (generating the records and nothing else). Reports the
# median wall-clock time and peak RSS (bench/peak_rss: the driver process, whose task threads do
# all the work in local mode) of BENCH_REPS (3) runs each, checks that top and sort return the same
# keys, and saves a Markdown table to bench/results/top_k.md. Not part of CI.
#
# usage: bench/top_k.sh [BUILD_DIR]   (BENCH_N: records, default 10000000; BENCH_MASTER: local[2])
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "top_k: no build dir ${1:-build}" >&2; exit 2; }
BIN=$BUILD/bin
APP=$BUILD/examples/topk.so
N=${BENCH_N:-10000000}
REPS=${BENCH_REPS:-3}
MASTER=${BENCH_MASTER:-local[2]}
OUT=$SRC/bench/results/top_k.md
[ -n "${BENCH_N:-}" ] && OUT=$SRC/bench/results/tmp/top_k-smoke.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$(dirname "$OUT")"

median() { sort -g | awk '{v[NR]=$1} END{if (NR) print v[int((NR+1)/2)]}'; }

# run LABEL MODE N K: REPS runs; prints "LABEL|N|K|time s|RSS MiB"
run() {
    local label=$1 mode=$2 n=$3 k=$4 i
    : >"$TMP/$label.m"
    for i in $(seq "$REPS"); do
        "$BIN/peak_rss" -o "$TMP/$label.m" "$BIN/cspark-submit" --master "$MASTER" \
            --conf spark.ui.enabled=false "$APP" "$mode" "$n" "$k" \
            >"$TMP/$label.out" 2>"$TMP/$label.err" || { tail -3 "$TMP/$label.err" >&2; exit 1; }
    done
    local t rss
    t=$(sed 's/.*elapsed_s=\([0-9.]*\).*/\1/' "$TMP/$label.m" | median)
    rss=$(sed 's/.*maxrss_kb=\([0-9]*\).*/\1/' "$TMP/$label.m" | median)
    printf '%s|%s|%s|%.2f|%.0f\n' "$label" "$n" "$k" "$t" "$(echo "$rss / 1024" | bc -l)"
}

{
    run count count "$N" 0
    run top top "$N" 10
    run sort sort "$N" 10
    run top-10k top "$N" 10000
    run top-n_10 top $((N / 10)) 10
    run sort-n_10 sort $((N / 10)) 10
} >"$TMP/rows" || exit 1
head -n 10 "$TMP/top.out" >"$TMP/top.keys"
head -n 10 "$TMP/sort.out" >"$TMP/sort.keys"
cmp -s "$TMP/top.keys" "$TMP/sort.keys" || { echo "top_k: top and sort differ" >&2; exit 1; }

get() { awk -F'|' -v l="$1" -v c="$2" '$1 == l { print $c }' "$TMP/rows"; }
{
    echo "# top(k) vs a full sort ($(date -u +%Y-%m-%d), $(nproc) cores, $MASTER, bench/top_k.sh)"
    echo
    echo "Median of $REPS runs; time is the whole cspark-submit process, RSS its peak (the tasks"
    echo "run in the driver process in local mode). Records: 8-byte hashed key + 24-byte value,"
    echo "generated in the tasks (examples/topk.so)."
    echo
    echo "| job | records | k | time (s) | peak RSS (MiB) |"
    echo "|---|---|---|---|---|"
    awk -F'|' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$TMP/rows"
    echo
    printf 'top(10) vs sort_by_key + take(10) over %s records: %.1fx faster, %.1fx less peak RSS;\n' \
        "$N" "$(echo "$(get sort 4) / $(get top 4)" | bc -l)" "$(echo "$(get sort 5) / $(get top 5)" | bc -l)"
    printf 'top(10) RSS over count (the records streamed, nothing kept): %+d MiB.\n' \
        "$(( $(get top 5) - $(get count 5) ))"
} | tee "$OUT"
