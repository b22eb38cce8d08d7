#!/usr/bin/env bash
# concurrent_jobs.sh — jobs run from several threads of the driver at once on one context
# (Spark's jobs submitted from several threads, FIFO scheduling), in local[2] and
# local-cluster[2,1,512] (and overlap with spark.scheduler.mode=FAIR, each job in its own pool
# set with cspark_set_local_property). The job: tests/jobs/concjobs.c.
#   overlap: job B runs to its exact result while job A's task waits on a gate file the
#     application opens only after B returned; then A ends with its exact result. The event log:
#     both jobs succeeded, job 1 started before job 0 ended, every stage submitted completed and
#     every task started ended.
#   cancel_one: with a task of each of two jobs waiting, job A's group is cancelled: A's action
#     fails "Job N cancelled part of cancelled job group slow" while B still waits, then B ends
#     with its exact result (its task was not killed with A's).
#   many: four threads, five actions each over shared and their own shuffles: all 40 exact.
# Overlap is proved by what finished while what waited, never by timing.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/concjobs.so
need "$JOBS" "$BIN/cspark-executor"
pairs() { # pairs LABEL N M: "LABEL k:v ..." of what a job prints: v = count (M<0) or sum mod |M|
    $PY - "$@" <<'PY'
import sys
label, n, m = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
if m < 0:
    m = -m
    vals = [len(range(k, n, m)) for k in range(m)]
else:
    vals = [sum(range(k, n, m)) for k in range(m)]
print(label + "".join(" %d:%d" % (k, v) for k, v in enumerate(vals)))
PY
}
for run in 'local[2] FIFO' 'local-cluster[2,1,512] FIFO' 'local[2] FAIR'; do
    master=${run% *} mode=${run#* }
    # ---- overlap
    rm -rf "$T/events" "$T/gates" "$T/local"
    mkdir -p "$T/events" "$T/gates" "$T/local"
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.eventLog.enabled=true
        --conf "spark.eventLog.dir=$T/events" --conf "spark.local.dir=$T/local"
        --conf "spark.scheduler.mode=$mode" --class overlap)
    rc=0
    SUBMIT_TIMEOUT=400 run_submit "$master" "$JOBS" "$T/gates" || rc=$?
    [ "$rc" == 0 ] || fail "$master overlap: exit status $rc (124: it hung): $(tail -5 "$T/stdout" "$T/stderr")"
    assert_contains "$T/stdout" "B finished while A waited: yes" "$master $mode overlap"
    assert_contains "$T/stdout" "$(pairs B 500 5)" "$master overlap: job B's result"
    assert_contains "$T/stdout" "$(pairs A 1000 -7)" "$master overlap: job A's result"
    [ -e "$T/gates/timed_out" ] && fail "$master overlap: a gate timed out"
    cat_event_log "$T"/events/* >"$T/events.json" || fail "$master overlap: no event log"
    $PY - "$T/events.json" <<'PY' || fail "$master overlap: event log (above)"
import json, sys
order, ends, submitted, completed, started, ended = [], {}, set(), set(), set(), set()
pools = {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    ev = e["Event"]
    if ev == "SparkListenerJobStart":
        order.append(("start", e["Job ID"]))
        pools[e["Job ID"]] = e.get("Properties", {}).get("spark.scheduler.pool")
    if ev == "SparkListenerJobEnd":
        order.append(("end", e["Job ID"]))
        ends[e["Job ID"]] = e["Job Result"]["Result"]
    if ev == "SparkListenerStageSubmitted":
        i = e["Stage Info"]; submitted.add((i["Stage ID"], i["Stage Attempt ID"]))
    if ev == "SparkListenerStageCompleted":
        i = e["Stage Info"]; completed.add((i["Stage ID"], i["Stage Attempt ID"]))
    if ev == "SparkListenerTaskStart": started.add(e["Task Info"]["Task ID"])
    if ev == "SparkListenerTaskEnd": ended.add(e["Task Info"]["Task ID"])
problems = []
if pools != {0: "pool_a", 1: "pool_b"}: problems.append("jobs' pools %r" % pools)
if ends != {0: "JobSucceeded", 1: "JobSucceeded"}: problems.append("job results %r" % ends)
if order.index(("start", 1)) > order.index(("end", 0)): problems.append("job 1 started after job 0 ended")
if submitted != completed: problems.append("stages submitted %r, completed %r" % (submitted, completed))
if started != ended: problems.append("tasks started but not ended: %r" % (started - ended))
for p in problems: print(p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

    [ "$mode" == FAIR ] && continue # the rest is the same in both modes
    # ---- cancel_one
    rm -rf "$T/gates" "$T/local" && mkdir -p "$T/gates" "$T/local"
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf "spark.local.dir=$T/local" --class cancel_one)
    rc=0
    SUBMIT_TIMEOUT=400 run_submit "$master" "$JOBS" "$T/gates" || rc=$?
    [ "$rc" == 0 ] || fail "$master cancel_one: exit status $rc (124: it hung): $(tail -5 "$T/stdout" "$T/stderr")"
    assert_contains "$T/stdout" "both jobs' tasks waiting: yes" "$master cancel_one"
    grep -Eq '^A: rc=-[0-9]+ error=Job [0-9]+ cancelled part of cancelled job group slow$' "$T/stdout" ||
        fail "$master cancel_one: job A was not cancelled: $(cat "$T/stdout")"
    assert_contains "$T/stdout" "B still waiting after A ended: yes" "$master cancel_one"
    assert_contains "$T/stdout" "$(pairs B 1000 7)" "$master cancel_one: job B's result"
    [ -e "$T/gates/timed_out" ] && fail "$master cancel_one: a gate timed out"

    # ---- many
    rm -rf "$T/local" && mkdir -p "$T/local"
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf "spark.local.dir=$T/local" --class many)
    rc=0
    SUBMIT_TIMEOUT=400 run_submit "$master" "$JOBS" || rc=$?
    [ "$rc" == 0 ] || fail "$master many: exit status $rc: $(tail -5 "$T/stdout" "$T/stderr")"
    assert_contains "$T/stdout" "many: 0 wrong results of 40" "$master many"
done
echo "PASS: $TEST_NAME"
