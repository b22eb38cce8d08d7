#!/usr/bin/env bash
# bench/s3_bench.sh — reading 1 GB from the S3 server of the tests (versitygw on loopback, started
# here as scripts/s3-run does): cspark's s3a reader (bench/s3_read: src/fs's reader over a split,
# 1 MiB reads into the caller's buffer, as a text_file task reads) against `curl` downloading the
# same object from the same server over the same plain http, all alternating in the same minutes;
# medians of BENCH_REPS (default 9) runs. The reference is the better of two curl invocations
# (curl 7.88's command line, 100 KiB receive buffer, SigV4-signed, body to /dev/null):
#   - one GET of the whole object (the server sends it with sendfile: no copy on its side);
#   - --parallel, two ranged GETs of the halves (ranged GETs are read and written by the server).
# cspark reads with 1 thread (one split of 1 GB) and with 2 threads (two splits, as local[2]).
# The machine's load average before and after is part of the result: the server, the reader and
# anything else running share the CPUs. Writes bench/results/s3.md. Not part of CI.
# usage: bench/s3_bench.sh [BUILD_DIR]   (BENCH_S3_BYTES shrinks the object for a smoke run)
#
# Recorded (2 cores, shared; the figures move with the load, so compare rows of one run). Ratios
# to the best curl, `bench/s3_bench.sh` with BENCH_REPS=9, 2026-11-25, runs alternating
# before/after within minutes:
#   before (reader of a89152d; its own run that day, old script: 0.60x and 0.62x of one GET):
#     load 0.1-0.5: 1 split 0.57x, 2 splits 0.83x    load 1.0-2.4: 0.75x, 0.72x
#     load 2.4-3.7: 0.83x, 0.92x                     load 4.2-4.7: 0.90x, 0.91x
#   after (one GET per split while the store keeps ahead, pooled chunks, direct copy):
#     load 0.6-1.0: 1 split 0.98x, 2 splits 0.99x    load 2.2-2.3: 0.84x, 0.84x
#     load 1.3-1.4: 0.84x, 0.93x                     load 2.3: 0.96x, 1.01x
#     load 3.6-4.4: 1.04x, 1.09x
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "s3_bench: no build dir" >&2; exit 2; }
BYTES=${BENCH_S3_BYTES:-1073741824}
REPS=${BENCH_REPS:-9}
. "$SRC/tests/s3/lib/s3.sh"
T=$(mktemp -d)
trap 's3_server_stop; rm -rf "$T"' EXIT
s3_server_start "$BUILD" || exit 2
s3_mb bench || exit 2
head -c "$BYTES" /dev/urandom >"$T/obj" && s3_put "$T/obj" bench/obj || { echo "upload failed" >&2; exit 2; }
rm -f "$T/obj"
half=$((BYTES / 2))
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for i in $(seq 1 "$REPS"); do
    s3_curl GET bench/obj -o /dev/null -w '%{time_total}\n' >>"$T/curl1" || exit 1
    # --parallel: one time for the two transfers, from the start to the last byte
    s=$(date +%s.%N)
    s3_curl GET bench/obj --parallel -r "0-$((half - 1))" -o /dev/null "$AWS_ENDPOINT_URL/bench/obj" \
        -r "$half-" -o /dev/null || exit 1
    echo "$(date +%s.%N) - $s" | bc >>"$T/curl2"
    "$BUILD/bin/s3_read" s3a://bench/obj "$BYTES" 1 >>"$T/cs1" || exit 1
    "$BUILD/bin/s3_read" s3a://bench/obj "$BYTES" 2 >>"$T/cs2" || exit 1
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
c1=$(median <"$T/curl1"); c2=$(median <"$T/curl2"); a=$(median <"$T/cs1"); b=$(median <"$T/cs2")
ref=$(awk -v x="$c1" -v y="$c2" 'BEGIN { print (x < y) ? x : y }')
mb=$(awk -v n="$BYTES" 'BEGIN { print n / 1048576 }')
row() { # NAME SECONDS
    printf '| %s | %.3f | %.0f | %.2f |\n' "$1" "$2" "$(awk -v m="$mb" -v s="$2" 'BEGIN { print m / s }')" \
        "$(awk -v x="$ref" -v y="$2" 'BEGIN { print x / y }')"
}
out=$(
    cat <<MD
# Reading $mb MiB from the S3 server (versitygw on loopback), medians of $REPS alternating runs

| reader | seconds | MiB/s | vs best curl |
|---|---|---|---|
$(row "curl, one GET to /dev/null" "$c1")
$(row "curl --parallel, two ranged GETs (halves)" "$c2")
$(row "cspark s3a reader, 1 split" "$a")
$(row "cspark s3a reader, 2 splits (2 threads)" "$b")

Command: \`bench/s3_bench.sh\` (BENCH_REPS=$REPS) on $(nproc) cores, $(date -u +%Y-%m-%d); load
average $load_before before, $load_after after.
MD
)
echo "$out"
[ "$BYTES" = 1073741824 ] && echo "$out" >"$SRC/bench/results/s3.md"
exit 0
