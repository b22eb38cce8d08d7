#!/usr/bin/env bash
# tpch_data.sh — the TPC-H tables of the SQL benchmark (bench/sql/run.sh): tpchgen-cli's Parquet
# files (scripts/install-tpchgen.sh, its defaults: SNAPPY, one file per table) at a scale factor,
# made once into a cache directory outside the source tree and marked complete, and prints that
# directory (holding <table>.parquet for the 8 tables) on stdout.
#
#   bench/sql/tpch_data.sh SCALE       (1, 10, 0.1, ...)
#
# Directory: $CSPARK_BENCH_DATA/tpch-sf<SCALE>, default ${XDG_CACHE_HOME:-~/.cache}/cspark/bench-data.
# A directory marked .complete is kept as it is; one maker at a time (a lock); a run that fails
# leaves no .complete, so the next run makes the tables again. Scale 1 is about 400 MB, scale 10
# about 4 GB. Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "tpch_data: $*" >&2
  exit 1
}
[ $# -eq 1 ] || fail "usage: $0 SCALE"
SCALE=$1
[[ "$SCALE" =~ ^[0-9]+(\.[0-9]+)?$ ]] || fail "SCALE must be a number such as 1 or 10 (got '$SCALE')"
BASE=${CSPARK_BENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark/bench-data}
DIR=$BASE/tpch-sf$SCALE
mkdir -p "$BASE" || fail "cannot create $BASE (set CSPARK_BENCH_DATA to a writable directory)"
exec 9>"$BASE/.lock"
flock 9 || fail "cannot lock $BASE/.lock"
if [ ! -f "$DIR/.complete" ]; then
  gen=$("$SRC/scripts/install-tpchgen.sh") || fail "tpchgen-cli cannot be installed"
  rm -rf "$DIR"
  echo "tpch_data: generating TPC-H scale $SCALE into $DIR (once)" >&2
  "$gen" parquet -s "$SCALE" --output-dir="$DIR" >&2 || fail "tpchgen-cli -s $SCALE failed"
  for t in customer lineitem nation orders part partsupp region supplier; do
    [ -s "$DIR/$t.parquet" ] || fail "tpchgen-cli wrote no $DIR/$t.parquet"
  done
  touch "$DIR/.complete"
fi
echo "$DIR"
