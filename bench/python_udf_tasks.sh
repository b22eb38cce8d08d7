#!/usr/bin/env bash
# python_udf_tasks.sh — mapInPandas over many small tasks (bench/python_udf_tasks.py: one warm-up
# job, then RUNS timed jobs of TASKS tasks) through cspark-connect-server (local[2]) with
# spark.python.worker.reuse true (Spark's default: an executor's idle workers serve its next tasks)
# and false (a worker forked for every task), and, with --spark, through Apache Spark 4.0.1's own
# Connect server (local[2], its defaults) with the same pinned client's workers. Prints one line a
# server; bench/results/python_udf_tasks.md keeps a run's figures.
# Usage: python_udf_tasks.sh BUILD_DIR [TASKS (200)] [RUNS (5)] [--spark]
set -u
. "$(dirname "$0")/../tests/connect/lib/connect.sh"
spark_flag=
[ "${4:-}" = --spark ] && spark_flag=--spark
connect_test_init python_udf_tasks "${1:-}" $spark_flag
TASKS=${2:-200}
RUNS=${3:-5}
measure() { # NAME PORT
  timeout 1800 "$PY" "$SRC/bench/python_udf_tasks.py" "sc://localhost:$2" "$TASKS" "$RUNS" \
    >"$T/$1.out" 2>"$T/$1-client.log" || fail "$1: $(tail -n 5 "$T/$1-client.log")"
  echo "$1: $(cat "$T/$1.out")"
}
for reuse in true false; do
  port=$(free_port)
  start_cspark "$port" "$T/cspark-$reuse.log" --conf "spark.pyspark.python=$PY" \
    --conf "spark.python.worker.reuse=$reuse"
  measure "cspark reuse=$reuse" "$port"
  kill -TERM "${_connect_pids[-1]}"
  wait "${_connect_pids[-1]}" 2>/dev/null
done
if [ -n "$spark_flag" ]; then
  port=$(free_port)
  export PYSPARK_PYTHON="$PY"
  start_spark "$port" "$T/spark.log"
  measure "spark" "$port"
fi
