"""connect_client.py — a PySpark client outside the cluster for tests/k8s/connect_server.sh: it
connects to cspark-connect-server running in a pod (deploy/connect-server.yaml) and runs a join,
a groupBy and a Python UDF, checking the answers in plain Python.

  connect_client.py URL query     prints "client: ok" when every answer is right (exit 0)
  connect_client.py URL refused   expects the server to refuse the session (no token): prints
                                  "client: refused <reason>" (exit 0), else exits 1
"""
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F
from pyspark.sql.types import LongType

url, mode = sys.argv[1], sys.argv[2]

if mode == "refused":
    try:
        s = SparkSession.builder.remote(url).create()
        s.sql("SELECT 1").collect()
    except Exception as e:  # the gRPC status, as PySpark raises it
        text = str(e)
        if "UNAUTHENTICATED" not in text and "authentication" not in text.lower():
            sys.exit("client: refused for another reason: %s" % text)
        why = [l.strip() for l in text.splitlines() if "UNAUTHENTICATED" in l or "details" in l]
        print("client: refused %s" % (why[0] if why else text.splitlines()[0])[:200])
        sys.exit(0)
    sys.exit("client: a session without the token was served")

spark = SparkSession.builder.remote(url).create()
rows = 30000
orders = spark.range(rows, numPartitions=4).select(
    (F.col("id") % 5).alias("k"), (F.col("id") % 97).alias("v"))
keys = spark.createDataFrame([(k, "key-%d" % k) for k in range(5)], ["k", "name"])
got = [(r["name"], r["s"], r["n"]) for r in
       orders.join(keys, "k").groupBy("name").agg(F.sum("v").alias("s"), F.count("*").alias("n"))
       .orderBy("name").collect()]
want = {}
for i in range(rows):
    s, n = want.get("key-%d" % (i % 5), (0, 0))
    want["key-%d" % (i % 5)] = (s + i % 97, n + 1)
want = [(name, s, n) for name, (s, n) in sorted(want.items())]
doubled = F.udf(lambda v: 2 * v + 1, LongType())
got_udf = orders.select(F.sum(doubled("v")).alias("t")).first()["t"]
want_udf = sum(2 * (i % 97) + 1 for i in range(rows))
if got != want or got_udf != want_udf:
    sys.exit("client: wrong answers: %s / %s, want %s / %s" % (got, got_udf, want, want_udf))
print("client: ok")
spark.stop()
