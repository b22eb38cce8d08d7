# fault.sh — helpers for the fault-injection suites (sourced after tests/lib/prelude.sh).
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

# start_slow_job MS [OPTION...]: starts testjobs.so's `slow` job (16 records in 8 partitions, MS
# ms each) in local-cluster[2,1,1024] in the background with OPTIONs for cspark-submit, stdout in
# $T/out and stderr in $T/err; sets JOBS and pid (the driver) and returns once its stage was
# submitted (the executors have registered). The driver is killed when the test exits (it may be
# stopped: it is continued first).
start_slow_job() {
    local ms=$1
    shift
    JOBS=$BUILD/tests/jobs/testjobs.so
    need "$BIN/cspark-executor" "$JOBS"
    "$SUBMIT" --master 'local-cluster[2,1,1024]' "$@" --class slow "$JOBS" "$ms" >"$T/out" 2>"$T/err" &
    pid=$!
    trap 'kill -CONT $pid 2>/dev/null; kill $pid 2>/dev/null; _lib_cleanup' EXIT
    wait_for_log "$T/err" "event=submitted" 60
}

# finish_slow_job WHAT: waits (bounded) for the job started by start_slow_job and checks it
# succeeded with the right count; WHAT says under which circumstances, for the messages.
finish_slow_job() {
    timeout 300 tail --pid=$pid -f /dev/null || fail "the job hangs $1"
    local rc=0
    wait $pid || rc=$?
    [ $rc -eq 0 ] || { tail -5 "$T/err" >&2; fail "the job failed with $rc $1"; }
    assert_eq "count=16" "$(cat "$T/out")" "job result $1"
}
