"""pandas_agg.py — grouped-aggregate pandas UDFs (PandasUDFType.GROUPED_AGG, or a type-hinted
`pd.Series -> scalar` function) in groupBy().agg(...), agg(...) and select(...), from the pinned
PySpark client against a Spark Connect server: run by tests/connect/pandas_agg.sh against
cspark-connect-server and by tests/connect/pandas_agg_spark.sh against both cspark's and Apache
Spark 4.0.1's own server.

  pandas_agg.py URL OUT.json

Cases: one UDF and two (a mean, a weighted mean of two columns, the same column read twice), an
expression and a Python UDF over a result, a Python UDF in an argument, a global agg and a
select, an empty input (grouped and global), null values and a null key, string, two-column and
computed keys, 97 keys over shuffled partitions, an aggregate above, a long and a string result,
a named argument; over windows: whole partitions, the default frame of an ORDER BY, ROWS frames
with offsets, RANGE frames from the current row's peers and with offsets (descending, null
keys first and last), no partition keys, built-in window functions over the same window, 97
partitions; errors: a built-in aggregate in the same agg (INVALID_PANDAS_UDF_PLACEMENT), a UDF in
a filter (INVALID_WHERE_CONDITION), without an aggregation (MISSING_GROUP_BY), nested in itself
or a built-in aggregate and holding one (NESTED_AGGREGATE_FUNCTION), a UDF raising StopIteration
and ValueError (PythonException), and the session serving on after.
Every check is a value the program computes itself (so it holds on any server); OUT.json holds
each case's rows (sorted), schema and pandas shape, and each error's exception type and error
class, for tests/connect/compare_results.py.
"""
import json
import sys

import pandas as pd
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.functions import PandasUDFType, pandas_udf, udf
from connect_checks import answers, check, table

url, out_path = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()


@pandas_udf("double")
def mean_udf(v: pd.Series) -> float:
    return v.mean()


@pandas_udf("double", PandasUDFType.GROUPED_AGG)
def wmean(v, w):
    return float((v * w).sum() / w.sum())


@pandas_udf("long")
def count_udf(v: pd.Series) -> int:
    return len(v)


@pandas_udf("string")
def join_udf(s: pd.Series) -> str:
    return ",".join(sorted(x for x in s if x is not None))


@pandas_udf("double")
def diff_udf(a: pd.Series, b: pd.Series) -> float:
    return float(a.sum() - b.sum())


@udf("double")
def plus_one(x):
    return None if x is None else x + 1.0


def stop(v: pd.Series) -> float:
    raise StopIteration()


def fails(v: pd.Series) -> float:
    raise ValueError("grouped agg failed on purpose")


df = spark.createDataFrame(
    [(1, 1.0, 2.0, "a"), (1, 2.0, 1.0, "b"), (2, 3.0, 1.0, "a"), (2, 5.0, 3.0, None),
     (3, None, 1.0, "c"), (None, 4.0, 2.0, "d")],
    "id long, v double, w double, s string")
many = spark.range(0, 3000, 1, 4).selectExpr("id % 97 AS k", "CAST(id AS DOUBLE) AS v")
part = Window.partitionBy("id")
keyed = spark.createDataFrame([(1, 1.0, 1), (1, 2.0, None), (1, 4.0, 3), (1, 8.0, None),
                               (1, 3.0, 4), (2, 5.0, 3)], "id long, v double, t long")
empty = df.filter("id > 100")

