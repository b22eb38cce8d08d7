#!/usr/bin/env bash
# parquet_pyarrow.sh — cspark's Parquet reader (src/formats/parquet: footer, schema levels, page
# iterator, every encoding and codec) against pyarrow, the reference: parquet_pyarrow.py writes
# files with pyarrow (every physical type, nulls, nested lists and structs, PLAIN, dictionary,
# DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY, BYTE_STREAM_SPLIT and RLE
# booleans, UNCOMPRESSED/SNAPPY/GZIP/ZSTD/LZ4_RAW, data pages v1 and v2, several row groups and
# pages, INT96), reads them with build/tests/parquet_dump and compares levels and values with
# pyarrow's own reading; then damaged files (truncated, wrong magic, lying footer length, zeroed
# footer, garbage page) and an unsupported codec must each fail with one line naming the file; and
# pyarrow must read a file made of cspark's encoders (build/tests/parquet_write_sample) as written.
# pyarrow is a test tool installed by scripts/install-pytools.sh (pinned, in a cache directory).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
DUMP=$BUILD/tests/parquet_dump
need "$DUMP" "$BUILD/tests/parquet_write_sample"
PA_PY=$(bash "$SRC/scripts/install-pytools.sh") || { echo "SKIP: $TEST_NAME: cannot install pyarrow (scripts/install-pytools.sh)"; exit 77; }
"$PA_PY" "$SRC/tests/integration/parquet_pyarrow.py" "$DUMP" "$T" || fail "see above"
echo "PASS: $TEST_NAME"
