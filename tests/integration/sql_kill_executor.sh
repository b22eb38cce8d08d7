#!/usr/bin/env bash
# sql_kill_executor.sh — a SQL query survives a lost executor (issue 24: "an executor killed
# mid-query gives the same result"): TPC-H q05 (a five-way join and an aggregate, several
# shuffle stages) then q18 (a large aggregate and joins) at scale 0.1 on local-cluster[2,1,1024]
# run once undisturbed and once with executor 1 killed by SIGKILL while q05's tasks run on it —
# "running" read from the web UI's REST API (a finished stage, and a task active on executor 1),
# never from a fixed sleep. Both runs' answers equal Spark 4's goldens
# (tests/sql/golden/tpch-sf0.1/q05.out, q18.out) and each other, and the event log of the killed
# run shows executor 1 removed, with the reason its process ended, while a query was running
# (between a SQLExecutionStart and its SQLExecutionEnd; q18 after q05 leaves work after the kill
# whenever it comes). How many of the query's tasks the loss ended is printed, not judged.
# Usage: sql_kill_executor.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/cspark-executor"
DATA=$BUILD/sql-data
if ! "$SRC/scripts/sql-testdata.sh" "$DATA" tpch >/dev/null; then
    echo "SKIP: the TPC-H data cannot be made (scripts/sql-testdata.sh)"
    exit 77
fi
for t in customer lineitem nation orders part partsupp region supplier; do
    echo "CREATE TEMPORARY VIEW $t AS SELECT * FROM parquet.\`$DATA/tpch-sf0.1/$t.parquet\`;"
done >"$T/views.sql"
cat "$SRC/tests/sql/tpch/q05.sql" "$SRC/tests/sql/tpch/q18.sql" >"$T/queries.sql" # each ends with its ';'
# split.py OUT DIR NAME...: OUT's golden blocks, one per NAME into DIR/NAME.out, numbered 1
cat >"$T/split.py" <<'PY'
import re, sys
out, d, names = sys.argv[1], sys.argv[2], sys.argv[3:]
blocks, cur = [], None
for line in open(out, encoding="utf-8"):
    m = re.match(r"-- query (\d+) (.*)", line)
    if m:
        cur = ["-- query 1 " + m.group(2) + "\n"]
        blocks.append(cur)
    elif cur is not None:
        cur.append(line)
if len(blocks) != len(names):
    sys.exit("split.py: %d result blocks, want %d" % (len(blocks), len(names)))
for name, b in zip(names, blocks):
    open("%s/%s.out" % (d, name), "w", encoding="utf-8").write("".join(b))
