"""job.py — an unchanged PySpark program that tests/k8s/python_cluster.sh runs as a cluster-mode
application on Kubernetes (`cspark-submit --deploy-mode cluster job.py N STATUS`): a join of two
DataFrames and a groupBy with aggregates, and a Python UDF calling a function of the --py-files
module bonus.py, each checked against the same answer computed in plain Python. Prints one
"job: ..." line per check and "job: ok" when every answer is right, then exits with STATUS
(the test checks it is cspark-submit's); a wrong answer exits 2.

  job.py ROWS STATUS
"""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

import bonus

rows, status = int(sys.argv[1]), int(sys.argv[2])
spark = SparkSession.builder.appName("pyspark-on-kubernetes").getOrCreate()
wrong = []

orders = spark.range(rows, numPartitions=6).select(
    (F.col("id") % 7).alias("cust"), (F.col("id") * 3 % 101).alias("amount"))
customers = spark.createDataFrame([(c, "customer-%d" % c) for c in range(7)], ["cust", "name"])
per_name = (orders.join(customers, "cust")
            .groupBy("name")
            .agg(F.sum("amount").alias("total"), F.count("*").alias("n"))
            .orderBy("name"))
got = [(r["name"], r["total"], r["n"]) for r in per_name.collect()]
want = {}
for i in range(rows):
    name = "customer-%d" % (i % 7)
    total, n = want.get(name, (0, 0))
    want[name] = (total + i * 3 % 101, n + 1)
want = [(name, total, n) for name, (total, n) in sorted(want.items())]
print("job: join+groupBy %s" % ("equal" if got == want else "differ: %s, want %s" % (got, want)))
if got != want:
    wrong.append("join")

with_bonus = F.udf(bonus.with_bonus, LongType())
got_udf = orders.select(F.sum(with_bonus("amount")).alias("s")).first()["s"]
want_udf = sum(bonus.with_bonus(i * 3 % 101) for i in range(rows))
print("job: udf %s" % ("equal" if got_udf == want_udf else "differs: %s, want %s" % (got_udf, want_udf)))
if got_udf != want_udf:
    wrong.append("udf")

print("job: ok" if not wrong else "job: wrong " + " ".join(wrong), flush=True)
spark.stop()
sys.exit(2 if wrong else status)
