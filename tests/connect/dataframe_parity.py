"""dataframe_parity.py — DataFrame, reader and writer calls of the pinned PySpark client (pyspark
4.0.1) that PySpark's own test_parity_dataframe and test_parity_readwriter modules found failing
against cspark-connect-server, each checked by a value computed here, so that the same program
passes against Apache Spark 4.0.1's own Connect server (dataframe_parity_spark.sh) and against
cspark (dataframe_parity.sh).

  dataframe_parity.py URL SCRATCH_DIR

Cases, each named after what broke: input_files_list_each_file, provider_class_names,
nested_duplicate_field_names, struct_sort_keys, cluster_by_recorded,
save_as_table_overwrites_managed_folder, qualified_star_over_using_join,
distributed_sequence_id_numbers_rows, coalesce_merges_partitions, local_relation_slices,
partitioning_hints, sample_fraction_checked, sample_keeps_seeded_rows,
sample_with_replacement_repeats_rows, random_split_sorts_partitions,
write_to_creates_table and write_to_existing_table_refused. Tables go to the
server's spark-warehouse (the wrappers start it in a scratch directory); files to SCRATCH_DIR.

Exits 1 naming the first check that fails.
"""
import io
import os
import sys
from contextlib import redirect_stdout

from pyspark.errors import AnalysisException, IllegalArgumentException, PySparkException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType
from connect_checks import check, condition_of

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
scratch = sys.argv[2]


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

# coalesce_merges_partitions: DataFrame.coalesce(n) is Spark's CoalesceExec (no exchange;
# "Coalesce n" in the physical plan): output partition i reads the child's partitions
# [i * np / n, (i + 1) * np / n), never more partitions than the child has; over a shuffle too
def pids(df):
    return [r[0] for r in df.select(F.spark_partition_id()).collect()]


def explained(df):
    buf = io.StringIO()
    with redirect_stdout(buf):
        df.explain(True)
    return buf.getvalue()


check(pids(spark.range(0, 10, 1, 5).coalesce(2)) == [0] * 4 + [1] * 6,
      "range(10, 5 slices).coalesce(2): %r" % (pids(spark.range(0, 10, 1, 5).coalesce(2)),))
check(pids(spark.range(0, 10, 1, 5).coalesce(9)) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4],
      "coalesce(9) of 5 partitions keeps 5")
spark.conf.set("spark.sql.adaptive.enabled", "false")  # (a query stage's locality: not yet)
by_id = spark.range(0, 100, 1, 4).repartition(5, "id")
want = sorted((r[0] in (2, 3, 4), r[1]) for r in by_id.select(F.spark_partition_id(), "id").collect())
got = sorted((r[0] == 1, r[1]) for r in by_id.coalesce(2).select(
    F.spark_partition_id(), "id").collect())
check(got == want, "coalesce(2) of 5 hash partitions: 0-1 then 2-4")
spark.conf.unset("spark.sql.adaptive.enabled")
plan = explained(spark.range(10).coalesce(2))
check("Repartition 2, false" in plan and "\nCoalesce 2\n" in plan and "Exchange" not in plan,
      "coalesce(2) explained: %s" % plan)

# local_relation_slices: createDataFrame's rows are sliced as LocalTableScanExec slices them
# (min(rows, spark.sql.leafNodeDefaultParallelism or the default parallelism) partitions, row
# ranges as ParallelCollectionRDD's); a nondeterministic projection of them is evaluated as
# ConvertToLocalRelation does (partition 0)
local5 = spark.createDataFrame([(i,) for i in range(5)], ["a"])
check(pids(local5.coalesce(3)) == [0, 0, 1, 1, 1], "5 local rows on local[2]: %r"
      % (pids(local5.coalesce(3)),))
check(pids(local5) == [0] * 5, "spark_partition_id() of local rows is folded at partition 0")
check(local5.groupBy(F.spark_partition_id().alias("p")).count().collect() == [Row(p=0, count=5)],
      "a nondeterministic grouping key of local rows is folded too")
spark.conf.set("spark.sql.leafNodeDefaultParallelism", "3")
local7 = spark.createDataFrame([(i,) for i in range(7)], ["a"])
check(pids(local7.coalesce(5)) == [0, 0, 1, 1, 2, 2, 2], "7 rows in 3 slices: %r"
      % (pids(local7.coalesce(5)),))
