"""shuffle_files_removed.py PORT QUERIES — runs QUERIES aggregations and joins (each one with
shuffles) through the pinned PySpark client against the Connect server on PORT and checks every
answer; tests/connect/shuffle_files_removed.sh then looks at the executors' local directory."""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

port, queries = int(sys.argv[1]), int(sys.argv[2])
spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")  # a shuffled join: two exchanges
for i in range(queries):
    counts = (spark.range(100000).groupBy((F.col("id") % 1000).alias("k")).count()
              .orderBy("k").limit(3).collect())
    assert [(r.k, r["count"]) for r in counts] == [(0, 100), (1, 100), (2, 100)], counts
    left = spark.range(5000).select((F.col("id") % 500).alias("k"))
    right = spark.range(500).select(F.col("id").alias("k"), (F.col("id") * 2).alias("v"))
    joined = left.join(right, "k").agg(F.count("*").alias("n"), F.sum("v").alias("s")).collect()
    assert (joined[0].n, joined[0].s) == (5000, 10 * 2 * sum(range(500))), joined
spark.stop()
print(f"{queries} rounds: answers right")
