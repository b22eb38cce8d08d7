#!/usr/bin/env bash
# data.sh — the ClickBench-shaped `hits` table of the SQL benchmark (bench/sql/run.sh --suite
# clickbench): bench/sql/clickbench/hits_gen.py's Parquet file (generated, not the real ClickBench
# data set) with ROWS rows and the default seed, made once into a cache directory outside the
# source tree and marked complete, and prints that directory (holding hits.parquet) on stdout.
#
#   bench/sql/clickbench/data.sh ROWS PYTHON     (PYTHON: scripts/install-benchtools.sh's python3)
#
# Directory: $CSPARK_BENCH_DATA/clickbench-<ROWS>, default
# ${XDG_CACHE_HOME:-~/.cache}/cspark/bench-data. A directory marked .complete is kept as it is;
# one maker at a time (a lock); a run that fails leaves no .complete, so the next run makes the
# table again. 10 M rows are about 1 GB. Exit: 0 with the path; 1 with one line on stderr naming
# what failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
fail() {
  echo "clickbench data: $*" >&2
  exit 1
}
[ $# -eq 2 ] || fail "usage: $0 ROWS PYTHON"
ROWS=$1
PY=$2
[[ "$ROWS" =~ ^[1-9][0-9]*$ ]] || fail "ROWS must be a positive integer such as 10000000 (got '$ROWS')"
BASE=${CSPARK_BENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark/bench-data}
DIR=$BASE/clickbench-$ROWS
mkdir -p "$BASE" || fail "cannot create $BASE (set CSPARK_BENCH_DATA to a writable directory)"
exec 9>"$BASE/.lock"
flock 9 || fail "cannot lock $BASE/.lock"
if [ ! -f "$DIR/.complete" ]; then
  rm -rf "$DIR"
  mkdir -p "$DIR" || fail "cannot create $DIR"
  echo "clickbench data: generating $ROWS rows into $DIR (once)" >&2
  nice "$PY" "$HERE/hits_gen.py" --rows "$ROWS" --out "$DIR/hits.parquet" >&2 ||
    fail "hits_gen.py --rows $ROWS failed"
  touch "$DIR/.complete"
fi
echo "$DIR"
