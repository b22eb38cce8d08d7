#!/usr/bin/env bash
# history_odd_app_ids.sh — event logs written by other tools may carry application ids cspark
# would refuse ('/', '?', '%', a leading '.'). Regression (issue 21, item 12): an id with a '/'
# was listed by cspark-history but unreachable. Each listed application must be served, on its
# REST path and on its pages, under the id the listing gives.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HIST=$BIN/cspark-history
need "$HIST"
mkdir -p "$T/events"

# write_log FILE ID: a finished application with one job
write_log() {
    cat >"$T/events/$1" <<JSON
{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}
{"Event":"SparkListenerApplicationStart","App Name":"odd","App ID":"$2","Timestamp":1790000000000,"User":"bob"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1790000000100,"Stage Infos":[{"Stage ID":0,"Number of Tasks":1,"Stage Name":"count","Parent IDs":[]}],"Stage IDs":[0],"Properties":{}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1790000000200,"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerApplicationEnd","Timestamp":1790000000300}
JSON
}
write_log slash 'team/app-1'
write_log dots '../up'
write_log query 'a?b%2F#c'

"$HIST" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
trap 'kill $HIST_PID 2>/dev/null; wait $HIST_PID 2>/dev/null; _lib_cleanup' EXIT
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
URL=http://127.0.0.1:$hport

for i in $(seq 1 300); do
    curl -sf "$URL/api/v1/applications" >"$T/apps.json" || fail "no application list"
    [ "$("$PY" -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$T/apps.json")" = 3 ] && break
    sleep 0.2
done
"$PY" -c 'import json,sys; [print(a["id"]) for a in json.load(open(sys.argv[1]))]' \
    "$T/apps.json" >"$T/ids"
[ "$(wc -l <"$T/ids")" -eq 3 ] || fail "expected 3 applications listed: $(cat "$T/apps.json")"
while IFS= read -r id; do
    code=$(curl -s -o "$T/jobs.json" -w '%{http_code}' "$URL/api/v1/applications/$id/jobs")
    [ "$code" = 200 ] || fail "application '$id' is listed but its jobs answer $code: $(cat "$T/jobs.json")"
    grep -q '"jobId": 0' "$T/jobs.json" || fail "application '$id' has no job 0: $(cat "$T/jobs.json")"
    code=$(curl -s -o "$T/page.html" -w '%{http_code}' "$URL/history/$id/jobs/")
    [ "$code" = 200 ] || fail "application '$id' is listed but its page answers $code"
done <"$T/ids"
grep -q "team-app-1" "$T/ids" || fail "the id with a '/' is not listed as team-app-1: $(cat "$T/ids")"
echo "PASS: $TEST_NAME"
