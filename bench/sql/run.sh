#!/usr/bin/env bash
# bench/sql/run.sh — the SQL benchmark (`make bench-sql`, `make bench-clickbench`, or
# `bench/run.sh sql`): the 22 TPC-H queries, or with --suite clickbench the 43 ClickBench queries
# over a generated ClickBench-shaped `hits` table, or with --suite rdd the RDD benchmarks' word
# count, join and sort written in SQL (bench/sql/rdd/queries/), on cspark-sql, Apache Spark 4's spark-sql,
# DuckDB, DataFusion, Sail, cspark's and Spark's Connect servers over the same Parquet files, 2
# cores, engines alternating query by query; whole-process and job-only times, peak RSS, ratios,
# a check that all engines return the same rows. Not a test (about half an hour at scale 1);
# tests/bench/sql_smoke.sh runs it small.
#
#   bench/sql/run.sh [--scale 1|10|...] [--suite tpch|clickbench|rdd] [--rows N]
#                    [--text-bytes B] [--records N]
#                    [--engines cspark,cspark-spill,spark,duckdb,datafusion,sail,cspark-connect,
#                               spark-connect]
#                    [--queries 1-22] [--build DIR] [--out FILE.md] [--no-all]
#                    [--all-concurrently | --all-first] [--all-only ENGINES] [--resume] [--master M]
#                    [--conf K=V]... [--spill-master M] [--spill-conf K=V]... [--spill-metrics]
#                    [--spark-driver-memory SIZE] [--spark-master M] [--spark-conf K=V]...
#                    [--timeout SECONDS]
#
# --master and --conf go to cspark-sql only (e.g. --master 'local-cluster[2,1,2560]' --conf
# spark.executor.memory=2g: the scale-10 run, `make bench-sql-sf10`); the engine cspark-spill is
# cspark-sql again under --spill-master and --spill-conf (default local-cluster[2,1,1024] with
# spark.executor.memory=1024m: executors small enough that its operators spill), its rows checked
# like any engine's; --spill-metrics records cspark's spill metrics per query from its event log.
# --spark-master and --spark-conf are spark-sql's (engine spark; default local[2]); the scale-10
# run gives Spark the same local-cluster[2,1,2560] and 2g executors as cspark.
# --spark-driver-memory is Spark's (and Spark Connect's) heap (default 4g); --timeout bounds each
# process (default 1800 s; a one-process run of all queries at scale 10 needs more).
#
# Steps: the data (bench/sql/tpch_data.sh: tpchgen-cli Parquet in a cache dir, made once;
# ClickBench: bench/sql/clickbench/data.sh, --rows rows, default 10 M, made once; RDD:
# bench/sql/rdd/data.sh, --text-bytes of gen_text text, default 200 MB, and --records
# gen_records records, default 2 M, the RDD bench's sizes, made once), the peers
# (scripts/install-benchtools.sh; Spark from scripts/install-spark.sh, only when spark or
# spark-connect is an engine), then bench/sql/tpch_bench.py, which runs, checks and writes FILE.md
# (default bench/results/sql_tpch_sf<SCALE>.md, bench/results/clickbench.md or
# bench/results/sql_rdd.md), FILE.json and
# FILE.png. The runs' own outputs go to BUILD/bench-sql/<FILE's name without .md>/.
# --no-all skips the one-process runs; --all-concurrently runs them beside the per-query rounds
# (a busy machine's time), --all-first before them (a run cut short keeps them); --resume keeps the rounds an interrupted run finished (recorded in
# FILE.json after each round); --all-only spark (or a Connect engine: spark-connect) runs it
# only as the one process for all queries (its rows and per-query job times stand in the
# per-query table; for a machine too busy for a JVM per query). Exit: 0 when every engine ran every query and all agree; 1 when one
# failed or differs (named in the results and on stderr); 2 on a usage error.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SCALE=1
ENGINES=cspark,spark,duckdb,datafusion,sail,cspark-connect,spark-connect
SUITE=tpch
ROWS=10000000
TEXT_BYTES=200000000
RECORDS=2000000
QUERIES=""
BUILD=$SRC/build
OUT=""
EXTRA=()
RESUME=0
ARGS="$*"
usage() {
  echo "bench/sql/run.sh: $*" >&2
  echo "usage: bench/sql/run.sh [--scale S] [--suite tpch|clickbench|rdd] [--rows N] [--text-bytes B] [--records N] [--engines LIST] [--queries 1-22] [--build DIR] [--out FILE.md] [--no-all]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) SCALE=${2:?--scale needs a number}; shift 2 ;;
    --engines) ENGINES=${2:?--engines needs a list}; shift 2 ;;
    --suite) SUITE=${2:?--suite needs tpch, clickbench or rdd}; shift 2 ;;
    --rows) ROWS=${2:?--rows needs a number}; shift 2 ;;
    --text-bytes) TEXT_BYTES=${2:?--text-bytes needs a number}; shift 2 ;;
    --records) RECORDS=${2:?--records needs a number}; shift 2 ;;
    --queries) QUERIES=${2:?--queries needs a list such as 1-22}; shift 2 ;;
    --build) BUILD=${2:?--build needs a directory}; shift 2 ;;
    --out) OUT=${2:?--out needs a file}; shift 2 ;;
    --no-all | --all-concurrently | --all-first) EXTRA+=("$1"); shift ;;
    --all-only) EXTRA+=(--all-only "${2:?--all-only needs spark or spark-connect}"); shift 2 ;;
    --resume) EXTRA+=(--resume); RESUME=1; shift ;;
    --master) EXTRA+=(--cspark-master "${2:?--master needs a master URL}"); shift 2 ;;
    --conf) EXTRA+=(--cspark-conf "${2:?--conf needs K=V}"); shift 2 ;;
    --spill-master) EXTRA+=(--spill-master "${2:?--spill-master needs a master URL}"); shift 2 ;;
    --spill-conf) EXTRA+=(--spill-conf "${2:?--spill-conf needs K=V}"); shift 2 ;;
    --spill-metrics) EXTRA+=(--spill-metrics); shift ;;
    --spark-driver-memory)
      EXTRA+=(--spark-driver-memory "${2:?--spark-driver-memory needs a size such as 4g}"); shift 2 ;;
    --spark-master) EXTRA+=(--spark-master "${2:?--spark-master needs a master URL}"); shift 2 ;;
    --spark-conf) EXTRA+=(--spark-conf "${2:?--spark-conf needs K=V}"); shift 2 ;;
    --timeout) EXTRA+=(--timeout "${2:?--timeout needs seconds}"); shift 2 ;;
    *) usage "unknown argument '$1'" ;;
  esac
