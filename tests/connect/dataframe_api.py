"""dataframe_api.py — DataFrame and Column API calls of the pinned PySpark client (pyspark 4.0.1)
that PySpark's own Connect test modules (scripts/pyspark-connect-tests.sh) found failing against
cspark-connect-server, each checked by its outcome. Run by tests/connect/dataframe_api.sh.

  dataframe_api.py URL

Exits 1 naming the first check that fails.
"""
import sys

from pyspark.errors import IllegalArgumentException, ParseException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, LongType, StringType, StructField, StructType
from connect_checks import check, condition_of

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


# Column.withField / dropFields: the struct rebuilt, nested names, a null struct stays null
df = spark.createDataFrame([Row(a=Row(b=1, c=2, d=Row(e=3, f=4)))])
r = df.withColumn("a", F.col("a").withField("x", F.lit(9))).first().a
check(r.asDict(True) == {"b": 1, "c": 2, "d": {"e": 3, "f": 4}, "x": 9}, "withField adds: %r" % (r,))
r = df.withColumn("a", F.col("a").withField("b", F.lit("v"))).first().a
check(list(r.asDict()) == ["b", "c", "d"] and r.b == "v", "withField replaces in place: %r" % (r,))
r = df.withColumn("a", F.col("a").withField("d.e", F.lit(7))).first().a
check(r.d.asDict() == {"e": 7, "f": 4}, "withField of a nested field: %r" % (r,))
r = df.select(df["a"].dropFields("b", "d.e").alias("a")).first().a
check(r.asDict(True) == {"c": 2, "d": {"f": 4}}, "dropFields: %r" % (r,))
nulls = spark.createDataFrame([(None,), ((1,),)], "s struct<x: int>")
rows = nulls.select(F.col("s").withField("y", F.lit(2)).alias("s")).collect()
check([x.s for x in rows] == [None, Row(x=1, y=2)], "withField on a null struct: %r" % (rows,))
check(condition_of(lambda: df.select(F.col("a").dropFields("b", "c", "d")).schema)
      == "CANNOT_DROP_ALL_FIELDS", "dropFields of every field")

# DataFrame.to(schema): nested struct fields by name, up-casts only, nullability kept
src = spark.createDataFrame([("a", 1)], "i string, j int")
inner = StructType([StructField("j", StringType()), StructField("i", StringType())])
to = src.select(F.struct("i", "j").alias("s")).to(StructType([StructField("s", inner, False)]))
check(to.schema == StructType([StructField("s", inner, False)]), "to(): schema %r" % (to.schema,))
check(to.first().s == Row(j="1", i="a"), "to(): nested fields by name: %r" % (to.first(),))
check(src.to(StructType([StructField("j", LongType())])).first() == Row(j=1), "to(): int up-cast")
check(condition_of(lambda: src.to(StructType([StructField("i", LongType())])).collect())
      == "INVALID_COLUMN_OR_FIELD_DATA_TYPE", "to(): string is no up-cast to bigint")
check(condition_of(lambda: src.to(StructType([StructField("j", IntegerType(), False)])).collect())
      == "NULLABLE_COLUMN_OR_FIELD", "to(): a nullable column where non-nullable is required")

# spark.sql.crossJoin.enabled=false: an implicit cartesian product is refused, crossJoin is not
a, b = spark.range(2).toDF("a"), spark.range(3).toDF("b")
spark.conf.set("spark.sql.crossJoin.enabled", False)
try:
    check(condition_of(lambda: a.join(b, how="inner").collect()) is not None,
          "a join without a condition under crossJoin.enabled=false")
    check(a.crossJoin(b).count() == 6, "an explicit crossJoin under crossJoin.enabled=false")
    check(a.join(b, a.a == b.b).count() == 2, "a join with a condition")
finally:
    spark.conf.unset("spark.sql.crossJoin.enabled")
check(a.join(b, how="inner").count() == 6, "a join without a condition by default")

# spark.conf: get(key, None) gives the caller's default; set(key, None) is refused
key = "spark.sql.sources.partitionOverwriteMode"
check(spark.conf.get(key) == "STATIC", "conf.get of a known key: its default")
check(spark.conf.get(key, None) is None, "conf.get(key, None): the caller's default")
check(spark.conf.get(key, "x") == "x", "conf.get(key, 'x'): the caller's default")
spark.conf.set(key, "dynamic")
check(spark.conf.get(key, None) == "dynamic", "conf.get(key, None) of a key set")
spark.conf.unset(key)
try:
    spark.conf.set("cspark.test.key", None)
    check(False, "conf.set(key, None) raised nothing")
except IllegalArgumentException:
    pass

