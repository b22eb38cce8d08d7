#!/usr/bin/env bash
# history_rolled_zstd.sh — Apache Spark's own History Server and cspark-history both read cspark's
# rolled, zstd-compressed event logs (Spark 4's layout: eventlog_v2_<app>/ with
# events_<n>_<app>.zstd files and appstatus_<app>).
#
# Installs the pinned Spark (scripts/install-spark.sh; exit 77 = SKIP only when that fails), runs
# 20,000 empty tasks with only spark.eventLog.rolling.maxFileSize=10m (Spark's least) set: rolling
# and zstd compression are the defaults, as in Spark 4; checks the layout (more than one events file, each a zstd
# stream of whole JSON lines, the status file complete), then asks both servers' REST APIs for
# the application and its job: completed, 20,000 tasks done. Both servers are stopped on exit.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
need "$EX/emptytasks.so" "$BIN/cspark-history"
command -v zstd >/dev/null || fail "zstd (the command) is needed to check the files"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
EV=$T/events
mkdir -p "$EV"
timeout 180 "$SUBMIT" --master 'local[2]' --name rolled-zstd --conf spark.ui.enabled=false \
    --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$EV" \
    --conf spark.eventLog.rolling.maxFileSize=10m \
    --conf spark.scheduler.listenerbus.eventqueue.capacity=100000 \
    "$EX/emptytasks.so" 20000 >"$T/app.out" 2>"$T/app.err" || { tail -5 "$T/app.err" >&2; fail "the application failed"; }

set -- "$EV"/eventlog_v2_*
[ $# -eq 1 ] && [ -d "$1" ] || fail "expected one eventlog_v2_<app> directory in $EV: $(ls "$EV")"
DIR=$1
APP=${DIR##*/eventlog_v2_}
[ -f "$DIR/appstatus_$APP" ] || fail "no complete appstatus_$APP in $DIR: $(ls "$DIR")"
nfiles=$(ls "$DIR" | grep -c "^events_[0-9]*_$APP\.zstd$")
[ "$nfiles" -ge 2 ] || fail "expected the log rolled over into several events_<n>_$APP.zstd files: $(ls "$DIR")"
for f in "$DIR"/events_*; do
    zstd -qdc "$f" | $PY -c 'import json, sys
for line in sys.stdin: json.loads(line)' || fail "$f is not a zstd stream of JSON lines"
done

PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
PORT2=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/history.conf" <<CONF
spark.history.fs.logDirectory file:$EV
spark.history.ui.port $PORT
spark.history.fs.update.interval 1s
spark.ui.bindAddress 127.0.0.1
CONF
SPARK_LOCAL_IP=127.0.0.1 "$SPARK_HOME/bin/spark-class" \
    "-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
    org.apache.spark.deploy.history.HistoryServer --properties-file "$T/history.conf" \
    >"$T/history.log" 2>&1 &
HS_PID=$!
"$BIN/cspark-history" --conf spark.history.ui.port="$PORT2" --conf spark.history.fs.update.interval=1s \
    "file:$EV" >"$T/cspark-history.log" 2>&1 &
CH_PID=$!
stop_servers() {
    kill "$HS_PID" "$CH_PID" 2>/dev/null
    wait "$HS_PID" "$CH_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_servers EXIT

# check NAME URL: the application is listed as completed and its one job ran 20,000 tasks
check() {
    $PY - "$2" "$APP" <<'PYEOF' || { echo "--- $1 log (last 20 lines)" >&2; tail -20 "$3" >&2; fail "$1 does not show the rolled, zstd event log"; }
import json, sys, time, urllib.request
base, app = sys.argv[1], sys.argv[2]
def get(path):  # a first load of 20,000 tasks takes a while on a busy machine
    with urllib.request.urlopen(base + "/api/v1" + path, timeout=600) as r:
        return json.load(r)
deadline = time.time() + 120
while True:
    try:
        apps = get("/applications")
        if any(a["id"] == app for a in apps):
            break
    except Exception as e:
        err = e
    if time.time() > deadline:
        sys.exit("application %s not listed" % app)
    time.sleep(1)
a = [a for a in apps if a["id"] == app][0]
assert a["attempts"][0]["completed"], a
jobs = get("/applications/%s/jobs" % app)
assert len(jobs) == 1 and jobs[0]["status"] == "SUCCEEDED", jobs
assert jobs[0]["numCompletedTasks"] == 20000, jobs[0]["numCompletedTasks"]
PYEOF
}
check "Spark's History Server" "http://127.0.0.1:$PORT" "$T/history.log"
check cspark-history "http://127.0.0.1:$PORT2" "$T/cspark-history.log"
echo "PASS: $TEST_NAME"
