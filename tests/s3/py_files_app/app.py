"""app.py — the PySpark program of tests/s3/s3a_py_files.sh, run by cspark-submit with --py-files
naming an s3a:// .py (s3mod.py) and an s3a:// .zip (holding zmod.py): the program imports both
(the driver), and two Python UDFs import them on the executors. Writes to OUT:
    driver=<s3mod.f(2)>,<zmod.g(2)>
    udf=<sum of s3mod.f(id)>,<sum of zmod.g(id)>
    where=<the directories the executors imported them from, ';'-joined and sorted>

  app.py OUT
"""
import sys

from pyspark.sql import SparkSession
from pyspark.sql.functions import udf

import s3mod
import zmod

spark = SparkSession.builder.getOrCreate()


@udf("long")
def with_s3mod(x):
    import s3mod as m

    return m.f(x)


@udf("long")
def with_zmod(x):
    import zmod as m

    return m.g(x)


@udf("string")
def imported_from(x):
    import os

    import s3mod as a
    import zmod as b

    return "%s|%s" % (os.path.dirname(a.__file__), os.path.dirname(b.__file__))


df = spark.range(0, 10, 1, 4)
row = df.select(with_s3mod("id").alias("a"), with_zmod("id").alias("b")).groupBy().sum().collect()[0]
where = sorted({r[0] for r in df.select(imported_from("id")).collect()})
with open(sys.argv[1], "w") as out:
    out.write("driver=%d,%d\n" % (s3mod.f(2), zmod.g(2)))
    out.write("udf=%d,%d\n" % (row[0], row[1]))
    out.write("where=%s\n" % ";".join(where))
spark.stop()
