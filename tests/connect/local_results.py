"""local_results.py — queries of local rows answered by cspark-connect-server on its driver
(run by tests/connect/local_results.sh): SELECT without FROM, VALUES with a filter, a
createDataFrame's rows projected, filtered and limited, and a timestamp cast in the session's
time zone give Spark's rows; a runtime error in one (1/0 under ANSI mode) raises Spark's
DIVIDE_BY_ZERO; then one query that is not local (spark.range) runs as a job. The shell script
checks the event log.

  local_results.py URL
"""
import sys

from pyspark.errors import ArithmeticException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


def check(what, got, want):
    got = [tuple(r) for r in got]
    if got != want:
        sys.exit("FAIL: %s: got %r, want %r" % (what, got, want))


check("SELECT 1", spark.sql("SELECT 1").collect(), [(1,)])
check("VALUES filtered",
      spark.sql("SELECT a * 10, upper(b) FROM VALUES (1, 'x'), (2, 'y'), (3, 'z') AS t(a, b) "
                "WHERE a >= 2").collect(), [(20, "Y"), (30, "Z")])
df = spark.createDataFrame([(i, "r%d" % i) for i in range(100)], "id INT, name STRING")
check("createDataFrame projected, filtered, limited",
      df.where(F.col("id") % 7 == 0).select((F.col("id") + 1).alias("n"), "name").limit(3)
      .collect(), [(1, "r0"), (8, "r7"), (15, "r14")])
spark.conf.set("spark.sql.session.timeZone", "America/New_York")
check("the session's time zone",
      spark.sql("SELECT CAST(TIMESTAMP '2024-01-01 00:00:00 UTC' AS STRING)").collect(),
      [("2023-12-31 19:00:00",)])
try:
    spark.sql("SELECT 1 / 0").collect()
    sys.exit("FAIL: SELECT 1 / 0 returned rows")
except ArithmeticException as e:
    if e.getCondition() != "DIVIDE_BY_ZERO":
        sys.exit("FAIL: SELECT 1 / 0: condition %s" % e.getCondition())
check("range (a job)", spark.range(3).collect(), [(0,), (1,), (2,)])
spark.stop()
print("PASS local_results")
