"""relations_parity.py — Spark Connect relations of the pinned PySpark client (pyspark 4.0.1)
that PySpark's own test_parity_dataframe and test_parity_udf modules found failing against
cspark-connect-server, each checked by a value computed here, so that the same program passes
against Apache Spark 4.0.1's own Connect server (relations_parity_spark.sh) and against cspark
(relations_parity.sh).

  relations_parity.py URL

Cases, each named after what broke: local_checkpoint_kept (test_checkpoint_dataframe),
cached_plan_explained (test_udf_cache), transpose_rows and transpose_errors (test_transpose).

Exits 1 naming the first check that fails.
"""
import gc
import io
import sys
from contextlib import redirect_stdout

from pyspark import StorageLevel
from pyspark.errors import AnalysisException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import DoubleType, StringType, StructField, StructType
from connect_checks import check

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


def explained(df, mode=None):
    with io.StringIO() as buf, redirect_stdout(buf):
        df.explain(mode) if mode else df.explain()
        return buf.getvalue()


def error_of(fn):
    try:
        fn()
    except AnalysisException as e:
        return e.getCondition(), e.getMessageParameters()
    return None


# local_checkpoint_kept: localCheckpoint() keeps the rows (eager: computed at once; lazy: by the
# first action) under an id the client refers to; EXPLAIN shows Spark's LogicalRDD / Scan
# ExistingRDD; the checkpointed frame is not persisted (storage level NONE)
cp = spark.range(1).localCheckpoint()
check("ExistingRDD" in explained(cp), "localCheckpoint().explain(): %s" % explained(cp))
ext = explained(cp.select((F.col("id") + 1).alias("x")), "extended")
check("LogicalRDD [id" in ext and "Scan ExistingRDD[id" in ext, "extended: %s" % ext)
check(cp.collect() == [Row(id=0)], "checkpointed rows: %r" % (cp.collect(),))
check(cp.union(cp).count() == 2, "a checkpoint read twice in one plan")
check(cp.storageLevel == StorageLevel.NONE, "a checkpoint's storage level: %r" % cp.storageLevel)
lazy = spark.createDataFrame([(1, "a"), (2, "b")], "a int, b string").localCheckpoint(eager=False)
check(lazy.schema.names == ["a", "b"], "a lazy checkpoint's schema: %r" % (lazy.schema,))
check(sorted(lazy.collect()) == [Row(a=1, b="a"), Row(a=2, b="b")], "a lazy checkpoint's rows")
check(spark.range(5).localCheckpoint(storageLevel=StorageLevel.DISK_ONLY).count() == 5,
      "localCheckpoint(storageLevel=DISK_ONLY)")
check(spark.range(4).filter("id > 1").localCheckpoint().filter("id > 2").collect() == [Row(id=3)],
      "a filter over a checkpoint")
try:
    spark.range(3).checkpoint()
    check(False, "checkpoint() without a checkpoint directory was not refused")
except Exception as e:
    check("Checkpoint directory has not been set in the SparkContext" in str(e),
          "checkpoint() without a checkpoint directory: %s" % e)
del cp, lazy
gc.collect()  # RemoveCachedRemoteRelationCommand for each
check(spark.range(2).count() == 2, "the session after the checkpoints were released")

# cached_plan_explained: the plan of a cached DataFrame, and of one built on it, reads Spark's
# InMemoryTableScan over an InMemoryRelation (once each), before and after its rows are computed


def func(x):
    return x


df = spark.range(1)
df.select(F.udf(func)("id")).cache()
text = explained(df.select(F.udf(func)("id")))
check(text.count("InMemoryTableScan") == 1 and text.count("InMemoryRelation") == 1,
      "explain() of a cached UDF plan: %s" % text)
c = spark.range(3).withColumn("b", F.col("id") * 2)
c.cache()
text = explained(c.filter("id > 0"), "extended")
check("InMemoryRelation [id" in text and "StorageLevel(disk, memory, deserialized, 1 replicas)"
      in text and "InMemoryTableScan [id" in text, "a filter over a cached plan: %s" % text)
check(c.filter("id > 0").count() == 2, "the cached rows")
text = explained(c.filter("id > 0"))
check(text.count("InMemoryTableScan") == 1 and text.count("InMemoryRelation") == 1,
      "explain() once the rows are kept: %s" % text)
m = spark.range(2).persist(StorageLevel.MEMORY_ONLY)
text = explained(m)
check("StorageLevel(memory, 1 replicas)" in text, "MEMORY_ONLY (serialized in PySpark): %s" % text)
c.unpersist()
check("InMemory" not in explained(c), "unpersisted: %s" % explained(c))

