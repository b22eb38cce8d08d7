#!/usr/bin/env bash
# bench/csv_json_parse.sh — MB/s of cspark's CSV and JSON readers against pyarrow's and DuckDB's, in
# the same run, on the same generated files of BENCH_MB (200) megabytes each (bench/gen_csv_json.py:
# 7 columns of long, string, double, int, date, boolean and string; CSV with a header, JSON lines).
#   cspark (batches)  build/tests/textformat_dump --bench: the file formats (src/formats/csv/
#                     csv_format.c, json/json_format.c) reading the file through src/fs in bounded
#                     buffers into column batches, one split on one thread, after schema inference
#                     over the file (header + inferSchema for CSV) — what a task does;
#   cspark (chunks)   build/tests/csvjson_dump --bench: the parsers alone, the file in memory, into
#                     their flat chunks (no batches);
#   pyarrow           pyarrow.csv.read_csv / pyarrow.json.read_json, 1 thread and all threads;
#   duckdb            read_csv / read_json materialised as an Arrow table, 1 thread and all threads.
# Every reader infers the types (the others by sampling; cspark's figure is the read alone, its
# inference pass over the whole file is printed separately). MB/s of wall clock and of CPU time
# (file bytes / seconds; CPU time sums a reader's threads, and is what a machine loaded by other
# work changes least), the best of BENCH_RUNS (3) runs by CPU time, and each reader's ratios to
# cspark (batches, one thread): above 1, cspark is faster. The
# python tools are the pinned ones of scripts/install-pytools.sh (pyarrow, duckdb). Not part of CI.
#
# usage: bench/csv_json_parse.sh [BUILD_DIR]   (BENCH_MB: size of each file, default 200)
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "csv_json_parse: no build dir ${1:-build}" >&2; exit 2; }
DUMP=$BUILD/tests/csvjson_dump
FMT=$BUILD/tests/textformat_dump
MB=${BENCH_MB:-200}
RUNS=${BENCH_RUNS:-3}
for t in "$DUMP" "$FMT"; do [ -x "$t" ] || { echo "csv_json_parse: $t not built" >&2; exit 2; }; done
PY=$("$SRC/scripts/install-pytools.sh") || { echo "csv_json_parse: cannot install pyarrow/duckdb" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 "$SRC/bench/gen_csv_json.py" "$TMP/data.csv" "$TMP/data.json" "$MB" || exit 1
echo "files: $(du -m "$TMP/data.csv" | cut -f1) MB CSV, $(du -m "$TMP/data.json" | cut -f1) MB JSON lines; $(nproc) cores; best of $RUNS"
cat "$TMP/data.csv" "$TMP/data.json" >/dev/null # into the page cache for every reader alike

best() { # the run of RUNS with the best parse_cpu_mb_s, of a command printing "... parse_cpu_mb_s=X ..."
    local best=0 line out v
    for _ in $(seq "$RUNS"); do
        out=$("$@") || return 1
        v=$(sed -n 's/.*parse_cpu_mb_s=\([0-9.]*\).*/\1/p' <<<"$out")
        if awk -v a="$v" -v b="$best" 'BEGIN{exit !(a>b)}'; then best=$v; line=$out; fi
    done
    echo "$line"
}
{
    for fmt in csv json; do
        best "$FMT" --bench $fmt "$TMP/data.$fmt" | sed 's/^/cspark /'
        best "$DUMP" --bench $fmt "$TMP/data.$fmt" | sed 's/^\([a-z]*\) /cspark \1 (chunks) /'
    done
} | tee "$TMP/cspark.txt"
"$PY" - "$TMP/data.csv" "$TMP/data.json" "$RUNS" "$TMP/cspark.txt" <<'PYEOF'
import os, re, sys, time
csv_path, json_path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
mb = {"csv": os.path.getsize(csv_path) / 1e6, "json": os.path.getsize(json_path) / 1e6}
path = {"csv": csv_path, "json": json_path}
base = {}
for line in open(sys.argv[4]):
    m = re.match(r"cspark (csv|json) \(batches\) .*parse_mb_s=([0-9.]+) .*parse_cpu_mb_s=([0-9.]+)", line)
    if m:
        base[m.group(1)] = (float(m.group(2)), float(m.group(3)))
def timed(label, fmt, fn):
    best = None
    for _ in range(runs):
        t, c = time.monotonic(), time.process_time()
        n = fn()
        dt, dc = time.monotonic() - t, time.process_time() - c
        if best is None or dc < best[1]:
            best = (dt, dc)
    wall, cpu = mb[fmt] / best[0], mb[fmt] / best[1]
    bw, bc = base.get(fmt, (0, 0))
    print("%-20s %s parse_mb_s=%.1f parse_cpu_mb_s=%.1f rows=%d  cspark(batches)/this: wall %.2f, cpu %.2f"
          % (label, fmt, wall, cpu, n, bw / wall, bc / cpu))
import pyarrow, pyarrow.csv, pyarrow.json
for threads in (False, True):
    tag = "1 thread" if not threads else "%d threads" % os.cpu_count()
    timed("pyarrow %s" % tag, "csv", lambda: pyarrow.csv.read_csv(
        csv_path, read_options=pyarrow.csv.ReadOptions(use_threads=threads)).num_rows)
    timed("pyarrow %s" % tag, "json", lambda: pyarrow.json.read_json(
        json_path, read_options=pyarrow.json.ReadOptions(use_threads=threads)).num_rows)
import duckdb
for threads in (1, os.cpu_count()):
    con = duckdb.connect()
    con.execute("SET threads=%d" % threads)
    tag = "%d thread%s" % (threads, "" if threads == 1 else "s")
    timed("duckdb %s" % tag, "csv", lambda: con.execute(
        "SELECT * FROM read_csv(?)", [csv_path]).to_arrow_table().num_rows)
    timed("duckdb %s" % tag, "json", lambda: con.execute(
        "SELECT * FROM read_json(?, format='newline_delimited')", [json_path]).to_arrow_table().num_rows)
print("pyarrow %s, duckdb %s" % (pyarrow.__version__, duckdb.__version__))
PYEOF
