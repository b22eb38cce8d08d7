#!/usr/bin/env python3
"""spark_read.py — Apache Spark reads every Parquet file cspark wrote for
tests/spark/parquet_writer.sh (spark.read.parquet, the vectorized reader and, with --rows, the
row-based parquet-mr reader too) and prints, per file, "== NAME", the schema Spark infers from the
footer (its simpleString) and the rows in parquet_rows.py's canonical form. A file Spark cannot
read prints "== NAME" and "error: <the exception's first line>". A file named sorted* is read
again with the filter 15000 <= k < 15040 ("== NAME filtered"): parquet-mr filters its pages with
the column index cspark wrote, and a wrong bound would lose rows.
Run by spark-submit (session time zone UTC). Usage: spark-submit spark_read.py DIR
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "formats"))
import parquet_rows  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

D = sys.argv[1]
spark = (SparkSession.builder.master("local[1]").appName("parquet_writer")
         .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")
for name in sorted(os.listdir(D)):
    if not name.endswith(".parquet"):
        continue
    for vectorized in ("true", "false"):
        spark.conf.set("spark.sql.parquet.enableVectorizedReader", vectorized)
        spark.conf.set("spark.sql.parquet.enableNestedColumnVectorizedReader", vectorized)
        sys.stdout.write("== %s%s\n" % (name, "" if vectorized == "true" else " (parquet-mr rows)"))
        try:
            parquet_rows.spark_rows(spark.read.parquet(os.path.join(D, name)), sys.stdout)
        except Exception as e:  # noqa: BLE001 — the test prints what Spark said
            sys.stdout.write("error: %s\n" % str(e).splitlines()[0][:300])
        sys.stdout.flush()
        if name.startswith("sorted"):  # parquet-mr's column index filtering over cspark's index
            sys.stdout.write("== %s filtered%s\n" % (name, "" if vectorized == "true" else " (parquet-mr rows)"))
            df = spark.read.parquet(os.path.join(D, name)).filter("k >= 15000 AND k < 15040")
            parquet_rows.spark_rows(df, sys.stdout)
            sys.stdout.flush()
spark.stop()
