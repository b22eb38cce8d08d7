#!/usr/bin/env bash
# spark-sql-golden.sh — records Apache Spark 4's answers to cspark's SQL test corpus as golden
# files: per statement the result rows in canonical text or Spark's error class and SQLSTATE
# (format: tests/sql/README.md). Rerun it when the corpus changes and commit the goldens; CI then
# runs cspark only and judges it with tests/sql/compare.py. Spark runs on local[2] with ANSI on
# (Spark 4's default) and the session time zone UTC, in one JVM for all the files of a run
# (scripts/spark_sql_golden.py).
#
#   scripts/spark-sql-golden.sh corpus [FILE.sql...]   corpus/*.sql -> tests/sql/golden/corpus/
#   scripts/spark-sql-golden.sh tpch                   TPC-H SF 0.1 -> tests/sql/golden/tpch-sf0.1/
#   scripts/spark-sql-golden.sh all                    both
# Options (before the mode): --out DIR writes the .out files into DIR instead of the golden
# folders; --data DIR is where generated data goes (default build/sql-data in the source tree:
# the small tables of tests/sql/corpus/files.sql and TPC-H SF 0.1 made by tpchgen-cli).
#
# Also used by tests/sql/golden_fresh.sh (reruns one corpus file and checks the golden is the
# same). The data files come from scripts/sql-testdata.sh (no Spark; the engine's tests use it
# too). Installs Spark (scripts/install-spark.sh) on first use.
# Exit: 0 when every golden was written;
# 1 with a line naming what failed (a statement breaking a corpus rule is named with file:line).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
OUT=""
DATA=$SRC/build/sql-data
fail() {
  echo "spark-sql-golden: $*" >&2
  exit 1
}
while [ $# -gt 0 ]; do
  case "$1" in
    --out) OUT=${2:?--out needs a directory}; shift 2 ;;
    --data) DATA=${2:?--data needs a directory}; shift 2 ;;
    *) break ;;
  esac
done
MODE=${1:-}
[ -n "$MODE" ] && shift
case "$MODE" in
  corpus | tpch | all) ;;
  *) fail "usage: $0 [--out DIR] [--data DIR] corpus [FILE.sql...] | tpch | all (got '${MODE}')" ;;
esac

SPARK_HOME=$("$SRC/scripts/install-spark.sh") || fail "Apache Spark cannot be installed"
mkdir -p "$DATA" || fail "cannot create $DATA"
DATA=$(cd "$DATA" && pwd)

spark_run() { # spark_run OUTDIR ARGS...: the Python helper under spark-submit, local[2], UTC
  local outdir=$1 log
  shift
  mkdir -p "$outdir"
  log=$DATA/spark-sql-golden.log
  TZ=UTC "$SPARK_HOME/bin/spark-submit" --master 'local[2]' --driver-memory 2g \
    --conf spark.sql.shuffle.partitions=4 \
    --driver-java-options '-Duser.timezone=UTC -Duser.language=en -Duser.country=US' \
    "$SRC/scripts/spark_sql_golden.py" --out "$outdir" "$@" >"$log.out" 2>"$log" || {
    grep -h '^spark-sql-golden:' "$log.out" "$log" >&2 || tail -20 "$log" >&2
    fail "Spark's run failed (log: $log)"
  }
  grep '^written: ' "$log.out" >&2 || true
}

run_corpus() {
  local files=("$@")
  [ ${#files[@]} -gt 0 ] || files=("$SRC"/tests/sql/corpus/*.sql)
  "$SRC/scripts/sql-testdata.sh" "$DATA" files || fail "cannot write the corpus tables"
  spark_run "${OUT:-$SRC/tests/sql/golden/corpus}" --interpreted --jobs 4 \
    --var "DATA=$DATA/files" "${files[@]}"
}

run_tpch() {
  "$SRC/scripts/sql-testdata.sh" "$DATA" tpch || fail "cannot generate TPC-H SF 0.1"
  spark_run "${OUT:-$SRC/tests/sql/golden/tpch-sf0.1}" --views "$DATA/tpch-sf0.1" \
    "$SRC"/tests/sql/tpch/q*.sql
}

case "$MODE" in
  corpus) run_corpus "$@" ;;
  tpch) run_tpch ;;
  all) run_corpus && run_tpch ;;
esac
