#!/usr/bin/env bash
# crash_report_names_process.sh — a crash report named the wrong process and blamed cspark
# (issue 20 item 8): a SIGSEGV in the job's own code on the driver printed "cspark executor
# crashed ... in cspark itself". Now the report names the process (driver, executor N), says the
# fault is in the application's code with the function from the .so (a fault inside libc that
# the job's code called names that caller too), is the last line of stderr and ends with a
# newline.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/crashjobs.so
need "$JOBS" "$BUILD/tests/jobs/testjobs.so" "$BIN/cspark-executor"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

# crash CLASS MASTER PATTERN: the run fails (status in CRASH_RC) with PATTERN on stderr's last
# report line
crash() {
    local class=$1 master=$2 pattern=$3
    CRASH_RC=0
    run_submit "$master" --class "$class" "$JOBS" || CRASH_RC=$?
    [ "$CRASH_RC" -ne 0 ] || fail "$class on $master: exited 0"
    grep -q "not reached" "$T/stdout" && fail "$class on $master: the job went on"
    local last
    last=$(grep -v '^\(INFO\|WARN\|DEBUG\) ' "$T/stderr" | grep . | tail -1)
    [[ "$last" == *$pattern* ]] || fail "$class on $master: expected '$pattern', got: $last"
    [[ "$last" != *"cspark itself"* ]] || fail "$class on $master: blames cspark: $last"
    [ "$(tail -c 1 "$T/stderr" | od -An -c | tr -d ' ')" == '\n' ] ||
        fail "$class on $master: stderr does not end with a newline"
}

crash segv_in_driver 'local[2]' \
    "ERROR cspark driver crashed with SIGSEGV outside any task; the fault is in the application's code, at 'deref_null_in_driver' (+0x"
grep "ERROR cspark driver crashed" "$T/stderr" | grep -q "in crashjobs.so" || fail "the .so is not named"
assert_eq "$CRASH_RC" 139 "segv_in_driver: the process still ends by SIGSEGV (128+11)"

crash libc_fault_from_driver 'local[2]' \
    "ERROR cspark driver crashed with SIGSEGV outside any task; the fault is in the application's code: at "
grep "ERROR cspark driver crashed" "$T/stderr" | grep -q "called from 'bad_strlen_in_driver' (+0x[0-9a-f]*) in crashjobs.so" ||
    fail "libc_fault_from_driver: the caller in the job is not named: $(tail -1 "$T/stderr")"

# a crash in a task (testjobs.so's segv: crash_here dereferences NULL in partition 1)
JOBS=$BUILD/tests/jobs/testjobs.so
crash segv 'local[2]' \
    "ERROR cspark driver crashed with SIGSEGV in task"
grep "ERROR cspark driver crashed" "$T/stderr" |
    grep -q "in function 'crash_here'; the fault is in the application's code, at 'crash_here' (+0x[0-9a-f]*) in testjobs.so" ||
    fail "segv in a task (local): $(tail -1 "$T/stderr")"

# an executor's report names the executor; the driver fails the job
rc=0
run_submit 'local-cluster[1,1,256]' --class segv "$JOBS" || rc=$?
[ "$rc" -ne 0 ] || fail "segv on local-cluster: exited 0"
grep -q "ERROR cspark executor [0-9][0-9]* crashed with SIGSEGV in task .* in function 'crash_here'; the fault is in the application's code, at 'crash_here'" "$T/stderr" ||
    fail "segv on local-cluster: no executor report: $(grep -i crash "$T/stderr" | head -3)"
[ -z "$(find "$T/tmp" -mindepth 1 | head -3)" ] || fail "left behind: $(find "$T/tmp" -mindepth 1 | head -3)"
echo "PASS: $TEST_NAME"