check(pids(spark.createDataFrame([(1,), (2,)], ["a"]).coalesce(5)) == [0, 1],
      "2 rows: 2 slices")
check(pids(spark.range(7)) == [0, 0, 1, 1, 2, 2, 2], "range() splits by the same setting")
spark.conf.unset("spark.sql.leafNodeDefaultParallelism")

# partitioning_hints: test_coalesce_hints_with_string_parameter's checks — the COALESCE,
# REPARTITION_BY_RANGE and REBALANCE hints of DataFrame.hint resolved as Spark's
# ResolveCoalesceHints (string parameters name columns), with Spark's plan text and errors
df = spark.createDataFrame(zip(["A", "B"] * 2 ** 9, range(2 ** 10)),
                           StructType([StructField("a", StringType()),
                                       StructField("n", IntegerType())]))
spark.conf.set("spark.sql.adaptive.coalescePartitions.enabled", "false")
plan = explained(df.hint("coalesce", 3))
check(plan.count("Coalesce 3") >= 1 and "Repartition 3, false" in plan, "COALESCE hint: %s" % plan)
check(sorted(set(pids(df.hint("coalesce", 3)))) == [0, 1], "coalesce(3) of 2 slices keeps 2")
plan = explained(df.hint("REPARTITION_BY_RANGE", 10, "a"))
check("REPARTITION_BY_NUM" in plan and "rangepartitioning(" in plan and
      "RepartitionByExpression [a#" in plan and "ASC NULLS FIRST], 10" in plan,
      "REPARTITION_BY_RANGE hint: %s" % plan)
plans = [explained(df.hint("REBALANCE", *ps)) for ps in [("a",), (3,), (3, "a"), (F.col("a"),)]]
check(sum(p.count("REBALANCE_PARTITIONS_BY_NONE") for p in plans) >= 1 and
      sum(p.count("REBALANCE_PARTITIONS_BY_COL") for p in plans) >= 3 and
      "RebalancePartitions 3\n" in plans[1] and "RoundRobinPartitioning(3)" in plans[1],
      "REBALANCE hints: %s" % plans)
spark.conf.unset("spark.sql.adaptive.coalescePartitions.enabled")
ranged = df.hint("REPARTITION_BY_RANGE", 2, "n").select(F.spark_partition_id().alias("p"), "n")
bounds = ranged.groupBy("p").agg(F.min("n"), F.max("n")).orderBy("p").collect()
# (the bound is sampled with seeds from RDD ids, which differ between servers)
check(len(bounds) == 2 and bounds[0][1] == 0 and bounds[1][2] == 1023 and
      bounds[0][2] + 1 == bounds[1][1] and 384 < bounds[1][1] < 640,
      "REPARTITION_BY_RANGE(2, n) splits the range near its middle: %r" % (bounds,))
check(condition_of(lambda: df.hint("coalesce", "a").collect()) == "_LEGACY_ERROR_TEMP_1048",
      "COALESCE with a column")
check(condition_of(lambda: df.hint("repartition", 1, 2).collect()) == "_LEGACY_ERROR_TEMP_1047",
      "REPARTITION with a second number")
try:
    df.hint("coalesce", 0).collect()
    check(False, "COALESCE(0) ran")
except PySparkException as e:
    check("Number of partitions (0) must be positive" in str(e) and
          type(e).__name__ == "IllegalArgumentException", "COALESCE(0): %r" % (e,))

# sample_fraction_checked: a fraction out of [0, 1] without replacement (negative with it) is
# refused as Spark's Sample node requires, an IllegalArgumentException (test_sample)
for args, text in [((-1.0,), "Sampling fraction (-1.0) must be on interval [0, 1] without "
                    "replacement"),
                   ((False, 1.5), "Sampling fraction (1.5) must be on interval [0, 1] without "
                    "replacement"),
                   ((True, -0.5), "Sampling fraction (-0.5) must be nonnegative with replacement")]:
    try:
        spark.range(1).sample(*args).count()
        got = None
    except IllegalArgumentException as e:
        got = str(e)
    check(got is not None and text in got, "sample%r: %r" % (args, got))

