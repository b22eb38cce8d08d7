"""Runs Spark's SQL parser (the session's sqlParser().parsePlan, what spark.sql() calls first)
over a file of statements, one a line, and prints for each "=== <sql>" then "OK" or
"ERR <message> (line L, pos P)" — the first line of Spark's message, with the position Spark
gives (a syntax error's "(line L, pos P)", or the "== SQL (line L, position N) ==" of a literal
error, whose position counts from 1). tests/spark/sql_parser_errors.sh compares it with cspark's
tests/tools/sql_parse_check. Usage: spark-submit spark_parse.py FILE."""
import re
import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[1]").getOrCreate()
parser = spark._jsparkSession.sessionState().sqlParser()
for line in open(sys.argv[1], encoding="utf-8"):
    sql = line.rstrip("\n")
    if not sql:
        continue
    print("=== " + sql)
    try:
        parser.parsePlan(sql)
        print("OK")
    except Exception as e:  # py4j's wrapper of Spark's ParseException
        text = str(e)
        first = next(l for l in text.split("\n") if l.strip())
        m = re.search(r" \(line (\d+), pos (\d+)\)$", first)
        if m:
            print("ERR " + first)
            continue
        m = re.search(r"== SQL \(line (\d+), position (\d+)\) ==", text)
        if m:
            print("ERR %s (line %s, pos %d)" % (first, m.group(1), int(m.group(2)) - 1))
        else:
            print("ERR " + first + " (no position)")
sys.stdout.flush()
spark.stop()
