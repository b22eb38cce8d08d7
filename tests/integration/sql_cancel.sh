#!/usr/bin/env bash
# sql_cancel.sh — cancelling a running SQL query (issue 24), on local-cluster[2,1,1024]:
#  - Ctrl-C (SIGINT) to `cspark-sql -e` while its query's tasks run: the query's jobs are
#    cancelled (spark-sql's handler: cancelAllJobs), the statement's error is Spark's
#    "[SPARK_JOB_CANCELLED] Job N cancelled as part of cancellation of all jobs SQLSTATE: XXKDA",
#    the process exits with 130, no executor process of the application is left, and the event
#    log ends the query's job with that cancellation;
#  - Ctrl-C at the prompt (statements read from stdin) while a statement runs: that statement is
#    cancelled and the next one runs (its row printed), and end of input ends cspark-sql with 0;
#    two Ctrl-C at an idle prompt end it with 130;
#  - the web UI's kill link for the query's job (POST /jobs/job/kill/ with the page's token, as
#    spark.ui.killEnabled allows): cspark-sql prints Spark's error for a cancelled query,
#    "[SPARK_JOB_CANCELLED] Job N cancelled killed via the Web UI SQLSTATE: XXKDA", as the one line
#    on stderr, prints no rows, exits 1, leaves no executor, and the event log ends the job as
#    cancelled.
# "Running" is read from the UI's REST API (a job running with an active task), never from a
# fixed sleep; how fast the query stops is measured by bench/sql_cancel_latency.sh, not here.
# Usage: sql_cancel.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/cspark-executor"
# a query that runs for hours unless cancelled: 10^13 rows summed in 4 partitions
LONG="SELECT sum(id % 7) FROM range(0, 10000000000000, 1, 4)"
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start NAME [STDIN]: the long query (-e; at the prompt, reading STDIN, when given) on
# local-cluster in the background (PID), UI on PORT, event log in $T/ev-NAME; returns once a job
# of it runs a task (JOB: its id, APP: the application's id)
start() {
    local name=$1 input=${2:-}
    PORT=$(free_port)
    mkdir -p "$T/ev-$name"
    local opts=(--master 'local-cluster[2,1,1024]' --conf spark.ui.port="$PORT"
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-$name"
        --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false
        --conf spark.ui.showConsoleProgress=false -S)
    if [ -n "$input" ]; then
        "$SQL" "${opts[@]}" <"$input" >"$T/$name.out" 2>"$T/$name.err" 7>&- &
    else
        "$SQL" "${opts[@]}" -e "$LONG" >"$T/$name.out" 2>"$T/$name.err" &
    fi
    PID=$!
    URL=http://127.0.0.1:$PORT
    APP= JOB=
    for _ in $(seq 1200); do
        kill -0 "$PID" 2>/dev/null || break
        [ -n "$APP" ] || APP=$(curl -sf --max-time 5 "$URL/api/v1/applications" |
            $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null)
        if [ -n "$APP" ]; then
            JOB=$(curl -sf --max-time 5 "$URL/api/v1/applications/$APP/jobs?status=running" |
                $PY -c 'import json,sys; j=[x for x in json.load(sys.stdin) if x["numActiveTasks"] > 0]; print(j[0]["jobId"])' 2>/dev/null)
            [ -n "$JOB" ] && return 0
        fi
        sleep 0.1
    done
    tail -n 5 "$T/$name.err" >&2
    fail "$name: the query's job was never seen running a task"
}

# ended NAME: waits (bounded) for cspark-sql; RC its exit status
ended() {
    RC=0
    for _ in $(seq 1200); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$PID" 2>/dev/null && fail "$1: cspark-sql still runs 120 s after the cancellation"
    wait "$PID" || RC=$?
    PID=
}

# no_executor_left NAME: no cspark-executor process of application APP remains
no_executor_left() {
    local left
    for _ in $(seq 100); do
        left=$(pgrep -f -- "cspark-executor.*$APP" || true)
        [ -z "$left" ] && return 0
        sleep 0.1
    done
    fail "$1: executor processes left: $(ps -o pid,args -p "$(echo $left | tr ' ' ,)")"
}

