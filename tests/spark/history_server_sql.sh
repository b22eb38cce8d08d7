#!/usr/bin/env bash
# history_server_sql.sh — Apache Spark's own History Server shows the SQL queries of a cspark-sql
# event log (issue 24: "SQL tab / SQLExecutionStart events: Spark's History Server shows the
# query").
#
# cspark-sql runs, at its prompt on local-cluster[2,1,1024] (executor processes) with the event
# log on (rolled and zstd-compressed, Spark 4's defaults), an aggregation with ORDER BY, a join, a
# query whose tasks fail, one with a scalar subquery (whose job runs before the query's start is
# posted) and a constant query (answered on the driver with no job, as Spark's). Then Spark 4's
# org.apache.spark.deploy.history.HistoryServer
# (installed by scripts/install-spark.sh; exit 77 = SKIP only when that fails) and cspark-history
# serve the same directory: Spark's /api/v1/applications/<id>/sql must list the five queries with
# their statements, statuses, plans, plan graphs and job ids exactly as cspark-history answers
# them (tests/integration/ui_sql_check.py same) and as the queries ran (statuses, plan nodes,
# jobs); Spark's SQL pages must list and show each query. Both servers are stopped on every exit.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/cspark-history" "$BIN/cspark-executor"
CHECK=$SRC/tests/integration/ui_sql_check.py

SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
EV=$T/events
mkdir -p "$EV"
HS_PID="" HIST_PID=""
stop_all() {
    [ -n "$HS_PID" ] && kill "$HS_PID" 2>/dev/null && wait "$HS_PID" 2>/dev/null
    [ -n "$HIST_PID" ] && kill "$HIST_PID" 2>/dev/null && wait "$HIST_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

Q0="SELECT id % 3 AS k, count(*) AS c FROM range(100) GROUP BY id % 3 ORDER BY k"
Q1="SELECT a.k, count(*) AS n FROM (SELECT id % 5 AS k FROM range(50)) a JOIN (SELECT id AS k FROM range(5)) b ON a.k = b.k GROUP BY a.k"
Q2="SELECT id / 0 FROM range(3)"
Q3="SELECT count(*) AS n FROM range(10) WHERE id > (SELECT avg(id) FROM range(4))"
Q4="SELECT 'history-sql-done' AS marker"
cat >"$T/queries.json" <<EOF
[{"text": "$Q0", "status": "COMPLETED", "plan": ["HashAggregate", "Exchange", "Sort", "Range"]},
 {"text": "$Q1", "status": "COMPLETED", "plan": ["HashAggregate", "Range"]},
 {"text": "$Q2", "status": "FAILED", "plan": ["Project", "Range"]},
 {"text": "$Q3", "status": "COMPLETED", "plan": ["Filter", "HashAggregate"]},
 {"text": "$Q4", "status": "COMPLETED", "local": true}]
EOF
printf '%s;\n%s;\n%s;\n%s;\n%s;\n' "$Q0" "$Q1" "$Q2" "$Q3" "$Q4" |
    timeout 300 "$SQL" -S --master 'local-cluster[2,1,1024]' --conf spark.ui.enabled=false \
        --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=$EV" \
        >"$T/out" 2>"$T/err" || fail "cspark-sql exited with $?: $(tail -5 "$T/err")"
grep -q "^history-sql-done$" "$T/out" || fail "the queries did not run: $(tail -5 "$T/err")"
app=$(ls "$EV" | sed -n 's/^eventlog_v2_//p' | head -1)
[ -n "$app" ] || fail "no event log in $EV"

"$BIN/cspark-history" --conf spark.history.ui.port=0 "$EV" >"$T/hist.out" 2>&1 &
HIST_PID=$!
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "cspark-history did not start: $(cat "$T/hist.out")"

PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$T/history.conf" <<EOF
spark.history.fs.logDirectory file:$EV
spark.history.ui.port $PORT
spark.history.fs.update.interval 1s
spark.ui.bindAddress 127.0.0.1
EOF
SPARK_LOCAL_IP=127.0.0.1 "$SPARK_HOME/bin/spark-class" \
    "-Dlog4j.configurationFile=file:$SRC/bench/spark/log4j2.properties" \
    org.apache.spark.deploy.history.HistoryServer --properties-file "$T/history.conf" \
    >"$T/history.log" 2>&1 &
HS_PID=$!
SPARK=http://127.0.0.1:$PORT
CSPARK=http://127.0.0.1:$hport

# Spark's answer is cspark-history's answer (waits for Spark to read the log)
"$PY" "$CHECK" same "$SPARK" "$CSPARK" "$app" >&2 || {
    echo "--- History Server log (last 30 lines)" >&2
    tail -30 "$T/history.log" >&2
    fail "Spark's History Server's /sql differs from cspark-history's"
}
# and it is right: the queries, their statuses, plans and jobs (REST; Spark's pages differ)
"$PY" - "$SPARK" "$app" "$T/queries.json" <<'PY' || fail "Spark's History Server's /sql"
import json, sys, urllib.request
base, app, qf = sys.argv[1:4]
with urllib.request.urlopen(f"{base}/api/v1/applications/{app}/sql", timeout=60) as r:
    execs = json.loads(r.read().decode())
queries = json.load(open(qf))
errs = []
if [e["description"] for e in execs] != [q["text"] for q in queries]:
    errs.append(f"descriptions {[e['description'] for e in execs]}")
for e, q in zip(execs, queries):
    if e["status"] != q["status"] or not e["planDescription"].startswith("== Physical Plan =="):
        errs.append(f"query {e['id']}: {e['status']}, plan {e['planDescription'][:60]!r}")
    # a constant query is answered on the driver with no job, as Spark's LocalTableScan is
    if bool(e["successJobIds"] + e["failedJobIds"]) == q.get("local", False) or e["runningJobIds"]:
        errs.append(f"query {e['id']}: jobs {e['successJobIds']} {e['failedJobIds']} {e['runningJobIds']}")
    names = [n["nodeName"] for n in e["nodes"]]
    if any(p not in names for p in q.get("plan", [])):
        errs.append(f"query {e['id']}: plan nodes {names}")
for x in errs:
    print("history_server_sql:", x)
sys.exit(1 if errs else 0)
PY
for id in 0 1 2 3 4; do
    "$PY" -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=60).read().decode())' \
        "$SPARK/history/$app/SQL/execution/?id=$id" >"$T/page.html" 2>&1 ||
        fail "Spark's History Server has no page for query $id: $(tail -1 "$T/page.html")"
    grep -q "Details for Query $id" "$T/page.html" || fail "Spark's page of query $id: $(head -c 300 "$T/page.html")"
done
# Spark's /SQL/ page lists every statement
"$PY" - "$SPARK/history/$app/SQL/" "$T/queries.json" <<'PY' || fail "Spark's SQL / DataFrame page"
import html, json, sys, urllib.request
page = html.unescape(urllib.request.urlopen(sys.argv[1], timeout=60).read().decode())
missing = [q["text"] for q in json.load(open(sys.argv[2])) if q["text"] not in page]
for m in missing:
    print(f"history_server_sql: Spark's /SQL/ page does not list {m!r}")
sys.exit(1 if missing else 0)
PY
grep -E "ERROR|Exception" "$T/history.log" | grep -v "^\s*at " >"$T/history.errors" || true
[ -s "$T/history.errors" ] && fail "the History Server logged errors reading cspark's log: $(head -3 "$T/history.errors")"
echo "PASS: $TEST_NAME"
