"""pyspark_client.py — the PySpark Spark Connect client (the pinned pyspark 4.0.1) against a Spark
Connect server: run by tests/connect/pyspark_client.sh against cspark-connect-server and, for the
comparison, against Apache Spark's own Connect server.

  pyspark_client.py URL OUT.json [--interrupt]

Checks what holds on any server (spark.version, spark.conf get/set/unset, the exception types of an
unknown column, a syntax error and a division by zero), and writes what the two servers must agree
on into OUT.json: each query's rows from collect() and toPandas(), its schema, and each error's
exception class and error class. --interrupt also interrupts a long query (interruptAll from
another thread) and checks that it ends with OPERATION_CANCELED.
"""
import json
import sys
import threading
import time

from pyspark.errors import AnalysisException, ArithmeticException, ParseException
from pyspark.sql import SparkSession
from connect_checks import check

url, out_path = sys.argv[1], sys.argv[2]
interrupt = "--interrupt" in sys.argv[3:]
spark = SparkSession.builder.remote(url).getOrCreate()
out = {}


out["version"] = spark.version
check(spark.version.startswith("4.0"), "spark.version is 4.0.x: %r" % spark.version)

# conf: set, get, unset (back to Spark's default), a default given by the client
spark.conf.set("spark.sql.shuffle.partitions", "7")
check(spark.conf.get("spark.sql.shuffle.partitions") == "7", "conf set/get")
spark.conf.unset("spark.sql.shuffle.partitions")
check(spark.conf.get("spark.sql.shuffle.partitions") == "200", "conf unset gives Spark's default")
check(spark.conf.get("spark.cspark.test.absent", "fallback") == "fallback", "conf get with default")
spark.conf.set("spark.cspark.test.key", "v1")
check(spark.conf.get("spark.cspark.test.key") == "v1", "conf of an unknown key")
check(spark.conf.isModifiable("spark.sql.shuffle.partitions"), "isModifiable")

QUERIES = {
    "ints": "SELECT * FROM VALUES (1, 10L), (2, NULL), (3, -30L) AS t(i, l) ORDER BY i",
    "strings": "SELECT * FROM VALUES ('a', 1), (NULL, 2), ('héllo wörld', 3) AS t(s, k) ORDER BY k",
    "decimals": "SELECT CAST(1.25 AS DECIMAL(10, 2)) AS d, CAST(NULL AS DECIMAL(10, 2)) AS n, "
    "CAST(-12345678.901 AS DECIMAL(20, 3)) AS big",
    "dates": "SELECT DATE'2024-02-29' AS d, CAST(NULL AS DATE) AS n, DATE'1969-12-31' AS before",
    "doubles": "SELECT 1.5D AS x, CAST(NULL AS DOUBLE) AS y, true AS b",
    "empty": "SELECT 1 AS x, 'a' AS y WHERE 1 = 0",
    "grouped": "SELECT k, count(*) AS c, sum(v) AS s FROM VALUES (1, 2), (1, 3), (2, 5) AS t(k, v) "
    "GROUP BY k ORDER BY k",
    "many_batches": "SELECT id, id % 7 AS m FROM range(0, 300000) ORDER BY id",
}
results = {}
for name, sql in QUERIES.items():
    df = spark.sql(sql)
    rows = df.collect()
    pdf = df.toPandas()
    results[name] = {
        "schema": df.schema.simpleString(),
        "rows": [[repr(v) for v in r] for r in rows] if name != "many_batches" else len(rows),
        "pandas": {
            "columns": list(pdf.columns),
            "rows": len(pdf),
            "head": [[repr(v) for v in r] for r in pdf.head(3).astype(object).values.tolist()],
        },
    }
    if name == "many_batches":
        check(len(rows) == 300000, "many batches: %d rows" % len(rows))
        check(rows[-1][0] == 299999 and rows[-1][1] == 299999 % 7, "many batches: last row")
# DataFrames built with the API (translated by the server's plan translation)
from pyspark.sql import functions as F  # noqa: E402

frames = {
    "df_grouped": spark.range(10).withColumn("m", F.col("id") % 3).filter("id > 2")
    .groupBy("m").agg(F.count("*").alias("c")).orderBy("m"),
    "df_created": spark.createDataFrame([(1, "a"), (2, None)], ["x", "y"]),
}
frames["df_created"].createOrReplaceTempView("created")
frames["df_view"] = spark.sql("SELECT x * 10 AS x10 FROM created ORDER BY x")
for name, df in frames.items():
    pdf = df.toPandas()
    results[name] = {
        "schema": df.schema.simpleString(),
        "rows": [[repr(v) for v in r] for r in df.collect()],
        "pandas": {"columns": list(pdf.columns), "rows": len(pdf),
                   "head": [[repr(v) for v in r] for r in pdf.head(3).astype(object).values.tolist()]},
    }
check(results["df_grouped"]["rows"] == [["0", "3"], ["1", "2"], ["2", "2"]], "groupBy: %r" % results)
# spark.catalog over the session's temporary views
created = [t for t in spark.catalog.listTables() if t.name == "created"]
check(len(created) == 1 and created[0].isTemporary and created[0].tableType == "TEMPORARY"
      and created[0].namespace == [] and created[0].catalog is None, "listTables: %r" % created)
