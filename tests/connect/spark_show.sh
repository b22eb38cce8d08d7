#!/usr/bin/env bash
# spark_show.sh — tests/connect/show_strings.py (df.show()'s text and createDataFrame of data
# above the inline limit, through the pinned pyspark 4.0.1 client) against Apache Spark 4.0.1's own
# Spark Connect server (SparkConnectServer from the pinned pyspark package's jars) and against
# cspark-connect-server: every show() text must be the same, character for character, the
# local data read back the same, and the errors' message parameters the same. Both servers are
# stopped by the trap whatever happens.
# Usage: spark_show.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init spark_show "${1:-}" --spark
SP=$(free_port)
CP=$(free_port)
start_cspark "$CP" "$T/cspark.log"
start_spark "$SP" "$T/spark.log"

run_client spark "$SP" show_strings "$T/spark.json" --record
run_client cspark "$CP" show_strings "$T/cspark.json"
"$PY" - "$T/spark.json" "$T/cspark.json" <<'PYEOF' || fail "the answers differ"
import json, sys
spark, cspark = (json.load(open(p)) for p in sys.argv[1:3])
bad = 0
for section in ("show", "local", "errors"):
    for key in sorted(set(spark[section]) | set(cspark[section])):
        a, b = spark[section].get(key), cspark[section].get(key)
        if a != b:
            bad += 1
            print("%s.%s differs:\n--- Spark\n%s\n--- cspark\n%s" % (section, key, a, b))
sys.exit(1 if bad else 0)
PYEOF
echo "PASS spark_show"
