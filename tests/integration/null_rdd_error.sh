#!/usr/bin/env bash
# null_rdd_error.sh — a NULL RDD given to an API function (issue 10 item 23) used to fail with
# the error text "(null)" and no line from cspark-submit; now the function is named, both in
# cspark_last_error and as cspark-submit's last line, and the exit status is non-zero.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/badjobs.so
need "$JOBS"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)
for m in 'local[2]' 'local-cluster[1,1,256]'; do
    for case in "null_rdd count" "null_rdd_chain distinct"; do
        set -- $case
        rc=0
        SUBMIT_OPTS=(--conf spark.ui.enabled=false --class "$1")
        run_submit "$m" "$JOBS" || rc=$?
        assert_eq "$rc" 1 "$m $1: exit status"
        want="$2: the RDD is NULL (the call that should have created it failed, or it was never set)"
        grep -q "(null)" "$T/stdout" "$T/stderr" && fail "$m $1: '(null)' in the output"
        assert_eq "$(cat "$T/stdout")" "rc=-1 error=$want" "$m $1: cspark_last_error"
        assert_eq "$(tail -1 "$T/stderr")" "cspark-submit: $want" "$m $1: last line"
    done
done
echo "PASS: $TEST_NAME"
