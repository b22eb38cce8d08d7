#!/usr/bin/env bash
# shuffle_bitflip_between_jobs.sh — issue 10 item 15: one flipped bit in a shuffle_*.data file
# between two jobs gave `keys=173613 total=-9223372036852007078` instead of `keys=173609
# total=2768730`, exit 0 (the second job reuses the first one's map outputs and read the damaged
# block as records). testjobs.so bitflip_between_jobs runs a word count, flips one bit of the
# largest map output between its two jobs, and prints the counts of the second: they must be
# exact (equal to awk's count of the same text), the damage must have been detected (a checksum
# mismatch) and the map output recomputed (a FetchFailed resubmission) — in local[2] and in
# local-cluster (executors' files live under the driver's spark.local.dir), with
# spark.shuffle.compress false (the flipped bit is a count's) and true.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS" "$BIN/gen_text"
"$BIN/gen_text" -s 17 3000000 >"$T/text.txt"
want=$(awk '{ for (i = 1; i <= NF; i++) { c[$i]++; n++ } } END { print "keys=" length(c) " total=" n }' "$T/text.txt")

check() { # MASTER COMPRESS WHERE
    local name="$1 compress=$2 $3" dir
    dir=$(mktemp -d "$T/local.XXXXXX")
    out=$("$SUBMIT" --master "$1" --conf spark.local.dir="$dir" --conf spark.shuffle.compress="$2" \
        --class bitflip_between_jobs "$JOBS" "$T/text.txt" "$dir" "$3" 2>"$T/err") ||
        fail "$name: exit non-zero: $(tail -3 "$T/err")"
    grep -q "bitflip_between_jobs: flipped" "$T/err" || fail "$name: no bit was flipped"
    assert_eq "$want" "$out" "$name: counts after the flip"
    grep -q "checksum mismatch" "$T/err" || fail "$name: the damaged block was not detected"
    grep -q 'event=resubmit reason="FetchFailed(shuffle 0, map' "$T/err" ||
        fail "$name: the damaged map output was not recomputed"
}

check 'local[2]' false last
check 'local[2]' true middle
check 'local-cluster[2,1,512]' false last
check 'local-cluster[2,1,512]' true middle
echo "PASS shuffle_bitflip_between_jobs"
