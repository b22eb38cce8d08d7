#!/usr/bin/env bash
# pandas_agg.sh — grouped-aggregate pandas UDFs (tests/connect/pandas_agg.py: groupBy().agg, agg
# and select with one and two UDFs, keys of several kinds, nulls, empty inputs, UDFs that raise,
# a built-in aggregate beside them)
# from the pinned PySpark client through cspark-connect-server, run by
# PySpark workers (spark.pyspark.python) with --master local[2] and local-cluster[2,1,1024].
# pandas_agg_spark.sh compares the same program's answers with Apache Spark's.
# Usage: pandas_agg.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init pandas_agg "${1:-}"
run_on_local_masters pandas_agg
echo "PASS pandas_agg"
