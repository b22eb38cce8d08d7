"""parity_functions.py — function calls of the pinned PySpark client (pyspark 4.0.1) that
PySpark's own Connect test modules (test_parity_functions, test_parity_errors; run by
scripts/pyspark-connect-tests.sh) found failing against cspark-connect-server, each checked by a
value computed here, so that the same program passes against Apache Spark 4's own Connect server
(parity_functions_spark.sh) and against cspark (parity_functions.sh). The VARIANT checks (the
four variant tests of test_parity_functions) also compare a collected VariantVal's bytes with
what Spark 4.0.1's parse_json gives.

  parity_functions.py URL

Exits 1 naming the first check that fails.
"""
import math
import sys

from pyspark.errors import DateTimeException, NumberFormatException, SparkRuntimeException
from pyspark.sql import Row, SparkSession, Window
from pyspark.sql import functions as F
from connect_checks import check, raised

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


# first_last_ignore_nulls_side_by_side: first(x) and first(x, ignorenulls=True) in one
# aggregation are two aggregates (they print alike, "first(id)"), not one
df = spark.range(0, 100)
df2 = df.select(F.when(df.id % 3 == 0, None).otherwise(df.id).alias("id"))
r = df2.select(
    F.first(df2.id, False).alias("a"),
    F.first(df2.id, True).alias("b"),
    F.last(df2.id, False).alias("c"),
    F.last(df2.id, True).alias("d"),
).collect()
check(r == [Row(a=None, b=1, c=None, d=98)], "first/last with and without ignoreNulls: %r" % (r,))
r = df2.select(F.first(df2.id, True).alias("b"), F.first(df2.id, False).alias("a")).collect()
check(r == [Row(b=1, a=None)], "first(ignoreNulls) before first(): %r" % (r,))

# levenshtein_threshold: levenshtein(l, r, threshold) is -1 past the threshold
lv = spark.createDataFrame([("kitten", "sitting")], ["l", "r"])
check(lv.select(F.levenshtein(lv.l, lv.r, 2)).first()[0] == -1, "levenshtein past its threshold")
check(lv.select(F.levenshtein(lv.l, lv.r, 3)).first()[0] == 3, "levenshtein within its threshold")

# bigint_argument_to_int_parameter: a bigint column where a function takes INT is cast (ANSI
# store assignment), as slice, overlay and make_date take it
sl = spark.createDataFrame([([1, 2, 3], 2, 2), ([4, 5], 2, 2)], ["x", "index", "len"])
r = sl.select(F.slice("x", "index", "len").alias("s")).collect()
check(r == [Row(s=[2, 3]), Row(s=[5])], "slice with bigint start and length: %r" % (r,))
ov = spark.createDataFrame([("SPARK_SQL", "CORE", 7, 0)], ("x", "y", "pos", "len"))
r = ov.select(F.overlay("x", "y", "pos", "len").alias("o")).first()
check(r.o == "SPARK_CORESQL", "overlay with bigint pos and len: %r" % (r,))
md = spark.createDataFrame([(2020, 6, 26)], ["Y", "M", "D"])
r = md.select(F.make_date("Y", "M", "D").alias("d")).first()
check(str(r.d) == "2020-06-26", "make_date of bigints: %r" % (r,))
e = raised(lambda: spark.range(1).select(F.slice(F.array(F.lit(1)), F.lit(2**40), F.lit(1)))
           .collect())
check(isinstance(e, Exception) and "CAST_OVERFLOW" in str(e), "a bigint past INT's range: %r" % e)

# hyperbolic_and_reciprocal_trig: acosh, asinh, atanh, sec, csc, cot (Spark's formulas)
t = spark.createDataFrame([Row(a=0.5, b=2.0)])
r = t.select(F.acosh("b"), F.asinh("a"), F.atanh("a"), F.sec("a"), F.csc("a"), F.cot("a")).first()
want = [math.log(2.0 + math.sqrt(3.0)), math.log(0.5 + math.sqrt(1.25)),
        0.5 * math.log(1.5 / 0.5), 1 / math.cos(0.5), 1 / math.sin(0.5), 1 / math.tan(0.5)]
