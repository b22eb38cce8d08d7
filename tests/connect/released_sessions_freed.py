"""released_sessions_freed.py — many Spark Connect sessions opened and released one after another at
a running cspark-connect-server (run by tests/connect/released_sessions_freed.sh), as a notebook
server or a job runner does for hours: the server's memory must stay bounded, and a released
session's id must be refused with Spark's INVALID_HANDLE.SESSION_CLOSED.

  released_sessions_freed.py PORT SERVER_PID N_SESSIONS [MAX_GROWTH_KB]

Each session, through the pinned client's own messages over gRPC: a Config set, a temporary view
(sql_command), the view persisted (AnalyzePlan persist) and collected (ExecutePlan: a job, its
rows kept in the session's cache), then ReleaseSession. The server's resident memory (VmRSS) is
read after a warm-up (a fifth of the sessions) and at the end: the growth over the rest must stay
under MAX_GROWTH_KB (6 MB; a session leaked whole was ~18 KB: 1,600 of them ~29 MB; 0: only
reported, for a sanitized server, whose RSS holds freed memory in quarantine). Then:
  - one session's N_SESSIONS ExecutePlans that are not reattachable leave nothing behind either
    (the same bound: Spark drops such an operation with its stream);
  - the last released session's id gets SESSION_CLOSED on ExecutePlan and Config (a tombstone);
  - ReleaseSession of it again, and of a session never seen, answer OK (Spark's: a no-op);
  - through PySpark: a session made with a given session_id, stopped, then used again with the
    same id raises the client's exception with error class INVALID_HANDLE.SESSION_CLOSED.
Prints the RSS figures.
"""
import sys
import uuid

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

import pyspark.sql.connect.proto as pb2
from pyspark.sql.connect.proto import base_pb2_grpc
from connect_checks import fail

port, server_pid, n_sessions = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
MAX_GROWTH_KB = int(sys.argv[4]) if len(sys.argv) > 4 else 6 * 1024
channel = grpc.insecure_channel("127.0.0.1:%d" % port)
stub = base_pb2_grpc.SparkConnectServiceStub(channel)
USER = "released-sessions"


