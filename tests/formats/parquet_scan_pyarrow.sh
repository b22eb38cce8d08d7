#!/usr/bin/env bash
# parquet_scan_pyarrow.sh — cspark's Parquet format (src/formats/parquet/parquet_format.c: schema
# inference with Spark's type mapping, the scan into column batches, splits, projection,
# row-group pruning from statistics) against pyarrow, the reference. parquet_scan_pyarrow.py
# writes files with pyarrow — every Spark type (byte..long, unsigned ints, float and double
# with NaN and infinities, string, binary, fixed binary, decimals in INT32/INT64/FLBA/BINARY,
# date, timestamps in ms/us/ns with and without UTC, INT96), nulls, nested columns (arrays of
# ints/strings/structs, structs holding arrays and structs, maps, arrays of arrays, maps of
# arrays), five codecs x data pages v1 and v2 x dictionary or plain, DELTA_BINARY_PACKED,
# DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE booleans, a dictionary
# falling back to PLAIN, several row groups and pages — and build/tests/formats/
# parquet_scan_tool reads each into batches written as an Arrow IPC stream: values, nulls and
# Spark schema must be identical to pyarrow's reading. Then batch sizes, projection, 3 splits
# of a file (every row once), filters skipping the row groups their statistics rule out (and
# still returning every matching row), and damaged files (truncated, wrong magic, a page lying
# about its size, garbage in a page): one line naming the file (and the column, row group).
# pyarrow is installed by scripts/install-pytools.sh (pinned, a cache directory; SKIP only when
# that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TOOL=$BUILD/tests/formats/parquet_scan_tool
need "$TOOL"
PY=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
"$PY" "$SRC/tests/formats/parquet_scan_pyarrow.py" "$TOOL" "$T" || fail "cspark reads other values than pyarrow (see above)"
echo "PASS: $TEST_NAME"