check(all(abs(x - y) <= 1e-12 * abs(y) for x, y in zip(r, want)), "trig values: %r" % (r,))
check(list(t.select(F.acosh("b"), F.sec("a")).columns) == ["ACOSH(b)", "SEC(a)"],
      "trig column names: %r" % (t.select(F.acosh("b"), F.sec("a")).columns,))

# posexplode_outer_inline_outer: the outer generators keep a row for a null or empty input
g = spark.createDataFrame([Row(a=1, l=[1, 2], s=[Row(b=1, c=2)]), Row(a=2, l=[], s=[])])
r = [tuple(x) for x in g.select(F.posexplode_outer("l")).collect()]
check(r == [(0, 1), (1, 2), (None, None)], "posexplode_outer: %r" % (r,))
r = [tuple(x) for x in g.select(F.inline_outer("s")).collect()]
check(r == [(1, 2), (None, None)], "inline_outer: %r" % (r,))

# timestamp_to_number_cast: a timestamp cast to bigint is its whole seconds since the epoch
# (rounded down), to double with their fraction; a window's range over it
r = spark.sql("SELECT CAST(TIMESTAMP '2023-01-01 00:00:00 UTC' AS BIGINT) AS a, "
              "CAST(TIMESTAMP '1969-12-31 23:59:59.5 UTC' AS BIGINT) AS b, "
              "CAST(TIMESTAMP '1969-12-31 23:59:59.5 UTC' AS DOUBLE) AS c").first()
check(tuple(r) == (1672531200, -1, -0.5), "timestamp to bigint and double: %r" % (r,))
temps = spark.sql("SELECT timestamp_seconds(1672531200 + d * 86400) AS t, CAST(20 + d AS INT) AS v"
                  " FROM (SELECT explode(sequence(0, 3)) AS d)")
w = Window.orderBy(F.col("t").cast("long")).rangeBetween(-2 * 86400, 0)
r = [x.m for x in temps.withColumn("m", F.avg("v").over(w)).orderBy("t").collect()]
check(r == [20.0, 20.5, 21.0, 22.0], "a moving average over a timestamp's seconds: %r" % (r,))

# cast_invalid_input_exception_class: Spark's exception for a malformed cast follows its target
# type: NumberFormatException for a number, SparkRuntimeException for a boolean, DateTimeException
# for a date
spark.conf.set("spark.sql.ansi.enabled", "true")
e = raised(lambda: spark.sql("select cast('abc' as double)").collect())
check(isinstance(e, NumberFormatException), "cast to double: %r" % (e,))
e = raised(lambda: spark.sql("select cast('abc' as boolean)").collect())
check(isinstance(e, SparkRuntimeException) and not isinstance(e, NumberFormatException),
      "cast to boolean: %r" % (e,))
check(e.getCondition() == "CAST_INVALID_INPUT", "cast to boolean's condition: %r" % (e,))
check(e.getMessageParameters().get("targetType") == '"BOOLEAN"',
      "cast to boolean's parameters: %r" % (e.getMessageParameters(),))
e = raised(lambda: spark.sql("select cast('abc' as date)").collect())
check(isinstance(e, DateTimeException), "cast to date: %r" % (e,))

# user_raised_exception_class: raise_error and assert_true raise SparkRuntimeException
e = raised(lambda: spark.range(3).select(F.assert_true(F.col("id") < 2, "too big")).collect())
check(isinstance(e, SparkRuntimeException) and "[USER_RAISED_EXCEPTION] too big" in str(e),
      "assert_true: %r" % (e,))
e = raised(lambda: spark.range(1).select(F.raise_error(F.lit("barfoo"))).collect())
check(isinstance(e, SparkRuntimeException) and "barfoo" in str(e), "raise_error: %r" % (e,))

# session_functions_and_replaced_calls: version(), current_user() (user(), session_user()) are
# strings named after the call; to_timestamp_ltz / to_timestamp_ntz parse as to_timestamp does,
# to the session's and to the zone-less timestamp; nullifzero / zeroifnull are nullif(x, 0) and
# nvl(x, 0), named after their one argument
spark.conf.set("spark.sql.ansi.enabled", "true")
r = spark.range(1).select(F.version(), F.current_user(), F.user(), F.session_user())
check(r.columns == ["version()", "current_user()", "user()", "session_user()"],
      "session function names: %r" % (r.columns,))
