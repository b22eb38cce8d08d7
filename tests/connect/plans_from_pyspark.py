"""plans_from_pyspark.py — the plans the pinned PySpark client (4.0.1) sends for DataFrame calls,
each with the SQL a user would write for the same query, for tests/connect/plans_from_pyspark.sh.

The client builds its protobuf plans without a server (nothing here opens a connection): each
case's DataFrame is turned into its spark.connect.Relation and written as OUTDIR/NNN.plan (the
serialized message), with OUTDIR/NNN.sql holding the case's name on the first line and, on the
second, the SQL text, or "SCHEMA: name:type,..." when only the analyzed columns are compared
(plans with no SQL twin: createDataFrame, describe).

Usage: python3 plans_from_pyspark.py OUTDIR   (the python3 of scripts/install-pyspark-client.sh)
"""
import os
import sys

import pyarrow as pa

os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"

from pyspark.sql import functions as F  # noqa: E402
from pyspark.sql.connect.client import SparkConnectClient  # noqa: E402
from pyspark.sql.connect.dataframe import DataFrame  # noqa: E402
from pyspark.sql.connect.plan import SQL, LocalRelation, SubqueryAlias  # noqa: E402
from pyspark.sql.connect.session import SparkSession  # noqa: E402
from pyspark.sql.types import IntegerType, StringType, StructField, StructType  # noqa: E402
from pyspark.sql.window import Window  # noqa: E402

client = SparkConnectClient("sc://localhost:1")  # never contacted
spark = SparkSession.__new__(SparkSession)
spark._client = client
spark._session_id = client._session_id
spark.is_mock_session = True  # df["a"] then names the column without asking for the schema

col = F.col


