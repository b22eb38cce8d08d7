#!/usr/bin/env bash
# kill_executor.sh — SIGKILL a random executor at a random moment during word count and sort in
# local-cluster[2,1,1024], 10 seeded runs each: every run's output is identical to a fault-free
# local[2] run. Most kills land mid-job (asserted), so the recovery paths really run: lost
# tasks re-run elsewhere, lost map outputs recomputed after fetch failures, executors replaced.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
need "$BIN/cspark-executor"
RUNS=${FAULT_RUNS:-10}
RANDOM=${FAULT_SEED:-4242}
LC='local-cluster[2,1,1024]'
SUBMIT_OPTS=(--conf spark.shuffle.io.retryWait=50ms --conf spark.shuffle.io.maxRetries=1
    --conf spark.default.parallelism=6)

"$BIN/gen_text" -s 21 60000000 >"$T/text.txt"
"$BIN/gen_records" -s 22 800000 >"$T/records.txt"
submit_ok 'local[2]' "$EX/wordcount.so" "$T/text.txt" "$T/wc-ref"
cat_parts "$T/wc-ref" | sort >"$T/wc-ref.txt"
submit_ok 'local[2]' "$EX/sort.so" "$T/records.txt" "$T/sort-ref"
cat_parts "$T/sort-ref" | md5sum >"$T/sort-ref.md5"

# how long a fault-free local-cluster job runs once its executors are registered, in ms: the
# kills are spread over that window
measure() {
    "$SUBMIT" --master "$LC" "${SUBMIT_OPTS[@]}" "$EX/$1.so" "$2" "$T/measure-$1" >/dev/null 2>"$T/measure-$1.err" &
    local pid=$! start end
    wait_for_log "$T/measure-$1.err" "event=executors_registered" 60
    start=$(date +%s%N)
    wait $pid || fail "fault-free $1 run failed"
    end=$(date +%s%N)
    echo $(((end - start) / 1000000))
}

hits=0
for workload in wordcount sort; do
    input=$T/text.txt
    [ $workload = sort ] && input=$T/records.txt
    dur=$(measure $workload "$input")
    for run in $(seq 1 "$RUNS"); do
        out=$T/$workload-$run
        delay=$((RANDOM % (dur * 7 / 10 + 1)))
        "$SUBMIT" --master "$LC" "${SUBMIT_OPTS[@]}" "$EX/$workload.so" "$input" "$out" >"$out.stdout" 2>"$out.stderr" &
        pid=$!
        wait_for_log "$out.stderr" "event=executors_registered" 60
        sleep "$(printf '0.%03d' $((delay % 1000)))"
        sleep $((delay / 1000))
        mapfile -t execs < <(executor_pids $pid)
        victim=""
        if [ ${#execs[@]} -gt 0 ]; then
            victim=${execs[$((RANDOM % ${#execs[@]}))]}
            kill -9 "$victim" 2>/dev/null || true
        fi
        rc=0
        timeout 300 tail --pid=$pid -f /dev/null || fail "$workload run $run: the job hangs"
        wait $pid || rc=$?
        [ $rc -eq 0 ] || { tail -5 "$out.stderr" >&2; fail "$workload run $run (seed delay ${delay}ms, victim $victim) failed with $rc"; }
        if [ $workload = wordcount ]; then
            cat_parts "$out" | sort >"$out.txt"
            assert_files_eq "$out.txt" "$T/wc-ref.txt" "wordcount run $run output"
        else
            cat_parts "$out" | cut -c1-10 | sort -c || fail "sort run $run: not globally sorted"
            assert_eq "$(cat_parts "$out" | sort | md5sum)" "$(cat_parts "$T/sort-ref" | sort | md5sum)" "sort run $run output"
        fi
        if grep -q "event=executor_lost" "$out.stderr"; then hits=$((hits + 1)); fi
        log "$workload run $run: delay ${delay}ms of ~${dur}ms, victim ${victim:-none}, loss seen: $(grep -c 'event=executor_lost' "$out.stderr")"
        rm -rf "$out" "$out.txt"
    done
done
# the kills must mostly land while jobs run, or this test proves nothing
[ $hits -ge $((RUNS)) ] || fail "only $hits of $((2 * RUNS)) runs lost an executor mid-job"
echo "PASS: $TEST_NAME ($hits of $((2 * RUNS)) runs recovered from a lost executor)"
