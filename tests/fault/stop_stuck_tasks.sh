#!/usr/bin/env bash
# stop_stuck_tasks.sh — issue 10 items 6 and 18: Ctrl-C (SIGINT), SIGTERM, a double Ctrl-C and a
# job abort end the application while its tasks sleep 600 s in user code, spin forever or block
# opening a FIFO, on local[2] and local-cluster[2,1,1024]; and the entry function stuck in driver
# code is stopped too. Each run waits (bounded, 60 s) for the driver to be gone: had the stop
# waited for the tasks, it would take minutes. Then nothing may be left: no executor process, no
# cspark-local-* directory under spark.local.dir, no OUTDIR (nor its _temporary). Outcomes only.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/stopjobs.so
need "$BIN/cspark-executor" "$JOBS"
mkfifo "$T/fifo" || fail "mkfifo"

# stop_case MASTER HOW CLASS ARGS...: runs stopjobs.so's CLASS; once two of its tasks run, stops
# it by HOW (INT, TERM, INT2: two SIGINTs, abort: the job aborts by itself) and checks it is gone
# with the expected status and nothing left.
stop_case() {
    local master=$1 how=$2 cls=$3
    shift 3
    local what="$cls on $master by $how" d="$T/marks" loc="$T/local"
    rm -rf "$d" "$loc" "$T/out"
    mkdir -p "$d" "$loc"
    local opts=(--conf spark.local.dir="$loc")
    [ "$how" = abort ] && opts+=(--conf spark.task.maxFailures=1)
    "$SUBMIT" --master "$master" "${opts[@]}" --class "$cls" "$JOBS" "$d" "$@" >"$T/stdout" 2>"$T/stderr" &
    local pid=$! i
    trap 'kill -9 $pid 2>/dev/null; _lib_cleanup' EXIT
    for i in $(seq 600); do [ -e "$d/started-1" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.1; done
    [ -e "$d/started-1" ] || { tail -5 "$T/stderr" >&2; fail "$what: the tasks never started"; }
    local execs
    execs=$(executor_pids $pid)
    case $how in
    INT | TERM) kill -$how $pid ;;
    INT2) kill -INT $pid; sleep 0.3; kill -INT $pid ;;
    esac
    timeout 60 tail --pid=$pid -f /dev/null || { kill -9 $pid; fail "$what: the driver is still running 60 s after the stop"; }
    local rc=0
    wait $pid || rc=$?
    case $how in
    INT | INT2) [ $rc -eq 130 ] || fail "$what: exit status $rc, expected 130" ;;
    TERM) [ $rc -eq 143 ] || fail "$what: exit status $rc, expected 143" ;;
    abort) [ $rc -eq 1 ] && grep -q "Job aborted" "$T/stderr" || fail "$what: exit status $rc, expected 1 with the abort's reason" ;;
    esac
    for p in $execs; do
        kill -0 "$p" 2>/dev/null && { kill -9 "$p"; fail "$what: executor process $p left running"; }
    done
    [ -z "$(ls -A "$loc")" ] || fail "$what: left in spark.local.dir: $(ls -A "$loc")"
    [ ! -e "$T/out" ] || fail "$what: the output directory (or its _temporary) was left: $(find "$T/out" | head -3)"
    trap _lib_cleanup EXIT
}

for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    stop_case "$master" INT stuck
    stop_case "$master" TERM stuck_save "$T/out"
    stop_case "$master" INT2 stuck_save "$T/out"
    stop_case "$master" abort abort_stuck
    stop_case "$master" INT spin
    stop_case "$master" TERM fifo "$T/fifo" "$T/out"
    stop_case "$master" INT main_sleeps
done
echo "PASS: $TEST_NAME"
