"""persist.py — DataFrame.cache(), persist(level), unpersist(), storageLevel and is_cached from the
pinned PySpark client against a Spark Connect server: run by tests/connect/persist.sh against
cspark-connect-server and by tests/connect/persist_spark.sh against both cspark's and Apache Spark
4.0.1's own server.

  persist.py URL DATA_DIR OUT.json

The cache is proven by a source whose re-read differs: DATA_DIR is a folder of CSV files, and a
file added after the first action is seen by an uncached DataFrame but not by the cached one (nor
by DataFrames built on it, nor by the same read built again) until it is unpersisted. Every check is a value the program computes
itself; OUT.json holds each step's answer for tests/connect/compare_results.py.
"""
import json
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.storagelevel import StorageLevel
from connect_checks import check

url, data, out_path = sys.argv[1], sys.argv[2], sys.argv[3]
spark = SparkSession.builder.remote(url).getOrCreate()


def write_csv(name, start, n):
    with open(os.path.join(data, name), "w") as f:
        for i in range(start, start + n):
            f.write("%d,k%d\n" % (i, i % 3))


def level(df):
    lv = df.storageLevel
    return [lv.useDisk, lv.useMemory, lv.useOffHeap, lv.deserialized, lv.replication]


os.makedirs(data, exist_ok=True)
write_csv("part-0.csv", 0, 100)
answers = {}

df = spark.read.schema("id INT, k STRING").csv(data)
check(not df.is_cached and level(df) == [False, False, False, False, 1], "not cached: NONE")
df.cache()
check(df.is_cached, "is_cached after cache()")
answers["level_cache"] = level(df)
check(level(df) == [True, True, False, True, 1], "cache() is MEMORY_AND_DISK_DESER: %r" % level(df))
answers["count_first"] = df.count()  # computes and keeps the rows
check(answers["count_first"] == 100, "first count: %r" % answers["count_first"])

write_csv("part-1.csv", 100, 50)  # a re-read would see 150 rows
answers["count_cached"] = df.count()
check(answers["count_cached"] == 100, "the cached DataFrame is not read again: %r" % answers)
filtered = df.filter(df["id"] >= 90)  # a column of the cached DataFrame by its plan id
answers["filter_over_cached"] = sorted(r.id for r in filtered.collect())
check(answers["filter_over_cached"] == list(range(90, 100)), "a DataFrame over the cached one")
agg = df.groupBy("k").agg(F.count("*").alias("c")).orderBy("k")
answers["aggregate_over_cached"] = [[r.k, r.c] for r in agg.collect()]
check(sum(r[1] for r in answers["aggregate_over_cached"]) == 100, "an aggregate over the cache")
# the same read built again is the same plan: it reads the cache too (Spark matches plans by
# their results, not by DataFrame)
answers["same_read_again"] = spark.read.schema("id INT, k STRING").csv(data).filter(
    "id >= 90").count()
check(answers["same_read_again"] == 10, "the same read again hits the cache: %r" % answers)
# another read of the files (another schema) reads them
answers["other_read"] = spark.read.schema("id INT").csv(data).filter("id >= 100").count()
check(answers["other_read"] == 50, "another plan sees the new file: %r" % answers)
answers["pandas_cached"] = len(df.toPandas())
check(answers["pandas_cached"] == 100, "toPandas of the cached DataFrame")
df.cache()  # again: nothing changes
check(df.count() == 100, "cache() twice")

df.unpersist()
check(not df.is_cached and level(df) == [False, False, False, False, 1], "unpersisted: NONE")
# a DataFrame built again reads the files (the unpersisted one may keep the listing it was first
# analysed with: Spark's server caches a DataFrame's analysed plan)
df = spark.read.schema("id INT, k STRING").csv(data)
answers["count_unpersisted"] = df.count()
check(answers["count_unpersisted"] == 150, "read again after unpersist: %r" % answers)

df.persist(StorageLevel.DISK_ONLY)
answers["level_disk_only"] = level(df)
check(level(df) == [True, False, False, False, 1], "persist(DISK_ONLY): %r" % level(df))
answers["count_disk_only"] = df.count()
write_csv("part-2.csv", 150, 10)
answers["count_disk_only_cached"] = df.count()
check(answers["count_disk_only_cached"] == 150, "persisted DISK_ONLY is not read again")
df.unpersist()
answers["count_after_second_unpersist"] = spark.read.schema("id INT, k STRING").csv(data).count()
check(answers["count_after_second_unpersist"] == 160, "read again after the second unpersist")

computed = spark.range(0, 1000, 1, 4).withColumn("sq", F.col("id") * F.col("id"))
computed.persist(StorageLevel.MEMORY_ONLY)
answers["level_memory_only"] = level(computed)
answers["computed_sum"] = computed.agg(F.sum("sq")).collect()[0][0]
check(answers["computed_sum"] == sum(i * i for i in range(1000)), "a cached computed DataFrame")
answers["computed_schema"] = computed.select("sq", "id").schema.simpleString()
computed.unpersist()

results = {name: {"schema": "", "rows": v, "pandas": None} for name, v in answers.items()}
json.dump({"results": results, "errors": {}}, open(out_path, "w"), indent=1, sort_keys=True)
print("ok persist: %d answers" % len(answers))
