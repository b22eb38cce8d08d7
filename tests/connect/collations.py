"""collations.py — string collations from the pinned PySpark client against a Spark Connect
server, mirroring PySpark's own test_dataframe.py::test_create_df_with_collation and
test_functions.py::test_collation: a DataFrame made with a StringType("UNICODE_CI") schema keeps
the collation (the schema the client sees, simpleString), groups "Alice" and "alice" as one value
(distinct, dropDuplicates, groupBy), compares, sorts and joins by it, and F.collate / F.collation
name it. Run by tests/connect/collations.sh against cspark-connect-server and by
tests/connect/collations_spark.sh against both cspark's and Apache Spark 4.0.1's own server.

  collations.py URL OUT.json

Every check is a value the program computes itself; OUT.json holds each step's answer for
tests/connect/compare_results.py.
"""
import json
import sys

from pyspark.errors import AnalysisException
from pyspark.sql import Row, SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import IntegerType, StringType, StructField, StructType
from connect_checks import check

url, out_path = sys.argv[1], sys.argv[2]
spark = SparkSession.builder.remote(url).getOrCreate()
answers = {}


# test_dataframe.py::test_create_df_with_collation
schema = StructType([StructField("name", StringType("UNICODE_CI"), True)])
df = spark.createDataFrame([("Alice",), ("alice",)], schema)
answers["distinct_count"] = df.select("name").distinct().count()
check(answers["distinct_count"] == 1, "distinct under UNICODE_CI: %r" % answers)
answers["schema"] = df.schema.simpleString()
check(answers["schema"] == "struct<name:string collate UNICODE_CI>", "schema: %r" % answers)
check(df.schema.fields[0].dataType == StringType("UNICODE_CI"), "the client's StringType")

# test_functions.py::test_collation
df2 = spark.createDataFrame([("a",), ("b",)], ["name"])
got = df2.select(F.collation(F.collate("name", "UNICODE"))).distinct().collect()
answers["collation_fn"] = [list(r) for r in got]
check(got == [Row("SYSTEM.BUILTIN.UNICODE")], "collation(collate(...)): %r" % got)

# more of the same collation through the DataFrame API
people = spark.createDataFrame(
    [("Alice", 1), ("alice", 2), ("ALICE", 3), ("Bob", 4), ("bob", 5), ("äb", 6), ("ab", 7)],
    StructType([StructField("name", StringType("UTF8_LCASE")), StructField("id", IntegerType())]),
)
answers["groups"] = sorted(
    [r["name"].lower(), r["n"]] for r in people.groupBy("name").agg(F.count("*").alias("n")).collect()
)
check(answers["groups"] == [["ab", 1], ["alice", 3], ["bob", 2], ["äb", 1]], "groupBy: %r" % answers)
answers["dedup"] = people.dropDuplicates(["name"]).count()
check(answers["dedup"] == 4, "dropDuplicates: %r" % answers)
answers["filter"] = sorted(r.id for r in people.filter(F.col("name") == "BOB").collect())
check(answers["filter"] == [4, 5], "= under UTF8_LCASE: %r" % answers)
answers["order"] = [r.id for r in people.orderBy(F.collate("name", "UNICODE"), "id").collect()]
check(answers["order"] == [7, 6, 2, 1, 3, 5, 4], "orderBy UNICODE: %r" % answers)
other = spark.createDataFrame(
    [("ALICE", "x")], StructType([StructField("k", StringType("UTF8_LCASE")), StructField("v", StringType())])
)
answers["join"] = sorted(r.id for r in people.join(other, people["name"] == other["k"]).collect())
check(answers["join"] == [1, 2, 3], "join under UTF8_LCASE: %r" % answers)
# two columns of different collations: Spark 4.0.1's INDETERMINATE_COLLATION_IN_EXPRESSION
plain = spark.createDataFrame([("ALICE", "x")], ["k", "v"])
try:
    plain.join(people, people["name"] == plain["k"]).collect()
    answers["mismatch"] = "no error"
except AnalysisException as e:
    answers["mismatch"] = e.getCondition()
check(answers["mismatch"] == "INDETERMINATE_COLLATION_IN_EXPRESSION", "implicit: %r" % answers)
answers["typeof"] = people.select(F.typeof("name")).first()[0]
check(answers["typeof"] == "string collate UTF8_LCASE", "typeof: %r" % answers)

results = {name: {"schema": "", "rows": v, "pandas": None} for name, v in answers.items()}
with open(out_path, "w") as f:
    json.dump({"results": results, "errors": {}}, f, indent=1, sort_keys=True, ensure_ascii=False)
print("ok")
