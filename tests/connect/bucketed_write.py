"""bucketed_write.py — DataFrameWriter.bucketBy / sortBy of the pinned PySpark client (pyspark
4.0.1): the calls of PySpark's test_readwriter.py::test_bucketed_write (saveAsTable with one and
two bucket columns, with sortBy, with lists of columns; spark.catalog.listColumns' isBucket; the
rows read back), partitionBy with bucketBy, the table's DESCRIBE TABLE EXTENDED rows and SHOW
CREATE TABLE, the bucket files of an external table (each file's suffix the bucket of every row
in it: pmod(hash(x), n)), and Spark's errors (bucketBy with save / parquet / insertInto, sortBy
without bucketBy, numBuckets out of range, unknown and partition columns). Every check is a
value computed here, so the same program passes against Apache Spark 4's own Connect server
(bucketed_write_spark.sh) and against cspark (bucketed_write.sh).

  bucketed_write.py URL DIR

DIR is a scratch folder for the external table and path writes. Exits 1 naming the first check
that fails.
"""
import os
import re
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from connect_checks import check, raises

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
scratch = sys.argv[2]


# test_readwriter.py::test_bucketed_write, its calls as written there
data = [
    (1, "foo", 3.0),
    (2, "foo", 5.0),
    (3, "bar", -1.0),
    (4, "bar", 6.0),
]
df = spark.createDataFrame(data, ["x", "y", "z"])


def count_bucketed_cols(names, table="pyspark_bucket"):
    cols = spark.catalog.listColumns(table)
    return len([c for c in cols if c.name in names and c.isBucket])


def rows(table="pyspark_bucket"):
    return set(tuple(r) for r in spark.table(table).collect())


spark.sql("DROP TABLE IF EXISTS pyspark_bucket")
df.write.bucketBy(3, "x").mode("overwrite").saveAsTable("pyspark_bucket")
check(count_bucketed_cols(["x"]) == 1, "bucketBy(3, x): x is a bucket column")
check(count_bucketed_cols(["y", "z"]) == 0, "bucketBy(3, x): y, z are not")
check(rows() == set(data), "bucketBy(3, x): the rows")
df.write.bucketBy(3, "x", "y").mode("overwrite").saveAsTable("pyspark_bucket")
check(count_bucketed_cols(["x", "y"]) == 2, "bucketBy(3, x, y): two bucket columns")
check(rows() == set(data), "bucketBy(3, x, y): the rows")
df.write.bucketBy(2, "x").sortBy("z").mode("overwrite").saveAsTable("pyspark_bucket")
check(count_bucketed_cols(["x"]) == 1, "bucketBy(2, x).sortBy(z): x")
check(rows() == set(data), "bucketBy(2, x).sortBy(z): the rows")
df.write.bucketBy(3, ["x", "y"]).mode("overwrite").saveAsTable("pyspark_bucket")
check(count_bucketed_cols(["x", "y"]) == 2, "bucketBy(3, [x, y])")
check(rows() == set(data), "bucketBy(3, [x, y]): the rows")
df.write.bucketBy(2, "x").sortBy(["y", "z"]).mode("overwrite").saveAsTable("pyspark_bucket")
check(rows() == set(data), "sortBy([y, z]): the rows")
df.write.bucketBy(2, "x").sortBy("y", "z").mode("overwrite").saveAsTable("pyspark_bucket")
check(rows() == set(data), "sortBy(y, z): the rows")

# how the catalog shows the last one
detail = {r[0]: r[1] for r in spark.sql("DESCRIBE TABLE EXTENDED pyspark_bucket").collect()}
check(detail.get("Num Buckets") == "2", "Num Buckets: %r" % detail.get("Num Buckets"))
check(detail.get("Bucket Columns") == "[`x`]", "Bucket Columns: %r" % detail.get("Bucket Columns"))
check(detail.get("Sort Columns") == "[`y`, `z`]", "Sort Columns: %r" % detail.get("Sort Columns"))
check(detail.get("Type") == "MANAGED" and detail.get("Provider") == "parquet", "Type, Provider")
ddl = spark.sql("SHOW CREATE TABLE pyspark_bucket").collect()[0][0]
check("CLUSTERED BY (x)\nSORTED BY (y, z)\nINTO 2 BUCKETS\n" in ddl, "SHOW CREATE TABLE: %r" % ddl)
spark.sql("DROP TABLE pyspark_bucket")