# unpivot of values without a common type: Spark's error class, not stack()'s
u = spark.createDataFrame([(1, 10, "x")], ["id", "int", "str"])
check(condition_of(lambda: u.unpivot("id", ["int", "str"], "var", "val").collect())
      == "UNPIVOT_VALUE_DATA_TYPE_MISMATCH", "unpivot of an int and a string")
check(u.unpivot("id", ["int", "id"], "var", "val").count() == 2, "unpivot of two numbers")

# withColumn over a join whose sides share a column name keeps both columns
d1 = spark.createDataFrame([{"a": 1}])
d2 = spark.createDataFrame([{"a": 1, "b": "v"}])
j = d1.join(d2).withColumn("c", F.lit(0))
check(j.columns == ["a", "a", "b", "c"], "withColumn over a join: %r" % (j.columns,))
check(j.select(d2["*"]).columns == ["a", "b"], "a side's columns after withColumn")
check([tuple(r) for r in j.collect()] == [(1, 1, "v", 0)], "its rows: %r" % (j.collect(),))

# withColumn(s)Renamed over a join whose sides share a column name: renamed by position
left = spark.createDataFrame([(1, "x", "v2")], ["id", "a", "value"])
jn = left.join(spark.createDataFrame([(1, "v1")], ["id", "value"]), on=["id"], how="left")
check(jn.withColumnRenamed("value", "new").columns == ["id", "a", "new", "new"],
      "withColumnRenamed of a shared name: %r" % (jn.withColumnRenamed("value", "new").columns,))
check(jn.withColumnRenamed("x", "y").columns == ["id", "a", "value", "value"],
      "withColumnRenamed of no column")
check([tuple(r) for r in jn.withColumnsRenamed({"id": "key"}).collect()] == [(1, "x", "v2", "v1")],
      "withColumnsRenamed rows")

# pivot without values: a job collects the distinct values, sorted, as Spark does
sales = spark.createDataFrame(
    [("phone", 2018, 150), ("tablet", 2018, 120), ("phone", 2019, 180), (None, 2019, 5)],
    ["item", "year", "sales"])
p = sales.groupBy("year").pivot("item").sum("sales").sort("year")
check(p.columns == ["year", "null", "phone", "tablet"], "pivot columns: %r" % (p.columns,))
check([tuple(r) for r in p.collect()] == [(2018, None, 150, 120), (2019, 5, 180, None)],
      "pivot rows: %r" % (p.collect(),))
known = sales.where("item IS NOT NULL").groupBy("year")
check(known.pivot("item").sum("sales").sort("year").collect()
      == known.pivot("item", ["phone", "tablet"]).sum("sales").sort("year").collect(),
      "pivot without values as with them")

# df.stat.freqItems: the values in more than support of the rows, one array column per column
vals = [Row(a=1, b=-2.0) if i % 2 == 0 else Row(a=i, b=i * 1.0) for i in range(100)]
items = spark.createDataFrame(vals).stat.freqItems(("a", "b"), 0.4)
check(items.columns == ["a_freqItems", "b_freqItems"], "freqItems columns: %r" % (items.columns,))
check(tuple(items.first()) == ([1], [-2.0]), "freqItems values: %r" % (items.first(),))
check(sorted(spark.range(10).freqItems(["id"]).first()[0]) == list(range(10)),
      "freqItems with the default support")

# groupBy of an aliased expression with an aggregate of another (it failed with
# MISSING_AGGREGATION: the alias stayed on the grouping key)
g = spark.range(10).groupBy((F.col("id") % 3).alias("k")).agg(F.sum(F.col("id") + 1).alias("s"))
check(g.columns == ["k", "s"], "groupBy alias columns: %r" % (g.columns,))
check(sorted(tuple(r) for r in g.collect()) == [(0, 22), (1, 15), (2, 18)],
      "groupBy alias rows: %r" % (g.collect(),))
r = spark.range(10).rollup((F.col("id") % 2).alias("k")).count().sort("k").collect()
check([tuple(x) for x in r] == [(None, 10), (0, 5), (1, 5)], "rollup of an alias: %r" % (r,))

# DataFrameWriter.save() with no path: Spark's "'path' is not specified." as an
# IllegalArgumentException (it was UNSUPPORTED_FEATURE)
try:
    spark.range(1).write.save()
    check(False, "save() without a path raised nothing")
except IllegalArgumentException as e:
    check("'path' is not specified." in str(e), "save() without a path: %s" % e)

# an unknown type name is the parser's error: ParseException, as Spark (pandas_udf("blah")
# parses its DDL string on the server)
for fn in (lambda: spark.sql("SELECT CAST(1 AS blah)").collect(),
           lambda: spark.createDataFrame([(1,)], "a blah").collect()):
    try:
        fn()
        check(False, "an unknown type name raised nothing")
    except ParseException as e:
        check(e.getCondition() == "UNSUPPORTED_DATATYPE", "unknown type name: %s" % e)

print("dataframe_api: every check passed")
