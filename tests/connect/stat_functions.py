"""stat_functions.py — df.stat.crosstab, approxQuantile and sampleBy through the pinned PySpark
client (pyspark 4.0.1), each checked by a value computed here, so that the same program passes
against Apache Spark 4's own Connect server (stat_functions_spark.sh) and against cspark
(stat_functions.sh): the contingency table with its column names and zero counts, quantiles
within Greenwald-Khanna's rank bound (exact with a relative error of 0), nulls and NaN left out,
an empty list for a column without values, the requirement errors, and a stratified sample that
keeps only the listed strata.

  stat_functions.py URL

Exits 1 naming the first check that fails.
"""
import math
import sys

from pyspark.errors import IllegalArgumentException
from pyspark.sql import Row, SparkSession
from connect_checks import check, raised

spark = SparkSession.builder.remote(sys.argv[1]).getOrCreate()


# crosstab: first column `a_b` holds a's values as strings, one bigint column per value of b
# (sorted as strings, null as "null", backticks dropped), 0 where a pair never occurs
df = spark.createDataFrame(
    [(1, "x"), (1, "y"), (2, "x"), (2, "x"), (2, "z`q"), (3, "y"), (3, None), (None, "x")],
    ["a", "b"],
)
ct = df.stat.crosstab("a", "b")
check(ct.columns == ["a_b", "null", "x", "y", "zq"], "crosstab columns: %r" % (ct.columns,))
check(
    [f.dataType.simpleString() for f in ct.schema.fields] == ["string"] + ["bigint"] * 4,
    "crosstab types: %r" % (ct.schema,),
)
rows = sorted(tuple(r) for r in ct.collect())
want = [
    ("1", 0, 1, 1, 0),
    ("2", 0, 2, 0, 1),
    ("3", 1, 0, 1, 0),
    ("null", 0, 1, 0, 0),
]
check(rows == want, "crosstab rows: %r" % (rows,))
ct2 = spark.createDataFrame([Row(a=i % 3, b=i % 2) for i in range(1, 7)]).crosstab("a", "b")
check(
    sorted(tuple(r) for r in ct2.collect()) == [("0", 1, 1), ("1", 1, 1), ("2", 1, 1)],
    "crosstab of ints: %r" % (ct2.collect(),),
)

# approxQuantile: for each column a list per probability, of floats; the value's rank within
# [floor((p - e) * n), ceil((p + e) * n)]; exact with e = 0
n = 1000
qd = spark.createDataFrame([(i, float(i * 2), None) for i in range(n)], "a int, b double, c double")
probs = [0.0, 0.1, 0.25, 0.5, 0.9, 1.0]
for err in (0.1, 0.05, 0.01):
    qa, qb = qd.stat.approxQuantile(["a", "b"], probs, err)
    check(len(qa) == len(probs) and all(isinstance(v, float) for v in qa), "quantile shape")
    for p, v, w in zip(probs, qa, qb):
        rank = int(v) + 1
        lo, hi = math.floor((p - err) * n), math.ceil((p + err) * n)
        check(lo <= rank <= hi, "quantile %s of a at error %s: %s (rank %d not in [%d, %d])"
              % (p, err, v, rank, lo, hi))
        check(w == 2 * v, "b is twice a, so is its quantile: %s, %s" % (v, w))
exact = qd.stat.approxQuantile("a", [0.0, 0.5, 1.0], 0.0)
check(exact == [0.0, 499.0, 999.0], "exact quantiles: %r" % (exact,))
check(qd.stat.approxQuantile("c", [0.5], 0.1) == [], "an all-null column has no quantile")
nan = spark.createDataFrame([(1.0,), (float("nan"),), (3.0,), (None,), (2.0,)], ["x"])
check(nan.stat.approxQuantile("x", [0.0, 0.5, 1.0], 0.0) == [1.0, 2.0, 3.0],
      "nulls and NaN left out: %r" % (nan.stat.approxQuantile("x", [0.0, 0.5, 1.0], 0.0),))
e = raised(lambda: spark.createDataFrame([("s",)], ["t"]).stat.approxQuantile("t", [0.5], 0.1))
check(isinstance(e, IllegalArgumentException) and "Quantile calculation for column t" in str(e),
      "a string column is refused: %r" % (e,))

# sampleBy: only the listed strata, each row kept with its stratum's probability; a fraction of
# 1 keeps every row of its stratum, 0 none
sd = spark.createDataFrame([Row(a=i, b=(i % 3)) for i in range(300)])
s = sd.stat.sampleBy("b", fractions={0: 1.0, 1: 0.0}, seed=7).collect()
check(sorted(r.a for r in s) == list(range(0, 300, 3)), "fractions 1 and 0: %d rows" % len(s))
half = sd.sampleBy("b", fractions={0: 0.5, 2: 0.5}, seed=0).collect()
check(all(r.b in (0, 2) for r in half), "strata not listed are left out")
check(40 <= len(half) <= 160, "about half of 200 rows: %d" % len(half))
again = sd.sampleBy("b", fractions={0: 0.5, 2: 0.5}, seed=0).collect()
check(sorted(half) == sorted(again), "the same seed, the same sample")
strs = spark.createDataFrame([("p", 1), ("q", 2), ("p", 3)], ["k", "v"])
check(sorted(r.v for r in strs.sampleBy("k", {"p": 1.0}, 3).collect()) == [1, 3],
      "string strata")
e = raised(lambda: sd.sampleBy("b", fractions={0: 1.5}, seed=1).collect())
check(isinstance(e, IllegalArgumentException) and "Fractions must be in [0, 1]" in str(e),
      "a fraction above 1 is refused: %r" % (e,))

print("stat_functions: all checks passed")
