#!/usr/bin/env bash
# sql-testdata.sh — writes the data files cspark's SQL tests read, without Spark, the same bytes
# on every run: the small tables of tests/sql/corpus/files.sql (tests/sql/data/make_tables.py
# under the pinned pyarrow of scripts/install-pytools.sh) into DIR/files, and TPC-H at scale 0.1
# as Parquet (tpchgen-cli 4.0.0 of scripts/install-tpchgen.sh, its defaults: SNAPPY, one file per
# table) into DIR/tpch-sf0.1/<table>.parquet. scripts/spark-sql-golden.sh records Spark's answers
# over these files; the engine's tests regenerate them and compare with those goldens
# (tests/sql/README.md).
#
#   scripts/sql-testdata.sh DIR [files|tpch|all]     (default all)
#
# A complete TPC-H directory (marked .complete) is kept as it is, and so are the corpus files
# while DIR/.files-complete names the current make_tables.py. Exit: 0 with the files written;
# 1 with one line on stderr naming what failed.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
fail() {
  echo "sql-testdata: $*" >&2
  exit 1
}
[ $# -ge 1 ] || fail "usage: $0 DIR [files|tpch|all]"
DIR=$1
WHAT=${2:-all}
case "$WHAT" in
  files | tpch | all) ;;
  *) fail "the second argument must be files, tpch or all (got '$WHAT')" ;;
esac
mkdir -p "$DIR" || fail "cannot create $DIR"
# Tests run in parallel and read these files: one maker at a time (the lock), and files made
# once (a marker naming the maker's hash), so no test rewrites what another is reading.
exec 9>"$DIR/.lock"
flock 9 || fail "cannot lock $DIR/.lock"

if [ "$WHAT" != tpch ]; then
  stamp=$(sha256sum "$SRC/tests/sql/data/make_tables.py" | cut -c1-16)
  if [ "$(cat "$DIR/.files-complete" 2>/dev/null)" != "$stamp" ]; then
    pytools=$("$SRC/scripts/install-pytools.sh") || fail "pyarrow cannot be installed"
    rm -rf "$DIR/files"
    "$pytools" "$SRC/tests/sql/data/make_tables.py" "$DIR/files" ||
      fail "tests/sql/data/make_tables.py failed"
    echo "$stamp" >"$DIR/.files-complete"
  fi
fi
if [ "$WHAT" != files ] && [ ! -f "$DIR/tpch-sf0.1/.complete" ]; then
  gen=$("$SRC/scripts/install-tpchgen.sh") || fail "tpchgen-cli cannot be installed"
  rm -rf "$DIR/tpch-sf0.1"
  "$gen" parquet -s 0.1 --output-dir="$DIR/tpch-sf0.1" >&2 || fail "tpchgen-cli failed"
  touch "$DIR/tpch-sf0.1/.complete"
fi
