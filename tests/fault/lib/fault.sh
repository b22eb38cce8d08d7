# fault.sh — helpers for the fault-injection suites (sourced after tests/integration/lib.sh).
# executor_pids SUBMIT_PID: pids of the cspark-executor children of a running cspark-submit.
executor_pids() {
    pgrep -P "$1" -f cspark-executor || true
}

# wait_for_log FILE PATTERN SECONDS: waits until PATTERN appears in FILE (fails after SECONDS).
wait_for_log() {
    local file=$1 pattern=$2 limit=$(($3 * 20)) i=0
    until grep -q -- "$pattern" "$file" 2>/dev/null; do
        i=$((i + 1))
        [ $i -le $limit ] || fail "timed out waiting for '$pattern' in $file"
        sleep 0.05
    done
}
