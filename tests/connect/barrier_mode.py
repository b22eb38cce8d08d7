"""barrier_mode.py — mapInPandas / mapInArrow in barrier mode (barrier=True) from the pinned PySpark
client against a Spark Connect server started with --master local[2]: run by
tests/connect/barrier_mode.sh against cspark-connect-server and by tests/connect/barrier_mode_spark.sh
against both cspark's and Apache Spark 4.0.1's own server.

  barrier_mode.py URL OUT.json

Over 2 partitions every task's TaskContext.get() is a BarrierTaskContext, barrier() returns in
every task, allGather returns every task's message in partition order, getTaskInfos() has one
entry per task; a barrier stage of 3 partitions on 2 slots fails with Spark's [SPARK-24819] text
(the servers run with spark.scheduler.barrier.maxConcurrentTasksCheck.interval=1s and a few
.maxFailures); a task that fails fails its whole barrier result stage, and so does a barrier()
that not every task calls, once spark.barrier.sync.timeout (3s for these servers) passes. OUT.json holds each case's rows (sorted), schema and pandas shape, and the error's type and text, for
tests/connect/compare_results.py.
"""
import json
import sys

import pandas as pd
import pyarrow as pa
from pyspark.sql import SparkSession
from connect_checks import answers, check

url, out_path = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()


def context_kind(it):
    from pyspark import BarrierTaskContext, TaskContext
    tc = TaskContext.get()
    rows = sum(len(pdf) for pdf in it)
    yield pd.DataFrame({"barrier": [isinstance(tc, BarrierTaskContext)],
                        "partition": [tc.partitionId()], "rows": [rows]})


def sync_all(it):
    from pyspark import BarrierTaskContext
    tc = BarrierTaskContext.get()
    rows = sum(len(pdf) for pdf in it)
    tc.barrier()
    tc.barrier()  # a second sync: the epochs move on together
    yield pd.DataFrame({"partition": [tc.partitionId()], "rows": [rows], "synced": [True]})


def gather(it):
    from pyspark import BarrierTaskContext
    tc = BarrierTaskContext.get()
    for _ in it:
        pass
    got = tc.allGather("from-%d" % tc.partitionId())
    infos = tc.getTaskInfos()
    yield pd.DataFrame({"partition": [tc.partitionId()], "gathered": [",".join(got)],
                        "infos": [len(infos)], "has_port": [all(":" in i.address for i in infos)]})


def arrow_gather(it):
    from pyspark import BarrierTaskContext
    tc = BarrierTaskContext.get()
    n = sum(b.num_rows for b in it)
    got = tc.allGather(str(n))
    yield pa.RecordBatch.from_arrays([pa.array([tc.partitionId()], pa.int64()),
                                      pa.array([",".join(got)], pa.string())], names=["p", "g"])


def fails_in_one(it):
    from pyspark import BarrierTaskContext
    tc = BarrierTaskContext.get()
    for pdf in it:
        if tc.partitionId() == 1:
            raise ValueError("barrier task failed on purpose")
        yield pdf


def only_first_syncs(it):
    from pyspark import BarrierTaskContext
    tc = BarrierTaskContext.get()
    for _ in it:
        pass
    if tc.partitionId() == 0:
        tc.barrier()  # the other task never comes: the sync times out
    yield pd.DataFrame({"partition": [tc.partitionId()]})


def plain(it):
    from pyspark import BarrierTaskContext, TaskContext
    for pdf in it:
        yield pdf.assign(barrier=isinstance(TaskContext.get(), BarrierTaskContext))


frames = {
    "context": spark.range(0, 10, 1, 2).mapInPandas(
        context_kind, "barrier boolean, partition int, rows long", True),
    "barrier_calls": spark.range(0, 10, 1, 2).mapInPandas(
        sync_all, "partition int, rows long, synced boolean", True),
    "all_gather": spark.range(0, 6, 1, 2).mapInPandas(
        gather, "partition int, gathered string, infos int, has_port boolean", True),
    "arrow_all_gather": spark.range(0, 7, 1, 2).mapInArrow(arrow_gather, "p long, g string",
                                                           barrier=True),
    "not_barrier": spark.range(0, 4, 1, 2).mapInPandas(plain, "id long, barrier boolean"),
}
results = answers(frames)

check(results["context"]["rows"] == [["True", "0", "5"], ["True", "1", "5"]],
      "BarrierTaskContext in every task: %r" % results["context"])
check(results["barrier_calls"]["rows"] == [["0", "5", "True"], ["1", "5", "True"]],
      "barrier() in every task: %r" % results["barrier_calls"])
check(results["all_gather"]["rows"] == [["0", "'from-0,from-1'", "2", "True"],
                                        ["1", "'from-0,from-1'", "2", "True"]],
      "allGather in partition order, 2 task infos: %r" % results["all_gather"])
check(results["arrow_all_gather"]["rows"] == [["0", "'3,4'"], ["1", "'3,4'"]],
      "mapInArrow(barrier=True) allGather: %r" % results["arrow_all_gather"])
check(all(r[1] == "False" for r in results["not_barrier"]["rows"]),
      "an ordinary mapInPandas sees a TaskContext: %r" % results["not_barrier"])


def error_of(fn):
    try:
        fn()
    except Exception as e:
        text = str(e)
        return {"type": type(e).__name__, "spark_24819": "[SPARK-24819]" in text,
                "slots_text": "requires more slots than the total number of slots in the cluster"
                in text,
                "result_stage": "Could not recover from a failed barrier ResultStage" in text,
                "barrier_task": "Stage failed because barrier task ResultTask(" in text}
    return None


errors = {
    "too_many_tasks": error_of(lambda: spark.range(0, 9, 1, 3).mapInPandas(
        sync_all, "partition int, rows long, synced boolean", True).collect()),
}
errors["task_fails"] = error_of(lambda: spark.range(0, 6, 1, 2).mapInPandas(
    fails_in_one, "id long", True).collect())
errors["sync_times_out"] = error_of(lambda: spark.range(0, 6, 1, 2).mapInPandas(
    only_first_syncs, "partition int", True).collect())
check(errors["task_fails"] and errors["task_fails"]["result_stage"]
      and errors["task_fails"]["barrier_task"], "a failed barrier task: %r" % errors)
check(errors["sync_times_out"] and errors["sync_times_out"]["result_stage"],
      "a barrier() that times out: %r" % errors)
check(errors["too_many_tasks"] and errors["too_many_tasks"]["spark_24819"]
      and errors["too_many_tasks"]["slots_text"], "3 barrier tasks on 2 slots: %r" % errors)
check(spark.range(0, 4, 1, 2).mapInPandas(sync_all, "partition int, rows long, synced boolean",
                                          True).count() == 2, "after the failure")

json.dump({"results": results, "errors": errors}, open(out_path, "w"), indent=1, sort_keys=True)
print("ok barrier_mode: %d cases, %d errors" % (len(results), len(errors)))
