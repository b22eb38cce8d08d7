"""app.py — an unchanged PySpark program run by `cspark-submit app.py` (tests/connect/python_apps.sh):
SparkSession.builder.getOrCreate() with no URL, DataFrames, SQL, a Python UDF calling a function
of a --py-files module (helpers.py), and its own arguments.

  app.py OUT_FILE EXIT_STATUS [WORDS...]

Writes what it computed to OUT_FILE (one "name=value" per line), prints "app: done" and exits with
EXIT_STATUS (the test checks it is cspark-submit's).
"""
import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

import helpers

spark = SparkSession.builder.appName("python-app-test").getOrCreate()
out_file, exit_status, words = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
lines = ["connect=%s" % (type(spark).__module__.startswith("pyspark.sql.connect"))]

df = spark.range(10)
g = df.groupBy((F.col("id") % 3).alias("k")).agg(F.sum(F.col("id") + 1).alias("s")).sort("k")
lines.append("groups=%s" % ";".join("%d:%d" % (r.k, r.s) for r in g.collect()))

spark.createDataFrame([(w, len(w)) for w in words], ["word", "n"]).createOrReplaceTempView("words")
r = spark.sql("SELECT count(*) AS c, sum(n) AS total FROM words").first()
lines.append("sql=%d,%d" % (r.c, r.total))

triple = F.udf(helpers.triple, LongType())
lines.append("udf=%d" % df.select(F.sum(triple("id")).alias("t")).first().t)

lines.append("remote=%s" % ("token=" in os.environ.get("SPARK_REMOTE", "")))
with open(out_file, "w") as f:
    f.write("\n".join(lines) + "\n")
print("app: done")
sys.exit(exit_status)
