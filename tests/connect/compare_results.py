"""compare_results.py — the answers of two Spark Connect servers to tests/connect/pyspark_client.py
(its OUT.json files): the judge's (Apache Spark's own Connect server) and cspark's must hold the
same rows (collect() and toPandas()), schemas, and errors of the same exception type and Spark error
class. Run by tests/connect/spark_compare.sh.

  compare_results.py SPARK.json CSPARK.json
"""
import json
import sys

spark, cspark = (json.load(open(p)) for p in sys.argv[1:3])
diffs = []
for name, want in sorted(spark["results"].items()):
    have = cspark["results"].get(name)
    for part in ("schema", "rows", "pandas"):
        if have is None or have[part] != want[part]:
            diffs.append("%s %s: Spark %r, cspark %r" % (name, part, want[part],
                                                         have and have[part]))
for name, want in sorted(spark["errors"].items()):
    have = cspark["errors"].get(name)
    if have != want:
        diffs.append("error %s: Spark %r, cspark %r" % (name, want, have))
for d in diffs:
    print("DIFF: " + d)
if diffs:
    sys.exit(1)
print("same answers: %d queries, %d errors" % (len(spark["results"]), len(spark["errors"])))
