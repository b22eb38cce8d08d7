#!/usr/bin/env bash
# history_paged_tables.sh — the pages of an application of many stages and jobs stay bounded
# (issue 21, item 6: an 11 MB log of 100,000 stages gave a 76 MB page after 38.6 s). The Jobs and Stages
# tables and a job's stage tables are paged as Spark's PagedTable (<tag>.page, <tag>.pageSize,
# default 100 rows), a job of that many stages gets no DAG drawing, and the REST jobs and stages
# lists take offset and length. Regressions: every table listed every row (with the retained
# stages raised, 100,000 rows: tens of MB), a job's page looked each stage up in the job's list
# (quadratic), and while the job's 100,000 declared stages were pending every stage submission
# rescanned them all to trim the store to spark.ui.retainedStages (4.5 minutes of CPU). Assertions are on row
# counts and byte sizes; waits are generous bounds, never measured.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HIST=$BIN/cspark-history
need "$HIST"
mkdir -p "$T/events"
APP=app-many-stages
# job 0: 100,000 stages, each submitted and completed; jobs 1..250: one stage each
"$PY" - "$T/events/$APP" "$APP" <<'PY'
import sys
N, JOBS = 100000, 250
with open(sys.argv[1], "w") as f:
    f.write('{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}\n')
    f.write('{"Event":"SparkListenerApplicationStart","App Name":"many","App ID":"%s","Timestamp":1790000000000,"User":"eve"}\n' % sys.argv[2])
    infos = ",".join('{"Stage ID":%d,"Number of Tasks":1,"Stage Name":"s","Parent IDs":[%s]}'
                     % (i, str(i - 1) if i else "") for i in range(N))
    f.write('{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1790000000100,"Stage Infos":[%s],"Properties":{}}\n' % infos)
    for i in range(N):
        f.write('{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1}}\n' % i)
        f.write('{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":1790000000200,"Completion Time":1790000000300}}\n' % i)
    f.write('{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1790000000400,"Job Result":{"Result":"JobSucceeded"}}\n')
    for j in range(1, JOBS + 1):
        s = N + j
        f.write('{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":1790000000500,"Stage Infos":[{"Stage ID":%d,"Number of Tasks":1,"Stage Name":"t","Parent IDs":[]}],"Properties":{}}\n' % (j, s))
        f.write('{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":1790000000600,"Job Result":{"Result":"JobSucceeded"}}\n' % j)
    f.write('{"Event":"SparkListenerApplicationEnd","Timestamp":1790000009000}\n')
PY
echo "event log: $(stat -c %s "$T/events/$APP") bytes"
"$HIST" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
trap 'kill $HIST_PID 2>/dev/null; wait $HIST_PID 2>/dev/null; _lib_cleanup' EXIT
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
URL=http://127.0.0.1:$hport
for _ in $(seq 1 300); do
    curl -sf "$URL/api/v1/applications" | grep -q "$APP" && break
    sleep 0.2
done
# opening the application (its replay) costs CPU time that follows the log's size; the bound is
# generous (CPU time, not the wall clock: the machine is shared)
cpu_ticks() { awk '{print $14 + $15}' "/proc/$HIST_PID/stat"; }
c0=$(cpu_ticks)
code=$(curl -s --max-time 600 -o /dev/null -w '%{http_code}' "$URL/api/v1/applications/$APP/jobs?length=1")
cpu=$((($(cpu_ticks) - c0) / $(getconf CLK_TCK)))
echo "opened with ${cpu} s of CPU"
[ "$code" = 200 ] || fail "the application did not open: '$code'"
[ "$cpu" -lt 60 ] || fail "opening the application took $cpu s of CPU (a trim per submitted stage)"
# get PATH FILE: the status, the body in $T/FILE (the bound is generous: never a measurement)
get() { curl -s --max-time 300 -o "$T/$2" -w '%{http_code}' "$URL$1"; }
# rows FILE PREFIX [TABLE]: the rows whose id starts with PREFIX (in the table of that id)
rows() {
    if [ -n "${3:-}" ]; then
        sed -n "/id=\"$3\"/,/<\/table>/p" "$T/$1" | grep -o "<tr id=\"$2" | wc -l
    else
        grep -o "<tr id=\"$2" "$T/$1" | wc -l
    fi
}
size() { stat -c %s "$T/$1"; }
MAX_PAGE=$((1024 * 1024)) # 100 rows of any table fit many times over