# job_end NAME: the event log's SparkListenerJobEnd of JOB, as "RESULT: message"
job_end() {
    local ev
    ev=$(ls -d "$T/ev-$1"/* | head -1)
    $PY -c '
import json, sys
for e in map(json.loads, open(sys.argv[1])):
    if e["Event"] == "SparkListenerJobEnd" and e["Job ID"] == int(sys.argv[2]):
        r = e["Job Result"]
        print("%s: %s" % (r["Result"], r.get("Exception", {}).get("Message", "")))
        break
else:
    print("no SparkListenerJobEnd for job " + sys.argv[2])' "$ev" "$JOB"
}

# Ctrl-C
start sigint
kill -INT "$PID"
ended sigint
assert_eq 130 "$RC" "exit status after SIGINT"
[ ! -s "$T/sigint.out" ] || fail "sigint: rows printed: $(head -3 "$T/sigint.out")"
no_executor_left sigint
want="[SPARK_JOB_CANCELLED] Job $JOB cancelled as part of cancellation of all jobs SQLSTATE: XXKDA"
grep -qxF "$want" "$T/sigint.err" || fail "sigint: no line '$want' on stderr: $(cat "$T/sigint.err")"
assert_eq "JobFailed: Job $JOB cancelled as part of cancellation of all jobs" "$(job_end sigint)" \
    "sigint: the event log's end of job $JOB"

# Ctrl-C at the prompt: the running statement is cancelled, the next one runs
mkfifo "$T/stdin"
exec 7<>"$T/stdin" # held open: the prompt waits for more input
echo "$LONG;" >&7
start prompt "$T/stdin"
kill -INT "$PID"
for _ in $(seq 1200); do grep -q SPARK_JOB_CANCELLED "$T/prompt.err" && break; sleep 0.1; done
grep -qxF "[SPARK_JOB_CANCELLED] Job $JOB cancelled as part of cancellation of all jobs SQLSTATE: XXKDA" "$T/prompt.err" ||
    fail "prompt: the statement was not cancelled: $(cat "$T/prompt.err")"
kill -0 "$PID" 2>/dev/null || fail "prompt: cspark-sql ended at the first Ctrl-C"
echo "SELECT 6 * 7;" >&7
exec 7>&- # end of input
ended prompt
assert_eq 0 "$RC" "prompt: exit status at the end of input"
assert_eq 42 "$(cat "$T/prompt.out")" "prompt: the statement after the cancelled one"
no_executor_left prompt

# Ctrl-C twice at an idle prompt ends cspark-sql with 130 (regression: the watcher's stop took
# every stream's lock with fflush(NULL) while the prompt held stdin's in its read: no exit)
mkfifo "$T/idle"
exec 8<>"$T/idle"
PORT=$(free_port)
"$SQL" --master 'local-cluster[2,1,1024]' --conf spark.ui.port="$PORT" -S <"$T/idle" >"$T/idle.out" 2>"$T/idle.err" 7>&- 8>&- &
PID=$!
APP=
for _ in $(seq 1200); do
    APP=$(curl -sf --max-time 5 "http://127.0.0.1:$PORT/api/v1/applications" |
        $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null) && [ -n "$APP" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$APP" ] || fail "idle prompt: the application never started: $(tail -3 "$T/idle.err")"
kill -INT "$PID"
kill -INT "$PID"
ended idle
exec 8>&-
assert_eq 130 "$RC" "idle prompt: exit status after two Ctrl-C"
no_executor_left idle

# the UI's kill link
start uikill
token=$(curl -sf "$URL/jobs/" | grep -o 'name="csrf" value="[0-9a-f]*' | head -1 | grep -o '[0-9a-f]*$')
[ -n "$token" ] || fail "uikill: the jobs page offers no kill form"
code=$(curl -s -o /dev/null -w '%{http_code}' -d "id=$JOB&csrf=$token" "$URL/jobs/job/kill/")
assert_eq 303 "$code" "the kill form's answer"
ended uikill
assert_eq 1 "$RC" "exit status after the UI's kill"
[ ! -s "$T/uikill.out" ] || fail "uikill: rows printed: $(head -3 "$T/uikill.out")"
want="[SPARK_JOB_CANCELLED] Job $JOB cancelled killed via the Web UI SQLSTATE: XXKDA"
assert_eq "$want" "$(grep -v '^\(INFO\|WARN\) ' "$T/uikill.err")" "uikill: stderr"
no_executor_left uikill
assert_eq "JobFailed: Job $JOB cancelled killed via the Web UI" "$(job_end uikill)" "uikill: the event log's end of job $JOB"
echo "PASS: $TEST_NAME"
