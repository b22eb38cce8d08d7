"""idle_sessions_expire.py — Spark Connect sessions closed for idleness, as Spark 4's session manager
does it: run by tests/connect/released_sessions_freed.sh against a cspark-connect-server started
with spark.connect.session.manager.defaultSessionTimeout=2s and maintenanceInterval=200ms, its log
at INFO.

  idle_sessions_expire.py PORT SERVER_LOG

  - an idle session is closed (its session_closed ... reason=expired line in the log, waited for
    without sending it anything), and its id then gets INVALID_HANDLE.SESSION_CLOSED;
  - a session whose query runs for longer than the timeout (a Python UDF that sleeps 6 s) is not
    closed while it runs: the query answers, the session answers after it.
"""
import sys
import time
import uuid

from pyspark.errors import PySparkException
from pyspark.sql import SparkSession
from pyspark.sql.functions import udf
from connect_checks import fail

port, log = int(sys.argv[1]), sys.argv[2]


def closed_in_log(sid):
    with open(log, errors="replace") as f:
        return any("event=session_closed session=%s" % sid in line and "reason=expired" in line
                   for line in f)


def session(sid):
    return SparkSession.builder.remote("sc://localhost:%d/;session_id=%s" % (port, sid)).create()


# 1. an idle session expires
idle_id = str(uuid.uuid4())
idle = session(idle_id)
if idle.range(5).count() != 5:
    fail("range(5).count()")
deadline = time.monotonic() + 120
while not closed_in_log(idle_id):
    if time.monotonic() > deadline:
        fail("the idle session was not closed within 120 s (timeout 2 s)")
    time.sleep(0.2)
try:
    idle.range(1).collect()
    fail("an expired session answered")
except PySparkException as e:
    if e.getCondition() != "INVALID_HANDLE.SESSION_CLOSED":
        fail("expected INVALID_HANDLE.SESSION_CLOSED, got %s: %s" % (e.getCondition(), e))

idle.stop()  # ReleaseSession of a closed session: a no-op, as Spark's

# 2. a session busy for longer than the timeout is not closed under its query
busy_id = str(uuid.uuid4())
busy = session(busy_id)


@udf("long")
def slow(x):
    import time as t

    t.sleep(6)
    return x


rows = busy.range(1).repartition(1).select(slow("id").alias("v")).collect()
if [r.v for r in rows] != [0]:
    fail("the slow query answered %r" % rows)
if closed_in_log(busy_id):
    fail("the session was closed while its query ran")
if busy.range(7).count() != 7:
    fail("the busy session's next query")
busy.stop()
print("PASS idle_sessions_expire.py")
