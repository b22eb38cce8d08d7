#!/usr/bin/env bash
# bench/s3_bench.sh — reading 1 GB from the S3 server of the tests: cspark's s3a reader (ranged
# GETs in parallel blocks, as a text_file task reads its split; bench/s3_read) against `curl`
# downloading the same object to /dev/null, alternating runs in the same minutes; medians of
# BENCH_REPS (default 5) and their ratio. cspark reads with 1 thread (one split of 1 GB) and with
# 2 threads (two splits, as local[2]). Writes bench/results/s3.md. Not part of CI.
# usage: bench/s3_bench.sh [BUILD_DIR]   (BENCH_S3_BYTES shrinks the object for a smoke run)
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "s3_bench: no build dir" >&2; exit 2; }
BYTES=${BENCH_S3_BYTES:-1073741824}
REPS=${BENCH_REPS:-5}
. "$SRC/tests/s3/lib/s3.sh"
T=$(mktemp -d)
trap 's3_server_stop; rm -rf "$T"' EXIT
s3_server_start "$BUILD" || exit 2
s3_mb bench || exit 2
head -c "$BYTES" /dev/urandom >"$T/obj" && s3_put "$T/obj" bench/obj || { echo "upload failed" >&2; exit 2; }
rm -f "$T/obj"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for i in $(seq 1 "$REPS"); do
    s3_curl GET bench/obj -o /dev/null -w '%{time_total}\n' >>"$T/curl"
    "$BUILD/bin/s3_read" s3a://bench/obj "$BYTES" 1 >>"$T/cs1" || exit 1
    "$BUILD/bin/s3_read" s3a://bench/obj "$BYTES" 2 >>"$T/cs2" || exit 1
done
c=$(median <"$T/curl"); a=$(median <"$T/cs1"); b=$(median <"$T/cs2")
mb=$(awk -v n="$BYTES" 'BEGIN { print n / 1048576 }')
out=$(cat <<MD
# Reading $mb MiB from the S3 server (versitygw on loopback), medians of $REPS alternating runs

| reader | seconds | MiB/s | vs curl |
|---|---|---|---|
| curl (one GET to /dev/null) | $c | $(awk -v m="$mb" -v s="$c" 'BEGIN { printf "%.0f", m / s }') | 1.00 |
| cspark s3a reader, 1 split | $a | $(awk -v m="$mb" -v s="$a" 'BEGIN { printf "%.0f", m / s }') | $(awk -v x="$c" -v y="$a" 'BEGIN { printf "%.2f", x / y }') |
| cspark s3a reader, 2 splits | $b | $(awk -v m="$mb" -v s="$b" 'BEGIN { printf "%.0f", m / s }') | $(awk -v x="$c" -v y="$b" 'BEGIN { printf "%.2f", x / y }') |

Command: \`bench/s3_bench.sh\` (BENCH_REPS=$REPS) on $(nproc) cores, $(date -u +%Y-%m-%d).
MD
)
echo "$out"
[ "$BYTES" = 1073741824 ] && echo "$out" >"$SRC/bench/results/s3.md"
exit 0
