#!/usr/bin/env bash
# data.sh — the tables of the SQL benchmark's RDD suite (bench/sql/run.sh --suite rdd): the inputs
# of bench/spark_vs_cspark.sh's word count and sort, made by the same generators with the same
# seeds (gen_text -s 1 BYTES, gen_records -s 2 RECORDS), turned into Parquet by to_parquet.py
# (lines, records, and the join's left_kv and right_kv derived from the records), made once into
# a cache directory outside the source tree and marked complete; prints that directory on stdout.
#
#   bench/sql/rdd/data.sh TEXT_BYTES RECORDS PYTHON BIN_DIR
#       (PYTHON: scripts/install-benchtools.sh's python3; BIN_DIR: the build's bin/, holding
#        gen_text and gen_records; the RDD bench's defaults are 200000000 and 2000000)
#
# Directory: $CSPARK_BENCH_DATA/rdd-<TEXT_BYTES>-<RECORDS>, default
# ${XDG_CACHE_HOME:-~/.cache}/cspark/bench-data. A directory marked .complete is kept as it is;
# one maker at a time (a lock); a run that fails leaves no .complete, so the next run makes the
# tables again. The generators' text files are removed once converted. Exit: 0 with the path; 1
# with one line on stderr naming what failed.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
fail() {
  echo "rdd data: $*" >&2
  exit 1
}
[ $# -eq 4 ] || fail "usage: $0 TEXT_BYTES RECORDS PYTHON BIN_DIR"
BYTES=$1
RECORDS=$2
PY=$3
BIN=$4
[[ "$BYTES" =~ ^[1-9][0-9]*$ ]] || fail "TEXT_BYTES must be a positive integer such as 200000000 (got '$BYTES')"
[[ "$RECORDS" =~ ^[1-9][0-9]*$ ]] || fail "RECORDS must be a positive integer such as 2000000 (got '$RECORDS')"
for g in gen_text gen_records; do
  [ -x "$BIN/$g" ] || fail "missing $BIN/$g (build first)"
done
BASE=${CSPARK_BENCH_DATA:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark/bench-data}
DIR=$BASE/rdd-$BYTES-$RECORDS
mkdir -p "$BASE" || fail "cannot create $BASE (set CSPARK_BENCH_DATA to a writable directory)"
exec 9>"$BASE/.lock"
flock 9 || fail "cannot lock $BASE/.lock"
if [ ! -f "$DIR/.complete" ]; then
  rm -rf "$DIR"
  mkdir -p "$DIR" || fail "cannot create $DIR"
  echo "rdd data: generating $BYTES bytes of text and $RECORDS records into $DIR (once)" >&2
  "$BIN/gen_text" -s 1 "$BYTES" >"$DIR/text.txt" || fail "gen_text -s 1 $BYTES failed"
  "$BIN/gen_records" -s 2 "$RECORDS" >"$DIR/records.txt" || fail "gen_records -s 2 $RECORDS failed"
  nice "$PY" "$HERE/to_parquet.py" "$DIR/text.txt" "$DIR/records.txt" "$DIR" >&2 ||
    fail "to_parquet.py failed"
  rm -f "$DIR/text.txt" "$DIR/records.txt"
  touch "$DIR/.complete"
fi
echo "$DIR"