# sample_keeps_seeded_rows: sample(fraction, seed) keeps the rows whose partition's
# XORShiftRandom (seeded with seed + the partition index, as rand(seed)) draws under the
# fraction, the same rows for the same seed (test_sample_with_random_seed). (The 4.0.1 client
# drops a seed given by keyword after a positional fraction: sample(0.3, seed=17) is unseeded.)
base = spark.range(0, 2000, 1, 3)
picked = sorted(r.id for r in base.sample(False, 0.3, 17).collect())
check(picked == sorted(r.id for r in base.where(F.rand(17) < 0.3).collect()),
      "sample(False, 0.3, 17) keeps the rows of rand(17) < 0.3")
check(picked == sorted(r.id for r in base.sample(fraction=0.3, seed=17).collect()),
      "sample with one seed twice: the same rows")
check(0 < len(picked) < 2000 and base.sample(fraction=0.0, seed=3).count() == 0 and
      base.sample(fraction=1.0, seed=3).count() == 2000, "sample's bounds: %d rows" % len(picked))


# sample_with_replacement_repeats_rows: sample(True, f, seed) gives each row as many times as its
# partition's PoissonSampler draws (commons-math3's PoissonDistribution over a Well19937c seeded
# with the (partition + 1)-th nextLong of java.util.Random(seed)), copies together: Spark's rows
# for the seed, means under 1, over 1 and over 40 (test_sample)
base = spark.range(0, 30, 1, 3)
check([r.id for r in base.sample(True, 0.5, 7).collect()] ==
      [0, 3, 7, 7, 9, 10, 11, 15, 16, 18, 20, 20, 21, 27], "sample(True, 0.5, 7)")
counts = [0] * 30
for r in base.sample(True, 2.5, -11).collect():
    counts[r.id] += 1
check(counts == [5, 2, 0, 2, 0, 4, 4, 3, 2, 4, 1, 2, 3, 4, 0, 4, 0, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3,
                 0, 3, 1], "sample(True, 2.5, -11) counts: %r" % (counts,))
counts = [0] * 6
for r in spark.range(0, 6, 1, 2).sample(True, 45.5, 3).collect():
    counts[r.id] += 1
check(counts == [33, 46, 52, 46, 50, 44], "sample(True, 45.5, 3) (commons-math3's rejection "
      "method over a mean of 40): %r" % (counts,))

# random_split_sorts_partitions: randomSplit(weights, seed) sends one Sample per split with the
# cumulative bounds [lower, upper) of the normalized weights and deterministic_order: each
# partition sorted by every orderable column (not the map) ascending, then the rows whose
# XORShiftRandom draw (seed + partition index) falls in the split's range: disjoint, covering,
# each Spark's (test_randomSplit)
check([[r.id for r in s.collect()] for s in base.randomSplit([0.3, 0.7], 11)] ==
      [[0, 1, 4, 7, 8, 13, 14, 16, 27, 28],
       [2, 3, 5, 6, 9, 10, 11, 12, 15, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 29]],
      "randomSplit([0.3, 0.7], 11)")
mixed = spark.range(0, 40, 1, 2).select(
    ((F.col("id") * 7919) % 23).alias("k"),
    F.concat(F.lit("s"), (F.col("id") % 5).cast("string")).alias("s"),
    F.create_map(F.lit("a"), F.col("id")).alias("m"), F.col("id"))
splits = [[r.id for r in s.collect()] for s in mixed.randomSplit([1.0, 2.0, 1.0], 5)]
check(splits == [[0, 10, 14, 18, 15, 19, 6, 23, 24, 38, 29, 26],
                 [17, 4, 1, 8, 5, 2, 9, 3, 13, 33, 20, 37, 21, 28, 25, 35, 22, 32, 39, 36],
                 [7, 11, 12, 16, 30, 27, 34, 31]], "randomSplit([1, 2, 1], 5): %r" % (splits,))
check([[r.id for r in s.collect()] for s in base.randomSplit([2.0], 9)] == [list(range(30))],
      "randomSplit of one weight: every row")
