"""sql_write.sh's DataFrameWriter calls: run by the pinned PySpark client against
cspark-connect-server, and by Apache Spark 4 itself, into folders of their own.

Usage: connect_writes.py MASTER_OR_REMOTE OUT_DIR. MASTER_OR_REMOTE "sc://host:port" connects to
a Spark Connect server, anything else is a local master for a classic session. Prints one line a
step (what a write gave, the rows a table holds afterwards); the folders under OUT_DIR are
compared by the caller.
"""
import sys

from pyspark.sql import SparkSession


def main():
    where, out = sys.argv[1], sys.argv[2]
    b = SparkSession.builder
    spark = (b.remote(where) if where.startswith("sc://") else b.master(where)).getOrCreate()
    df = spark.sql("SELECT id, CAST(id % 3 AS STRING) AS k, id * 1.5D AS v FROM range(10)")

    def step(name, fn):
        try:
            fn()
            print(name, "ok")
        except Exception as e:  # the error's class, as Spark names it
            cond = getattr(e, "getCondition", lambda: None)() or type(e).__name__
            print(name, "error", cond)

    w = df.write.format("parquet")
    step("errorifexists, new path", lambda: w.save(out + "/modes"))
    step("errorifexists, existing", lambda: w.save(out + "/modes"))
    step("ignore", lambda: df.limit(1).write.mode("ignore").format("parquet").save(out + "/modes"))
    step("append", lambda: df.write.mode("append").format("parquet").save(out + "/modes"))
    step("overwrite", lambda: df.where("id < 3").write.mode("overwrite").format("json")
         .save(out + "/over"))
    step("overwrite again", lambda: df.where("id >= 8").write.mode("overwrite").format("json")
         .save(out + "/over"))
    step("partitionBy", lambda: df.write.mode("overwrite").partitionBy("k").format("csv")
         .option("header", "true").save(out + "/parts"))
    step("saveAsTable", lambda: df.write.format("parquet").option("path", out + "/tab")
         .saveAsTable("tab"))
    step("saveAsTable, existing", lambda: df.write.format("parquet").option("path", out + "/tab")
         .saveAsTable("tab"))
    step("saveAsTable ignore", lambda: df.write.mode("ignore").format("parquet")
         .option("path", out + "/tab").saveAsTable("tab"))
    print("tab rows", spark.table("tab").count())
    step("saveAsTable overwrite", lambda: df.where("id < 2").write.mode("overwrite")
         .format("parquet").option("path", out + "/tab").saveAsTable("tab"))
    print("tab rows", spark.table("tab").count())
    step("insertInto", lambda: df.where("id = 9").write.insertInto("tab"))
    print("tab rows", spark.table("tab").count())
    spark.stop()


main()
