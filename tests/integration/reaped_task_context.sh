#!/usr/bin/env bash
# reaped_task_context.sh — a task the task reaper gave up on in local mode (its thread ignores the
# kill and is left running) keeps a valid task context: stopjobs.so's abort_linger fails the job
# through partition 0 while partition 1 ignores its kill; once the job has failed and the reaper
# has reported partition 1, the entry function releases it and partition 1 reads its context
# again. Before the fix the job's end freed the task's descriptor under the thread (a
# heap-use-after-free that the ASan pass reports and that otherwise yields garbage). Outcomes only:
# the ordering is made by files, not by time.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/stopjobs.so
need "$JOBS"
mkdir -p "$T/marks"
rc=0
timeout 180 "$SUBMIT" --master 'local[2]' --conf spark.task.maxFailures=1 \
    --conf spark.task.reaper.killTimeout=0s --class abort_linger "$JOBS" "$T/marks" \
    >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] || { tail -20 "$T/err" >&2; fail "abort_linger exit status $rc, expected 1 (the job fails)"; }
grep -q "Job aborted" "$T/err" || { tail -5 "$T/err" >&2; fail "no abort reason on stderr"; }
grep -q "event=task_abandoned task=[0-9]* stage=0.0 partition=1" "$T/err" ||
    { tail -20 "$T/err" >&2; fail "the reaper did not give up on partition 1"; }
grep -qx "read after abort: partition=1 stage=0 attempt=0" "$T/out" ||
    fail "the lingering task read its context wrong: $(cat "$T/out")"
if grep -q "AddressSanitizer\|runtime error" "$T/err"; then
    grep -A12 "AddressSanitizer\|runtime error" "$T/err" | head -30 >&2
    fail "a sanitizer report"
fi
echo "PASS: $TEST_NAME"
