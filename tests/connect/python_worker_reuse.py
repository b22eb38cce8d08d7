"""python_worker_reuse.py — which Python worker ran each task, from the pinned PySpark client
against cspark-connect-server: run by tests/connect/python_worker_reuse.sh.

  python_worker_reuse.py URL reuse|no-reuse CORES

Each of 8 tasks (mapInPandas over 8 partitions) reports os.getpid() of its worker. With reuse
(spark.python.worker.reuse=true) the tasks of a job share at most CORES workers, a second job
(a scalar pandas_udf this time) runs in those same workers, and a worker whose function raised
is not seen again, and a daemon that died is replaced; without it, every task has a worker of its own.
"""
import os
import re
import signal
import sys

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from connect_checks import check

url, mode, cores = sys.argv[1], sys.argv[2], int(sys.argv[3])
spark = SparkSession.builder.remote(url).getOrCreate()


def pid_of_task(it):
    for _ in it:
        pass
    yield pd.DataFrame({"pid": [os.getpid()]})


@F.pandas_udf("long")
def pid_udf(s):
    return pd.Series([os.getpid()] * len(s))


def raises(it):
    for _ in it:
        pass
    raise ValueError("worker pid=%d failed on purpose" % os.getpid())
    yield  # a generator


def kill_daemon(it):
    for _ in it:
        pass
    os.kill(os.getppid(), signal.SIGKILL)
    yield pd.DataFrame({"id": [1]})


first = [r.pid for r in spark.range(0, 80, 1, 8).mapInPandas(pid_of_task, "pid long").collect()]
check(len(first) == 8, "8 tasks: %r" % first)
second = {r.pid for r in spark.range(0, 80, 1, 8).select(pid_udf("id").alias("pid"))
          .distinct().collect()}
if mode == "reuse":
    check(len(set(first)) <= cores, "the tasks share at most %d workers: %r" % (cores, first))
    check(second <= set(first), "the next job runs in the same workers: %r then %r"
          % (first, second))
    failed = None
    try:
        spark.range(0, 10, 1, 1).mapInPandas(raises, "id long").collect()
    except Exception as e:
        failed = int(re.findall(r"worker pid=(\d+) failed", str(e))[-1])
    check(failed is not None, "the raising function failed its job")
    after = {r.pid for r in spark.range(0, 80, 1, 8).mapInPandas(pid_of_task, "pid long")
             .collect()}
    check(failed not in after, "the worker that failed is not reused: %d in %r" % (failed, after))
    # a daemon that dies (its worker kills it) is replaced by a new one at the next task
    spark.range(0, 10, 1, 1).mapInPandas(kill_daemon, "id long").collect()
    again = [r.pid for r in spark.range(0, 80, 1, 8).mapInPandas(pid_of_task, "pid long")
             .collect()]
    check(len(again) == 8, "tasks run after the daemon died: %r" % again)
else:
    check(len(set(first)) == 8, "a worker per task: %r" % first)
    check(not (second & set(first)), "no worker serves two tasks: %r then %r" % (first, second))
print("ok python_worker_reuse %s: %d workers for 8 tasks" % (mode, len(set(first))))