v = r.first()
check(all(isinstance(x, str) and x for x in v), "session functions: %r" % (v,))
check(v[0].startswith("4."), "version(): %r" % (v[0],))
check(v[1] == v[2] == v[3], "current_user, user and session_user agree: %r" % (v,))
ts = spark.createDataFrame([("2016-12-31 10:11:12",)], ["e"])
r = ts.select(F.to_timestamp_ltz(ts.e).alias("l"), F.to_timestamp_ntz(ts.e).alias("n"),
              F.to_timestamp_ltz(ts.e, F.lit("yyyy-MM-dd HH:mm:ss")).alias("lf"))
check([f.dataType.simpleString() for f in r.schema.fields] == ["timestamp", "timestamp_ntz", "timestamp"],
      "to_timestamp_ltz / _ntz types: %r" % (r.schema,))
x = r.first()
check(x.n.isoformat() == "2016-12-31T10:11:12" and x.l == x.lf, "to_timestamp_ltz / _ntz: %r" % (x,))
z = spark.createDataFrame([(0,), (1,), (None,)], "a int")
r = z.select(F.nullifzero(z.a), F.zeroifnull(z.a))
check(r.columns == ["nullifzero(a)", "zeroifnull(a)"], "nullifzero / zeroifnull names: %r" % (r.columns,))
check([tuple(x) for x in r.collect()] == [(None, 0), (1, 1), (None, 0)],
      "nullifzero / zeroifnull: %r" % (r.collect(),))
check([f.dataType.simpleString() for f in r.schema.fields] == ["int", "int"],
      "nullifzero / zeroifnull types: %r" % (r.schema,))

# array_of_mixed_literals_without_ansi: with spark.sql.ansi.enabled=false, array('a', 1, NULL,
# 1.0) is an array of strings (non-ANSI findWiderCommonType with string promotion), not doubles
spark.conf.set("spark.sql.ansi.enabled", "false")
r = spark.range(1).select(F.lit(["a", 1, None, 1.0]).alias("x"), F.lit([["a", 1], [1, None, "b"]]).alias("y"))
check(tuple(r.first()) == (["a", "1", None, "1.0"], [["a", "1"], ["1", None, "b"]]),
      "mixed array without ANSI: %r" % (r.first(),))
spark.conf.set("spark.sql.ansi.enabled", "true")

# partition_id_and_increasing_id: spark_partition_id() is the task's partition and
# monotonically_increasing_id() the partition in the upper 31 bits, the row's place in its
# partition in the lower 33 (range(0, 10, 1, 3): partitions of 3, 3 and 4 rows)
r = spark.range(0, 10, 1, 3).select("id", F.spark_partition_id().alias("p"),
                                     F.monotonically_increasing_id().alias("m"))
want = [(i, p, (p << 33) + k) for p, ids in enumerate([range(0, 3), range(3, 6), range(6, 10)])
        for k, i in enumerate(ids)]
check(sorted(tuple(x) for x in r.collect()) == want, "partition ids: %r" % (r.collect(),))
check([f.dataType.simpleString() for f in r.schema.fields] == ["bigint", "int", "bigint"] and
      not r.schema["p"].nullable and not r.schema["m"].nullable,
      "spark_partition_id / monotonically_increasing_id types: %r" % (r.schema,))

# grouped_time_window_read_back: groupBy(window(...)) names the column `window`; its end and
# window_time(window) (the end less one microsecond) read it after the aggregation; the
# select list's own window(...) call is the grouped column (SQL, Spark's TimeWindowing)
import datetime  # noqa: E402

tw = spark.createDataFrame([(datetime.datetime(2016, 3, 11, 9, 0, 7), 1),
                            (datetime.datetime(2016, 3, 11, 9, 0, 8), 2),
                            (datetime.datetime(2016, 3, 11, 9, 0, 12), 4),
                            (None, 8)], ["date", "val"])
w = tw.groupBy(F.window("date", "5 seconds", "5 seconds")).agg(F.sum("val").alias("sum"))
check(w.columns == ["window", "sum"], "grouped window's columns: %r" % (w.columns,))
r = sorted(tuple(x) for x in w.select(w.window.end.cast("string").alias("end"),
                                      F.window_time(w.window).cast("string").alias("wt"),
                                      "sum").collect())
