"""python_udfs.py — Python UDFs through a Spark Connect server, checked against values computed
here: row-at-a-time udf (in select, in filter, nested, over nulls, over strings, none of the
input), scalar pandas_udf, scalar iterator pandas_udf, UDFs registered with spark.udf.register
and called from SQL, grouped map applyInPandas (when the server runs it; grouped by a window's
struct too), and a UDF that raises (PythonException with the worker's traceback, whose last
line names the error), and Java UDFs, whose classes the server cannot load; pandas UDF batches
filled across partitions' slices, a scalar iterator UDF's wrong output length, array / map /
struct results, a worker's segmentation fault under faulthandler, and a mapInPandas NOT NULL
column given a null.

Usage: python_udfs.py sc://host:port [--no-group-map]
Exit 0 when every check passes; 1 naming the first that did not.
"""
import sys

import pandas as pd
from pyspark.errors import AnalysisException, PythonException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.functions import col, pandas_udf, udf

url = sys.argv[1]
group_map = "--no-group-map" not in sys.argv[2:]
spark = SparkSession.builder.remote(url).getOrCreate()


def check(what, got, want):
    if got != want:
        print(f"FAIL {what}: got {got!r:.300}, want {want!r:.300}")
        sys.exit(1)
    print(f"ok {what}")


@udf("long")
def plus_one(x):
    return None if x is None else x + 1


@udf("string")
def shout(s):
    return s.upper() + "!"


@pandas_udf("double")
def half(v: pd.Series) -> pd.Series:
    return v * 0.5


@pandas_udf("long")
def add(a: pd.Series, b: pd.Series) -> pd.Series:
    return a + b


@udf("int")
def boom(x):
    if x == 1234:
        raise ValueError(f"boom at {x}")
    return x


N = 10000
df = spark.range(0, N, 1, 3).withColumn("s", F.concat(F.lit("r"), col("id").cast("string")))

rows = df.select("id", plus_one("id").alias("p"), shout("s").alias("u"), half("id").alias("h"),
                 add("id", plus_one("id")).alias("a")).orderBy("id").collect()
check("udf rows", len(rows), N)
check("udf values", [(r.p, r.u, r.h, r.a) for r in rows[:3]],
      [(1, "R0!", 0.0, 1), (2, "R1!", 0.5, 3), (3, "R2!", 1.0, 5)])
check("udf all", all(r.p == r.id + 1 and r.u == f"R{r.id}!" and r.h == r.id * 0.5 and
                     r.a == 2 * r.id + 1 for r in rows), True)
