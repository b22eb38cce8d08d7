#!/usr/bin/env bash
# user_exit_in_task.sh — a user function that ends the process (issue 10 item 19): exit(0),
# exit(3) and abort() inside a task used to end local mode with status 0/3/134, no message and
# the local directory left behind. Now the task and function are named on the last line, the
# status is non-zero, and neither the local directory nor the half-written output stays; in
# local-cluster the executor reports it and the job fails naming the executor's exit.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp" # the runs' local directories go here: it must be empty afterwards
JOBS=$BUILD/tests/jobs/badjobs.so
need "$JOBS"
SUBMIT_OPTS=(--conf spark.ui.enabled=false --class exit_in_task)

left_behind() { find "$T/tmp" -mindepth 1 | head -3; }

check_local() { # HOW EXPECTED_RC PATTERN
    local how=$1 want_rc=$2 pattern=$3 rc=0
    run_submit 'local[2]' "$JOBS" "$how" "$T/tmp/out" || rc=$?
    assert_eq "$rc" "$want_rc" "local[2] $how: exit status"
    local last
    last=$(tail -1 "$T/stderr")
    [[ "$last" == *"$pattern"* ]] || fail "local[2] $how: expected '$pattern' on the last line, got: $last"
    [[ "$last" == *"task "*"(stage 0.0, partition 1, attempt 0) in function 'end_process'"* ]] ||
        fail "local[2] $how: the task and function are not named: $last"
    grep -q "not reached" "$T/stdout" && fail "local[2] $how: the job went on"
    [ -z "$(left_behind)" ] || fail "local[2] $how: left behind: $(left_behind)"
}
check_local 0 1 "ended the process with exit(0)"
check_local 3 3 "ended the process with exit(3)"
check_local abort 134 "crashed with SIGABRT in task"

# local-cluster: the executor dies, the job fails with a reason, nothing stays
rc=0
run_submit 'local-cluster[1,1,256]' "$JOBS" 0 || rc=$?
[ "$rc" -ne 0 ] || fail "local-cluster exit(0): exited 0"
grep -q "in function 'end_process' ended the process with exit(0)" "$T/stderr" ||
    fail "local-cluster exit(0): the executor did not name the task: $(tail -3 "$T/stderr")"
tail -1 "$T/stderr" | grep -q "^cspark-submit: .*Command exited with code 1 " ||
    fail "local-cluster exit(0): last line: $(tail -1 "$T/stderr")"
[ -z "$(left_behind)" ] || fail "local-cluster exit(0): left behind: $(left_behind)"
echo "PASS: $TEST_NAME"