check(r == [("2016-03-11 09:00:10", "2016-03-11 09:00:09.999999", 3),
            ("2016-03-11 09:00:15", "2016-03-11 09:00:14.999999", 4)],
      "window end and window_time after grouping: %r" % (r,))
check(w.select(F.window_time(w.window)).schema.simpleString() ==
      "struct<window_time(window):timestamp>",
      "window_time's name and type: %r" % (w.select(F.window_time(w.window)).schema,))
tw.createOrReplaceTempView("tw")
r = spark.sql("SELECT window(date, '5 seconds'), sum(val) AS s FROM tw "
              "GROUP BY window(date, '5 seconds') ORDER BY s")
check(r.columns == ["window", "s"] and [x.s for x in r.collect()] == [3, 4] and
      str(r.first().window.start) == "2016-03-11 09:00:05",
      "SQL select list's window call over its grouping: %r" % (r.collect(),))

# seeded_random_functions: shuffle, randstr and uniform with a seed give Spark's own values
# (XORShiftRandom / commons-math3's MersenneTwister seeded with seed + partition index), the
# types of Spark's Uniform, Spark's column names; one seeded expression used twice agrees
r = spark.range(0, 6, 1, 3).select(
    "id", F.shuffle(F.array(*[F.lit(i) for i in range(1, 6)]), 1).alias("s"),
    F.randstr(F.lit(4), F.lit(1)).alias("r"), F.uniform(F.lit(0), F.lit(1000), F.lit(1)).alias("u"))
want = [(0, [2, 1, 5, 4, 3], "fYxV", 636), (1, [1, 2, 3, 4, 5], "fArn", 599),
        (2, [2, 4, 5, 1, 3], "sWMR", 531), (3, [1, 3, 2, 4, 5], "m7di", 286),
        (4, [4, 1, 3, 5, 2], "nurJ", 257), (5, [4, 2, 1, 3, 5], "IpH4", 669)]
check(sorted(tuple(x) for x in r.collect()) == want, "seeded shuffle/randstr/uniform: %r" % (r.collect(),))
r = spark.range(1).select(F.randstr(F.lit(5), F.lit(0)), F.uniform(F.lit(10), F.lit(20), F.lit(0)),
                          F.uniform(F.lit(1.5), F.lit(2), F.lit(0)),
                          F.shuffle(F.array(F.lit(1), F.lit(20), F.lit(3), F.lit(5)), F.lit(42)))
check(r.columns == ["randstr(5, 0)", "uniform(10, 20, 0)", "uniform(1.5, 2, 0)",
                    "shuffle(array(1, 20, 3, 5))"], "random functions' names: %r" % (r.columns,))
check([f.dataType.simpleString() for f in r.schema.fields] == ["string", "int", "double", "array<int>"],
      "random functions' types: %r" % (r.schema,))
# range(1) over local[2]'s two slices: its one row is in partition 1 (Spark's slicing)
check(tuple(r.first())[:2] == ("fYxVf", 16) and r.first()[3] == [5, 20, 3, 1],
      "random functions' values: %r" % (r.first(),))
sh = F.shuffle(F.array(*[F.lit(i) for i in range(10)]))
x = spark.range(1).select(sh, sh, F.randstr(F.lit(8)), F.uniform(F.lit(10), F.lit(20))).first()
check(x[0] == x[1] and sorted(x[0]) == list(range(10)) and len(x[2]) == 8 and 10 <= x[3] < 20,
      "unseeded random functions: %r" % (x,))
