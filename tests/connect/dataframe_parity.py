"""dataframe_parity.py — DataFrame, reader and writer calls of the pinned PySpark client (pyspark
4.0.1) that PySpark's own test_parity_dataframe and test_parity_readwriter modules found failing
against cspark-connect-server, each checked by a value computed here, so that the same program
passes against Apache Spark 4.0.1's own Connect server (dataframe_parity_spark.sh) and against
cspark (dataframe_parity.sh).

  dataframe_parity.py URL SCRATCH_DIR

Cases, each named after what broke: input_files_list_each_file, provider_class_names,
nested_duplicate_field_names, struct_sort_keys, cluster_by_recorded,
save_as_table_overwrites_managed_folder, qualified_star_over_using_join and
distributed_sequence_id_numbers_rows. Tables go to the server's spark-warehouse (the
wrappers start it in a scratch directory); files to SCRATCH_DIR.

Exits 1 naming the first check that fails.
"""
import os
import sys

from pyspark.errors import AnalysisException, PySparkException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructType

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
scratch = sys.argv[2]


def check(cond, what):
    if not cond:
        print("FAIL: %s" % what, file=sys.stderr)
        sys.exit(1)


def condition_of(fn, kind=AnalysisException):
    try:
        fn()
    except kind as e:
        return e.getCondition()
    return None


# input_files_list_each_file: inputFiles() names every data file of the relation (not its
# folder), as a file:// uri
d = os.path.join(scratch, "ten_files")
spark.range(1, 100, 1, 10).write.parquet(d)
files = spark.read.parquet(d).inputFiles()
check(len(files) == 10, "inputFiles of 10 written files: %r" % (files,))
check(all(f.startswith("file://" + d + "/part-") and f.endswith(".parquet") for f in files),
      "inputFiles are file:// uris of the data files: %r" % (files,))
check(len(spark.read.parquet(d).union(spark.read.parquet(d)).inputFiles()) == 10,
      "a file read twice is listed once")

# provider_class_names: Spark's class names for a format and the older names it maps to them
# (DataSource.backwardCompatibilityMap) are accepted as formats, also as
# spark.sql.sources.default
j = os.path.join(scratch, "json")
people = spark.createDataFrame([(1, "a"), (2, "b")], ["key", "value"])
people.write.json(j)
for name in ["org.apache.spark.sql.json", "org.apache.spark.sql.execution.datasources.json",
             "org.apache.spark.sql.execution.datasources.json.JsonFileFormat"]:
    got = sorted(tuple(r) for r in spark.read.load(j, format=name).collect())
    check(got == [(1, "a"), (2, "b")], "format %s: %r" % (name, got))
spark.conf.set("spark.sql.sources.default", "org.apache.spark.sql.json")
check(spark.read.load(j).count() == 2, "spark.sql.sources.default=org.apache.spark.sql.json")
spark.conf.unset("spark.sql.sources.default")
c = os.path.join(scratch, "csv")
people.write.format("com.databricks.spark.csv").save(c)
check(sorted(tuple(r) for r in spark.read.csv(c).collect()) == [("1", "a"), ("2", "b")],
      "written as com.databricks.spark.csv")
check(condition_of(lambda: spark.read.load(j, format="org.apache.spark.sql.nope").schema,
                   PySparkException) == "DATA_SOURCE_NOT_FOUND", "an unknown class name")

# nested_duplicate_field_names: a struct with two fields of one name comes back (the Arrow
# result renames them for the client, which reads them by position)
data = [Row(Row("a", 1), Row(2, 3, "b", 4, "c", "d")), Row(Row("w", 6), Row(7, 8, "x", 9, "y", "z"))]
schema = (StructType()
          .add("struct", StructType().add("x", StringType()).add("x", IntegerType()))
          .add("struct", StructType().add("a", IntegerType()).add("x", IntegerType())
               .add("x", StringType()).add("y", IntegerType()).add("y", StringType())
               .add("x", StringType())))
dup = spark.createDataFrame(data, schema=schema)
check(dup.schema == schema, "duplicate names in the schema: %r" % (dup.schema,))
check(dup.collect() == data, "rows with duplicate nested names: %r" % (dup.collect(),))

# struct_sort_keys: structs order field by field; a field's nulls come first ascending and last
# descending, whatever the key's own NULLS FIRST/LAST
s = spark.createDataFrame([((1, None),), ((1, 2),), ((None, 1),), (None,), ((0, 5),)],
                          "s struct<x:int,y:int>")


def order(o):
    return [tuple(r.s) if r.s else None for r in s.orderBy(o).collect()]


check(order(F.col("s").asc()) == [None, (None, 1), (0, 5), (1, None), (1, 2)], "struct ASC")
check(order(F.col("s").desc()) == [(1, 2), (1, None), (0, 5), (None, 1), None], "struct DESC")
check(order(F.col("s").asc_nulls_last()) == [(None, 1), (0, 5), (1, None), (1, 2), None],
      "struct ASC NULLS LAST")
check(order(F.col("s").desc_nulls_first()) == [None, (1, 2), (1, None), (0, 5), (None, 1)],
      "struct DESC NULLS FIRST")

# cluster_by_recorded: saveAsTable with clusterBy records the clustering columns (as the
# table spells them), which listColumns reports as isCluster; an unknown column and
# clusterBy with partitionBy are Spark's errors
df = spark.createDataFrame([(1, "foo", 3.0), (2, "bar", -1.0)], ["x", "y", "z"])