check(spark.catalog.tableExists("created") and not spark.catalog.tableExists("nope"), "tableExists")
check(spark.catalog.currentDatabase() == "default", "currentDatabase")
check(spark.catalog.dropTempView("created") is True, "dropTempView of a view")
check(spark.catalog.dropTempView("created") is False, "dropTempView of no view")
plan_text = frames["df_grouped"]._explain_string(extended=True)
check("== Physical Plan ==" in plan_text, "explain: %r" % plan_text)
out["results"] = results
check(results["empty"]["rows"] == [] and results["empty"]["pandas"]["rows"] == 0, "empty result")
check(results["ints"]["rows"][1] == ["2", "None"], "a null long: %r" % results["ints"]["rows"])
check(spark.sql(QUERIES["ints"]).schema.fieldNames() == ["i", "l"], "schema of a DataFrame")


def error_of(fn):
    try:
        fn()
    except Exception as e:  # the exception's class and Spark error class
        return {
            "type": type(e).__name__,
            "class": e.getCondition() if hasattr(e, "getCondition") else None,
            "is_analysis": isinstance(e, AnalysisException),
            "is_parse": isinstance(e, ParseException),
            "is_arithmetic": isinstance(e, ArithmeticException),
        }
    return None


errors = {
    "unknown_column": error_of(lambda: spark.sql("SELECT nope FROM VALUES (1) AS t(a)").collect()),
    "syntax": error_of(lambda: spark.sql("SELEC 1").collect()),
    "divide_by_zero": error_of(lambda: spark.sql("SELECT 1 / 0 AS x").collect()),
}
out["errors"] = errors
check(errors["unknown_column"] and errors["unknown_column"]["is_analysis"], "unknown column: %r" % errors)
check(errors["unknown_column"]["class"] == "UNRESOLVED_COLUMN.WITH_SUGGESTION", "class: %r" % errors)
check(errors["syntax"] and errors["syntax"]["is_parse"], "syntax error: %r" % errors)
check(errors["syntax"]["class"] == "PARSE_SYNTAX_ERROR", "syntax class: %r" % errors)
check(errors["divide_by_zero"] and errors["divide_by_zero"]["is_arithmetic"], "1/0: %r" % errors)
check(errors["divide_by_zero"]["class"] == "DIVIDE_BY_ZERO", "1/0 class: %r" % errors)
# createDataFrame of a pandas frame above spark.sql.session.localRelationCacheThreshold: the data
# goes up as cached artifacts (the 4.0 client: one CachedLocalRelation; the 4.1 client: chunks
# of at most localRelationChunkSizeRows rows and the schema, a ChunkedCachedLocalRelation)
import pandas as pd  # noqa: E402

spark.conf.set("spark.sql.session.localRelationCacheThreshold", "65536")
spark.conf.set("spark.sql.session.localRelationChunkSizeRows", "10000")
n_big = 60000
big = pd.DataFrame({"id": range(n_big), "s": ["row-%d" % i for i in range(n_big)],
                    "x": [i * 0.25 for i in range(n_big)]})
df_big = spark.createDataFrame(big)
back = df_big.toPandas()
check(back.equals(big), "a large pandas frame comes back whole: %r" % (back.shape,))
check(df_big.filter("id % 1000 = 7").count() == 60, "a query over a large pandas frame")
results["large_pandas"] = {
    "schema": df_big.schema.simpleString(),
    "rows": [len(back), int(back["id"].sum()), back["s"].iloc[-1]],
    "pandas": {"columns": list(back.columns), "rows": len(back)},
}
spark.conf.unset("spark.sql.session.localRelationCacheThreshold")
spark.conf.unset("spark.sql.session.localRelationChunkSizeRows")
# the session goes on after errors
check(spark.sql("SELECT 41 + 1 AS x").collect()[0][0] == 42, "a query after errors")

if interrupt:
    outcome = {}

    def long_query():
        t0 = time.time()
        try:
            spark.sql(
                # 9e12 pairs: runs until interrupted, and a count cannot overflow first
                "SELECT count(*) FROM range(0, 3000000) a CROSS JOIN range(0, 3000000) b"
            ).collect()
            outcome["error"] = None
        except Exception as e:
            outcome["error"] = str(e)
        outcome["seconds"] = time.time() - t0

    t = threading.Thread(target=long_query)
    t.start()
    time.sleep(3)
    interrupted = spark.interruptAll()
    t.join(120)
    check(not t.is_alive(), "the interrupted query ended")
    check(len(interrupted) >= 1, "interruptAll named the operation: %r" % interrupted)
    check(outcome.get("error") and "OPERATION_CANCELED" in outcome["error"],
          "the interrupted query failed with OPERATION_CANCELED: %r" % outcome)
    check(spark.sql("SELECT 7 AS x").collect()[0][0] == 7, "a query after the interrupt")

spark.stop()
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True)
print("PASS pyspark_client %s" % url)