e = raised(lambda: spark.range(1).select(F.uniform(F.col("id"), F.lit(10), F.lit(0))).collect())
check(e is not None and getattr(e, "getCondition", lambda: None)() ==
      "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "uniform over a column: %r" % (e,))

# array_contains_wider_value: the array and the value meet at their wider type (a tinyint
# looked up in an array of bigints); a NULL-typed value is Spark's NULL_TYPE mismatch
r = spark.range(1).select(
    F.array_contains(F.array(F.lit(1).cast("bigint"), F.lit(2).cast("bigint")), F.lit(2).cast("tinyint")),
    F.array_contains(F.array(F.lit(1).cast("tinyint")), F.lit(1).cast("bigint")),
    F.array_contains(F.array(F.lit(1), F.lit(2)), F.lit(2.5))).first()
check(tuple(r) == (True, True, False), "array_contains at the wider type: %r" % (r,))
e = raised(lambda: spark.range(1).select(F.array_contains(F.array(F.lit(1)), None)).collect())
check(e is not None and getattr(e, "getCondition", lambda: None)() == "DATATYPE_MISMATCH.NULL_TYPE",
      "array_contains of a NULL value: %r" % (e,))

# test_parse_json, test_try_parse_json, test_to_variant_object, test_variant_expressions: the
# VARIANT type; collect() turns a variant column (Arrow: struct<value, metadata> tagged
# variant=true) into VariantVal, whose bytes are Spark's own encoding
from pyspark.sql.types import VariantType, VariantVal  # noqa: E402

df = spark.createDataFrame([{"json": """{ "a" : 1 }"""}])
r = df.select(F.to_json(F.parse_json(df.json)).alias("var"),
              F.to_json(F.parse_json(F.lit("""{"b": [{"c": "str2"}]}"""))).alias("var_lit")).first()
check(r["var"] == '{"a":1}' and r["var_lit"] == '{"b":[{"c":"str2"}]}', "parse_json: %r" % (r,))
df = spark.createDataFrame([{"json": """{ "a" : 1 }"""}, {"json": """{ a : 1 }"""}])
r = df.select(F.to_json(F.try_parse_json(df.json)).alias("var")).collect()
check([x["var"] for x in r] == ['{"a":1}', None], "try_parse_json: %r" % (r,))
df = spark.createDataFrame([(1, {"a": 1})], "i int, v struct<a int>")
r = df.select(F.to_json(F.to_variant_object(df.v)).alias("var")).first()
check(r["var"] == '{"a":1}', "to_variant_object: %r" % (r,))
df = spark.createDataFrame([Row(json="""{ "a" : 1 }""", path="$.a"),
                            Row(json="""{ "b" : 2 }""", path="$.b")])
v = F.parse_json(df.json)
for col, want in [(F.is_variant_null(v), [False, False]),
                  (F.schema_of_variant(v), ["OBJECT<a: BIGINT>", "OBJECT<b: BIGINT>"]),
                  (F.variant_get(v, "$.a", "int"), [1, None]),
                  (F.variant_get(v, "$.b", "int"), [None, 2]),
                  (F.variant_get(v, "$.a", "double"), [1.0, None]),
                  (F.variant_get(v, df.path, "int"), [1, 2]),
                  (F.try_variant_get(v, df.path, "binary"), [None, None])]:
    got = [x[0] for x in df.select(col).collect()]
    check(got == want, "variant expression %r: %r" % (col, got))
e = raised(lambda: df.select(F.variant_get(v, "$.a", "binary")).collect())
check(e is not None and getattr(e, "getCondition", lambda: None)() == "INVALID_VARIANT_CAST",
      "variant_get of a bigint as binary: %r" % (e,))
# variant_cast_error_parameters: the error's message parameters, as test_variant_expressions
# checks them
check(e.getMessageParameters() == {"value": "1", "dataType": '"BINARY"'},
      "INVALID_VARIANT_CAST's parameters: %r" % (e.getMessageParameters(),))
r = spark.range(1).select(F.parse_json(F.lit('{"b":1,"a":[1.50,true,null,"x"],"c":{"d":-0.0}}'))
                          .alias("v"))
check(isinstance(r.schema["v"].dataType, VariantType), "a variant column's type: %r" % (r.schema,))
x = r.first()["v"]
# the bytes Spark 4.0.1's parse_json gives (checked against its own server): keys a, b, c, d in
# the metadata in order of appearance, fields sorted, 1.50 a decimal4 of scale 2
check(isinstance(x, VariantVal) and x.value.hex() ==
      "02030100020200131e0c010304000607080a200296000000040005780201030006200100000000"
      and x.metadata.hex() == "0104000102030462616364", "a variant collected: %r" % (x,))

print("PASS parity_functions")