frames = {
    "one_udf": df.groupBy("id").agg(mean_udf(df.v)),
    "two_udfs": df.groupBy("id").agg(mean_udf(df.v).alias("m"), wmean(df.v, df.w)),
    "same_column_twice": df.groupBy("id").agg(diff_udf(df.v, df.v), count_udf(df.v)),
    "expression_over_result": df.groupBy("id").agg((mean_udf(df.v) * 2 + 1).alias("x"),
                                                  F.col("id").alias("again")),
    "python_udf_over_result": df.groupBy("id").agg(plus_one(mean_udf(df.v)).alias("p")),
    "python_udf_in_argument": df.groupBy("id").agg(mean_udf(plus_one(df.v)).alias("p")),
    "global_agg": df.agg(mean_udf(df.v), count_udf(df.w)),
    "select": df.select(mean_udf(df.v).alias("m")),
    "empty_grouped": empty.groupBy("id").agg(mean_udf(empty.v)),
    "empty_global": empty.agg(mean_udf(empty.v)),
    "string_key": df.groupBy("s").agg(count_udf(df.v).alias("n"), mean_udf(df.w)),
    "string_result": df.groupBy("id").agg(join_udf(df.s).alias("names")),
    "two_keys": df.groupBy("id", "s").agg(count_udf(df.v).alias("n")),
    "computed_key": df.groupBy((F.col("id") % 2).alias("odd")).agg(mean_udf(df.v).alias("m")),
    "many_keys": many.groupBy("k").agg(mean_udf(many.v).alias("m"), count_udf(many.v)),
    "then_aggregate": many.groupBy("k").agg(count_udf(many.v).alias("n")).agg(
        F.sum("n").alias("total"), F.count("*").alias("groups")),
    "named_argument": df.groupBy("id").agg(mean_udf(v=df.v).alias("m")),
    # over a window (WindowInPandas): the whole partition, and frames of every kind
    "window_unbounded": df.withColumn("m", mean_udf(df.v).over(part)).withColumn(
        "n", count_udf(df.v).over(part)),
    "window_ordered": df.withColumn("m", mean_udf(df.v).over(part.orderBy("w"))),
    "window_rows": df.withColumn("m", mean_udf(df.v).over(part.orderBy("v").rowsBetween(-1, 0))),
    "window_rows_following": df.withColumn(
        "n", count_udf(df.v).over(part.orderBy("v").rowsBetween(0, 1))),
    "window_rows_unbounded": df.withColumn("m", mean_udf(df.v).over(part.orderBy("v").rowsBetween(
        Window.unboundedPreceding, Window.unboundedFollowing))),
    "window_range_current": df.withColumn("n", count_udf(df.v).over(part.orderBy("w").rangeBetween(
        Window.currentRow, Window.unboundedFollowing))),
    "window_range_offsets": keyed.withColumn("m", mean_udf(keyed.v).over(
        part.orderBy("t").rangeBetween(-1, 1))),
    "window_range_offsets_desc": keyed.withColumn("n", count_udf(keyed.v).over(
        part.orderBy(F.desc("t")).rangeBetween(-1, 0))),
    "window_range_offsets_nulls_last": keyed.withColumn("m", mean_udf(keyed.v).over(
        part.orderBy(F.asc_nulls_last("t")).rangeBetween(-2, 0))),
    "window_range_following": keyed.withColumn("n", count_udf(keyed.v).over(
        part.orderBy("t").rangeBetween(1, Window.unboundedFollowing))),
    "window_no_partition": df.withColumn("m", mean_udf(df.v).over(Window.orderBy("w"))),
    "window_whole_input": df.withColumn("m", mean_udf(df.v).over(Window.partitionBy())),
    "window_with_builtin": df.select("id", mean_udf(df.v).over(part).alias("m"),
                                     F.max(df.v).over(part).alias("x"),
                                     F.row_number().over(part.orderBy("v")).alias("r")),
    "window_many_keys": many.withColumn("m", mean_udf(many.v).over(Window.partitionBy("k"))),
}
results = answers(frames)

check(table(results, "one_udf") == [(1, 1.5), (2, 4.0), (3, None), (None, 4.0)],
      "one UDF: %r" % table(results, "one_udf"))
check(table(results, "two_udfs") == [(1, 1.5, 4.0 / 3), (2, 4.0, 4.5), (3, None, 0.0), (None, 4.0, 4.0)],
      "two UDFs: %r" % table(results, "two_udfs"))
check(table(results, "same_column_twice") == [(1, 0.0, 2), (2, 0.0, 2), (3, 0.0, 1), (None, 0.0, 1)],
      "one column read twice: %r" % table(results, "same_column_twice"))
check(table(results, "expression_over_result") == [(1, 4.0, 1), (2, 9.0, 2), (3, None, 3),
                                          (None, 9.0, None)],
      "an expression over a result: %r" % table(results, "expression_over_result"))
check(table(results, "python_udf_over_result") == [(1, 2.5), (2, 5.0), (3, None), (None, 5.0)],
      "a Python UDF over a result: %r" % table(results, "python_udf_over_result"))
check(table(results, "python_udf_in_argument") == [(1, 2.5), (2, 5.0), (3, None), (None, 5.0)],
      "a Python UDF in an argument: %r" % table(results, "python_udf_in_argument"))
check(table(results, "global_agg") == [(3.0, 6)], "a global agg: %r" % table(results, "global_agg"))
check(table(results, "select") == [(3.0, )], "select: %r" % table(results, "select"))
check(table(results, "empty_grouped") == [], "an empty input, grouped")
check(table(results, "string_key") == [("a", 2, 1.5), ("b", 1, 1.0), ("c", 1, 1.0), ("d", 1, 2.0),
                              (None, 1, 3.0)], "a string key: %r" % table(results, "string_key"))
