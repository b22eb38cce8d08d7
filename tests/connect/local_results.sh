#!/usr/bin/env bash
# local_results.sh — queries of local rows (SELECT 1, VALUES, a createDataFrame's rows under
# projections, filters and limits) are answered on cspark-connect-server's driver without a job,
# as Spark's LocalTableScanExec answers them (tests/connect/local_results.py checks the rows and
# errors): the event log holds a SQL execution start and end for every query, and jobs only for
# the one query that is not local (spark.range, the last). The server is stopped by the trap
# whatever happens (here first with SIGTERM, so that its event log is complete).
# Usage: local_results.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init local_results "${1:-}"
port=$(free_port)
mkdir -p "$T/events"
start_cspark "$port" "$T/cspark.log" --conf spark.eventLog.enabled=true \
  --conf "spark.eventLog.dir=file:$T/events" --conf spark.eventLog.compress=false
server=${_connect_pids[-1]}
timeout 600 "$PY" "$SRC/tests/connect/local_results.py" "sc://localhost:$port" \
  >"$T/client.log" 2>&1 || fail "$(tail -n 5 "$T/client.log")"
kill -TERM "$server"
for _ in $(seq 600); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
kill -0 "$server" 2>/dev/null && fail "the server did not stop within 60 s of SIGTERM"
"$PY" - "$T/events" <<'PY' || fail "the event log"
import json, os, sys
d = sys.argv[1]
apps = os.listdir(d)
if len(apps) != 1:
    sys.exit("want one application's event log in %s, got %r" % (d, apps))
log = os.path.join(d, apps[0])  # a rolling log: a folder of events_N_* files
files = sorted((os.path.join(log, f) for f in os.listdir(log) if f.startswith("events_")),
               key=lambda f: int(os.path.basename(f).split("_")[1])) \
    if os.path.isdir(log) else [log]
starts, ends, jobs = [], [], set()
for name in files:
    for line in open(name):
        ev = json.loads(line)
        kind = ev["Event"].rsplit(".", 1)[-1]
        if kind == "SparkListenerSQLExecutionStart":
            starts.append(ev["executionId"])
        elif kind == "SparkListenerSQLExecutionEnd":
            ends.append(ev["executionId"])
        elif kind == "SparkListenerJobStart":
            jobs.add(int((ev.get("Properties") or {}).get("spark.sql.execution.id", -1)))
if len(starts) < 6 or sorted(starts) != sorted(ends):
    sys.exit("SQL executions: starts %r, ends %r" % (starts, ends))
if jobs != {max(starts)}:
    sys.exit("jobs of SQL executions %r: want only the last one's (%d, spark.range)"
             % (sorted(jobs), max(starts)))
print("%d SQL executions, jobs only for execution %d" % (len(starts), max(starts)))
PY
echo "PASS local_results"
