"""map_in_batch.py — mapInPandas, mapInArrow and applyInArrow from the pinned PySpark client against a Spark
Connect server: run by tests/connect/map_in_batch.sh against cspark-connect-server and by
tests/connect/map_in_batch_spark.sh against both cspark's and Apache Spark 4.0.1's own server.

  map_in_batch.py URL OUT.json

Every check is a value the program computes itself (so it holds on any server); OUT.json holds
each case's rows (sorted: partitions may answer in any order), schema and pandas shape, and each
error's exception type, for tests/connect/compare_results.py.
"""
import json
import sys

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from connect_checks import answers, check, error_of_udf

url, out_path = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()


def evens(it):
    for pdf in it:
        yield pdf[pdf.id % 2 == 0]


def squares(it):
    for pdf in it:
        yield pdf.assign(sq=pdf.id * pdf.id, s=pdf.id.astype(str))


def batch_sizes(it):
    for pdf in it:
        yield pd.DataFrame({"rows": [len(pdf)]})


def partition_rows(it):
    yield pd.DataFrame({"n": [sum(len(pdf) for pdf in it)]})


def one_per_partition(it):
    for _ in it:
        pass
    yield pd.DataFrame({"k": [1]})


def column_names(it):
    for pdf in it:
        yield pd.DataFrame({"names": [",".join(pdf.columns)]})


def arrow_double(it):
    for b in it:
        yield pa.RecordBatch.from_arrays([pc.multiply(b.column(0), 2)], names=["x"])


def arrow_strings(it):
    for b in it:
        t = b.to_pydict()
        yield pa.RecordBatch.from_arrays(
            [pa.array([None if v is None else v.upper() for v in t["name"]], pa.string()),
             pa.array(t["n"], pa.int32())], names=["s", "n"])


def arrow_group_sum(table):
    return pa.table({"k": pa.array([table.column("k")[0].as_py()], pa.int64()),
                     "total": pa.array([pc.sum(table.column("id")).as_py()], pa.int64())})


def arrow_group_with_key(key, table):
    return pa.table({"k": pa.array([key[0].as_py()], pa.int64()),
                     "n": pa.array([table.num_rows], pa.int64())})


def nothing(it):
    for _ in it:
        pass
    return iter(())


def raises(it):
    for pdf in it:
        if len(pdf) > 0:
            raise ValueError("mapInPandas failed on purpose")
        yield pdf


people = spark.createDataFrame(
    [("ann", 31, 1.5), ("bob", None, 2.25), (None, 7, None), ("dee", 45, -3.0)],
    "name string, age int, score double")

frames = {
    "pandas_filter": spark.range(0, 100, 1, 3).mapInPandas(evens, "id long"),
    "pandas_new_columns": spark.range(0, 20, 1, 2).mapInPandas(
        squares, "id long, sq long, s string"),
    "pandas_batch_sizes": spark.range(0, 25000, 1, 2).mapInPandas(batch_sizes, "rows long"),
    "pandas_partition_rows": spark.range(0, 1000, 1, 4).mapInPandas(partition_rows, "n long"),
    "pandas_empty_partitions": spark.range(0, 1, 1, 3).mapInPandas(one_per_partition, "k int"),
    "pandas_mixed_types": people.mapInPandas(lambda it: (p[p.age.notna()] for p in it),
                                             "name string, age int, score double"),
    "pandas_column_names": people.select("score", "name").repartition(1).mapInPandas(column_names,
                                                                      "names string"),
    "pandas_then_aggregate": spark.range(0, 50, 1, 3).mapInPandas(squares,
                                                                  "id long, sq long, s string")
    .groupBy((F.col("id") % 5).alias("m")).agg(F.sum("sq").alias("t")),
    "pandas_no_rows": spark.range(0, 10, 1, 2).mapInPandas(nothing, "id long"),
    "pandas_over_filter": spark.range(0, 30, 1, 2).filter("id > 24").mapInPandas(
        evens, "id long"),
    "arrow_grouped": spark.range(0, 100, 1, 3).withColumn("k", F.col("id") % 4).groupBy("k")
    .applyInArrow(arrow_group_sum, "k long, total long"),
    "arrow_grouped_key": spark.range(0, 90, 1, 2).withColumn("k", F.col("id") % 7).groupBy("k")
    .applyInArrow(arrow_group_with_key, "k long, n long"),
    "arrow_double": spark.range(0, 40, 1, 3).mapInArrow(arrow_double, "x long"),
    "arrow_strings": people.select("name", F.col("age").alias("n")).mapInArrow(
        arrow_strings, "s string, n int"),
}
results = answers(frames)

def values(name, col=0):
    return sorted(eval(r[col]) for r in results[name]["rows"])


check(values("pandas_filter") == list(range(0, 100, 2)), "filter: %r" % values("pandas_filter"))
check(["3", "9", "'3'"] in results["pandas_new_columns"]["rows"], "new columns")
check(len(results["pandas_new_columns"]["rows"]) == 20, "new columns: 20 rows")
check(values("pandas_batch_sizes") == [2500, 2500, 10000, 10000],
      "batches of maxRecordsPerBatch rows: %r" % values("pandas_batch_sizes"))
check(values("pandas_partition_rows") == [250, 250, 250, 250],
      "rows a partition: %r" % values("pandas_partition_rows"))
check(values("pandas_empty_partitions") == [1, 1, 1],
      "the function runs for empty partitions too: %r" % values("pandas_empty_partitions"))
check(len(results["pandas_mixed_types"]["rows"]) == 3, "mixed types: %r" % results)
check(values("pandas_column_names") == ["score,name"], "the columns the function sees: %r"
      % values("pandas_column_names"))
check(sum(eval(r[1]) for r in results["pandas_then_aggregate"]["rows"])
      == sum(i * i for i in range(50)), "an aggregate over mapInPandas")
check(results["pandas_no_rows"]["rows"] == [], "a function that yields nothing")
check(values("pandas_over_filter") == [26, 28], "mapInPandas over a filter")
check(sorted(eval(r[1]) for r in results["arrow_grouped"]["rows"])
      == sorted(sum(i for i in range(100) if i % 4 == k) for k in range(4)), "applyInArrow")
check(sum(eval(r[1]) for r in results["arrow_grouped_key"]["rows"]) == 90,
      "applyInArrow with the key")
check(values("arrow_double") == [2 * i for i in range(40)], "mapInArrow")
check(["'ANN'", "31"] in results["arrow_strings"]["rows"] and
      ["None", "7"] in results["arrow_strings"]["rows"], "mapInArrow over strings and nulls")


errors = {
    "pandas_raises": error_of_udf(lambda: spark.range(0, 5).mapInPandas(raises, "id long").collect()),
}
check(errors["pandas_raises"] and errors["pandas_raises"]["type"] == "PythonException"
      and errors["pandas_raises"]["message_has_cause"], "a raising function: %r" % errors)
# the session serves on after the failure
check(spark.range(3).mapInPandas(evens, "id long").count() == 2, "after a failure")

json.dump({"results": results, "errors": errors}, open(out_path, "w"), indent=1, sort_keys=True)
print("ok map_in_batch: %d cases, %d errors" % (len(results), len(errors)))