# partitionBy with bucketBy, an external table: each file holds its suffix's bucket only
ext = os.path.join(scratch, "ext")
big = spark.range(0, 200).select(
    F.col("id").cast("int").alias("k"), (F.col("id") % 3).cast("int").alias("p"),
    (F.col("id") * 7 % 13).alias("v"))
(big.write.partitionBy("p").bucketBy(4, "k").sortBy("v").mode("overwrite")
    .option("path", ext).saveAsTable("bucket_ext"))
check(count_bucketed_cols(["k"], "bucket_ext") == 1, "bucket_ext: k is a bucket column")
check(sorted(spark.table("bucket_ext").select("k", "p", "v").collect()) == sorted(big.collect()),
      "bucket_ext: the rows")
suffix = re.compile(r"^part-\d{5}-[0-9a-f-]{36}_(\d{5})\.c000\.snappy\.parquet$")
files = 0
for d, _, names in os.walk(ext):
    for n in names:
        if n.startswith((".", "_")):
            continue
        m = suffix.match(n)
        check(m is not None, "bucket file name %s" % n)
        ids = spark.read.parquet(os.path.join(d, n)).select(
            F.expr("pmod(hash(k), 4)").alias("b")).distinct().collect()
        check([r.b for r in ids] == [int(m.group(1))], "%s holds bucket %s only: %s" % (n, m.group(1), ids))
        vs = [r.v for r in spark.read.parquet(os.path.join(d, n)).collect()]
        check(vs == sorted(vs), "%s sorted by v" % n)
        files += 1
check(files >= 12, "one file per bucket per partition: %d files" % files)
spark.sql("DROP TABLE bucket_ext")

# Spark's errors
path = os.path.join(scratch, "p")
raises(lambda: df.write.bucketBy(2, "x").save(path), "_LEGACY_ERROR_TEMP_1312", "'save'")
raises(lambda: df.write.bucketBy(2, "x").parquet(path), "_LEGACY_ERROR_TEMP_1312", "'save'")
raises(lambda: df.write.bucketBy(2, "x").sortBy("y").parquet(path), "_LEGACY_ERROR_TEMP_1313",
       "'save' does not support bucketBy and sortBy")
raises(lambda: df.write.sortBy("y").saveAsTable("bucket_err"), "SORT_BY_WITHOUT_BUCKETING")
raises(lambda: df.write.sortBy("y").parquet(path), "SORT_BY_WITHOUT_BUCKETING")
# the client sends no BucketBy for numBuckets <= 0: a table that is not bucketed
df.write.bucketBy(0, "x").saveAsTable("bucket_zero")
check(count_bucketed_cols(["x"], "bucket_zero") == 0, "bucketBy(0, x): not bucketed")
spark.sql("DROP TABLE bucket_zero")
raises(lambda: df.write.bucketBy(100001, "x").saveAsTable("bucket_err"),
       "_LEGACY_ERROR_TEMP_1083", "Got `100001`")
raises(lambda: df.write.bucketBy(2, "nope").saveAsTable("bucket_err"),
       "COLUMN_NOT_DEFINED_IN_TABLE", "`nope`")
raises(lambda: df.write.bucketBy(2, "x").sortBy("nope").saveAsTable("bucket_err"),
       "COLUMN_NOT_DEFINED_IN_TABLE", "sort column `nope`")
raises(lambda: df.write.partitionBy("x").bucketBy(2, "x").saveAsTable("bucket_err"),
       "_LEGACY_ERROR_TEMP_1166", "'x'")
df.write.saveAsTable("bucket_plain")
raises(lambda: df.write.bucketBy(2, "x").insertInto("bucket_plain"), "_LEGACY_ERROR_TEMP_1312",
       "'insertInto'")
spark.sql("DROP TABLE bucket_plain")
check(not spark.catalog.tableExists("bucket_err"), "no table left by the failed writes")
print("PASS bucketed_write")
