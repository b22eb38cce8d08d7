#!/usr/bin/env bash
# map_in_batch.sh — mapInPandas and mapInArrow (tests/connect/map_in_batch.py: filters, new
# columns, batches of maxRecordsPerBatch rows, empty partitions, an aggregate above, Arrow batches,
# a function that raises) from the pinned PySpark client through cspark-connect-server, run by
# PySpark workers (spark.pyspark.python) with --master local[2] and local-cluster[2,1,1024].
# map_in_batch_spark.sh compares the same program's answers with Apache Spark's.
# Usage: map_in_batch.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init map_in_batch "${1:-}"
run_on_local_masters map_in_batch
echo "PASS map_in_batch"