for weights, text in [([1.0, -1.0], "Value for `weights` must be positive, got '-1.0'"),
                      ([0.0, 0.0], "Value for `sum(weights)` must be positive, got '0.0'")]:
    try:
        base.randomSplit(weights, 1)
        got = None
    except PySparkException as e:
        got = str(e)
    check(got is not None and text in got, "randomSplit(%r): %r" % (weights, got))


# write_to_creates_table: df.writeTo(t).create() is a CREATE TABLE AS SELECT (with using()'s
# provider, else spark.sql.sources.default), refused when t exists (test_create,
# test_create_without_provider)
spark.sql("DROP TABLE IF EXISTS write_to_t")
spark.range(100).writeTo("write_to_t").using("parquet").create()
check(spark.sql("select * from write_to_t").count() == 100, "writeTo().create() wrote 100 rows")
check(condition_of(lambda: spark.range(3).writeTo("write_to_t").create())
      == "TABLE_OR_VIEW_ALREADY_EXISTS", "writeTo().create() over an existing table")
spark.sql("DROP TABLE write_to_t")
spark.range(5).writeTo("write_to_t").create()
check(spark.table("write_to_t").count() == 5, "writeTo().create() with the default provider")
spark.sql("DROP TABLE write_to_t")

# write_to_existing_table_refused: append() / overwrite(cond) / overwritePartitions() into a
# missing table are TABLE_OR_VIEW_NOT_FOUND (test_table_overwrite); into a table of the session
# catalog (a v1 table) _LEGACY_ERROR_TEMP_1012, into a temporary view _LEGACY_ERROR_TEMP_1007;
# replace() / createOrReplace() are REPLACE TABLE AS SELECT, which the session catalog refuses
wdf = spark.createDataFrame([(1, "a"), (2, "b")], "id int, v string")
spark.sql("DROP TABLE IF EXISTS write_to_t")
for name, write in [("append", lambda w: w.append()),
                    ("overwrite", lambda w: w.overwrite(F.lit(True))),
                    ("overwritePartitions", lambda w: w.overwritePartitions())]:
    check(condition_of(lambda: write(wdf.writeTo("write_to_t"))) == "TABLE_OR_VIEW_NOT_FOUND",
          "writeTo().%s() into a missing table" % name)
wdf.writeTo("write_to_t").create()
spark.createDataFrame([(1,)], "x int").createOrReplaceTempView("write_to_v")
for name, write in [("append", lambda w: w.append()),
                    ("overwrite", lambda w: w.overwrite(F.col("id") == 1)),
                    ("overwritePartitions", lambda w: w.overwritePartitions())]:
    try:
        write(wdf.writeTo("write_to_t"))
        check(False, "writeTo().%s() into a v1 table was not refused" % name)
    except AnalysisException as e:
        check(e.getCondition() == "_LEGACY_ERROR_TEMP_1012" and
              "Cannot write into v1 table: `spark_catalog`.`default`.`write_to_t`." in str(e),
              "writeTo().%s() into a v1 table: %s" % (name, e))
    try:
        write(wdf.writeTo("write_to_v"))
        check(False, "writeTo().%s() into a temporary view was not refused" % name)
    except AnalysisException as e:
        check(e.getCondition() == "_LEGACY_ERROR_TEMP_1007" and
              "Cannot write into temp view write_to_v as it's not a data source v2 relation."
              in str(e), "writeTo().%s() into a temporary view: %s" % (name, e))
for name, write in [("replace", lambda w: w.replace()),
                    ("createOrReplace", lambda w: w.createOrReplace())]:
    check(condition_of(lambda: write(wdf.writeTo("write_to_t")))
          == "UNSUPPORTED_FEATURE.TABLE_OPERATION", "writeTo().%s() over a table" % name)
check(sorted(tuple(r) for r in spark.table("write_to_t").collect()) == [(1, "a"), (2, "b")],
      "the refused writes left the table as it was")
spark.sql("DROP TABLE write_to_t")
check(condition_of(lambda: wdf.writeTo("write_to_t").replace())
      == "UNSUPPORTED_FEATURE.TABLE_OPERATION", "writeTo().replace() of a missing table")

print("PASS dataframe_parity")
