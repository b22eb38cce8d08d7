#!/usr/bin/env bash
# history_hostile_log.sh — cspark-history opens hostile event logs in time and memory that follow
# their size (issue 21, item 6). Regressions: a 23 KB log naming task index 2^31-1 in each of 40
# stages allocated a 256 MiB bitmap per stage and crashed the server as soon as the application
# was opened; a job start listing 600,000 parent ids took minutes of CPU (a linear duplicate scan
# per id); a job of 200,000 stages took minutes of CPU (a memmove per new stage, a scan per submission);
# a line of invalid UTF-8 was dropped without a word. The server's CPU time (not the wall
# clock: the machine is shared) for opening that application must stay under 60 s. The server runs under a 1 GiB
# address-space limit (not in the sanitizer pass, whose shadow memory needs more) and each page
# must answer within a generous bound; the skipped line must be reported.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HIST=$BIN/cspark-history
need "$HIST"
mkdir -p "$T/events"

head_lines() { # ID
    echo '{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}'
    echo "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"hostile\",\"App ID\":\"$1\",\"Timestamp\":1790000000000,\"User\":\"eve\"}"
}
tail_lines() {
    echo '{"Event":"SparkListenerApplicationEnd","Timestamp":1790000009000}'
}
# 40 stages, each with a task end at index 2^31-1
{
    head_lines app-index-bomb
    for s in $(seq 0 39); do
        echo "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":$s,\"Stage Attempt ID\":0,\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},\"Task Info\":{\"Task ID\":$s,\"Index\":2147483647,\"Attempt\":0,\"Launch Time\":1790000000100,\"Executor ID\":\"1\",\"Host\":\"h\",\"Locality\":\"PROCESS_LOCAL\",\"Speculative\":false,\"Finish Time\":1790000000200},\"Task Metrics\":{}}"
    done
    tail_lines
} >"$T/events/index-bomb"
# one job whose stage lists 600,000 parents (most of them repeated), and a line of invalid UTF-8
"$PY" - "$T/events/parents" <<'PY'
import json, sys
with open(sys.argv[1], "wb") as f:
    f.write(b'{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}\n')
    f.write(b'{"Event":"SparkListenerApplicationStart","App Name":"hostile","App ID":"app-parents","Timestamp":1790000000000,"User":"eve"}\n')
    parents = [i % 300000 for i in range(600000)]
    job = {"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 1790000000100,
           "Stage Infos": [{"Stage ID": 300001, "Number of Tasks": 1, "Stage Name": "s",
                            "Parent IDs": parents}], "Stage IDs": [300001], "Properties": {}}
    f.write(json.dumps(job, separators=(",", ":")).encode() + b"\n")
    f.write(b'{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1790000000200,"Job Result":{"Result":"JobSucceeded"},"Note":"\xff\xfe"}\n')
    f.write(b'{"Event":"SparkListenerApplicationEnd","Timestamp":1790000009000}\n')
PY

# one job of 200,000 stages named in descending order, each then submitted and completed: each
# new stage was inserted with a memmove, found in its job by a linear scan, and every submission
# walked all the unfinished stages to trim them (quadratic: minutes)
"$PY" - "$T/events/stages" <<'PY'
import sys
N = 200000
with open(sys.argv[1], "w") as f:
    f.write('{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}\n')
    f.write('{"Event":"SparkListenerApplicationStart","App Name":"hostile","App ID":"app-stages","Timestamp":1790000000000,"User":"eve"}\n')
    infos = ",".join('{"Stage ID":%d,"Number of Tasks":1,"Stage Name":"s","Parent IDs":[]}' % i
                     for i in range(N - 1, -1, -1))
    f.write('{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1790000000100,"Stage Infos":[%s],"Properties":{}}\n' % infos)
    for i in range(N - 1, -1, -1):
        f.write('{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":1790000000200}}\n' % i)
    f.write('{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1790000000300,"Job Result":{"Result":"JobSucceeded"}}\n')
    f.write('{"Event":"SparkListenerApplicationEnd","Timestamp":1790000009000}\n')
PY

if [ "${CSPARK_SANITIZE:-0}" != 1 ]; then
    ulimit -v $((1024 * 1024)) # KiB: 1 GiB of address space
fi
"$HIST" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
trap 'kill $HIST_PID 2>/dev/null; wait $HIST_PID 2>/dev/null; _lib_cleanup' EXIT
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
URL=http://127.0.0.1:$hport
for _ in $(seq 1 300); do
    curl -sf "$URL/api/v1/applications" >"$T/apps.json" || fail "no application list"
    [ "$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/apps.json")" = 3 ] && break
    sleep 0.2
done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$HIST_PID/stat"; }
for app in app-index-bomb app-parents app-stages; do
    t0=$(date +%s) c0=$(cpu_ticks)
    code=$(curl -s --max-time 400 -o "$T/$app.json" -w '%{http_code}' "$URL/api/v1/applications/$app/jobs")
    cpu=$(( ($(cpu_ticks) - c0) / $(getconf CLK_TCK) ))
    echo "$app: opened in $(( $(date +%s) - t0 )) s, ${cpu} s of CPU"
    [ "$cpu" -lt 60 ] || fail "$app: opening it took $cpu s of CPU (replay must be linear)"
    [ "$code" = 200 ] || fail "$app: its jobs answered '$code' within 400 s (server alive: $(kill -0 $HIST_PID 2>/dev/null && echo yes || echo no)): $(tail -5 "$T/hist.out")"
    [ "$app" = app-stages ] && continue # its 300,000 stages make a large listing: the job is enough
    code=$(curl -s --max-time 60 -o "$T/$app.json" -w '%{http_code}' "$URL/api/v1/applications/$app/stages")
    [ "$code" = 200 ] || fail "$app: its stages answered '$code' within 60 s (server alive: $(kill -0 $HIST_PID 2>/dev/null && echo yes || echo no)): $(tail -5 "$T/hist.out")"
    code=$(curl -s --max-time 60 -o /dev/null -w '%{http_code}' "$URL/history/$app/jobs/")
    [ "$code" = 200 ] || fail "$app: its jobs page answered '$code' within 60 s"
done
"$PY" - "$T/app-index-bomb.json" <<'PY' || fail "the index-bomb stages are wrong: $(head -c 600 "$T/app-index-bomb.json")"
import json, sys
stages = json.load(open(sys.argv[1]))
assert len(stages) == 40, len(stages)
assert all(s["numCompleteTasks"] == 1 and s["numCompletedIndices"] == 1 for s in stages), stages[0]
PY
kill -0 $HIST_PID 2>/dev/null || fail "the history server died: $(tail -5 "$T/hist.out")"
grep -q "path=[^ ]*parents event=lines_skipped skipped=1 " "$T/hist.out" ||
    fail "the line of invalid UTF-8 was skipped without a word: $(grep -i history "$T/hist.out" | tail -5)"
echo "PASS: $TEST_NAME"
