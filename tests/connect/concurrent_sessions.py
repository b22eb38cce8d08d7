"""concurrent_sessions.py — many PySpark Spark Connect sessions at once against one server: run
by tests/connect/connect_sessions.sh against cspark-connect-server.

  concurrent_sessions.py URL N_SESSIONS

N_SESSIONS client threads each open their own session (SparkSession.builder.create()) and run
small queries at the same time: each result must be its own (the session's number in the rows),
each session's conf and temporary view its own. Meanwhile one more session runs a long query
and interrupts it with interruptAll from another thread: it must fail with OPERATION_CANCELED,
and every other session must still get its answers. Before the interrupt, one more session's
Config and AnalyzePlan must be answered while the long query still runs.
"""
import sys
import threading
import time

from pyspark.sql import SparkSession

url, n_sessions = sys.argv[1], int(sys.argv[2])
failures = []
lock = threading.Lock()


def fail(what):
    with lock:
        failures.append(what)


def session_work(i, ready):
    try:
        spark = SparkSession.builder.remote(url).create()
        ready.wait(120)
        spark.conf.set("spark.cspark.test.session", str(i))
        spark.sql("SELECT %d AS owner" % i).createOrReplaceTempView("mine")
        for round_ in range(3):
            n = 1000 + i * 10 + round_
            rows = spark.sql(
                "SELECT %d AS k, count(*) AS c, sum(id) AS s FROM range(0, %d)" % (i, n)).collect()
            if [tuple(r) for r in rows] != [(i, n, n * (n - 1) // 2)]:
                fail("session %d round %d: %r" % (i, round_, rows))
            df = spark.range(i + 1).selectExpr("id * 2 AS d").toPandas()
            if list(df["d"]) != [2 * k for k in range(i + 1)]:
                fail("session %d round %d toPandas: %r" % (i, round_, list(df["d"])))
        owner = spark.sql("SELECT owner FROM mine").collect()[0][0]
        if owner != i:
            fail("session %d sees the view of session %d" % (i, owner))
        if spark.conf.get("spark.cspark.test.session") != str(i):
            fail("session %d sees conf %r" % (i, spark.conf.get("spark.cspark.test.session")))
        spark.stop()
    except Exception as e:  # any error is a failure of this session
        fail("session %d: %s: %s" % (i, type(e).__name__, str(e)[:300]))


def long_query(spark, outcome):
    try:
        spark.sql("SELECT count(*) FROM range(0, 3000000) a CROSS JOIN range(0, 3000000) b").collect()
        outcome["error"] = None
    except Exception as e:
        outcome["error"] = str(e)


long_spark = SparkSession.builder.remote(url).create()
outcome = {}
long_thread = threading.Thread(target=long_query, args=(long_spark, outcome))
ready = threading.Event()
threads = [threading.Thread(target=session_work, args=(i, ready)) for i in range(n_sessions)]
for t in threads:
    t.start()
long_thread.start()
time.sleep(2)
# another session's Config and AnalyzePlan are answered while the long query still runs (they
# do not wait for its end: the long query only ends when interrupted below)
other = SparkSession.builder.remote(url).create()
if other.conf.get("spark.sql.shuffle.partitions") != "200" or \
        other.range(5).selectExpr("id * 2 AS d").schema.simpleString() != "struct<d:bigint>":
    fail("Config / AnalyzePlan of another session")
if not long_thread.is_alive():
    fail("the long query ended before it was interrupted: %r" % outcome)
other.stop()
ready.set()
time.sleep(1)
interrupted = long_spark.interruptAll()
long_thread.join(120)
for t in threads:
    t.join(600)
if long_thread.is_alive() or any(t.is_alive() for t in threads):
    fail("threads still running after their bounds")
if not interrupted:
    fail("interruptAll named no operation")
if not outcome.get("error") or "OPERATION_CANCELED" not in outcome["error"]:
    fail("the long query was not cancelled: %r" % outcome)
if long_spark.sql("SELECT 5").collect()[0][0] != 5:
    fail("the interrupted session does not go on")
long_spark.stop()
if failures:
    print("FAIL: %d failures:\n%s" % (len(failures), "\n".join(failures[:20])), file=sys.stderr)
    sys.exit(1)
print("PASS concurrent_sessions %d sessions" % n_sessions)
