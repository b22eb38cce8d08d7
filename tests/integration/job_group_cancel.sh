#!/usr/bin/env bash
# job_group_cancel.sh — cspark_cancel_job_group from another thread of the driver (Spark's
# cancelJobGroup): a job of group "etl-42" whose task waits in the job's own code fails with
# Spark's "Job 0 cancelled part of cancelled job group etl-42"; the action returns that error;
# cancelling a group with no running job ("other") does nothing; as Spark's driver catching the
# exception, the application goes on: its next job (outside the group) runs and it exits 0; the
# event log's first JobStart carries the group's properties and its JobEnd the reason. The job: tests/jobs/jobnames.c
# (job_group_cancel), in local[2] and local-cluster[2,1,512].
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/jobnames.so
need "$JOBS" "$BIN/cspark-executor"
for master in 'local[2]' 'local-cluster[2,1,512]'; do # tasks in the driver, then in executors
    rm -rf "$T/events" "$T/gates" "$T/local"
    mkdir -p "$T/events" "$T/gates" "$T/local"
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.eventLog.enabled=true
        --conf "spark.eventLog.dir=$T/events" --conf "spark.local.dir=$T/local"
        --class job_group_cancel)
    rc=0
    SUBMIT_TIMEOUT=300 run_submit "$master" "$JOBS" "$T/gates" || rc=$?
    [ "$rc" == 0 ] || fail "$master: exit status $rc, expected 0 (124: it hung): $(tail -5 "$T/stderr")"
    assert_contains "$T/stdout" "count failed: Job 0 cancelled part of cancelled job group etl-42" \
        "$master: the action's error"
    assert_contains "$T/stdout" "after the cancel: count=4 rc=0" "$master: the next job"
    [ -e "$T/gates/started" ] || fail "$master: the task never started"
    grep -q 'scheduler job=0 event=cancelled reason="Job 0 cancelled part of cancelled job group etl-42"' \
        "$T/stderr" || fail "$master: the scheduler did not log the cancel"
    log=$T/events.json
    cat_event_log "$T"/events/* >"$log" || fail "$master: no event log"
    $PY - "$log" <<'PY' || fail "$master: event log (above)"
import json, sys
start = end = None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerJobStart" and e["Job ID"] == 0: start = e
    if e["Event"] == "SparkListenerJobEnd" and e["Job ID"] == 0: end = e
want = {"spark.jobGroup.id": "etl-42", "spark.job.description": "nightly ETL",
        "spark.job.interruptOnCancel": "true"}
ok = start and start["Properties"] == want
ok = ok and end and end["Job Result"]["Result"] == "JobFailed"
ok = ok and "part of cancelled job group etl-42" in end["Job Result"]["Exception"]["Message"]
if not ok:
    print("JobStart %r\nJobEnd %r" % (start, end), file=sys.stderr)
sys.exit(0 if ok else 1)
PY
done
echo "PASS: $TEST_NAME"
