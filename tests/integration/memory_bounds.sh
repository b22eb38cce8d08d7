#!/usr/bin/env bash
# memory_bounds.sh — a flat_map that multiplies its input (64 records -> 640 MB) streams in
# bounded batches: the job's peak RSS stays far below the data it produces.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS" "$BIN/peak_rss"
[ "${CSPARK_SANITIZE:-0}" = 1 ] && LIMIT_KB=400000 || LIMIT_KB=150000 # sanitizers add shadow memory
"$BIN/peak_rss" -o "$T/rss" "$SUBMIT" --master 'local[1]' --class expand "$JOBS" >"$T/out" 2>"$T/err" ||
    fail "expand failed: $(tail -3 "$T/err")"
assert_eq "count=6400000" "$(cat "$T/out")" "expand result"
rss=$(grep -o 'maxrss_kb=[0-9]*' "$T/rss" | cut -d= -f2)
[ "$rss" -lt "$LIMIT_KB" ] || fail "peak RSS ${rss} kB for a 640 MB flat_map (limit ${LIMIT_KB} kB): batches are not bounded"
log "peak RSS ${rss} kB"
echo "PASS: $TEST_NAME"