[ "$(get "/history/$APP/stages/" stages.html)" = 200 ] || fail "the stages page: $(tail -3 "$T/hist.out")"
echo "stages page: $(size stages.html) bytes"
[ "$(size stages.html)" -lt $MAX_PAGE ] || fail "the stages page is $(size stages.html) bytes"
assert_eq "$(rows stages.html stage- completed-stages-table)" 100 "rows of the stages page"
# the history server keeps spark.ui.retainedStages (1000) of them: C completed ones, newest first
C=$(grep -o 'completed-stages-count">[0-9]*' "$T/stages.html" | grep -o '[0-9]*$')
[ -n "$C" ] && [ "$C" -gt 100 ] || fail "the stages page counts '$C' completed stages"
assert_contains "$T/stages.html" "Page 1 of $(((C + 99) / 100))" "the stages page's pager"
assert_eq "$(grep -o '<tr id="stage-[0-9]*' "$T/stages.html" | head -1)" '<tr id="stage-99999' "the newest stage first"
get "/history/$APP/stages/?completedStage.page=2" p2.html >/dev/null
assert_eq "$(rows p2.html stage- completed-stages-table)" 100 "rows of the stages page 2"
assert_eq "$(sed -n '/id="completed-stages-table"/,$p' "$T/p2.html" | grep -o '<tr id="stage-[0-9]*' | head -1)" '<tr id="stage-99899' "the first row of page 2"
get "/history/$APP/stages/?completedStage.pageSize=10&completedStage.page=99999" last.html >/dev/null
assert_eq "$(rows last.html stage- completed-stages-table)" $((C % 10 ? C % 10 : 10)) "rows of the last page of 10 (a page past the last)"
get "/history/$APP/stages/?completedStage.pageSize=99999999" huge.html >/dev/null
assert_eq "$(rows huge.html stage- completed-stages-table)" 100 "rows when the page size asked for is past 10000"

[ "$(get "/history/$APP/jobs/job/?id=0" job.html)" = 200 ] || fail "job 0's page: $(tail -3 "$T/hist.out")"
echo "job page: $(size job.html) bytes"
[ "$(size job.html)" -lt $MAX_PAGE ] || fail "job 0's page is $(size job.html) bytes"
assert_eq "$(rows job.html stage- completed-stages-table)" 100 "rows of job 0's page"
assert_contains "$T/job.html" 'Not drawn: the job has 100000 stages' "job 0's DAG note"
assert_contains "$T/job.html" "/jobs/job/?id=0&amp;completedStage.page=2" "job 0's pager"

[ "$(get "/history/$APP/jobs/" jobs.html)" = 200 ] || fail "the jobs page"
assert_eq "$(rows jobs.html job-)" 100 "rows of the jobs page"
get "/history/$APP/jobs/?completedJob.page=3" jobs3.html >/dev/null
assert_eq "$(rows jobs3.html job-)" 51 "rows of the jobs page 3"
assert_eq "$(grep -o '<tr id="job-[0-9]*' "$T/jobs3.html" | tail -1)" '<tr id="job-0' "the oldest job last"

# REST: offset and length page the lists; a value that is no number is a 400
[ "$(get "/api/v1/applications/$APP/stages?offset=10&length=5" st.json)" = 200 ] || fail "stages?offset"
"$PY" -c 'import json,sys; ids=[s["stageId"] for s in json.load(open(sys.argv[1]))]; assert ids == [100240,100239,100238,100237,100236], ids' "$T/st.json" ||
    fail "stages?offset=10&length=5: $(head -c 300 "$T/st.json")"
[ "$(get "/api/v1/applications/$APP/jobs?length=3" jobs.json)" = 200 ] || fail "jobs?length"
"$PY" -c 'import json,sys; ids=[j["jobId"] for j in json.load(open(sys.argv[1]))]; assert ids == [250,249,248], ids' "$T/jobs.json" ||
    fail "jobs?length=3: $(head -c 300 "$T/jobs.json")"
assert_eq "$(get "/api/v1/applications/$APP/stages?offset=abc" bad.json)" 400 "stages?offset=abc"
assert_eq "$(get "/api/v1/applications/$APP/jobs?length=-1" bad.json)" 400 "jobs?length=-1"
kill -0 $HIST_PID 2>/dev/null || fail "the history server died: $(tail -5 "$T/hist.out")"
echo "PASS: $TEST_NAME"