# transpose_rows: the index column (the first by default) names the columns, the other columns
# become rows keyed by their names, at their tightest common type
df = spark.createDataFrame([{"a": "x", "b": "y", "c": "z"}])
t = df.transpose()
check(t.schema == StructType([StructField("key", StringType(), False),
                              StructField("x", StringType(), True)]), "schema: %r" % t.schema)
check(t.collect() == [Row(key="b", x="y"), Row(key="c", x="z")], "rows: %r" % t.collect())
check(df.transpose("c").collect() == [Row(key="a", z="x"), Row(key="b", z="y")], "transpose(c)")
t = spark.createDataFrame([{"a": "z"}, {"a": "y"}, {"a": "x"}]).transpose()
check(t.schema.names == ["key", "x", "y", "z"] and t.collect() == [], "no value columns")
n = spark.createDataFrame([(2, 1, 1.5, None), (1, 3, 2.5, 7), (None, 9, 9.0, 9)],
                          "k int, x int, y double, z bigint")
t = n.transpose()
check(t.schema == StructType([StructField("key", StringType(), False),
                              StructField("1", DoubleType(), True),
                              StructField("2", DoubleType(), True)]), "int/double/bigint: %r"
      % t.schema)
check([tuple(r) for r in t.collect()] == [("x", 3.0, 1.0), ("y", 2.5, 1.5), ("z", 7.0, None)],
      "rows ordered by the index, null index left out: %r" % t.collect())
check([tuple(r) for r in n.transpose(F.col("x")).collect()]
      == [("k", 2.0, 1.0, None), ("y", 1.5, 2.5, 9.0), ("z", None, 7.0, 9.0)], "transpose(col(x))")
e = spark.createDataFrame([], "k int, x int").transpose()
check(e.schema.names == ["key"] and e.collect() == [Row(key="x")], "no rows: %r" % e.collect())
d = spark.createDataFrame([("2020-01-01", 1, 2), ("2020-01-02", 3, 4)], "k string, x int, y int")
d = d.select(F.to_date("k").alias("k"), "x", "y").transpose()
check([tuple(r) for r in d.collect()] == [("x", 1, 3), ("y", 2, 4)] and
      d.schema.names == ["key", "2020-01-01", "2020-01-02"], "a date index: %r" % d.collect())

# transpose_errors: Spark's error classes and parameters
spark.conf.set("spark.sql.transposeMaxValues", "0")
check(error_of(lambda: df.transpose().collect()) ==
      ("TRANSPOSE_EXCEED_ROW_LIMIT", {"maxValues": "0", "config": "spark.sql.transposeMaxValues"}),
      "more rows than spark.sql.transposeMaxValues")
spark.conf.unset("spark.sql.transposeMaxValues")
check(error_of(lambda: spark.createDataFrame([{"a": ["x", "x"], "b": "y", "c": "z"}])
               .transpose().collect()) ==
      ("TRANSPOSE_INVALID_INDEX_COLUMN",
       {"reason": "Index column must be of atomic type, but found: ArrayType(StringType,true)"}),
      "an array index column")
mp = spark.createDataFrame([(1, {"a": 1}, 2)], "k int, m map<string,int>, z int")
check(error_of(lambda: mp.transpose("m").collect()) ==
      ("TRANSPOSE_INVALID_INDEX_COLUMN", {"reason": "Index column must be of atomic type, but "
                                                    "found: MapType(StringType,IntegerType,true)"}),
      "a map index column")
check(error_of(lambda: mp.transpose().collect()) ==
      ("TRANSPOSE_NO_LEAST_COMMON_TYPE", {"dt1": '"MAP<STRING, INT>"', "dt2": '"INT"'}),
      "a map and an int value column")
check(error_of(lambda: spark.createDataFrame([{"a": "x", "b": "y", "c": 1}]).transpose()
               .collect()) ==
      ("TRANSPOSE_NO_LEAST_COMMON_TYPE", {"dt1": '"STRING"', "dt2": '"BIGINT"'}),
      "a string and a bigint value column")
check(error_of(lambda: n.transpose(F.col("k") + 1).collect()) ==
      ("TRANSPOSE_INVALID_INDEX_COLUMN", {"reason": "Index column must be an atomic attribute"}),
      "an expression as the index")
check(error_of(lambda: n.transpose("nope").collect())[0] == "UNRESOLVED_COLUMN.WITH_SUGGESTION",
      "an unknown index column")

print("PASS relations_parity")
