#!/usr/bin/env bash
# bench/csv_json_parse.sh — MB/s of cspark's CSV and JSON parsers (src/formats/csv, src/formats/json)
# on a generated file of BENCH_MB (200) megabytes each (bench/gen_csv_json.py: 7 columns of long,
# string, double, int, date, boolean and string), read from memory on one thread by
# build/tests/csvjson_dump --bench: schema inference (inferSchema for CSV) and then parsing into
# typed chunks, timed separately, in wall-clock and in CPU-time MB/s (the second is what a loaded
# machine does not change). pyarrow's and DuckDB's readers are timed on the same files when
# /usr/bin/python3 imports them; otherwise only cspark's figures are printed. Not part of CI.
#
# usage: bench/csv_json_parse.sh [BUILD_DIR]   (BENCH_MB: size of each file, default 200)
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "csv_json_parse: no build dir ${1:-build}" >&2; exit 2; }
DUMP=$BUILD/tests/csvjson_dump
MB=${BENCH_MB:-200}
PY=/usr/bin/python3
[ -x "$DUMP" ] || { echo "csv_json_parse: $DUMP not built" >&2; exit 2; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
$PY "$SRC/bench/gen_csv_json.py" "$TMP/data.csv" "$TMP/data.json" "$MB" || exit 1
echo "files: $(du -m "$TMP/data.csv" | cut -f1) MB CSV, $(du -m "$TMP/data.json" | cut -f1) MB JSON lines"
cat "$TMP/data.csv" "$TMP/data.json" >/dev/null # into the page cache for every reader alike
"$DUMP" --bench csv "$TMP/data.csv" | sed 's/^/cspark /'
"$DUMP" --bench json "$TMP/data.json" | sed 's/^/cspark /'
$PY - "$TMP/data.csv" "$TMP/data.json" <<'PYEOF'
import os, sys, time
csv_path, json_path = sys.argv[1], sys.argv[2]
mb = {p: os.path.getsize(p) / 1e6 for p in (csv_path, json_path)}
def timed(label, path, fn):
    t = time.monotonic(); fn(); dt = time.monotonic() - t
    print("%s parse_mb_s=%.1f" % (label, mb[path] / dt))
try:
    import pyarrow.csv, pyarrow.json
    opts = pyarrow.csv.ReadOptions(use_threads=False)
    timed("pyarrow csv (1 thread)", csv_path, lambda: pyarrow.csv.read_csv(csv_path, read_options=opts))
    jopts = pyarrow.json.ReadOptions(use_threads=False)
    timed("pyarrow json (1 thread)", json_path, lambda: pyarrow.json.read_json(json_path, read_options=jopts))
except ImportError:
    print("pyarrow: not installed (only cspark's figures)")
try:
    import duckdb
    con = duckdb.connect(); con.execute("SET threads=1")
    timed("duckdb csv (1 thread)", csv_path, lambda: con.execute("SELECT * FROM read_csv_auto(?)", [csv_path]).arrow())
    timed("duckdb json (1 thread)", json_path, lambda: con.execute("SELECT * FROM read_json_auto(?)", [json_path]).arrow())
except ImportError:
    print("duckdb: not installed (only cspark's figures)")
PYEOF
