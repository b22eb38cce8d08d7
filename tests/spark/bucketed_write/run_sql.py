"""run_sql.py — runs a SQL file's statements (one per line, ${OUT} replaced) on Apache Spark 4:
the Spark side of tests/spark/bucketed_write.sh. Usage: spark-submit run_sql.py FILE OUT."""
import sys

from pyspark.sql import SparkSession

path, out = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.appName("bucketed_write").getOrCreate()
for line in open(path, encoding="utf-8"):
    line = line.strip()
    if not line or line.startswith("--"):
        continue
    spark.sql(line.rstrip(";").replace("${OUT}", out))
print("done")
spark.stop()
