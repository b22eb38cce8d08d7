#!/usr/bin/env python3
"""spark_tables.py — Apache Spark's side of tests/spark/datasource_formats.sh.

  write DIR   Spark writes one table (every flat type Spark's CSV and JSON writers take, nulls,
              strings that need quoting, a partition value that needs escaping and a null one)
              with df.write.partitionBy("year", "country") as DIR/parquet, DIR/csv (header) and
              DIR/json.
  read LIST   for each line "NAME FORMAT PATH" of the file LIST, Spark reads PATH
              (spark.read.parquet; .csv with header and inferSchema; .json) and prints "== NAME",
              "schema <simpleString>" and the rows in parquet_rows.py's canonical form, sorted;
              a read that fails prints "error: <first line>".
Run by spark-submit (session time zone UTC).
"""
import datetime
import decimal
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "formats"))
import parquet_rows  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import types as T  # noqa: E402

spark = (SparkSession.builder.master("local[2]").appName("datasource_formats")
         .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")

SCHEMA = T.StructType([
    T.StructField("id", T.IntegerType()),
    T.StructField("flag", T.BooleanType()),
    T.StructField("big", T.LongType()),
    T.StructField("ratio", T.DoubleType()),
    T.StructField("amount", T.DecimalType(10, 2)),
    T.StructField("name", T.StringType()),
    T.StructField("day", T.DateType()),
    T.StructField("ts", T.TimestampType()),
    T.StructField("year", T.IntegerType()),
    T.StructField("country", T.StringType()),
])
NAMES = ["plain", "with, comma", 'with "quote"', "ünïcødé", "x" * 300, "  spaces  ", None]
COUNTRIES = ["US", "DE", None, "a=b/c"]


def rows():
    out = []
    for i in range(48):
        null = i % 7 == 3  # a row of nulls in its data columns now and then
        out.append((
            i,
            None if null else i % 2 == 0,
            None if null else (i - 24) * 123456789012,
            None if null else (i - 10) / 8.0,
            None if null else decimal.Decimal(i * 1013 - 20000).scaleb(-2),
            NAMES[i % len(NAMES)],
            None if null else datetime.date(2020, 1, 1) + datetime.timedelta(days=37 * i),
            None if null else datetime.datetime(2024, 3, 1, 12, 0, 0) +
            datetime.timedelta(seconds=98765 * i, microseconds=1000 * i),
            2024 + i % 2,
            COUNTRIES[i % len(COUNTRIES)],
        ))
    return out


def write(d):
    df = spark.createDataFrame(rows(), SCHEMA).repartition(3)
    df.write.partitionBy("year", "country").parquet(os.path.join(d, "parquet"))
    df.write.partitionBy("year", "country").option("header", "true").csv(os.path.join(d, "csv"))
    df.write.partitionBy("year", "country").json(os.path.join(d, "json"))


def read(listing):
    for line in open(listing):
        name, fmt, path = line.split()
        sys.stdout.write("== %s\n" % name)
        try:
            if fmt == "parquet":
                df = spark.read.parquet(path)
            elif fmt == "csv":
                df = spark.read.option("header", "true").option("inferSchema", "true").csv(path)
            else:
                df = spark.read.json(path)
            types = [f.dataType for f in df.schema.fields]
            lines = [" | ".join(parquet_rows.spark_value(v, t) for v, t in zip(r, types))
                     for r in df.collect()]
            sys.stdout.write("schema %s\n" % df.schema.simpleString())
            sys.stdout.write("".join(x + "\n" for x in sorted(lines)))
        except Exception as e:  # noqa: BLE001 — the test prints what Spark said
            sys.stdout.write("error: %s\n" % str(e).splitlines()[0][:300])
        sys.stdout.flush()


if sys.argv[1] == "write":
    write(sys.argv[2])
else:
    read(sys.argv[2])
spark.stop()