def rss_kb():
    with open("/proc/%d/status" % server_pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    fail("no VmRSS for pid %d" % server_pid)


def user():
    return pb2.UserContext(user_id=USER)


def sql_relation(text):
    rel = pb2.Relation()
    rel.sql.query = text
    return rel


def execute(session_id, plan):
    req = pb2.ExecutePlanRequest(session_id=session_id, user_context=user(), plan=plan)
    rows = 0
    complete = False
    for resp in stub.ExecutePlan(req, timeout=120):
        if resp.HasField("arrow_batch"):
            rows += resp.arrow_batch.row_count
        if resp.HasField("result_complete"):
            complete = True
    if not complete:
        fail("session %s: ExecutePlan ended without ResultComplete" % session_id)
    return rows


def one_session(i):
    sid = str(uuid.uuid4())
    conf = pb2.ConfigRequest(session_id=sid, user_context=user())
    pair = conf.operation.set.pairs.add()
    pair.key, pair.value = "spark.sql.shuffle.partitions", "3"
    stub.Config(conf, timeout=120)
    plan = pb2.Plan()
    plan.command.sql_command.input.CopyFrom(
        sql_relation("CREATE OR REPLACE TEMP VIEW v AS SELECT id, id * %d AS x FROM range(20)" % i))
    execute(sid, plan)
    view = sql_relation("SELECT * FROM v WHERE id < 10")
    persist = pb2.AnalyzePlanRequest(session_id=sid, user_context=user())
    persist.persist.relation.CopyFrom(view)
    stub.AnalyzePlan(persist, timeout=120)
    query = pb2.Plan()
    query.root.CopyFrom(view)
    rows = execute(sid, query)
    if rows != 10:
        fail("session %d: %d rows, expected 10" % (i, rows))
    resp = stub.ReleaseSession(pb2.ReleaseSessionRequest(session_id=sid, user_context=user()),
                               timeout=120)
    if resp.session_id != sid or not resp.server_side_session_id:
        fail("session %d: ReleaseSession answered %r" % (i, resp))
    return sid


def error_class(e):
    status = rpc_status.from_call(e)
    if status is None:
        return None
    for d in status.details:
        if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            d.Unpack(info)
            return info.metadata.get("errorClass")
    return None


def expect_closed(what, call):
    try:
        call()
    except grpc.RpcError as e:
        cls = error_class(e)
        if cls != "INVALID_HANDLE.SESSION_CLOSED":
            fail("%s: expected INVALID_HANDLE.SESSION_CLOSED, got %s (%s)" % (what, cls, e.details()))
        return
    fail("%s: a released session answered" % what)


warm = n_sessions // 5
last = None
for i in range(warm):
    last = one_session(i)
before = rss_kb()
trace = []
for i in range(warm, n_sessions):
    last = one_session(i)
    if (i + 1) % (n_sessions // 10) == 0:
        trace.append("%d: %d KB" % (i + 1, rss_kb()))
after = rss_kb()
print("RSS by sessions released: " + ", ".join(trace))
growth = after - before
print("RSS after %d sessions: %d KB; after %d: %d KB; growth over the last %d: %d KB (%.2f KB per session)"
      % (warm, before, n_sessions, after, n_sessions - warm, growth, growth / (n_sessions - warm)))
if MAX_GROWTH_KB and growth > MAX_GROWTH_KB:
    fail("the server's RSS grew by %d KB over %d released sessions (limit %d KB)"
         % (growth, n_sessions - warm, MAX_GROWTH_KB))

# one session, many ExecutePlans that are not reattachable (no ReattachOptions, as this raw
# client sends them): each goes with its stream, as Spark's, never kept until the session ends
sid = str(uuid.uuid4())
query = pb2.Plan()
query.root.CopyFrom(sql_relation("SELECT id FROM range(10)"))
n_ops = n_sessions
execute(sid, query)
before = rss_kb()
for i in range(n_ops):
    if execute(sid, query) != 10:
        fail("operation %d: not 10 rows" % i)
growth = rss_kb() - before
print("RSS growth over %d non-reattachable operations of one session: %d KB (%.2f KB each)"
      % (n_ops, growth, growth / n_ops))
if MAX_GROWTH_KB and growth > MAX_GROWTH_KB:
    fail("the server's RSS grew by %d KB over %d operations (limit %d KB)"
         % (growth, n_ops, MAX_GROWTH_KB))
stub.ReleaseSession(pb2.ReleaseSessionRequest(session_id=sid, user_context=user()), timeout=60)

query = pb2.Plan()
query.root.CopyFrom(sql_relation("SELECT 1"))
expect_closed("ExecutePlan of a released session", lambda: execute(last, query))
expect_closed("Config of a released session",
              lambda: stub.Config(pb2.ConfigRequest(session_id=last, user_context=user(),
                                                    operation=pb2.ConfigRequest.Operation(
                                                        get_all=pb2.ConfigRequest.GetAll())),
                                  timeout=60))
for sid in (last, str(uuid.uuid4())):
    resp = stub.ReleaseSession(pb2.ReleaseSessionRequest(session_id=sid, user_context=user()),
                               timeout=60)
    if resp.session_id != sid or resp.server_side_session_id:
        fail("ReleaseSession of a session not live answered %r" % resp)

# the same through PySpark: the client raises Spark's error class
from pyspark.errors import PySparkException  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

sid = str(uuid.uuid4())
url = "sc://localhost:%d/;session_id=%s" % (port, sid)
spark = SparkSession.builder.remote(url).create()
if spark.range(3).count() != 3:
    fail("PySpark: range(3).count()")
spark.stop()
again = SparkSession.builder.remote(url).create()
try:
    again.range(1).collect()
    fail("PySpark: a stopped session's id answered")
except PySparkException as e:
    if e.getCondition() != "INVALID_HANDLE.SESSION_CLOSED":
        fail("PySpark: expected INVALID_HANDLE.SESSION_CLOSED, got %s: %s" % (e.getCondition(), e))
print("PASS released_sessions_freed.py")