check(table(results, "string_result") == [(1, "a,b"), (2, "a"), (3, "c"), (None, "d")],
      "a string result: %r" % table(results, "string_result"))
check(len(table(results, "two_keys")) == 6, "two keys: %r" % table(results, "two_keys"))
check(table(results, "computed_key") == [(0, 4.0), (1, 1.5), (None, 4.0)],
      "a computed key: %r" % table(results, "computed_key"))
want = {}
for i in range(3000):
    want.setdefault(i % 97, []).append(float(i))
check(table(results, "many_keys") == sorted((k, sum(v) / len(v), len(v)) for k, v in want.items()),
      "97 keys over shuffled partitions")
check(table(results, "then_aggregate") == [(3000, 97)], "an aggregate above")
check(table(results, "named_argument") == table(results, "one_udf"), "a named argument")
check([r[4:] for r in table(results, "window_unbounded")] == [(1.5, 2), (1.5, 2), (4.0, 2), (4.0, 2),
                                                     (None, 1), (4.0, 1)],
      "a window's whole partition: %r" % table(results, "window_unbounded"))
check(table(results, "window_range_offsets") == [(1, 1.0, 1, 1.0), (1, 2.0, None, 5.0),
                                        (1, 3.0, 4, 3.5), (1, 4.0, 3, 3.5), (1, 8.0, None, 5.0),
                                        (2, 5.0, 3, 5.0)],
      "a RANGE frame with offsets: %r" % table(results, "window_range_offsets"))
check(sorted(r[4] for r in table(results, "window_whole_input") if r[4] is not None) == [3.0] * 6,
      "one window over everything: %r" % table(results, "window_whole_input"))
check(sorted(r[1:] for r in table(results, "window_many_keys")) ==
      sorted((float(i), sum(want[i % 97]) / len(want[i % 97])) for i in range(3000)),
      "97 window partitions")


def error_of(fn):
    try:
        fn()
    except Exception as e:
        cls = e.getCondition() if hasattr(e, "getCondition") else None
        return {"type": type(e).__name__, "class": cls,
                "message_has_cause": "on purpose" in str(e) or "StopIteration" in str(e)}
    return None


errors = {
    "with_builtin_aggregate": error_of(
        lambda: df.groupBy("id").agg(mean_udf(df.v), F.sum(df.v)).collect()),
    "global_with_builtin_aggregate": error_of(
        lambda: df.agg(F.max(df.w), mean_udf(df.v)).collect()),
    "stop_iteration": error_of(
        lambda: spark.range(0, 100).groupBy("id").agg(
            pandas_udf(stop, "double", PandasUDFType.GROUPED_AGG)("id")).collect()),
    "raises": error_of(lambda: df.groupBy("id").agg(pandas_udf(fails, "double")(df.v)).collect()),
    "in_a_filter": error_of(lambda: df.filter(mean_udf(df.v) > 1).collect()),
    "without_aggregation": error_of(lambda: df.withColumn("m", mean_udf(df.v)).collect()),
    "nested": error_of(lambda: df.groupBy("id").agg(mean_udf(mean_udf(df.v))).collect()),
    "builtin_inside": error_of(lambda: df.groupBy("id").agg(mean_udf(F.sum(df.v))).collect()),
    "inside_builtin": error_of(lambda: df.groupBy("id").agg(F.sum(mean_udf(df.v))).collect()),
}
check(errors["with_builtin_aggregate"]
      and errors["with_builtin_aggregate"]["class"] == "INVALID_PANDAS_UDF_PLACEMENT",
      "a built-in aggregate beside: %r" % errors)
for name, cls in (("in_a_filter", "INVALID_WHERE_CONDITION"),
                  ("without_aggregation", "MISSING_GROUP_BY"),
                  ("nested", "NESTED_AGGREGATE_FUNCTION"),
                  ("builtin_inside", "NESTED_AGGREGATE_FUNCTION"),
                  ("inside_builtin", "NESTED_AGGREGATE_FUNCTION")):
    check(errors[name] and errors[name]["class"] == cls, "%s: %r" % (name, errors[name]))
for name in ("stop_iteration", "raises"):
    check(errors[name] and errors[name]["type"] == "PythonException"
          and errors[name]["message_has_cause"], "%s: %r" % (name, errors))
# the session serves on after the failures
check(len(df.groupBy("id").agg(mean_udf(df.v)).collect()) == 4, "after a failure")

json.dump({"results": results, "errors": errors}, open(out_path, "w"), indent=1, sort_keys=True)
print("ok pandas_agg: %d cases, %d errors" % (len(results), len(errors)))