PY
PID=
cleanup() {
    [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    _lib_cleanup
}
trap cleanup EXIT
free_port() { $PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run NAME [UI_PORT]: q05 and q18 on local-cluster in the background (PID), golden output in
# $T/NAME.out
run() {
    local name=$1 port=${2:-0}
    mkdir -p "$T/ev-$name"
    TZ=UTC "$SQL" --master 'local-cluster[2,1,1024]' --conf spark.sql.session.timeZone=UTC \
        --conf spark.ui.port="$port" --conf spark.ui.enabled="$([ "$port" = 0 ] && echo false || echo true)" \
        --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev-$name" \
        --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false \
        --conf cspark.log.level=INFO --conf spark.ui.showConsoleProgress=false \
        -i "$T/views.sql" --output-format golden -f "$T/queries.sql" >"$T/$name.out" 2>"$T/$name.err" &
    PID=$!
}
finish() { # finish NAME: waits for the run, failing the test if it failed
    local rc=0
    wait "$PID" || rc=$?
    PID=
    [ $rc -eq 0 ] || { tail -n 15 "$T/$1.err" >&2; fail "$1: cspark-sql exited with $rc"; }
}

# undisturbed
run plain
finish plain
mkdir "$T/golden" "$T/got"
cp "$SRC/tests/sql/golden/tpch-sf0.1/q05.out" "$SRC/tests/sql/golden/tpch-sf0.1/q18.out" "$T/golden/"
$PY "$T/split.py" "$T/plain.out" "$T/got" q05 q18 || fail "the undisturbed run: $(head -3 "$T/plain.out")"
$PY "$SRC/tests/sql/compare.py" "$T/golden" "$T/got" >"$T/cmp-plain" ||
    { cat "$T/cmp-plain" >&2; fail "the undisturbed run differs from Spark's answer"; }

# executor 1 killed while the query's tasks run on it
PORT=$(free_port)
run killed "$PORT"
URL=http://127.0.0.1:$PORT/api/v1
rest() { curl -sf --max-time 5 "$URL/$1"; }
app=
for _ in $(seq 600); do
    app=$(rest applications | $PY -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])' 2>/dev/null) && [ -n "$app" ] && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.1
done
[ -n "$app" ] || { tail -5 "$T/killed.err" >&2; fail "the UI's REST API never named the application"; }
# running: q05's stages after the first have started (one stage done) and executor 1 holds a task
running() {
    local stages execs
    stages=$(rest "applications/$app/stages?status=complete") || return 1
    execs=$(rest "applications/$app/executors") || return 1
    $PY - "$stages" "$execs" <<'PY'
import json, sys
done = json.loads(sys.argv[1])
execs = {e["id"]: e for e in json.loads(sys.argv[2])}
sys.exit(0 if done and execs.get("1", {}).get("activeTasks", 0) > 0 else 1)
PY
}
seen=0
for _ in $(seq 1200); do
    running && { seen=1; break; }
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.05
done
[ $seen = 1 ] || { tail -5 "$T/killed.err" >&2; fail "executor 1 was never seen running a task of the query after a finished stage"; }
epid=$(grep -o 'event=executor_started executor=1 pid=[0-9]*' "$T/killed.err" | head -1 | sed 's/.*pid=//')
[ -n "$epid" ] || fail "the driver did not log executor 1's pid"
kill -9 "$epid" || fail "executor 1 (pid $epid) was gone before the kill"
finish killed
cmp -s "$T/plain.out" "$T/killed.out" || { diff "$T/plain.out" "$T/killed.out" | head >&2; fail "the answer with executor 1 killed differs from the undisturbed one"; }
$PY "$T/split.py" "$T/killed.out" "$T/got" q05 q18 || fail "the killed run: $(head -3 "$T/killed.out")"
$PY "$SRC/tests/sql/compare.py" "$T/golden" "$T/got" >"$T/cmp-killed" ||
    { cat "$T/cmp-killed" >&2; fail "the run with executor 1 killed differs from Spark's answer"; }
# the event log: executor 1 removed, with the reason its process ended, while a query ran
ev=$(ls -d "$T"/ev-killed/* | head -1)
$PY -c '
import json, sys
evs = [json.loads(line) for line in open(sys.argv[1])]
at = [i for i, e in enumerate(evs)
      if e["Event"] == "SparkListenerExecutorRemoved" and e["Executor ID"] == "1"]
if not at:
    sys.exit("no SparkListenerExecutorRemoved for executor 1")
running = set()  # SQL executions started and not ended before the removal
for e in evs[:at[0]]:
    if e["Event"].endswith(".SparkListenerSQLExecutionStart"):
        running.add(e["executionId"])
    elif e["Event"].endswith(".SparkListenerSQLExecutionEnd"):
        running.discard(e["executionId"])
if not running:
    sys.exit("executor 1 was removed while no query ran")
lost = [e for e in evs if e["Event"] == "SparkListenerTaskEnd"
        and e["Task End Reason"]["Reason"] == "ExecutorLostFailure"
        and e["Task End Reason"]["Executor ID"] == "1"]
print("%s; during SQL execution %s; %d task(s) ended by the loss"
      % (evs[at[0]]["Removed Reason"], min(running), len(lost)))' "$ev" >"$T/reason" 2>&1 || fail "event log: $(cat "$T/reason")"
grep -q . "$T/reason" || fail "executor 1's removal carries no reason"
echo "PASS: $TEST_NAME (executor 1 removed: $(cat "$T/reason"))"
