#!/usr/bin/env bash
# history_hostile_log.sh — cspark-history opens hostile event logs in time and memory that follow
# their size (issue 21, item 6). Regressions: a 23 KB log naming task index 2^31-1 in each of 40
# stages allocated a 256 MiB bitmap per stage and crashed the server as soon as the application
# was opened; a job start listing 600,000 parent ids took minutes of CPU (a linear duplicate scan
# per id); a line of invalid UTF-8 was dropped without a word. The server runs under a 1 GiB
# address-space limit (not in the sanitizer pass, whose shadow memory needs more) and each page
# must answer within a generous bound; the skipped line must be reported.
. "$(dirname "$0")/lib.sh"
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
    [ "$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/apps.json")" = 2 ] && break
    sleep 0.2
done
for app in app-index-bomb app-parents; do
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
