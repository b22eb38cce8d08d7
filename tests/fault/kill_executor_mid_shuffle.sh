#!/usr/bin/env bash
# kill_executor_mid_shuffle.sh — issue 10 item 17: after `kill -9` of an executor while the reduce
# stage fetched its map outputs, every reduce task of that stage attempt kept retrying the dead
# executor (spark.shuffle.io.maxRetries x retryWait, 3 x 5 s each, on 2 slots): a 1 GB sort took
# 139-226 s instead of 4.7 s. Now the driver tells the live executors the executor is lost
# (RemoveExecutor), their fetches from it fail at once, and the stage attempt that read its
# outputs is superseded at once: the lost map outputs are recomputed and the stage runs again.
# The sort (default retry settings) must give the same output as local[2], and the log must show
# that path: the survivor dropped the peer, the reduce stage was resubmitted for the executor's
# loss, and no fetch ran out of retries. The kill comes while both executors hold a reduce task
# (testjobs' gated_sort holds them at a gate file), never after the stage ended. The cost is measured by bench/kill_executor.sh.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
need "$BIN/cspark-executor" "$EX/sort.so"
"$BIN/gen_records" -s 23 1500000 >"$T/records.txt"
# 24 map and 24 reduce tasks on 2 slots: reduce tasks still start (and fetch) after the kill
OPTS=(--conf spark.default.parallelism=24)
submit_ok 'local[2]' "$EX/sort.so" "$T/records.txt" "$T/ref"
cat_parts "$T/ref" | md5sum >"$T/ref.md5"

JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS"
# the reduce tasks wait for $T/gate: both executors hold one when executor 1 is killed, and the
# gate opens once the driver has seen the loss
"$SUBMIT" --master 'local-cluster[2,1,1024]' "${OPTS[@]}" --class gated_sort "$JOBS" \
    "$T/records.txt" "$T/out" "$T/gate" >/dev/null 2>"$T/err" &
job=$!
trap 'kill $job 2>/dev/null; _lib_cleanup' EXIT
pid=
for _ in $(seq 2400); do # 120 s
    pid=$(grep -o 'event=executor_started executor=1 pid=[0-9]*' "$T/err" | head -1 | sed 's/.*pid=//')
    [ -n "$pid" ] && [ -e "$T/gate.waiting.$pid" ] && [ "$(ls "$T" | grep -c '^gate\.waiting\.')" -ge 2 ] && break
    kill -0 $job 2>/dev/null || fail "the job ended before its reduce tasks ran: $(tail -3 "$T/err")"
    sleep 0.05
done
[ -n "$pid" ] && [ -e "$T/gate.waiting.$pid" ] || fail "executor 1 never ran a reduce task"
kill -9 "$pid"
wait_for_log "$T/err" 'event=executor_lost executor=1' 120
touch "$T/gate"
rc=0
wait $job || rc=$?
[ $rc -eq 0 ] || fail "the sort failed after the kill (exit $rc): $(tail -3 "$T/err")"
cat_parts "$T/out" | md5sum | cmp -s - "$T/ref.md5" || fail "the output differs from local[2]"
grep -q 'event=executor_lost executor=1' "$T/err" || fail "executor 1 was not lost"
grep -q 'block-fetcher event=peer_lost executor=1' "$T/err" || fail "the surviving executor was not told"
grep -q 'event=resubmit reason="ExecutorLost(executor 1' "$T/err" ||
    fail "the reduce stage was not resubmitted for the loss: $(grep 'event=resubmit' "$T/err" | head -2)"
grep -q 'after [0-9]* retries' "$T/err" && fail "a fetch waited out its retries: $(grep -m1 'after [0-9]* retries' "$T/err")"
echo "PASS kill_executor_mid_shuffle"
