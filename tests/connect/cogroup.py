"""cogroup.py — cogroup(...).applyInPandas and applyInArrow from the pinned PySpark client against a
Spark Connect server: run by tests/connect/cogroup.sh against cspark-connect-server and by
tests/connect/cogroup_spark.sh against both cspark's and Apache Spark 4.0.1's own server.

  cogroup.py URL OUT.json

Cases: keys on both sides, keys on one side only (the other side's frame is empty, with its
columns), the key argument, string and two-column keys, grouping by an expression, an empty side
and both sides empty, more rows than partitions, applyInArrow, an aggregate above, keys whose
types differ between the sides (integral widths meet by value, other types never meet, as in
Spark 4), and a function that raises. Every check is a value the program computes itself (so it holds on any server);
OUT.json holds each case's rows (sorted), schema and pandas shape, and each error's exception
type, for tests/connect/compare_results.py.
"""
import json
import sys

import pandas as pd
import pyarrow as pa
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from connect_checks import answers, check, error_of_udf, table

url, out_path = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()


def sizes(l, r):
    k = l.k.iloc[0] if len(l) else r.k.iloc[0]
    return pd.DataFrame({"k": [k], "nl": [len(l)], "nr": [len(r)],
                         "cols": [",".join(l.columns) + "|" + ",".join(r.columns)]})


def with_key(key, l, r):
    return pd.DataFrame({"k": [key[0]], "total": [int(l.v.sum()) + int(r.w.sum())]})


def merge(l, r):
    return pd.merge(l, r, on="k", how="outer")


def string_keys(key, l, r):
    return pd.DataFrame({"name": [key[0]], "n": [len(l) * 10 + len(r)]})


def two_keys(key, l, r):
    return pd.DataFrame({"a": [key[0]], "b": [key[1]], "n": [len(l) + len(r)]})


def counts(l, r):
    return pd.DataFrame({"nl": [len(l)], "nr": [len(r)]})


def arrow_sizes(key, l, r):
    return pa.table({"k": pa.array([key[0].as_py()], pa.int64()),
                     "nl": pa.array([l.num_rows], pa.int64()),
                     "nr": pa.array([r.num_rows], pa.int64())})


def key_sizes(key, l, r):
    return pd.DataFrame({"k": [str(key[0])], "nl": [len(l)], "nr": [len(r)]})


def keyed(n_parts, rows, key_sql, value):
    return spark.range(0, rows, 1, n_parts).selectExpr(key_sql + " AS k", "id AS " + value)


def raises(l, r):
    raise ValueError("cogroup failed on purpose")


left = spark.createDataFrame([(1, 10), (1, 11), (2, 20), (3, 30), (3, 31), (3, 32)],
                             "k long, v long")
right = spark.createDataFrame([(2, 200), (3, 300), (4, 400), (4, 401)], "k long, w long")
names_l = spark.createDataFrame([("ann", 1), ("bob", 2), ("bob", 3), (None, 4)],
                                "name string, x int")
names_r = spark.createDataFrame([("bob", 5), ("cy", 6), (None, 7)], "name string, y int")
empty = spark.createDataFrame([], "k long, w long")
big_l = spark.range(0, 3000, 1, 3).select((F.col("id") % 97).alias("k"), F.col("id").alias("v"))
big_r = spark.range(0, 2000, 1, 2).select((F.col("id") % 89).alias("k"), F.col("id").alias("w"))

frames = {
    "pandas_sizes": left.groupBy("k").cogroup(right.groupBy("k")).applyInPandas(
        sizes, "k long, nl long, nr long, cols string"),
    "pandas_key": left.groupBy("k").cogroup(right.groupBy("k")).applyInPandas(
        with_key, "k long, total long"),
    "pandas_merge": left.groupBy("k").cogroup(right.groupBy("k")).applyInPandas(
        merge, "k long, v double, w double"),
    "pandas_string_keys": names_l.groupBy("name").cogroup(names_r.groupBy("name")).applyInPandas(
        string_keys, "name string, n long"),
    "pandas_two_keys": left.withColumn("b", F.col("v") % 2).groupBy("k", "b").cogroup(
        right.withColumn("b", F.col("w") % 2).groupBy("k", "b")).applyInPandas(
        two_keys, "a long, b long, n long"),
    "pandas_expression_key": left.groupBy((F.col("k") % 2).alias("m")).cogroup(
        right.groupBy((F.col("k") % 2).alias("m"))).applyInPandas(counts, "nl long, nr long"),
    "pandas_empty_side": left.groupBy("k").cogroup(empty.groupBy("k")).applyInPandas(
        sizes, "k long, nl long, nr long, cols string"),
    "pandas_both_empty": empty.groupBy("k").cogroup(empty.groupBy("k")).applyInPandas(
        counts, "nl long, nr long"),
    "pandas_many_keys": big_l.groupBy("k").cogroup(big_r.groupBy("k")).applyInPandas(
        with_key, "k long, total long"),
    "pandas_then_aggregate": big_l.groupBy("k").cogroup(big_r.groupBy("k")).applyInPandas(
        with_key, "k long, total long").agg(F.sum("total").alias("t"), F.count("*").alias("n")),
    "arrow_sizes": left.groupBy("k").cogroup(right.groupBy("k")).applyInArrow(
        arrow_sizes, "k long, nl long, nr long"),
    # keys of different types, as Spark 4 cogroups them: integral keys of different widths meet
    # by value; keys of types apart (int and double, string and int) never meet (Spark meets
    # them only where their bits happen to agree, as 0 and 0.0: the keys here start at 1)
    "pandas_int_long_keys": keyed(4, 40, "CAST(id % 5 AS INT)", "v").groupBy("k").cogroup(
        keyed(3, 30, "CAST(id % 5 AS BIGINT)", "w").groupBy("k")).applyInPandas(
        key_sizes, "k string, nl long, nr long"),
    "pandas_long_short_keys": keyed(4, 40, "CAST(id % 5 AS BIGINT)", "v").groupBy("k").cogroup(
        keyed(3, 30, "CAST(id % 5 AS SMALLINT)", "w").groupBy("k")).applyInPandas(
        key_sizes, "k string, nl long, nr long"),
    "pandas_int_double_keys": keyed(4, 40, "CAST(id % 5 + 1 AS INT)", "v").groupBy("k").cogroup(
        keyed(3, 30, "CAST(id % 5 + 1 AS DOUBLE)", "w").groupBy("k")).applyInPandas(
        key_sizes, "k string, nl long, nr long"),
    "pandas_string_int_keys": keyed(4, 40, "CAST(id % 5 + 1 AS STRING)", "v").groupBy("k").cogroup(
        keyed(3, 30, "CAST(id % 5 + 1 AS INT)", "w").groupBy("k")).applyInPandas(
        key_sizes, "k string, nl long, nr long"),
}
results = answers(frames)

