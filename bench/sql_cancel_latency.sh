#!/usr/bin/env bash
# bench/sql_cancel_latency.sh — how fast a running SQL query stops when cancelled (issue 24: "a
# query cancelled (Ctrl-C, UI kill) stops within 5 s"); not part of CI (tests/integration/
# sql_cancel.sh checks the outcome, never the time).
#
# usage: bench/sql_cancel_latency.sh [BUILD_DIR]      (default: build)
#
# A query that would run for hours (SELECT sum(id % 7) FROM range(0, 10^13, 1, 4)) runs in
# `cspark-sql -e` on local-cluster[2,1,1024] (BENCH_CANCEL_MASTER); once the UI's REST API shows
# its job running a task:
#   Ctrl-C   SIGINT to cspark-sql; measured: signal -> the process has exited (executors stopped,
#            event log written, local files removed: the whole shutdown);
#   UI kill  POST of the job's kill form; measured: request -> Spark's error line
#            ([SPARK_JOB_CANCELLED] ...) on stderr, and request -> the process has exited.
# BENCH_REPS runs of each (default 5), alternating. Prints every measurement, the medians and
# maxima against the 5 s bound, and appends the table to BENCH_CANCEL_OUT (default
# bench/results/sql_cancel.md; empty: no file). Exits 1
# when a run did not end as expected (exit 130 after SIGINT, 1 with the error after the kill).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "sql_cancel_latency: no build dir ${1:-build}" >&2; exit 2; }
SQL=$BUILD/bin/cspark-sql
REPS=${BENCH_REPS:-5}
MASTER=${BENCH_CANCEL_MASTER:-local-cluster[2,1,1024]}
OUT=${BENCH_CANCEL_OUT-$SRC/bench/results/sql_cancel.md}
LONG="SELECT sum(id % 7) FROM range(0, 10000000000000, 1, 4)"
for f in "$SQL" "$BUILD/bin/cspark-executor"; do
    [ -e "$f" ] || { echo "sql_cancel_latency: missing $f (build first)" >&2; exit 2; }
done
T=$(mktemp -d)
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
maximum() { sort -g | tail -1; }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# start: the long query in the background; returns once its job runs a task (URL, JOB set)
start() {
    local port app=
    port=$(free_port)
    URL=http://127.0.0.1:$port
    "$SQL" --master "$MASTER" --conf spark.ui.port="$port" --conf spark.ui.showConsoleProgress=false \
        -e "$LONG" >"$T/out" 2>"$T/err" &
    PID=$!
    JOB=
    for _ in $(seq 1200); do
        kill -0 "$PID" 2>/dev/null || break
        [ -n "$app" ] || app=$(curl -sf --max-time 5 "$URL/api/v1/applications" |
            /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null)
        [ -n "$app" ] && JOB=$(curl -sf --max-time 5 "$URL/api/v1/applications/$app/jobs?status=running" |
            /usr/bin/python3 -c 'import json,sys; j=[x for x in json.load(sys.stdin) if x["numActiveTasks"] > 0]; print(j[0]["jobId"])' 2>/dev/null)
        [ -n "$JOB" ] && return 0
        sleep 0.1
    done
    echo "sql_cancel_latency: the query never ran: $(tail -3 "$T/err")" >&2
    return 1
}

# wait_exit: polls every 10 ms until the process has gone (bounded: 120 s); RC its status
wait_exit() {
    for _ in $(seq 12000); do kill -0 "$PID" 2>/dev/null || break; sleep 0.01; done
    RC=0
    wait "$PID" || RC=$?
    PID=
}

bad=0
: >"$T/sigint" && : >"$T/kill_err" && : >"$T/kill_exit"
for rep in $(seq "$REPS"); do
    start || exit 1
    t0=$(now)
    kill -INT "$PID"
    wait_exit
    t=$(since "$t0" "$(now)")
    [ "$RC" = 130 ] || { echo "sql_cancel_latency: SIGINT run $rep exited with $RC" >&2; bad=1; }
    echo "$t" >>"$T/sigint"
    echo "run $rep  Ctrl-C: signal -> exit ${t} s (status $RC)" >&2

    start || exit 1
    token=$(curl -sf "$URL/jobs/" | grep -o 'name="csrf" value="[0-9a-f]*' | head -1 | grep -o '[0-9a-f]*$')
    t0=$(now)
    curl -s -o /dev/null -d "id=$JOB&csrf=$token" "$URL/jobs/job/kill/"
    te=
    for _ in $(seq 12000); do
        grep -q 'SPARK_JOB_CANCELLED' "$T/err" 2>/dev/null && { te=$(now); break; }
        kill -0 "$PID" 2>/dev/null || break
        sleep 0.01
    done
    wait_exit
    tx=$(now)
    [ -n "$te" ] || { echo "sql_cancel_latency: UI kill run $rep: no SPARK_JOB_CANCELLED error: $(tail -2 "$T/err")" >&2; bad=1; te=$tx; }
    [ "$RC" = 1 ] || { echo "sql_cancel_latency: UI kill run $rep exited with $RC" >&2; bad=1; }
    echo "$(since "$t0" "$te")" >>"$T/kill_err"
    echo "$(since "$t0" "$tx")" >>"$T/kill_exit"
    echo "run $rep  UI kill: request -> error $(since "$t0" "$te") s, -> exit $(since "$t0" "$tx") s" >&2
done

table=$(
    echo "| measure ($MASTER, $REPS runs) | median s | max s | bound s |"
    echo "|---|---|---|---|"
    echo "| Ctrl-C: SIGINT -> cspark-sql exited | $(median <"$T/sigint") | $(maximum <"$T/sigint") | 5 |"
    echo "| UI kill: POST -> SPARK_JOB_CANCELLED printed | $(median <"$T/kill_err") | $(maximum <"$T/kill_err") | 5 |"
    echo "| UI kill: POST -> cspark-sql exited | $(median <"$T/kill_exit") | $(maximum <"$T/kill_exit") | 5 |"
)
echo "$table"
if [ -n "$OUT" ]; then
    mkdir -p "$(dirname "$OUT")"
    {
        echo
        echo "## $(date -u +%Y-%m-%dT%H:%MZ), commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?'), $(nproc) CPUs"
        echo
        echo "$table"
    } >>"$OUT"
fi
exit $bad