def cases():
    t = spark.read.table("t")
    u = spark.read.table("u")
    yield "filter_select", t.filter(col("a") > 1).select("a", (col("b") + 1).alias("c")), \
        "SELECT a, b + 1 AS c FROM t WHERE a > 1"
    yield "select_expr", t.selectExpr("a * 2 AS twice", "s"), "SELECT a * 2 AS twice, s FROM t"
    yield "where_string", t.where("a > 1 AND s = 'x'").select("*"), \
        "SELECT * FROM t WHERE a > 1 AND s = 'x'"
    yield "group_by_agg", t.groupBy("s").agg(F.sum("b").alias("total"), F.count("*")), \
        "SELECT s, sum(b) AS total, count(*) FROM t GROUP BY s"
    yield "group_by_count", t.groupBy("s").count(), \
        "SELECT s, count(1) AS count FROM t GROUP BY s"
    yield "agg_dict", t.agg({"b": "max"}), "SELECT max(b) FROM t"
    yield "rollup", t.rollup("s", "a").agg(F.max("b")), \
        "SELECT s, a, max(b) FROM t GROUP BY ROLLUP(s, a)"
    yield "cube", t.cube("s").agg(F.min("a")), "SELECT s, min(a) FROM t GROUP BY CUBE(s)"
    yield "grouping_sets", t.groupingSets([["s", "a"], ["s"]], "s", "a").agg(F.max("b")), \
        "SELECT s, a, max(b) FROM t GROUP BY GROUPING SETS ((s, a), (s))"
    yield "pivot", t.groupBy("s").pivot("a", [1, 2]).agg(F.sum("b")), \
        "SELECT s, first(if(__pivot_col <=> 1, __pivot_agg_0, NULL)) IGNORE NULLS AS `1`, " \
        "first(if(__pivot_col <=> 2, __pivot_agg_0, NULL)) IGNORE NULLS AS `2` FROM (SELECT s, " \
        "a AS __pivot_col, sum(b) AS __pivot_agg_0 FROM t GROUP BY s, a) GROUP BY s"
    yield "join_using", t.join(u, "a").select("*"), "SELECT * FROM t JOIN u USING (a)"
    yield "join_using_left", t.join(u, ["a"], "left").select("*"), \
        "SELECT * FROM t LEFT JOIN u USING (a)"
    tp, up = t._plan._plan_id, u._plan._plan_id
    yield "join_dataframe_columns", t.join(u, t["a"] == u["a"], "left_anti").select(t["s"]), \
        f"SELECT __plan_id_{tp}.s FROM t AS __plan_id_{tp} LEFT ANTI JOIN u AS __plan_id_{up} " \
        f"ON __plan_id_{tp}.a = __plan_id_{up}.a"
    yield "join_full_outer", t.join(u, t["a"] == u["a"], "full").select(t["a"], u["c"]), \
        f"SELECT __plan_id_{tp}.a, __plan_id_{up}.c FROM t AS __plan_id_{tp} FULL JOIN u AS " \
        f"__plan_id_{up} ON __plan_id_{tp}.a = __plan_id_{up}.a"
    yield "cross_join", t.crossJoin(u).select("*"), "SELECT * FROM t CROSS JOIN u"
    yield "alias", t.alias("x").select("x.a"), "SELECT x.a FROM t AS x"
    yield "union", t.select("a").union(u.select("a")), "SELECT a FROM t UNION ALL SELECT a FROM u"
    # Distinct over Union All, which SQL writes only around a subquery
    yield "union_distinct", t.select("a").union(u.select("a")).distinct(), "SCHEMA: a:int"
    yield "intersect", t.select("a").intersect(u.select("a")), \
        "SELECT a FROM t INTERSECT SELECT a FROM u"
    yield "subtract", t.select("a").subtract(u.select("a")), \
        "SELECT a FROM t EXCEPT SELECT a FROM u"
    yield "except_all", t.select("a").exceptAll(u.select("a")), \
        "SELECT a FROM t EXCEPT ALL SELECT a FROM u"
    yield "union_by_name", t.select("a", "s").unionByName(t.select("s", "a")), \
        "SELECT a, s FROM t UNION ALL BY NAME SELECT s, a FROM t"
    yield "union_by_name_missing", t.unionByName(u, allowMissingColumns=True), \
        "SELECT a, b, s, f, CAST(NULL AS INT) AS c FROM t UNION ALL SELECT a, CAST(NULL AS " \
        "BIGINT) AS b, CAST(NULL AS STRING) AS s, CAST(NULL AS DOUBLE) AS f, c FROM u"
    yield "order_limit_offset", t.select("*").orderBy(F.desc("a"), "s").offset(1).limit(2), \
        "SELECT * FROM t ORDER BY a DESC NULLS LAST, s ASC NULLS FIRST LIMIT 2 OFFSET 1"
    yield "with_column", t.withColumn("c", col("a") + 1), \
        "SELECT a, b, s, f, a + 1 AS c FROM t"
    yield "with_columns_replace", t.withColumns({"b": col("a") * 2, "z": F.lit("k")}), \
        "SELECT a, a * 2 AS b, s, f, 'k' AS z FROM t"
    yield "with_column_renamed", t.withColumnRenamed("a", "x"), "SELECT a AS x, b, s, f FROM t"
    yield "drop", t.drop("b", "f"), "SELECT a, s FROM t"
    yield "distinct", t.select("*").distinct(), "SELECT DISTINCT * FROM t"
    yield "drop_duplicates", t.dropDuplicates(["s"]), \
        "SELECT first(a) AS a, first(b) AS b, s, first(f) AS f FROM t GROUP BY s"
    yield "na_fill", t.na.fill(0), \
        "SELECT coalesce(a, CAST(0 AS INT)) AS a, coalesce(b, CAST(0 AS BIGINT)) AS b, s, " \
        "coalesce(nanvl(f, NULL), CAST(0 AS DOUBLE)) AS f FROM t"
    yield "na_fill_dict", t.na.fill({"s": "none"}), \
        "SELECT a, b, coalesce(s, CAST('none' AS STRING)) AS s, f FROM t"
    yield "na_drop_all", t.na.drop(how="all", subset=["s", "b"]).select("*"), \
        "SELECT * FROM t WHERE CASE WHEN isnotnull(s) THEN 1 ELSE 0 END + " \
        "CASE WHEN isnotnull(b) THEN 1 ELSE 0 END >= 1"
    yield "na_replace", t.na.replace("x", "y", ["s"]), \
        "SELECT a, b, CASE WHEN s = 'x' THEN CAST('y' AS STRING) ELSE s END AS s, f FROM t"
    w = Window.partitionBy("s").orderBy("a")
    yield "window_row_number", t.select("a", F.row_number().over(w).alias("rn")), \
        "SELECT a, row_number() OVER (PARTITION BY s ORDER BY a ASC NULLS FIRST) AS rn FROM t"
    w2 = Window.partitionBy("s").orderBy("a").rowsBetween(Window.unboundedPreceding, 0)
    yield "window_running_sum", t.select("a", F.sum("b").over(w2).alias("run")), \
        "SELECT a, sum(b) OVER (PARTITION BY s ORDER BY a ASC NULLS FIRST ROWS BETWEEN " \
        "UNBOUNDED PRECEDING AND CURRENT ROW) AS run FROM t"
    yield "when_otherwise", t.select(F.when(col("a") > 1, "big").otherwise("small").alias("k")), \
        "SELECT CASE WHEN a > 1 THEN 'big' ELSE 'small' END AS k FROM t"
    yield "predicates", \
        t.filter(col("a").isin(1, 2) & col("s").isNotNull() & (col("b") != 3)).select("a"), \
        "SELECT a FROM t WHERE a IN (1, 2) AND isnotnull(s) AND NOT b = 3"
    yield "string_functions", \
        t.select(F.upper("s"), col("s").startswith("x"), F.concat_ws("-", "s", "s")), \
        "SELECT upper(s), startswith(s, 'x'), concat_ws('-', s, s) FROM t"
    yield "casts", t.select(col("a").cast("string"), col("b").cast(IntegerType())), \
        "SELECT CAST(a AS STRING), CAST(b AS INT) FROM t"
    yield "literals", t.select(F.lit(1.5), F.lit("s"), F.lit(None), F.lit(True)), \
        "SELECT 1.5D, 's', NULL, true FROM t"
    yield "collections", t.select(F.array("a", "a").alias("arr"), F.struct("a", "s").alias("st")), \
        "SELECT array(a, a) AS arr, struct(a, s) AS st FROM t"
    yield "range", spark.range(0, 10, 2).select("*"), "SELECT * FROM range(0, 10, 2)"
    yield "to_df", t.select("a", "s").toDF("x", "y").select("*"), \
        "SELECT * FROM (SELECT a, s FROM t) AS __auto_generated_subquery_name(x, y)"
    yield "unpivot", t.unpivot("a", ["b", "f"], "var", "val"), \
        "SELECT a, stack(2, 'b', CAST(b AS DOUBLE), 'f', f) AS (var, val) FROM t"
    yield "sql_named_args", \
        DataFrame(SQL("SELECT a FROM t WHERE a > :lo", named_args={"lo": F.lit(1)}), spark), \
        "SELECT a FROM t WHERE a > 1"
    yield "sql_positional_args", \
        DataFrame(SQL("SELECT a FROM t WHERE s = ? AND a < ?", [F.lit("x"), F.lit(9)]), spark), \
        "SELECT a FROM t WHERE s = 'x' AND a < 9"
    yield "sql_with_dataframes", \
        DataFrame(SQL("SELECT * FROM v1 WHERE a > 0",
                      views=[SubqueryAlias(t.select("*")._plan, "v1")]), spark), \
        "WITH v1 AS (SELECT * FROM t) SELECT * FROM v1 WHERE a > 0"
    schema = StructType([StructField("id", IntegerType()), StructField("name", StringType())])
    # createDataFrame's plan (the session method asks the server for its conf first): Python
    # ints travel as Arrow int64, cast to the schema's int
    table = pa.table({"id": pa.array([1, 2], pa.int64()), "name": pa.array(["x", None])})
    yield "create_dataframe", DataFrame(LocalRelation(table, schema.json()), spark), \
        "SCHEMA: id:int,name:string"
    yield "describe", t.describe("a", "s"), "SCHEMA: summary:string,a:string,s:string"
    yield "summary", t.select("a").summary("count", "max"), "SCHEMA: summary:string,a:string"


def main():
    out = sys.argv[1]
    n = 0
    for name, df, sql in cases():
        rel = df._plan.plan(client)
        with open(os.path.join(out, "%03d.plan" % n), "wb") as f:
            f.write(rel.SerializeToString())
        with open(os.path.join(out, "%03d.sql" % n), "w") as f:
            f.write(name + "\n" + sql + "\n")
        n += 1
    print(n)


if __name__ == "__main__":
    main()
