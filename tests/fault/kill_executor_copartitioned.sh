#!/usr/bin/env bash
# kill_executor_copartitioned.sh — SIGKILL an executor in the middle of an iterative join that
# reads a cached, partition_by-ed side narrowly (tests/jobs/copartition.so "partitioned", issue
# 20 item 10), in local-cluster[2,1,1024]: the lost executor takes cached partitions of links and
# map outputs of links' one shuffle (partition_by's, written by the first job) and of ranks' with
# it, so the next join's tasks recompute the missing links partitions from lineage and the
# scheduler recomputes the lost map outputs. Each run kills a seeded random executor right after
# iteration K (1, 2, 3) ends, while the driver waits at the job's gate (COPARTITION_GATE) until
# it has seen the executor lost, so the loss always falls between two of the job's iterations
# (without the gate, a loaded machine let the job finish before the kill); every run must finish
# within its bound with ranks identical to a fault-free local[2] run.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOB=$BUILD/tests/jobs/copartition.so
need "$BIN/cspark-executor" "$JOB"
RANDOM=${FAULT_SEED:-2020}
PAGES=30000 ITERS=6 PARTS=4
LC='local-cluster[2,1,1024]'
SUBMIT_OPTS=(--conf spark.shuffle.io.retryWait=50ms --conf spark.shuffle.io.maxRetries=1)

submit_ok 'local[2]' --class iterate "$JOB" partitioned $PAGES $ITERS $PARTS "$T/ref"
cat_parts "$T/ref" | sort >"$T/ref.txt"
assert_eq "$(wc -l <"$T/ref.txt")" $PAGES "reference ranks"

hits=0
for after in 1 2 3; do
    out=$T/run-$after
    COPARTITION_PAUSE_AFTER=$after COPARTITION_GATE=$T/gate-$after \
        "$SUBMIT" --master "$LC" "${SUBMIT_OPTS[@]}" --class iterate "$JOB" partitioned $PAGES $ITERS \
        $PARTS "$out" >"$out.stdout" 2>"$out.stderr" &
    pid=$!
    trap 'kill $pid 2>/dev/null; _lib_cleanup' EXIT # a failed check leaves no job at its gate
    wait_for_log "$out.stderr" "copartition: iteration $after done" 120
    mapfile -t execs < <(executor_pids $pid)
    [ ${#execs[@]} -gt 0 ] || fail "after iteration $after: no executor to kill"
    victim=${execs[$((RANDOM % ${#execs[@]}))]}
    kill -9 "$victim" 2>/dev/null || true
    wait_for_log "$out.stderr" "event=executor_lost" 120
    touch "$T/gate-$after"
    rc=0
    timeout 300 tail --pid=$pid -f /dev/null || fail "kill after iteration $after: the job hangs"
    wait $pid || rc=$?
    [ $rc -eq 0 ] || {
        tail -5 "$out.stderr" >&2
        fail "kill after iteration $after (victim $victim): the job failed with $rc"
    }
    cat_parts "$out" | sort >"$out.txt"
    assert_files_eq "$out.txt" "$T/ref.txt" "ranks after a kill after iteration $after"
    if grep -q "event=executor_lost" "$out.stderr"; then hits=$((hits + 1)); fi
    log "kill after iteration $after: victim $victim, executor_lost seen:" \
        "$(grep -c 'event=executor_lost' "$out.stderr"), resubmitted stages:" \
        "$(grep -c 'event=resubmit' "$out.stderr")"
done
[ $hits -eq 3 ] || fail "only $hits of 3 runs saw the executor lost mid-job"
echo "PASS: $TEST_NAME"
