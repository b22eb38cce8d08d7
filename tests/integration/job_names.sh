#!/usr/bin/env bash
# job_names.sh — jobs are named after their action and stages after the operation that made their
# last RDD, as Spark's call sites ("count at jobnames.so:job_names", a join's map stages "join at
# ...", never the internal "tag" or the last transformation's name), and a job carries its
# description and job group: the event log's JobStart (Stage Infos' Stage Name, Properties), the
# REST API's /jobs (name, description, jobGroup) and the web UI's jobs table show them.
# The jobs: tests/jobs/jobnames.c (job_names).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/jobnames.so
need "$JOBS"
mkdir -p "$T/events" "$T/gates" "$T/local"
APP_PID=""
stop_all() {
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

timeout 300 "$SUBMIT" --master 'local[2]' --conf spark.ui.port=0 --conf spark.eventLog.enabled=true \
    --conf "spark.eventLog.dir=$T/events" --conf "spark.local.dir=$T/local" \
    --class job_names "$JOBS" "$T/out" "$T/gates" >"$T/stdout" 2>"$T/stderr" &
APP_PID=$!
for i in $(seq 1 600); do # the jobs are done and the UI still serves (bounded: 120 s)
    grep -q "jobs done" "$T/stdout" 2>/dev/null && break
    kill -0 "$APP_PID" 2>/dev/null || break
    sleep 0.2
done
grep -q "jobs done" "$T/stdout" || fail "the jobs did not finish: $(tail -5 "$T/stderr")"
port=$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/stderr" | grep -o '[0-9]*$')
app=$(grep -o "ui app=[^ ]*" "$T/stderr" | head -1 | cut -d= -f2)
[ -n "$port" ] && [ -n "$app" ] || fail "the UI did not start: $(tail -5 "$T/stderr")"
URL=http://127.0.0.1:$port

# the REST API's jobs: names, descriptions and the group (absent when not set, as Spark's Options)
curl -sf "$URL/api/v1/applications/$app/jobs" >"$T/jobs.json" || fail "GET /jobs"
$PY - "$T/jobs.json" <<'PY' || fail "REST /jobs: $(head -c 600 "$T/jobs.json")"
import json, sys
jobs = {j["jobId"]: j for j in json.load(open(sys.argv[1]))}
def want(cond, what):
    if not cond:
        print("REST /jobs: " + what, file=sys.stderr)
        sys.exit(1)
want(len(jobs) == 8, "%d jobs, expected 8" % len(jobs))
want(jobs[0]["name"] == "count at jobnames.so:job_names", "job 0 is %r" % jobs[0]["name"])
want(jobs[0].get("description") == "count the numbers", "job 0's description %r" % jobs[0].get("description"))
want("description" not in jobs[1] and "jobGroup" not in jobs[1], "job 1 has a description or group")
want(jobs[4]["name"] == "save_as_text_file at jobnames.so:save_totals", "job 4 is %r" % jobs[4]["name"])
want(jobs[6].get("jobGroup") == "nightly", "job 6's jobGroup %r" % jobs[6].get("jobGroup"))
want(jobs[6].get("description") == "grouped count", "job 6's description %r" % jobs[6].get("description"))
want("jobGroup" not in jobs[7] and jobs[7]["name"] == "first at jobnames.so:job_names",
     "job 7 (after clear_job_group): %r" % jobs[7])
PY
# the jobs table: the description above the name, the group after the job id
curl -sf "$URL/jobs/" >"$T/jobs.html" || fail "GET /jobs/"
assert_contains "$T/jobs.html" '<span class="description-input">count the numbers</span>' "jobs table description"
assert_contains "$T/jobs.html" '<span class="job-group">(nightly)</span>' "jobs table group"
assert_contains "$T/jobs.html" 'save_as_text_file at jobnames.so:save_totals' "jobs table name"

: >"$T/gates/exit"
wait "$APP_PID" || fail "the application failed: $(tail -5 "$T/stderr")"
APP_PID=""

# the event log: each JobStart's stage names and properties
log=$T/events.json
cat_event_log "$T"/events/* >"$log" || fail "no event log"
$PY - "$log" <<'PY' || fail "event log names (above)"
import json, sys
at = lambda op, fn="job_names": "%s at jobnames.so:%s" % (op, fn)
expected = {  # job id: (job name = final stage's name, every stage's name, properties)
    0: (at("count"), [at("count")], {"spark.job.description": "count the numbers"}),
    1: (at("collect"), [at("collect")], {}),
    2: (at("reduce"), [at("reduce")], {}),
    3: (at("sort_by_key"), [at("map"), at("sort_by_key")], {}),
    4: (at("save_as_text_file", "save_totals"),
        [at("map"), at("reduce_by_key"), at("save_as_text_file", "save_totals")], {}),
    5: (at("count"), [at("map"), at("join"), at("join"), at("count")], {}),
    6: (at("count"), [at("count")], {"spark.job.description": "grouped count",
                                     "spark.jobGroup.id": "nightly",
                                     "spark.job.interruptOnCancel": "false"}),
    7: (at("first"), [at("first")], {}),
}
seen, bad, submitted = set(), [], []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerStageSubmitted":
        submitted.append(e["Stage Info"]["Stage Name"])
    if e["Event"] != "SparkListenerJobStart":
        continue
    j = e["Job ID"]
    seen.add(j)
    infos = e["Stage Infos"]
    final = max(infos, key=lambda s: s["Stage ID"])["Stage Name"]
    names = sorted(s["Stage Name"] for s in infos)
    name, stages, props = expected[j]
    if final != name:
        bad.append("job %d is named %r, expected %r" % (j, final, name))
    if names != sorted(stages):
        bad.append("job %d's stages are %r, expected %r" % (j, names, sorted(stages)))
    if e["Properties"] != props:
        bad.append("job %d's Properties are %r, expected %r" % (j, e["Properties"], props))
if seen != set(expected):
    bad.append("JobStart events for jobs %r" % sorted(seen))
if any(n.startswith("tag") or n.startswith("map_values") for n in submitted):
    bad.append("internal names in submitted stages: %r" % submitted)
if submitted.count(at("join")) != 2:
    bad.append("the join's two map stages were not submitted as 'join at': %r" % submitted)
for b in bad:
    print("event log: " + b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
grep -q 'scheduler job=4 event=started .*name="save_as_text_file at jobnames.so:save_totals"' "$T/stderr" ||
    fail "the driver's log does not name job 4 after its action"
echo "PASS: $TEST_NAME"
