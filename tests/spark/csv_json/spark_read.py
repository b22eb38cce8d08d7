#!/usr/bin/env python3
"""spark_read.py — reads every case of cases.json with Apache Spark's own readers
(spark.read.csv / spark.read.json with the case's options and schema) and prints the canonical
form (canon.py) that csvjson_dump prints for cspark. With WRITTEN (a directory where
`csvjson_dump --write` put cspark's writer output and its cases.json), each of those cases is also
read by Spark and written back by Spark's writer (one partition, header for CSV, the case's
options) as WRITTEN/spark/<case>.<format>, to compare with cspark's text byte for byte. With
DIR2 and OUT2 (files cspark's file formats wrote, textformat_dump --write), DIR2's cases are
read too and their canonical form goes to OUT2.
Run by spark-submit (session time zone UTC).
Usage: spark-submit spark_read.py DIR [WRITTEN [DIR2 OUT2]]
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canon  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

D = sys.argv[1]
spark = (SparkSession.builder.master("local[1]").appName("csv_json_cases")
         .config("spark.sql.session.timeZone", "UTC").config("spark.ui.enabled", "false")
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")


def read_cases(d):
    out = []
    for c in json.load(open(os.path.join(d, "cases.json"))):
        out.append("== " + c["name"])
        reader = spark.read.options(**c["options"])
        if c["schema"]:
            reader = reader.schema(c["schema"])
        path = os.path.join(d, c["file"])
        try:
            df = reader.csv(path) if c["format"] == "csv" else reader.json(path)
            lines = ["schema: " + df.schema.simpleString()]
            for row in df.collect():
                lines.append("row: " + canon.row(row))
            out.extend(lines)
        except Exception as e:  # FAILFAST and friends: Spark raises, cspark returns an error
            found = re.search(r"\[([A-Z_]+(\.[A-Z_]+)?)\]", str(e))
            out.append("error: " + (found.group(1) if found else "?")
                       if c.get("error_class") else "error")
            print("case %s: %s" % (c["name"], str(e).splitlines()[0][:300]), file=sys.stderr)
    return out


out = read_cases(D)
if len(sys.argv) > 2:
    W = sys.argv[2]
    by_name = {c["name"]: c for c in json.load(open(os.path.join(D, "cases.json")))}
    os.makedirs(os.path.join(W, "spark"), exist_ok=True)
    for w in json.load(open(os.path.join(W, "cases.json"))):
        c = by_name[w["name"]]
        reader = spark.read.options(**c["options"])
        if c["schema"]:
            reader = reader.schema(c["schema"])
        path = os.path.join(D, c["file"])
        df = reader.csv(path) if c["format"] == "csv" else reader.json(path)
        opts = dict(w["options"])
        target = os.path.join(W, "spark", w["name"] + ".dir")
        writer = df.coalesce(1).write.mode("overwrite").options(**opts)
        if c["format"] == "csv":
            writer.csv(target)
        else:
            writer.json(target)
        parts = sorted(p for p in os.listdir(target) if p.startswith("part-"))
        with open(os.path.join(W, "spark", w["name"] + "." + c["format"]), "wb") as f:
            for p in parts:
                f.write(open(os.path.join(target, p), "rb").read())
if len(sys.argv) > 4:
    with open(sys.argv[4], "w") as f:
        f.write("\n".join(read_cases(sys.argv[3])) + "\n")
print("\n".join(out))
spark.stop()
