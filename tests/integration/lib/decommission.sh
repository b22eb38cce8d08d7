# decommission.sh — decommissioning an executor in the middle of a job, for the local-cluster
# decommissioning tests (tests/integration/decommission_*.sh, tests/s3/s3a_fallback_storage.sh).
# Sourced after prelude.sh (lib_init done). The job (tests/jobs: decommission_cached,
# shuffle_gate) prints a line starting "first " after its first action and waits for a gate file
# before its second.
#
#   decom_run NAME EXEC GATE SUBMIT_ARGS...
#       runs cspark-submit SUBMIT_ARGS (stdout $T/NAME.out, stderr $T/NAME.err); once "first "
#       is printed, sends executor EXEC SIGPWR (spark.executor.decommission.signal's default),
#       waits for the driver to see it exit as expected (decommissioned), creates GATE and waits
#       for the job, which must succeed. The submit is killed if the test fails meanwhile.
DECOM_PID=
trap '[ -n "$DECOM_PID" ] && kill $DECOM_PID 2>/dev/null; _lib_cleanup' EXIT

decom_run() {
    local name=$1 exec=$2 gate=$3
    shift 3
    : >"$T/$name.out"
    : >"$T/$name.err" # before the loop below reads them: the submit may not have opened them yet
    timeout 240 "$SUBMIT" "$@" >"$T/$name.out" 2>"$T/$name.err" &
    DECOM_PID=$!
    local _
    for _ in $(seq 1800); do
        grep -q '^first ' "$T/$name.out" && break
        kill -0 $DECOM_PID 2>/dev/null || break
        sleep 0.1
    done
    grep -q '^first ' "$T/$name.out" || { tail -5 "$T/$name.err" >&2; fail "$name: the first action did not finish"; }
    local epid
    epid=$(grep -o "event=executor_started executor=$exec pid=[0-9]*" "$T/$name.err" | head -1 | sed 's/.*pid=//')
    [ -n "$epid" ] || fail "$name: the driver did not log executor $exec's pid"
    kill -PWR "$epid" || fail "$name: executor $exec (pid $epid) was gone before the signal"
    for _ in $(seq 1800); do
        grep -q "event=executor_exited executor=$exec " "$T/$name.err" && break
        kill -0 $DECOM_PID 2>/dev/null || break
        sleep 0.1
    done
    grep -q "event=executor_exited executor=$exec .*expected=true" "$T/$name.err" ||
        { tail -5 "$T/$name.err" >&2; fail "$name: executor $exec did not leave as decommissioned"; }
    touch "$gate"
    local rc=0
    wait $DECOM_PID || rc=$?
    DECOM_PID=
    [ $rc -eq 0 ] || { tail -10 "$T/$name.err" >&2; fail "$name: the job failed (exit $rc)"; }
}
