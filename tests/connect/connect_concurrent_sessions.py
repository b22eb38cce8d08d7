"""connect_concurrent_sessions.py — one session's short query answers while another session's
long query runs: run by tests/connect/connect_concurrent_sessions.sh against cspark-connect-server
on local[2].

  connect_concurrent_sessions.py URL GATE_DIR

Session A runs a one-task query whose Python UDF touches GATE_DIR/started, then waits for
GATE_DIR/release (giving up, and failing the query, after 300 s). Once A's UDF waits, session B
runs its own short queries (a count, an aggregate with a shuffle, a Config and an AnalyzePlan);
only after B's answers arrived does this script create GATE_DIR/release. Then A's query must
finish with its exact rows. B could only answer first if the two sessions' statements run at once:
the proof is the order of outcomes, never a time measured.
"""
import os
import sys
import threading
import time

from pyspark.sql import SparkSession
from pyspark.sql.functions import udf

url, gates = sys.argv[1], sys.argv[2]
started, release = os.path.join(gates, "started"), os.path.join(gates, "release")
failures = []


def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def long_query(spark, outcome):
    @udf("bigint")
    def gated(x):
        import os as _os
        import time as _time
        if x == 0:
            open(started, "w").close()
            deadline = _time.monotonic() + 300
            while not _os.path.exists(release):
                if _time.monotonic() > deadline:
                    raise RuntimeError("the release gate was never opened")
                _time.sleep(0.05)
        return x * 10

    try:
        rows = spark.range(0, 4, 1, 1).select(gated("id").alias("v")).collect()
        outcome["rows"] = sorted(r.v for r in rows)
    except Exception as e:  # the test reports it
        outcome["error"] = "%s: %s" % (type(e).__name__, str(e)[:300])


a = SparkSession.builder.remote(url).create()
b = SparkSession.builder.remote(url).create()
outcome = {}
thread = threading.Thread(target=long_query, args=(a, outcome))
thread.start()
if not wait_for(started, 300):
    failures.append("session A's UDF never started: %r" % outcome)
else:
    try:
        n = b.range(0, 1000).count()
        agg = sorted(tuple(r) for r in b.sql(
            "SELECT id % 3 AS k, sum(id) AS s FROM range(0, 30) GROUP BY id % 3").collect())
        conf = b.conf.get("spark.sql.shuffle.partitions")
        schema = b.range(3).selectExpr("id * 2 AS d").schema.simpleString()
        if n != 1000:
            failures.append("B's count: %r" % n)
        if agg != [(0, 135), (1, 145), (2, 155)]:
            failures.append("B's aggregate: %r" % agg)
        if conf != "200" or schema != "struct<d:bigint>":
            failures.append("B's Config / AnalyzePlan: %r %r" % (conf, schema))
        if os.path.exists(release) or not thread.is_alive():
            failures.append("A's query ended before B answered: %r" % outcome)
        else:
            print("session B answered while session A's query waited")
    except Exception as e:
        failures.append("session B: %s: %s" % (type(e).__name__, str(e)[:300]))
open(release, "w").close()
thread.join(400)
if thread.is_alive():
    failures.append("A's query did not finish after the release")
elif outcome.get("rows") != [0, 10, 20, 30]:
    failures.append("A's result: %r" % outcome)
a.stop()
b.stop()
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
