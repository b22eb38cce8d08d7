"""show_strings.py — DataFrame.show() and createDataFrame of local data larger than the inline
limit, through the PySpark Spark Connect client (the pinned pyspark 4.0.1) against a Spark
Connect server: run by tests/connect/connect_sessions.sh against cspark-connect-server, and by
tests/connect/spark_show.sh against Apache Spark's own server and cspark's, whose outputs must be
the same (--record: the self-checks are left out, for the run against Spark, which is the judge).

  show_strings.py URL OUT.json [--record]

Checks the table text of a few cases whose text is fixed by Spark's Dataset.showString
(alignment, truncation with and without "...", vertical records, the footers), and writes every
case's text into OUT.json. The local data part lowers spark.sql.session.localRelationCacheThreshold
so that the client uploads the data as a cache/<sha256> artifact and sends a CachedLocalRelation,
then checks that toPandas() gives the data back, that the schema and count agree, and that a
second DataFrame of the same data reuses the artifact (ArtifactStatus answers that it exists).
Last, the message parameters of a few errors (getMessageParameters()).
"""
import json
import sys

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

url, out_path = sys.argv[1], sys.argv[2]
record_only = "--record" in sys.argv[3:]
spark = SparkSession.builder.remote(url).getOrCreate()
out = {}


def check(cond, what):
    if not cond and not record_only:
        print("FAIL: %s" % what, file=sys.stderr)
        sys.exit(1)


def show(df, n=20, truncate=True, vertical=False):
    return df._show_string(n, truncate, vertical)


people = spark.createDataFrame(
    [(1, "Alice", 3.5, True), (2, "a much longer name than twenty", None, False), (3, None, -1.0, None)],
    "id INT, name STRING, score DOUBLE, ok BOOLEAN",
)
cases = {
    "range": show(spark.range(3)),
    "people": show(people),
    "people_untruncated": show(people, truncate=False),
    "people_truncate_3": show(people, truncate=3),
    "people_truncate_6": show(people, truncate=6),
    "people_top_1": show(people, n=1),
    "people_top_2": show(people, n=2),
    "people_vertical": show(people, vertical=True),
    "people_vertical_truncated": show(people, n=1, truncate=4, vertical=True),
    "empty": show(people.filter("id > 10")),
    "empty_vertical": show(people.filter("id > 10"), vertical=True),
    "zero_rows_asked": show(people, n=0),
    "meta_characters": show(spark.createDataFrame([("a\tb\nc\rd",)], "s STRING")),
    "full_width": show(spark.createDataFrame([("日本語", 1), ("ab", 22)], "s STRING, n INT")),
    "binary": show(spark.createDataFrame([(bytearray(b"\x01\xab\x00"),), (bytearray(b""),)], "b BINARY")),
    "types": show(spark.sql(
        "SELECT CAST(12.5 AS DECIMAL(10, 3)) AS d, DATE'2024-02-29' AS day, 1.0E10D AS big, "
        "CAST(7 AS TINYINT) AS t, array(1, 2) AS a, map('k', 1) AS m, named_struct('x', 1, 'y', 'z') AS s")),
    "join_same_names": show(
        spark.range(2).alias("l").join(spark.range(2).alias("r"), F.col("l.id") == F.col("r.id"))
        .orderBy("l.id")),
    "aggregate": show(spark.range(10).withColumn("k", F.col("id") % 3).groupBy("k").count().orderBy("k")),
}
out["show"] = cases
check(cases["range"] == "+---+\n| id|\n+---+\n|  0|\n|  1|\n|  2|\n+---+\n", "range: %r" % cases["range"])
check(cases["people_top_1"].endswith("+\nonly showing top 1 row"), "top 1: %r" % cases["people_top_1"])
check(cases["people_top_2"].endswith("+\nonly showing top 2 rows"), "top 2: %r" % cases["people_top_2"])
check("|a much longer nam...|" in cases["people"], "truncation to 20: %r" % cases["people"])
check("|a much longer name than twenty|" in cases["people_untruncated"], "untruncated: %r" % cases["people_untruncated"])
check("|  2| a m|  NUL|fal|" in cases["people_truncate_3"], "truncate 3 cuts without dots: %r" % cases["people_truncate_3"])
check("|a m...|" in cases["people_truncate_6"], "truncate 6: %r" % cases["people_truncate_6"])
check(cases["people_vertical"].startswith("-RECORD 0" + "-" * 21 + "\n id    | 1 "),
      "vertical: %r" % cases["people_vertical"])
