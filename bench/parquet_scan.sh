#!/usr/bin/env bash
# bench/parquet_scan.sh — MB/s of cspark's Parquet scan (src/formats/parquet/parquet_scan.c:
# pages decoded and assembled into column batches, 4096 rows each) against pyarrow's reader
# (pyarrow.parquet.read_table, with its threads and with use_threads=False) in the same run, on
# TPC-H lineitem at scale 1 (6,001,215 rows, SNAPPY, made by tpchgen-cli, installed pinned by
# scripts/install-tpchgen.sh) — all 16 columns, then 2 (l_orderkey, l_extendedprice). cspark's
# scan is build/tests/formats/parquet_scan_tool scan: one thread on the whole file, and two
# processes at once on the file's two halves (two splits, as two tasks use the two cores). Each reader runs RUNS (3) times
# and the best is kept; MB/s is the file's size over wall-clock seconds, and over CPU seconds
# (what a loaded machine does not change: the 2 cores are shared). The ratio is cspark's MB/s
# over pyarrow's. Not part of CI.
#
# usage: bench/parquet_scan.sh [BUILD_DIR]
#   BENCH_DIR   where lineitem.parquet is made and kept (default ~/.cache/cspark/bench-tpch-sf1)
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "parquet_scan: no build dir ${1:-build}" >&2; exit 2; }
TOOL=$BUILD/tests/formats/parquet_scan_tool
RUNS=${RUNS:-3}
DIR=${BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark/bench-tpch-sf1}
[ -x "$TOOL" ] || { echo "parquet_scan: $TOOL not built" >&2; exit 2; }
PY=$("$SRC/scripts/install-pytools.sh") || exit 1
GEN=$("$SRC/scripts/install-tpchgen.sh") || exit 1
FILE=$DIR/lineitem.parquet
if [ ! -s "$FILE" ]; then
    mkdir -p "$DIR" && "$GEN" parquet -s 1 --tables=lineitem --output-dir="$DIR" >&2 || { echo "parquet_scan: tpchgen-cli failed" >&2; exit 1; }
fi
cat "$FILE" >/dev/null # into the page cache for every reader alike
TWO=l_orderkey,l_extendedprice
best() { # best of RUNS "rows=N seconds=S cpu=C" lines -> "S C"
    local b="" line
    for _ in $(seq "$RUNS"); do
        line=$("$@") || return 1
        b=$(printf '%s\n%s\n' "$b" "$(echo "$line" | sed -E 's/.*seconds=([0-9.]+) cpu=([0-9.]+).*/\1 \2/')" | grep . | sort -n | head -1)
    done
    echo "$b"
}
# two splits scanned at once, as two tasks on the two cores: "rows=N seconds=S cpu=C" (summed cpu)
two_tasks() {
    local size half t0 t1 c
    size=$(stat -c %s "$FILE")
    half=$((size / 2))
    t0=$(date +%s.%N)
    "$TOOL" scan "$FILE" --split "0:$half" "$@" >"$TMP/a" &
    "$TOOL" scan "$FILE" --split "$half:$((size - half))" "$@" >"$TMP/b" &
    wait
    t1=$(date +%s.%N)
    c=$(cat "$TMP/a" "$TMP/b" | sed -E 's/.*cpu=([0-9.]+).*/\1/' | awk '{ s += $1 } END { print s }')
    echo "rows=0 seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') cpu=$c"
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
ALL=$(best "$TOOL" scan "$FILE") || { echo "parquet_scan: cspark cannot scan $FILE" >&2; exit 1; }
PAIR=$(best "$TOOL" scan "$FILE" --columns "$TWO") || exit 1
ALL2=$(best two_tasks) || exit 1
PAIR2=$(best two_tasks --columns "$TWO") || exit 1
"$PY" - "$FILE" "$RUNS" "$ALL" "$PAIR" "$TWO" "$ALL2" "$PAIR2" <<'PYEOF'
import os, sys, time
import pyarrow.parquet as pq
path, runs, two = sys.argv[1], int(sys.argv[2]), sys.argv[5].split(",")
mb = os.path.getsize(path) / 1e6
cs = {"all": tuple(map(float, sys.argv[3].split())), "2 columns": tuple(map(float, sys.argv[4].split()))}
cs2 = {"all": tuple(map(float, sys.argv[6].split())), "2 columns": tuple(map(float, sys.argv[7].split()))}
print(f"lineitem SF1: {mb:.1f} MB, {pq.ParquetFile(path).metadata.num_rows} rows, best of {runs}")
for label, cols in [("all", None), ("2 columns", two)]:
    w, c = cs[label]
    print(f"{label:9s} cspark (1 thread)          wall {mb / w:8.1f} MB/s  cpu {mb / c:8.1f} MB/s")
    w2, c2 = cs2[label]
    print(f"{label:9s} cspark (2 splits at once)  wall {mb / w2:8.1f} MB/s  cpu {mb / c2:8.1f} MB/s")
    for threads in (True, False):
        bw = bc = float("inf")
        for _ in range(runs):
            t, p = time.monotonic(), time.process_time()
            pq.read_table(path, columns=cols, use_threads=threads)
            bw, bc = min(bw, time.monotonic() - t), min(bc, time.process_time() - p)
        name = "pyarrow (threads)" if threads else "pyarrow use_threads=False"
        print(f"{label:9s} {name:26s} wall {mb / bw:8.1f} MB/s  cpu {mb / bc:8.1f} MB/s"
              f"   cspark/pyarrow wall {bw / w:5.2f}x (2 splits {bw / w2:5.2f}x) cpu {bc / c:5.2f}x")
PYEOF
