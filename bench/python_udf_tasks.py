"""python_udf_tasks.py — the time of a mapInPandas job of many small tasks against a Spark Connect
server: what starting (or reusing) a Python worker costs a task. Not a test: a measurement, run by
bench/python_udf_tasks.sh.

    python_udf_tasks.py URL TASKS RUNS

One warm-up job, then RUNS jobs of spark.range(TASKS * 100, numPartitions=TASKS).mapInPandas(...)
(each task passes its 100 rows through pandas), each collected; prints the median, min and max
wall time in milliseconds as one line: `median_ms=... min_ms=... max_ms=... tasks=...`.
"""
import statistics
import sys
import time

from pyspark.sql import SparkSession

url, tasks, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
spark = SparkSession.builder.remote(url).getOrCreate()


def plus_one(it):
    for pdf in it:
        yield pdf.assign(id=pdf.id + 1)


def job():
    rows = spark.range(0, tasks * 100, 1, tasks).mapInPandas(plus_one, "id long").collect()
    assert len(rows) == tasks * 100


job()
times = []
for _ in range(runs):
    t0 = time.monotonic()
    job()
    times.append((time.monotonic() - t0) * 1000)
print("median_ms=%.0f min_ms=%.0f max_ms=%.0f tasks=%d" %
      (statistics.median(times), min(times), max(times), tasks))