check(cases["empty_vertical"] == "(0 rows)", "empty vertical: %r" % cases["empty_vertical"])
check("|a\\tb\\nc\\rd|" in cases["meta_characters"], "escaped: %r" % cases["meta_characters"])
check("|[01 AB 00]|" in cases["binary"] and "|        []|" in cases["binary"], "binary: %r" % cases["binary"])
check("|日本語|" in cases["full_width"] and "|    ab|" in cases["full_width"], "full width: %r" % cases["full_width"])
check("NULL" in cases["people"], "null as NULL: %r" % cases["people"])
df_show = spark.range(1).toDF("x")
check(df_show._show_string(1, 20, False).count("\n") == 5, "show of one row: five lines")

# local data above the inline limit: uploaded as an artifact, then named by its hash
spark.conf.set("spark.sql.session.localRelationCacheThreshold", "4096")
n = 20000
pdf = pd.DataFrame({
    "id": range(n),
    "s": ["row-%d" % i for i in range(n)],
    "x": [i * 0.5 for i in range(n)],
})
df = spark.createDataFrame(pdf)
back = df.toPandas()
check(back.shape == (n, 3), "cached createDataFrame toPandas shape: %r" % (back.shape,))
check(back.equals(pdf), "cached createDataFrame toPandas equals the input")
check(df.count() == n, "count over the cached relation")
check(df.schema.simpleString() == "struct<id:bigint,s:string,x:double>", "schema: %s" % df.schema.simpleString())
check(spark.createDataFrame(pdf).filter("id % 1000 = 7").count() == 20, "the same data again")
small = spark.createDataFrame([(i, "v%d" % i) for i in range(3000)], "a INT, b STRING")
check(sorted(r.a for r in small.filter("a < 3").collect()) == [0, 1, 2], "rows of tuples, cached")
small.createOrReplaceTempView("cached_rows")
check(spark.sql("SELECT count(*) FROM cached_rows").collect()[0][0] == 3000, "a view of the cached rows")
out["local"] = {
    "rows": len(back),
    "sum_id": int(back["id"].sum()),
    "head": back.head(3).astype(object).values.tolist(),
    "show": show(df, n=3),
}
spark.conf.unset("spark.sql.session.localRelationCacheThreshold")

# errors carry Spark's message parameters (ErrorInfo and FetchErrorDetails)
def parameters_of(fn):
    try:
        fn()
    except Exception as e:
        return {"class": e.getCondition(), "parameters": e.getMessageParameters()}
    return None


errors = {
    "unknown_column": parameters_of(lambda: spark.sql("SELECT nope FROM VALUES (1) AS t(a)").collect()),
    "unknown_column_no_candidates": parameters_of(lambda: spark.sql("SELECT nope").collect()),
    "unknown_table": parameters_of(lambda: spark.table("no_such_table").collect()),
    "syntax": parameters_of(lambda: spark.sql("SELEC 1").collect()),
    "syntax_at_end": parameters_of(lambda: spark.sql("SELECT 1 +").collect()),
}
out["errors"] = errors
check(errors["unknown_column"] == {"class": "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                                   "parameters": {"objectName": "`nope`", "proposal": "`a`"}},
      "unknown column parameters: %r" % errors["unknown_column"])
check(errors["unknown_table"]["parameters"] == {"relationName": "`no_such_table`"},
      "unknown table parameters: %r" % errors["unknown_table"])
check(errors["syntax"]["parameters"] == {"error": "'SELEC'", "hint": ""},
      "syntax error parameters: %r" % errors["syntax"])

spark.stop()
with open(out_path, "w") as f:
    json.dump(out, f, indent=1, sort_keys=True, ensure_ascii=False)
print("PASS show_strings %s" % url)
