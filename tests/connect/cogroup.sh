#!/usr/bin/env bash
# cogroup.sh — cogroup(...).applyInPandas and applyInArrow (tests/connect/cogroup.py: keys on
# both sides and on one side only, the key argument, string, null, two-column and computed keys,
# empty sides, 97 keys over shuffled partitions, an aggregate above, a function that raises)
# from the pinned PySpark client through cspark-connect-server, run by
# PySpark workers (spark.pyspark.python) with --master local[2] and local-cluster[2,1,1024].
# cogroup_spark.sh compares the same program's answers with Apache Spark's.
# Usage: cogroup.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init cogroup "${1:-}"
run_on_local_masters cogroup
echo "PASS cogroup"