done
case "$SUITE" in
  tpch) QUERIES=${QUERIES:-1-22} ;;
  clickbench) QUERIES=${QUERIES:-1-43} ;;
  rdd) QUERIES=${QUERIES:-1-3} ;;
  *) usage "--suite must be tpch, clickbench or rdd (got '$SUITE')" ;;
esac
[[ "$QUERIES" =~ ^[0-9,-]+$ ]] || usage "--queries must look like 1-22 or 1,3,5 (got '$QUERIES')"
[[ "$ROWS" =~ ^[1-9][0-9]*$ ]] || usage "--rows must be a positive integer (got '$ROWS')"
[[ "$TEXT_BYTES" =~ ^[1-9][0-9]*$ ]] || usage "--text-bytes must be a positive integer (got '$TEXT_BYTES')"
[[ "$RECORDS" =~ ^[1-9][0-9]*$ ]] || usage "--records must be a positive integer (got '$RECORDS')"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || usage "no build directory $BUILD"
log() { echo "bench/sql: $*" >&2; }

PY=$("$SRC/scripts/install-benchtools.sh") || exit 1
if [ "$SUITE" = clickbench ]; then
  OUT=${OUT:-$SRC/bench/results/clickbench.md}
  DATA=$("$SRC/bench/sql/clickbench/data.sh" "$ROWS" "$PY") || exit 1
  SUITE_ARGS=(--suite clickbench --rows "$ROWS" --seed 20130701)
  DATA_VERSION="hits_gen.py (generated data)"
elif [ "$SUITE" = rdd ]; then
  OUT=${OUT:-$SRC/bench/results/sql_rdd.md}
  DATA=$("$SRC/bench/sql/rdd/data.sh" "$TEXT_BYTES" "$RECORDS" "$PY" "$BUILD/bin") || exit 1
  SUITE_ARGS=(--suite rdd --text-bytes "$TEXT_BYTES" --rows "$RECORDS")
  DATA_VERSION="gen_text, gen_records (generated data)"
else
  OUT=${OUT:-$SRC/bench/results/sql_tpch_sf$SCALE.md}
  DATA=$("$SRC/bench/sql/tpch_data.sh" "$SCALE") || exit 1
  SUITE_ARGS=()
  DATA_VERSION="tpchgen-cli 4.0.0"
fi
VERSIONS=$(grep -iE '^(duckdb|datafusion|pysail|pyspark_client|pyarrow|matplotlib)==' \
  "$(dirname "$PY")/versions.txt" | tr '\n' ' ')
ENGINE_ARGS=()
case ",$ENGINES," in
  *,cspark,* | *,cspark-spill,*)
    [ -x "$BUILD/bin/cspark-sql" ] || { log "missing $BUILD/bin/cspark-sql (build first)"; exit 1; }
    ENGINE_ARGS+=(--cspark-sql "$BUILD/bin/cspark-sql")
    ;;
esac
case ",$ENGINES," in
  *,cspark-connect,*)
    [ -x "$BUILD/bin/cspark-connect-server" ] ||
      { log "missing $BUILD/bin/cspark-connect-server (build first)"; exit 1; }
    ENGINE_ARGS+=(--cspark-connect-server "$BUILD/bin/cspark-connect-server")
    ;;
esac
case ",$ENGINES," in
  *,spark,* | *,spark-connect,*)
    SPARK_HOME=$("$SRC/scripts/install-spark.sh") || exit 1
    ENGINE_ARGS+=(--spark-home "$SPARK_HOME")
    VERSIONS="Apache Spark 4.0.1 (pyspark), $VERSIONS"
    ;;
esac
VERSIONS="$DATA_VERSION, $VERSIONS"
WORK=$BUILD/bench-sql/$(basename "$OUT" .md)
[ $RESUME = 1 ] || rm -rf "$WORK"
mkdir -p "$WORK" "$(dirname "$OUT")" || exit 1
case "$SUITE" in
  tpch) SIZE="scale $SCALE" ;;
  clickbench) SIZE="$ROWS rows" ;;
  rdd) SIZE="$TEXT_BYTES bytes of text, $RECORDS records" ;;
esac
log "$SUITE ($SIZE) from $DATA; engines $ENGINES; queries $QUERIES; runs in $WORK"
"$PY" "$SRC/bench/sql/tpch_bench.py" --data "$DATA" --scale "$SCALE" --engines "$ENGINES" "${SUITE_ARGS[@]}" \
  --queries-list "$QUERIES" --python "$PY" --work "$WORK" --out-md "$OUT" \
  --versions "$VERSIONS" --command "bench/sql/run.sh $ARGS" "${ENGINE_ARGS[@]}" "${EXTRA[@]}"