def clustering(table):
    return [c.name for c in spark.catalog.listColumns(table) if c.isCluster]


spark.sql("DROP TABLE IF EXISTS parity_cluster")
df.write.clusterBy("X").mode("overwrite").saveAsTable("parity_cluster")
check(clustering("parity_cluster") == ["x"], "clusterBy(X): %r" % (clustering("parity_cluster"),))
df.write.clusterBy(["z", "y"]).mode("overwrite").saveAsTable("parity_cluster")
check(clustering("parity_cluster") == ["y", "z"], "clusterBy(z, y) in table order: %r"
      % (clustering("parity_cluster"),))
check(sorted(tuple(r) for r in spark.table("parity_cluster").collect())
      == [(1, "foo", 3.0), (2, "bar", -1.0)], "a clustered table's rows")
check(condition_of(lambda: df.write.clusterBy("nope").saveAsTable("parity_cluster_bad"))
      == "_LEGACY_ERROR_TEMP_3060", "clusterBy of an unknown column")
check(condition_of(lambda: df.write.clusterBy("x").partitionBy("y").saveAsTable("parity_cluster_bad"))
      == "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED", "clusterBy with partitionBy")
check(not spark.catalog.tableExists("parity_cluster_bad"), "no table left by the errors")
spark.sql("DROP TABLE parity_cluster")

# save_as_table_overwrites_managed_folder: saveAsTable in overwrite mode over a managed table
# replaces it (its folder goes with the old table), again and again
spark.sql("DROP TABLE IF EXISTS parity_overwrite")
for n in (3, 5, 2):
    spark.range(n).write.mode("overwrite").saveAsTable("parity_overwrite")
    check(spark.table("parity_overwrite").count() == n, "overwritten with %d rows" % n)
spark.sql("DROP TABLE parity_overwrite")

# qualified_star_over_using_join: a USING join leaves one side's keys out of its output, but a
# qualified star (df2["*"], t2.*) still expands to them (Spark's hidden output), also under a
# projection added by withColumn; the rows are that side's (nulls where it had no match)
df1 = spark.createDataFrame([(1,), (2,)], "a int")
df2 = spark.createDataFrame([(1, "v"), (3, "w")], "a int, b string")
for how, want2, want1 in [
    ("inner", [(1, "v")], [(1,)]),
    ("left", [(1, "v"), (None, None)], [(1,), (2,)]),
    ("right", [(1, "v"), (3, "w")], [(1,), (None,)]),
    ("full", [(1, "v"), (3, "w"), (None, None)], [(1,), (2,), (None,)]),
]:
    j = df1.join(df2, "a", how)
    got2 = sorted((tuple(r) for r in j.select(df2["*"]).collect()), key=str)
    got1 = sorted((tuple(r) for r in j.select(df1["*"]).collect()), key=str)
    check(j.select(df2["*"]).columns == ["a", "b"] and got2 == sorted(want2, key=str),
          "%s join, df2[*]: %r" % (how, got2))
    check(j.select(df1["*"]).columns == ["a"] and got1 == sorted(want1, key=str),
          "%s join, df1[*]: %r" % (how, got1))
wc = df1.join(df2, "a").withColumn("c", F.lit(0))
check(wc.select(df2["*"]).columns == ["a", "b"], "df2[*] under withColumn: %r"
      % (wc.select(df2["*"]).columns,))
df1.createOrReplaceTempView("parity_t1")
df2.createOrReplaceTempView("parity_t2")
got = sorted((tuple(r) for r in spark.sql(
    "SELECT parity_t2.*, parity_t1.* FROM parity_t1 FULL JOIN parity_t2 USING (a)").collect()),
    key=str)
check(got == sorted([(1, "v", 1), (3, "w", None), (None, None, 2)], key=str),
      "t2.*, t1.* over a full USING join: %r" % (got,))

# distributed_sequence_id_numbers_rows: Connect's DistributedSequenceID (pandas-on-Spark's
# default index) numbers the rows from 0 in the order of the input's partitions, beside `*`
from pyspark.sql.connect.column import Column  # noqa: E402
from pyspark.sql.connect.expressions import DistributedSequenceID  # noqa: E402

seq = spark.range(0, 10, 1, 3).select(Column(DistributedSequenceID()).alias("i"), "*")
check(seq.columns == ["i", "id"], "columns beside the sequence: %r" % (seq.columns,))
check(seq.schema["i"].dataType.simpleString() == "bigint", "the sequence is a bigint")
check([tuple(r) for r in seq.collect()] == [(i, i) for i in range(10)],
      "rows numbered in partition order: %r" % (seq.collect(),))
spark.conf.set("spark.sql.ansi.enabled", "false")  # pandas-on-Spark refuses ANSI mode
pdf = spark.createDataFrame([("a", 1), ("b", 2), ("c", 3)], ["Col1", "Col2"]).pandas_api().to_pandas()
check(pdf.index.tolist() == [0, 1, 2] and pdf.Col1.tolist() == ["a", "b", "c"],
      "pandas_api()'s default index: %r" % (pdf,))
spark.conf.unset("spark.sql.ansi.enabled")

print("PASS dataframe_parity")
