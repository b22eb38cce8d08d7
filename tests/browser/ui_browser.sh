#!/usr/bin/env bash
# ui_browser.sh — the web UI as a person sees it, in headless Chromium, during a job and after
# it, then the same application in the history server; and the REST API of the finished
# application field by field against Spark 4's schema, the history server answering the same.
#
# tests/jobs/uijobs.c's ui_demo runs on local-cluster[2,2,512] with the event log on:
#  1. ui_walk.js live: every page while job 0's map tasks wait for a gate (4 running, stage 1
#     pending), checked against the REST API; the gate opens; job -> stage -> task by clicks;
#     stage 3 killed from its kill link (POST with the CSRF token, confirmed); every page after.
#  2. rest_check.py: every REST endpoint of the finished jobs against Spark 4's api.v1 schema.
#  3. the application ends; cspark-history serves the log: ui_walk.js history walks it, and
#     rest_check.py compares its answers with the live UI's.
# Screenshots: BUILD/tests/browser-screenshots/. Needs Debian's chromium and tests/browser's
# node_modules (scripts/install-deps.sh installs both); without them it says SKIP and exits 77.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HERE=$SRC/tests/browser
JOBS=$BUILD/tests/jobs/uijobs.so
need "$JOBS" "$BIN/cspark-history" "$BIN/cspark-executor"
if [ ! -x /usr/bin/chromium ] || [ ! -d "$HERE/node_modules/playwright-core" ] ||
    ! command -v node >/dev/null; then
    echo "SKIP: $TEST_NAME: needs /usr/bin/chromium, node and $HERE/node_modules (run scripts/install-deps.sh)"
    exit 77
fi
SHOTS=$BUILD/tests/browser-screenshots
rm -rf "$SHOTS" && mkdir -p "$SHOTS"
mkdir -p "$T/gates" "$T/events"

APP_PID="" HIST_PID=""
stop_all() {
    : >"$T/gates/go"
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    [ -n "$HIST_PID" ] && kill "$HIST_PID" 2>/dev/null && wait "$HIST_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

# wait_for_port LOG PATTERN: the port a process logged, waiting up to 60 s for the line.
wait_for_port() {
    local i port
    for i in $(seq 1 300); do
        port=$(grep -o "$2 port=[0-9]*" "$1" 2>/dev/null | head -1 | grep -o '[0-9]*$')
        [ -n "$port" ] && { echo "$port"; return 0; }
        sleep 0.2
    done
    return 1
}

"$SUBMIT" --master 'local-cluster[2,2,512]' --conf spark.ui.port=0 \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/events" \
    --conf spark.test.password=do-not-show-me --class ui_demo "$JOBS" "$T/gates" \
    >"$T/app.out" 2>"$T/app.err" &
APP_PID=$!
port=$(wait_for_port "$T/app.err" "ui app=[^ ]*") || { tail -20 "$T/app.err" >&2; fail "the UI did not start"; }
app=$(grep -o "ui app=[^ ]*" "$T/app.err" | head -1 | cut -d= -f2)
URL=http://127.0.0.1:$port
log "application $app, UI at $URL"

node "$HERE/ui_walk.js" live "$URL" "$SHOTS" "$T/gates" >"$T/walk-live.txt" 2>&1 ||
    { cat "$T/walk-live.txt" >&2; fail "the live UI walk failed"; }
grep -q "job2 failed: Job 2 cancelled because Stage 3 was cancelled" "$T/app.out" ||
    fail "the killed stage did not fail job 2: $(cat "$T/app.out")"

(cd "$HERE" && "$PY" rest_check.py check "$URL" "$app" "$T/live.json") ||
    fail "the live REST API does not match Spark 4's schema"

: >"$T/gates/exit"
wait "$APP_PID"
APP_PID=""
# rolled and compressed (Spark 4's defaults): finished when its appstatus file lost .inprogress
[ -f "$T/events/eventlog_v2_$app/appstatus_$app" ] || fail "no finished event log $T/events/eventlog_v2_$app"

"$BIN/cspark-history" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
hport=$(wait_for_port "$T/hist.out" "history dir=[^ ]*") || fail "the history server did not start"
HURL=http://127.0.0.1:$hport
node "$HERE/ui_walk.js" history "$HURL" "$SHOTS" "$app" >"$T/walk-history.txt" 2>&1 ||
    { cat "$T/walk-history.txt" >&2; fail "the history UI walk failed"; }
(cd "$HERE" && "$PY" rest_check.py check "$HURL" "$app" "$T/history.json") ||
    fail "the history server's REST API does not match Spark 4's schema"
(cd "$HERE" && "$PY" rest_check.py compare "$T/live.json" "$T/history.json") ||
    fail "the history server answers differently from the live UI for the same application"

checks=$(grep -c '^ok ' "$T/walk-live.txt" "$T/walk-history.txt" | awk -F: '{ s += $2 } END { print s }')
echo "PASS: $TEST_NAME ($checks page checks, $(ls "$SHOTS" | wc -l) screenshots in $SHOTS)"
