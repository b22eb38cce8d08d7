#!/usr/bin/env bash
# broken_pipe.sh — a write to a peer that has gone fails with EPIPE; it never ends the process.
# libuv leaves SIGPIPE to the program, and its default action killed the driver without a word
# when it wrote to an executor that dynamic allocation had just killed (k8s_dynamic_allocation
# failed with "the application failed" and no line from the driver). The job writes to a closed
# pipe — the same signal as a reset socket — in the driver's code and in two tasks: in local
# mode both run in the driver process, on local-cluster the tasks run in executor processes.
# Before the fix each process died of SIGPIPE (exit 141, or executors lost until the job failed).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/badjobs.so
need "$JOBS"
for m in 'local[2]' 'local-cluster[2,1,256]'; do
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.task.maxFailures=1 --class broken_pipe)
    submit_ok "$m" "$JOBS"
    # and a program a task starts has SIGPIPE's default action, as from a shell (cspark's
    # handler is reset at exec; SIG_IGN would have been inherited)
    assert_eq "$(cat "$T/stdout")" "driver=EPIPE tasks=EPIPE,EPIPE children=default,default" \
        "$m: the writes' results"
done
echo "PASS: $TEST_NAME"