check("udf column name", df.select(plus_one("id")).columns, ["plus_one(id)"])
check("udf in filter", df.filter(plus_one("id") % 2 == 0).count(), N // 2)
check("nested udf", df.select(plus_one(plus_one("id")).alias("q")).agg(F.sum("q")).first()[0],
      sum(range(2, N + 2)))
check("udf over expression", df.select(plus_one(col("id") * 2).alias("q")).orderBy("q")
      .limit(2).collect(), [(1,), (3,)])
inc = udf(lambda x: x + 1, "long")
dbl = udf(lambda x: x * 2, "long")
check("two lambdas", [tuple(r) for r in df.select("id", inc("id"), dbl("id")).orderBy("id")
                      .limit(3).collect()], [(0, 1, 0), (1, 2, 2), (2, 3, 4)])
nulls = spark.createDataFrame([(1,), (None,), (41,)], "x long")
check("udf over nulls", [r[0] for r in nulls.select(plus_one("x")).collect()], [2, None, 42])
check("udf of no rows", df.filter("id < 0").select(plus_one("id")).collect(), [])
check("udf then aggregate", df.withColumn("k", col("id") % 3).groupBy("k")
      .agg(F.sum(plus_one("id")).alias("t")).orderBy("k").collect(),
      [(k, sum(i + 1 for i in range(N) if i % 3 == k)) for k in range(3)])
pdf = df.select(half("id").alias("h")).toPandas()
check("pandas udf toPandas", float(pdf["h"].sum()), sum(range(N)) * 0.5)

try:
    df.select(boom("id")).collect()
    check("udf exception", "no exception", "PythonException")
except PythonException as e:
    text = str(e)
    check("udf exception text", "ValueError: boom at 1234" in text, True)
    check("udf exception header", "An exception was thrown from the Python worker" in text, True)

# the session still serves after a failed query
check("after exception", df.select(plus_one("id")).count(), N)

# scalar_iter_pandas_udf: an iterator of Series in, one out per batch (eval type 204), chained
# with a scalar pandas UDF and used twice in one select
@pandas_udf("long", F.PandasUDFType.SCALAR_ITER)
def iter_plus_ten(it):
    for s in it:
        yield s + 10


rows = df.select(iter_plus_ten("id").alias("a"), iter_plus_ten(col("id") * 2).alias("b"))
check("scalar iterator pandas UDF", sorted((r.a, r.b) for r in rows.collect()),
      [(i + 10, 2 * i + 10) for i in range(N)])
check("scalar iterator over a scalar pandas UDF",
      sorted(r[0] for r in df.select(iter_plus_ten(half("id").cast("long"))).collect()),
      sorted(int(i / 2) + 10 for i in range(N)))

# registered_udf_called_from_sql: spark.udf.register makes a temporary function SQL calls by
# name, before a builtin of the same name (double)
spark.udf.register("two_args", lambda x, y: len(x) + y, "int")
check("registered UDF from SQL", spark.sql("SELECT two_args('test', 1)").first()[0], 5)
spark.udf.register("double", lambda x: x + x, "int")
check("registered UDF shadows a builtin", spark.sql("SELECT double(double(1) + 1)").first()[0], 6)
add_three = spark.udf.register("add_three", lambda x: x + 3, "long")
check("registered UDF in selectExpr and as a column",
      [r[0] for r in spark.range(3).selectExpr("add_three(id)").collect()],
      [r[0] for r in spark.range(3).select(add_three("id")).collect()])
spark.udf.register("plus_ten_iter", iter_plus_ten)
check("registered scalar iterator UDF",
      sorted(r[0] for r in spark.sql("SELECT plus_ten_iter(id) FROM range(3)").collect()),
      [10, 11, 12])

# named_arguments_passed_by_name: test_udf(b=..., a=...) and test_udf(b => ..., a => ...) reach
# the function as keyword arguments (PySpark's worker protocol: offsets with their names), for a
# row-at-a-time and a scalar pandas UDF, with defaults and **kwargs; a positional argument after a
# named one and a name given twice are Spark's analysis errors
@udf("long")
def a_minus_b(a, b):
    return a - b


@pandas_udf("long")
def pd_a_minus_b(a: pd.Series, b: pd.Series) -> pd.Series:
    return a - b


@udf("long")
def kw_only(**kw):
    return kw["a"] - 10 * kw.get("b", 0)


@udf("long")
def with_default(a, b=100):
    return a - b


spark.udf.register("a_minus_b", a_minus_b)
spark.udf.register("pd_a_minus_b", pd_a_minus_b)
for what, q in [
    ("DataFrame", lambda: spark.range(2).select(a_minus_b(b=col("id") * 10, a=col("id")))),
    ("DataFrame, positional first", lambda: spark.range(2).select(a_minus_b(col("id"), b=col("id") * 10))),
    ("pandas DataFrame", lambda: spark.range(2).select(pd_a_minus_b(b=col("id") * 10, a=col("id")))),
    ("SQL", lambda: spark.sql("SELECT a_minus_b(b => id * 10, a => id) FROM range(2)")),
    ("pandas SQL", lambda: spark.sql("SELECT pd_a_minus_b(b => id * 10, a => id) FROM range(2)")),
]:
    check("named arguments from " + what, sorted(r[0] for r in q().collect()), [-9, 0])
check("named arguments into **kwargs",
      sorted(r[0] for r in spark.range(2).select(kw_only(b=col("id"), a=col("id") * 100)).collect()),
      [0, 90])
check("named argument with a default left out",
      sorted(r[0] for r in spark.range(2).select(with_default(a=col("id"))).collect()), [-100, -99])
check("named UDF column name",
      spark.range(1).select(a_minus_b(b=col("id"), a=col("id"))).columns, ["a_minus_b(b => id, a => id)"])
for what, q, cls in [
    ("a name twice", "SELECT a_minus_b(a => id, a => id * 10) FROM range(2)",
     "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE"),
    ("positional after named", "SELECT a_minus_b(a => id, id * 10) FROM range(2)",
     "UNEXPECTED_POSITIONAL_ARGUMENT"),
]:
    try:
        spark.sql(q).collect()
        got = "no error"
    except Exception as e:  # noqa: BLE001 - the class is what is checked
        got = getattr(e, "getErrorClass", lambda: repr(e))()
    check("named arguments: " + what, got, cls)
try:
    spark.sql("SELECT a_minus_b(c => 'x') FROM range(2)").collect()
    got = "no error"
except PythonException as e:
    got = "got an unexpected keyword argument 'c'" in str(e)
check("named arguments: an unknown name is the function's error", got, True)

# python_udf_in_join_condition: a UDF over both sides of an inner join's condition runs in a
# filter over the join (Spark's ExtractPythonUDFFromJoinCondition), alone or beside an equi-join
# condition; another join type with such a condition is refused; a UDF over one side is a key
from pyspark.sql import Row  # noqa: E402

left = spark.createDataFrame([Row(a=1, a1=1), Row(a=2, a1=2)])
right = spark.createDataFrame([Row(b=1, b1=1), Row(b=1, b1=3)])
same = udf(lambda x, y: x == y, "boolean")
check("UDF as an inner join's only condition",
      sorted(tuple(r) for r in left.join(right, same("a", "b")).collect()), [(1, 1, 1, 1), (1, 1, 1, 3)])
check("UDF beside an equi-join condition",
      [tuple(r) for r in left.join(right, [same("a", "b"), left.a1 == right.b1]).collect()], [(1, 1, 1, 1)])
try:
    left.join(right, [same("a", "b"), left.a1 == right.b1], "left").collect()
    got = "no error"
except Exception as e:  # noqa: BLE001 - the class is what is checked
    got = getattr(e, "getErrorClass", lambda: repr(e))()
check("UDF in a left join's condition", got, "UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE")
ident = udf(lambda x: x, "long")
check("UDFs over one side each as join keys",
      [tuple(r) for r in left.join(right, [ident("a") == ident("b"), left.a1 == right.b1]).collect()],
      [(1, 1, 1, 1)])

# python_udf_in_aggregate: UDFs as grouping keys and as an aggregate's argument, and a
# non-deterministic one refused there (Spark's CheckAnalysis)
kv = spark.createDataFrame([(1, "1"), (2, "2"), (1, "2"), (1, "2")], ["key", "value"])
strlen = udf(lambda x: len(x), "int")
add2 = udf(lambda a, b: int(a + b), "int")
got = (kv.groupBy(ident(col("key")).alias("k")).agg(F.sum(strlen(col("value"))).alias("s"))
       .select(add2(col("k"), col("s")).alias("t")))
check("UDF in a grouping key and an aggregate's argument", sorted(r.t for r in got.collect()), [3, 4])
check("UDF filter over distinct",
      [tuple(r) for r in kv.select("key").distinct().filter(udf(lambda a: a == 1, "boolean")("key")).collect()],
      [(1,)])
rnd = udf(lambda: 7, "int").asNondeterministic()
try:
    spark.range(3).agg(F.sum(rnd())).collect()
    got = "no error"
except Exception as e:  # noqa: BLE001 - the class is what is checked
    got = getattr(e, "getErrorClass", lambda: repr(e))()
check("non-deterministic UDF in an aggregate", got, "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION")

# renamed_columns_reach_python: columns renamed by toDF reach mapInPandas (and applyInPandas
# below) under their new names
renamed = spark.createDataFrame([(1, "a")], "i int, s string").toDF("n", "t")
check("toDF names in mapInPandas",
      renamed.mapInPandas(lambda it: (pd.DataFrame({"c": [",".join(p.columns)]}) for p in it),
                          "c string").collect()[0].c, "n,t")

if group_map:
    check("toDF names in applyInPandas",
          renamed.groupBy("n").applyInPandas(lambda p: pd.DataFrame({"c": [",".join(p.columns)]}),
                                             "c string").collect()[0].c, "n,t")

    def normalize(pdf: pd.DataFrame) -> pd.DataFrame:
        v = pdf["v"]
        return pd.DataFrame({"k": pdf["k"], "v": v - v.mean()})

    g = spark.createDataFrame([(1, 1.0), (1, 2.0), (2, 3.0), (2, 5.0), (2, 10.0)], "k long, v double")
    got = g.groupBy("k").applyInPandas(normalize, schema="k long, v double").orderBy("k", "v")
    check("applyInPandas", [(r.k, r.v) for r in got.collect()],
          [(1, -0.5), (1, 0.5), (2, -3.0), (2, -1.0), (2, 4.0)])

    def count_rows(key, pdf: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame({"k": [key[0]], "n": [len(pdf)]})

    big = df.withColumn("k", col("id") % 7)
    got = big.groupBy("k").applyInPandas(count_rows, schema="k long, n long").orderBy("k")
    check("applyInPandas with key", [(r.k, r.n) for r in got.collect()],
          [(k, len([i for i in range(N) if i % 7 == k])) for k in range(7)])

    def fail_group(pdf):
        raise RuntimeError("bad group")

    try:
        g.groupBy("k").applyInPandas(fail_group, schema="k long").collect()
        check("applyInPandas exception", "no exception", "PythonException")
    except PythonException as e:
        check("applyInPandas exception text", "RuntimeError: bad group" in str(e), True)

# arrow_settings_reach_the_workers: spark.sql.execution.arrow.maxRecordsPerBatch bounds the rows
# of each batch a pandas UDF and mapInPandas see; spark.sql.execution.pandas.
# convertToArrowArraySafely makes an overflowing result an error instead of a wrapped value


@pandas_udf("long")
def batch_size(x):
    return pd.Series([len(x)] * len(x))


spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "3")
sizes = [r[0] for r in spark.range(0, 10, 1, 1).select(batch_size("id")).collect()]
check("pandas UDF batches under maxRecordsPerBatch", sorted(sizes), [1, 3, 3, 3, 3, 3, 3, 3, 3, 3])


def map_sizes(it):
    for pdf in it:
        yield pd.DataFrame({"n": [len(pdf)]})


got = sorted(r.n for r in spark.range(0, 10, 1, 1).mapInPandas(map_sizes, "n long").collect())
check("mapInPandas batches under maxRecordsPerBatch", got, [1, 3, 3, 3])
spark.conf.unset("spark.sql.execution.arrow.maxRecordsPerBatch")


@pandas_udf("byte")
def overflow(x):
    return pd.Series([128] * len(x))


spark.conf.set("spark.sql.execution.pandas.convertToArrowArraySafely", "true")
try:
    spark.range(0, 1).select(overflow("id")).collect()
    check("an unsafe conversion with convertToArrowArraySafely", "no error", "an error")
except Exception as e:  # noqa: BLE001 - PySpark names the class after the worker's error
    check("convertToArrowArraySafely's error", "convertToArrowArraySafely" in str(e), True)
spark.conf.set("spark.sql.execution.pandas.convertToArrowArraySafely", "false")
check("an unsafe conversion without convertToArrowArraySafely",
      len(spark.range(0, 1).select(overflow("id")).collect()), 1)
spark.conf.unset("spark.sql.execution.pandas.convertToArrowArraySafely")

# pandas_udf_batches_across_partitions: a scalar pandas UDF sees the rows of a task in batches
# of maxRecordsPerBatch rows whatever batches they came in (three one-row slices of a local
# relation, repartitioned into one): linspace over the batch is then [0, 0.5, 1], which
# convertToArrowArraySafely refuses to make an int (test_pandas_udf_detect_unsafe_type_conversion)
@pandas_udf("int")
def linspace(column):
    import numpy as np

    return pd.Series(np.linspace(0, 1, len(column)))


one_part = spark.createDataFrame(pd.DataFrame({"A": [1.0] * 3})).repartition(1)
spark.conf.set("spark.sql.execution.pandas.convertToArrowArraySafely", "true")
try:
    one_part.withColumn("u", linspace("A")).collect()
    check("a batch of the task's three rows", "no error", "an error")
except Exception as e:  # noqa: BLE001
    check("a batch of the task's three rows",
          "Exception thrown when converting pandas.Series" in str(e), True)
spark.conf.unset("spark.sql.execution.pandas.convertToArrowArraySafely")
check("batch sizes across slices", [r.n for r in one_part.select(batch_size("A").alias("n")).collect()],
      [3, 3, 3])

# scalar_iterator_output_length: a scalar iterator UDF yielding other lengths than it was given
# fails with the worker's own message (test_vectorized_udf_invalid_length)


@pandas_udf("long", F.PandasUDFType.SCALAR_ITER)
def wrong_length(it):
    for _ in it:
        yield pd.Series(1)


try:
    spark.range(10).select(wrong_length(col("id"))).collect()
    check("scalar iterator output length", "no error", "an error")
except Exception as e:  # noqa: BLE001
    check("scalar iterator output length",
          "The length of output in Scalar iterator" in str(e) and
          "the length of output was 1" in str(e), True)

# complex_return_types: array, map and struct UDF results of the arguments themselves; two
# different map / array literal arguments stay two columns (test_complex_return_types)
cx = spark.range(1).selectExpr("array(1, 2, 3) as array", "map('a', 'b') as map", "struct(1, 2) as struct")
row = cx.select(udf(lambda x: x, "array<int>")("array"), udf(lambda x: x, "map<string,string>")("map"),
                udf(lambda x: x, "struct<col1:int,col2:int>")("struct")).first()
check("complex return types", (row[0], row[1], tuple(row[2])), ([1, 2, 3], {"a": "b"}, (1, 2)))
row = cx.select(udf(lambda x: repr(x), "string")("array"), udf(lambda x: repr(x), "string")("map")).first()
check("same function over two literals", "'a'" in row[1] and "'a'" not in row[0], True)

# python_udf_segfault: with spark.sql.execution.pyspark.udf.faulthandler.enabled, a worker that
# crashes reports what its faulthandler wrote (test_python_udf_segfault)
spark.conf.set("spark.sql.execution.pyspark.udf.faulthandler.enabled", "true")
try:
    import ctypes

    spark.range(1).select(udf(lambda x: ctypes.string_at(0))("id")).collect()
    check("a worker's segmentation fault", "no error", "an error")
except Exception as e:  # noqa: BLE001
    check("a worker's segmentation fault", "Segmentation fault" in str(e), True)
spark.conf.unset("spark.sql.execution.pyspark.udf.faulthandler.enabled")
check("after a crashed worker", df.select(plus_one("id")).count(), N)


# map_in_pandas_not_null: a NOT NULL column of mapInPandas' schema given a null fails the query
# (test_violate_not_null)
def with_null(it):
    for _ in it:
        yield pd.DataFrame({"a": [1, None]})


try:
    spark.range(1).mapInPandas(with_null, "a long not null").collect()
    check("mapInPandas NOT NULL column given a null", "no error", "an error")
except Exception as e:  # noqa: BLE001
    check("mapInPandas NOT NULL column given a null", "is null" in str(e), True)

if group_map:
    # grouped_map_columns_by_position: applyInPandas' result columns go by name, or by position
    # with spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName=false
    def swapped(pdf):
        return pd.DataFrame({"b": [2], "a": [1]})

    gm = spark.range(0, 1)
    check("result columns by name", tuple(gm.groupBy("id").applyInPandas(swapped, "a long, b long").first()),
          (1, 2))
    spark.conf.set("spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName", "false")
    check("result columns by position",
          tuple(gm.groupBy("id").applyInPandas(swapped, "a long, b long").first()), (2, 1))
    spark.conf.unset("spark.sql.legacy.execution.pandas.groupedMap.assignColumnsByName")

    # grouped_map_over_a_window_struct: groupBy(window(...)) hands applyInPandas a struct key,
    # which the groups are sorted by; the key reaches the function as a Row
    ts = spark.createDataFrame(
        [(0, 1, "2018-03-10 00:00:00"), (1, 2, "2018-03-11 00:00:00"), (2, 2, "2018-03-12 00:00:00"),
         (3, 3, "2018-03-15 00:00:00"), (4, 3, "2018-03-16 00:00:00"), (5, 3, "2018-03-21 00:00:00")],
        ["id", "g", "ts"]).select("id", "g", F.col("ts").cast("timestamp").alias("ts"))

    def ids_of_group(key, pdf):
        start = key[1]["start"].strftime("%m-%d")
        return pd.DataFrame({"g": [key[0]], "start": [start], "ids": [sorted(pdf.id.tolist())]})

    got = sorted(tuple(r) for r in ts.groupBy("g", F.window("ts", "5 days")).applyInPandas(
        ids_of_group, "g long, start string, ids array<long>").collect())
    check("groups of a window struct key", got,
          [(1, "03-10", [0]), (2, "03-10", [1, 2]), (3, "03-15", [3, 4]), (3, "03-20", [5])])

# java_udf_class_not_loaded: registerJavaFunction / registerJavaUDAF of a class the server cannot
# load is Spark's AnalysisException "Can not load class ..." (test_non_existed_udf / _udaf)
for register in (lambda: spark.udf.registerJavaFunction("udf1", "non_existed_udf"),
                 lambda: spark.udf.registerJavaUDAF("udaf1", "non_existed_udaf")):
    try:
        register()
        got = None
    except AnalysisException as e:
        got = (e.getCondition(), "Can not load class non_existed_uda" in str(e)
               or "Can not load class non_existed_udf" in str(e))
    check("java udf of a class not on the classpath", got, ("_LEGACY_ERROR_TEMP_1329", True))

print("PASS python_udfs")
