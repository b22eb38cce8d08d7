#!/usr/bin/env bash
# ui_sql.sh — the SQL / DataFrame tab (issue 24: the UI, the event log and the history server work
# for SQL jobs as for RDD jobs). cspark-sql, at its prompt on local[2] with the UI on a free port
# and the event log on, runs an aggregation with ORDER BY (two shuffles), a join, a query whose
# tasks fail (DIVIDE_BY_ZERO), one with a scalar subquery (its job runs before the query's start is
# posted) and a constant query (answered on the driver with no job, as Spark's), then waits for more
# input. While it waits, its REST API must list the five queries at /api/v1/applications/<id>/sql in
# Spark 4's ExecutionData shape (statement, status COMPLETED or FAILED, physical plan, plan graph
# nodes and edges, the ids of the jobs that ran each query with their status) and /sql/<id> each
# one; the /SQL/ page must list them with links to their jobs, each query's page show its plan (text
# and graph) and jobs, and each job's page link its query (tests/integration/ui_sql_check.py). The
# whole REST API stays within Spark 4's schema (tests/browser/rest_check.py). After the prompt is
# closed, the event log must hold Spark 4's SQLExecutionStart / End lines, and cspark-history over
# it must serve the same (the same checks, and the same answers as the live UI gave).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL" "$BIN/cspark-history"
REST=$SRC/tests/browser
CHECK=$SRC/tests/integration/ui_sql_check.py
mkdir -p "$T/events"
SQL_PID="" HIST_PID=""
stop_all() {
    exec 3>&- 2>/dev/null
    [ -n "$SQL_PID" ] && kill "$SQL_PID" 2>/dev/null && wait "$SQL_PID" 2>/dev/null
    [ -n "$HIST_PID" ] && kill "$HIST_PID" 2>/dev/null && wait "$HIST_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

Q0="SELECT id % 3 AS k, count(*) AS c FROM range(100) GROUP BY id % 3 ORDER BY k"
Q1="SELECT a.k, count(*) AS n FROM (SELECT id % 5 AS k FROM range(50)) a JOIN (SELECT id AS k FROM range(5)) b ON a.k = b.k GROUP BY a.k"
Q2="SELECT id / 0 FROM range(3)"
Q3="SELECT count(*) AS n FROM range(10) WHERE id > (SELECT avg(id) FROM range(4))"
Q4="SELECT 'ui-sql-done' AS marker"
cat >"$T/queries.json" <<EOF
[{"text": "$Q0", "status": "COMPLETED", "plan": ["HashAggregate", "Exchange", "Sort", "Range"]},
 {"text": "$Q1", "status": "COMPLETED", "plan": ["HashAggregate", "Range"]},
 {"text": "$Q2", "status": "FAILED", "plan": ["Project", "Range"]},
 {"text": "$Q3", "status": "COMPLETED", "plan": ["Filter", "HashAggregate"]},
 {"text": "$Q4", "status": "COMPLETED", "local": true}]
EOF

mkfifo "$T/in"
timeout 300 "$SQL" -S --master 'local[2]' --conf spark.ui.port=0 --conf cspark.log.level=INFO \
    --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=$T/events" \
    <"$T/in" >"$T/out" 2>"$T/err" &
SQL_PID=$!
exec 3>"$T/in" # the prompt reads until this is closed
printf '%s;\n%s;\n%s;\n%s;\n%s;\n' "$Q0" "$Q1" "$Q2" "$Q3" "$Q4" >&3
for _ in $(seq 1 600); do
    grep -q "^ui-sql-done$" "$T/out" && break
    kill -0 "$SQL_PID" 2>/dev/null || fail "cspark-sql ended: $(tail -5 "$T/err")"
    sleep 0.2
done
grep -q "^ui-sql-done$" "$T/out" || fail "the queries did not finish: $(tail -5 "$T/err")"
assert_eq "$(head -3 "$T/out")" "$(printf '0\t34\n1\t33\n2\t33')" "the aggregation's rows"
grep -q '^\[DIVIDE_BY_ZERO\] ' "$T/err" || fail "no DIVIDE_BY_ZERO from $Q2: $(tail -5 "$T/err")"
app=$(grep -o "ui app=[^ ]*" "$T/err" | head -1 | cut -d= -f2)
port=$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/err" | head -1 | grep -o '[0-9]*$')
[ -n "$port" ] || fail "no UI port in the driver's log: $(head -5 "$T/err")"
URL=http://127.0.0.1:$port
"$PY" "$CHECK" ui "$URL" "$URL" "$app" "$T/queries.json" >&2 || fail "the live UI's SQL tab"
(cd "$REST" && "$PY" rest_check.py check "$URL" "$app" "$T/live.json") ||
    fail "the live REST API does not match Spark 4's schema"
log "live UI: 5 queries with their plans, jobs and statuses"

exec 3>&- # end of input: the prompt ends, the application stops
wait "$SQL_PID" || fail "cspark-sql exited with $?: $(tail -5 "$T/err")"
SQL_PID=""
[ -f "$T/events/eventlog_v2_$app/appstatus_$app" ] || fail "no finished event log in $T/events"
cat_event_log "$T/events/eventlog_v2_$app" >"$T/lines" || fail "cannot read the event log"
"$PY" "$CHECK" events "$T/lines" "$T/queries.json" >&2 || fail "the SQL events of the event log"

"$BIN/cspark-history" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
HURL=http://127.0.0.1:$hport
"$PY" "$CHECK" ui "$HURL" "$HURL/history/$app" "$app" "$T/queries.json" >&2 ||
    fail "the history server's SQL tab"
(cd "$REST" && "$PY" rest_check.py check "$HURL" "$app" "$T/history.json") ||
    fail "the history server's REST API does not match Spark 4's schema"
(cd "$REST" && "$PY" rest_check.py compare "$T/live.json" "$T/history.json") ||
    fail "the history server answers differently from the live UI for the same application"
echo "PASS: $TEST_NAME"
