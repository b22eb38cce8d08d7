#!/usr/bin/env bash
# history_app_filters.sh — cspark-history's /api/v1/applications with Spark's minDate, maxDate,
# minEndDate, maxEndDate and limit over applications of known start and end times (both of
# SimpleDateParam's formats, and its 400 "Couldn't parse date: ..." for a bad one), and
# /applications/<id>/logs: Spark's zip of the event log, a single file or a rolled directory,
# byte for byte. Thread dumps are refused as Spark's history server does (503).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HIST=$BIN/cspark-history
need "$HIST"
command -v unzip >/dev/null || { echo "SKIP: $TEST_NAME: unzip missing"; exit 77; }
mkdir -p "$T/events"

# events ID START_MS END_MS(empty: running): one application's event lines
events() {
    cat <<JSON
{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}
{"Event":"SparkListenerApplicationStart","App Name":"dates","App ID":"$1","Timestamp":$2,"User":"bob"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":$(($2 + 100)),"Stage Infos":[{"Stage ID":0,"Number of Tasks":1,"Stage Name":"count","Parent IDs":[]}],"Stage IDs":[0],"Properties":{}}
JSON
    [ -n "$3" ] && cat <<JSON
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":$(($3 - 100)),"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerApplicationEnd","Timestamp":$3}
JSON
    return 0
}
# 2015-02-03 10:00 -> 2015-02-03 11:00, 2015-02-10 -> 2015-02-12, 2016-01-01 -> running,
# 2009-06-01 -> 2009-06-02 (before Spark's default minDate, 2010-01-01)
events app-a 1422957600000 1422961200000 >"$T/events/app-a"
mkdir "$T/events/eventlog_v2_app-b"
events app-b 1423526400000 1423699200000 >"$T/events/eventlog_v2_app-b/events_1_app-b"
: >"$T/events/eventlog_v2_app-b/appstatus_app-b"
events app-c 1451606400000 "" >"$T/events/app-c.inprogress"
events app-d 1243814400000 1243900800000 >"$T/events/app-d"

"$HIST" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
trap 'kill $HIST_PID 2>/dev/null; wait $HIST_PID 2>/dev/null; _lib_cleanup' EXIT
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
URL=http://127.0.0.1:$hport/api/v1/applications

# ids QUERY: the ids /applications?QUERY lists, sorted, space-separated
ids() {
    curl -sf "$URL?$1" | "$PY" -c 'import json,sys; print(" ".join(sorted(a["id"] for a in json.load(sys.stdin))))'
}
for i in $(seq 1 300); do
    [ "$(ids 'minDate=2000-01-01&minEndDate=2000-01-01')" = "app-a app-b app-c app-d" ] && break
    sleep 0.2
done
assert_eq "$(ids 'minDate=2000-01-01&minEndDate=2000-01-01')" "app-a app-b app-c app-d" "every application"
assert_eq "$(ids 'minDate=2000-01-01')" "app-a app-b app-c" "Spark's default minEndDate (2010-01-01) leaves the 2009 end out"
assert_eq "$(ids '')" "app-a app-b app-c" "Spark's default minDate (2010-01-01) leaves 2009 out"
assert_eq "$(ids 'minDate=2015-02-04')" "app-b app-c" "minDate as a day"
assert_eq "$(ids 'maxDate=2015-02-03T10:00:00.000GMT')" "app-a" "maxDate is inclusive"
assert_eq "$(ids 'maxDate=2015-02-03T10:59:59.999GMT%2B01:00')" "" "maxDate with a zone"
assert_eq "$(ids 'minDate=2015-02-03T09:00:00.000-0100&maxDate=2015-02-03T11:00:00.000-0100')" \
    "app-a" "an RFC 822 zone"
assert_eq "$(ids 'minEndDate=2015-02-11')" "app-b app-c" "minEndDate filters completed applications only, as Spark"
assert_eq "$(ids 'maxEndDate=2015-02-03T11:00:00.000GMT')" "app-a" \
    "a maxEndDate in the past leaves running applications out"
assert_eq "$(ids 'maxEndDate=2999-01-01')" "app-a app-b app-c" "a future maxEndDate keeps running ones"
assert_eq "$(ids 'status=running')" "app-c" "status=running"
assert_eq "$(ids 'status=completed&minEndDate=2015-02-04')" "app-b" "status and dates together"
[ "$(curl -sf "$URL?limit=2" | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 2 ] ||
    fail "limit=2 did not list 2 applications"
for bad in yesterday 2015/02/03 2015-02; do
    code=$(curl -s -o "$T/bad" -w '%{http_code}' "$URL?minEndDate=$bad")
    assert_eq "$code" 400 "minEndDate=$bad"
    assert_eq "$(cat "$T/bad")" "Couldn't parse date: $bad" "the answer to minEndDate=$bad"
done

# /logs: a single log, then a rolled one (its directory entry and each file)
code=$(curl -s -D "$T/headers" -o "$T/a.zip" -w '%{http_code}' "$URL/app-a/logs")
assert_eq "$code" 200 "/app-a/logs"
grep -qi '^Content-Disposition: attachment; filename=eventLogs-app-a.zip' "$T/headers" ||
    fail "no attachment header: $(cat "$T/headers")"
mkdir "$T/a" "$T/b"
(cd "$T/a" && unzip -q "$T/a.zip") || fail "the zip of app-a does not unzip"
assert_eq "$(cd "$T/a" && find . -type f | sort | tr '\n' ' ')" "./app-a " "app-a's zip entries"
assert_files_eq "$T/a/app-a" "$T/events/app-a" "app-a's log in the zip"
curl -sf -o "$T/b.zip" "$URL/app-b/logs" || fail "/app-b/logs"
unzip -Z1 "$T/b.zip" >"$T/b.list"
assert_eq "$(tr '\n' ' ' <"$T/b.list")" \
    "eventlog_v2_app-b/ eventlog_v2_app-b/appstatus_app-b eventlog_v2_app-b/events_1_app-b " \
    "the rolled log's zip entries"
(cd "$T/b" && unzip -q "$T/b.zip") || fail "the zip of app-b does not unzip"
assert_files_eq "$T/b/eventlog_v2_app-b/events_1_app-b" "$T/events/eventlog_v2_app-b/events_1_app-b" \
    "app-b's events in the zip"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/app-zz/logs")
assert_eq "$code" 404 "/logs of an unknown application"

code=$(curl -s -o "$T/t" -w '%{http_code}' "$URL/app-a/executors/driver/threads")
assert_eq "$code" 503 "a thread dump from the history server"
assert_eq "$(cat "$T/t")" "Thread dumps not available through the history server." "its answer"
echo "PASS: $TEST_NAME"
