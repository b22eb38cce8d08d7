#!/usr/bin/env bash
# examples_kmeans.sh — examples/kmeans.so (cached points, centroids in the closure) against an
# independent Python implementation (bench/kmeans_ref.py): exact centroids ("%.6f") for every
# storage level on local[2], with and without the cache on local-cluster[2,1,1024], and when an
# executor is killed mid-run (after iteration 2: its cached partitions are lost and recomputed
# from the lineage); plus the usage message for bad arguments.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../fault/lib/fault.sh"
lib_init "$@"
APP=$EX/kmeans.so
need "$APP" "$BIN/cspark-executor" "$SRC/bench/gen_points.py" "$SRC/bench/kmeans_ref.py"

"$PY" "$SRC/bench/gen_points.py" 60000 6 3 5 >"$T/points.txt" || fail "gen_points failed"
"$PY" "$SRC/bench/kmeans_ref.py" "$T/points.txt" 6 8 >"$T/ref.txt" || fail "kmeans_ref failed"
[ "$(wc -l <"$T/ref.txt")" -eq 6 ] || fail "reference: $(cat "$T/ref.txt")"

for level in NONE MEMORY_ONLY MEMORY_AND_DISK DISK_ONLY; do
    submit_ok 'local[2]' "$APP" "$T/points.txt" 6 8 "$level"
    assert_files_eq "$T/stdout" "$T/ref.txt" "local[2] $level centroids"
    [ "$(grep -c 'kmeans: iteration' "$T/stderr")" -eq 8 ] || fail "local[2] $level: 8 iterations"
done
log "local[2]: every level gives the reference centroids"

LC='local-cluster[2,1,1024]'
SUBMIT_OPTS=(--conf spark.default.parallelism=4)
for level in NONE MEMORY_ONLY; do
    submit_ok "$LC" "$APP" "$T/points.txt" 6 8 "$level"
    assert_files_eq "$T/stdout" "$T/ref.txt" "local-cluster $level centroids"
done
log "local-cluster: the reference centroids with and without the cache"

# an executor killed once iteration 2 is done: its blocks are gone (the registry forgets them
# and later tasks recompute those partitions from the text file), the job ends with the same
# centroids. The driver is paused while the executor is killed, and 148 iterations (of at least
# one job each) are left then, so the kill lands mid-run however loaded the machine is.
"$PY" "$SRC/bench/gen_points.py" 3000 4 3 6 >"$T/kill-points.txt"
"$PY" "$SRC/bench/kmeans_ref.py" "$T/kill-points.txt" 4 150 >"$T/kill-ref.txt"
"$SUBMIT" --master "$LC" "${SUBMIT_OPTS[@]}" "$APP" "$T/kill-points.txt" 4 150 MEMORY_ONLY \
    >"$T/kill.out" 2>"$T/kill.err" &
pid=$!
trap 'kill -CONT $pid 2>/dev/null; kill $pid 2>/dev/null; _lib_cleanup' EXIT
wait_for_log "$T/kill.err" "kmeans: iteration 2 took" 120
kill -STOP $pid
mapfile -t execs < <(executor_pids $pid)
[ ${#execs[@]} -ge 1 ] || { kill -CONT $pid; fail "no executor to kill"; }
kill -9 "${execs[0]}"
kill -CONT $pid
timeout 300 tail --pid=$pid -f /dev/null || fail "kmeans hangs after an executor was killed"
rc=0
wait $pid || rc=$?
[ $rc -eq 0 ] || { tail -5 "$T/kill.err" >&2; fail "kmeans failed with $rc after an executor was killed"; }
assert_files_eq "$T/kill.out" "$T/kill-ref.txt" "centroids after an executor was killed"
assert_contains "$T/kill.err" "event=executor_lost" "the kill was seen"
assert_contains "$T/kill.err" "event=cached_blocks_lost" "the lost executor's blocks were forgotten"
log "an executor killed after iteration 2: same centroids"

SUBMIT_OPTS=()
rc=0
run_submit 'local[1]' "$APP" "$T/points.txt" 6 8 SOMETIMES || rc=$?
[ $rc -ne 0 ] || fail "kmeans.so with level SOMETIMES exited 0"
assert_contains "$T/stderr" "usage: kmeans.so" "usage message"
echo "PASS: $TEST_NAME"
