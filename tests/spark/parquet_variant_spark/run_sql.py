"""run_sql.py — the Spark side of tests/spark/parquet_variant_spark.sh: runs SQL files on Apache
Spark 4 in one session, each statement one line (${OUT} and ${IN} replaced), writing each result
row's first column to the file's RESULT.
Usage: spark-submit run_sql.py FILE OUT IN RESULT [FILE OUT IN RESULT ...]."""
import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.appName("parquet_variant_spark").getOrCreate()
args = sys.argv[1:]
for k in range(0, len(args), 4):
    path, out, inp, result = args[k:k + 4]
    with open(result, "w", encoding="utf-8") as res:
        for line in open(path, encoding="utf-8"):
            line = line.strip()
            if not line or line.startswith("--"):
                continue
            q = line.rstrip(";").replace("${OUT}", out).replace("${IN}", inp)
            for r in spark.sql(q).collect():
                print(r[0], file=res)
spark.stop()