check(table(results, "pandas_sizes") == [(1, 2, 0, "k,v|k,w"), (2, 1, 1, "k,v|k,w"),
                                (3, 3, 1, "k,v|k,w"), (4, 0, 2, "k,v|k,w")],
      "sizes, one-sided keys with the other side's columns: %r" % table(results, "pandas_sizes"))
check(table(results, "pandas_key") == [(1, 21), (2, 220), (3, 393), (4, 801)],
      "the key argument: %r" % table(results, "pandas_key"))
check(len(table(results, "pandas_merge")) == 8, "merged frames: %r" % table(results, "pandas_merge"))
check(table(results, "pandas_string_keys") == [("ann", 10), ("bob", 21), ("cy", 1), (None, 11)],
      "string keys and a null key: %r" % table(results, "pandas_string_keys"))
check(sum(r[2] for r in table(results, "pandas_two_keys")) == 10, "two keys: %r" % table(results, "pandas_two_keys"))
check(table(results, "pandas_expression_key") == [(1, 3), (5, 1)],
      "grouped by an expression: %r" % table(results, "pandas_expression_key"))
check(table(results, "pandas_empty_side") == [(1, 2, 0, "k,v|k,w"), (2, 1, 0, "k,v|k,w"),
                                     (3, 3, 0, "k,v|k,w")],
      "an empty side: %r" % table(results, "pandas_empty_side"))
check(table(results, "pandas_both_empty") == [], "both sides empty")
want = {}
for i in range(3000):
    want[i % 97] = want.get(i % 97, 0) + i
for i in range(2000):
    want[i % 89] = want.get(i % 89, 0) + i
check(table(results, "pandas_many_keys") == sorted(want.items()), "97 keys over shuffled partitions")
check(table(results, "pandas_then_aggregate") == [(sum(want.values()), 97)], "an aggregate above")
check(table(results, "arrow_sizes") == [(1, 2, 0), (2, 1, 1), (3, 3, 1), (4, 0, 2)],
      "applyInArrow: %r" % table(results, "arrow_sizes"))
check(table(results, "pandas_int_long_keys") == [(str(k), 8, 6) for k in range(5)],
      "int and bigint keys meet: %r" % table(results, "pandas_int_long_keys"))
check(table(results, "pandas_long_short_keys") == [(str(k), 8, 6) for k in range(5)],
      "bigint and smallint keys meet: %r" % table(results, "pandas_long_short_keys"))
check(table(results, "pandas_int_double_keys") == sorted([(str(k), 8, 0) for k in range(1, 6)] +
                                                [("%d.0" % k, 0, 6) for k in range(1, 6)]),
      "int and double keys never meet: %r" % table(results, "pandas_int_double_keys"))
check(sorted(r[1:] for r in table(results, "pandas_string_int_keys")) == [(0, 6)] * 5 + [(8, 0)] * 5,
      "string and int keys never meet: %r" % table(results, "pandas_string_int_keys"))


errors = {
    "pandas_raises": error_of_udf(lambda: left.groupBy("k").cogroup(right.groupBy("k"))
                              .applyInPandas(raises, "k long").collect()),
}
check(errors["pandas_raises"] and errors["pandas_raises"]["type"] == "PythonException"
      and errors["pandas_raises"]["message_has_cause"], "a raising function: %r" % errors)
# the session serves on after the failure
check(len(left.groupBy("k").cogroup(right.groupBy("k")).applyInPandas(
    counts, "nl long, nr long").collect()) == 4, "after a failure")

# renamed_columns_reach_python: columns renamed by toDF reach the function under their new names
ra = spark.createDataFrame([(1, 2)], "k int, v int").toDF("k", "x")
rb = spark.createDataFrame([(1, 3)], "k int, w int").toDF("k", "y")


def names(lp, rp):
    return pd.DataFrame({"cols": [",".join(list(lp.columns) + list(rp.columns))]})


got = ra.groupBy("k").cogroup(rb.groupBy("k")).applyInPandas(names, "cols string").collect()
check([r.cols for r in got] == ["k,x,k,y"], "toDF names in a cogroup: %r" % (got,))

json.dump({"results": results, "errors": errors}, open(out_path, "w"), indent=1, sort_keys=True)
print("ok cogroup: %d cases, %d errors" % (len(results), len(errors)))
