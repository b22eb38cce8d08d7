#!/usr/bin/env bash
# parquet_writer_pyarrow.sh — cspark's Parquet writer (src/formats/parquet/parquet_writer*.c)
# judged by pyarrow: pyarrow writes Arrow IPC streams (arrow_ipc_pyarrow.py's sample: every Spark
# type, nulls, nested lists, structs and maps, extremes; parquet_writer_pyarrow.py's 60,000-row
# stream: dictionary columns, unique strings, 300 KB-3 MB strings, null runs, NaN and zeros,
# lists of lists), build/tests/formats/parquet_write_tool writes them as Parquet through the
# writer's four functions, and pyarrow must read back the same rows and types, with statistics
# equal to each chunk's values and Spark's footer keys:
#   - every codec (none, snappy, gzip, zstd, lz4 = Hadoop LZ4 as Spark 4, lz4_raw), data page v1
#     and v2, timestamps as INT96 (Spark's default) and TIMESTAMP_MICROS, no dictionary;
#   - data page v2 without a dictionary: DELTA_BYTE_ARRAY and DELTA_BINARY_PACKED, as parquet-mr;
#   - the page index on every chunk (a column index but for INT96), which cspark's own reader
#     (tests/formats/parquet_scan_tool) uses to skip pages of sorted files with nested columns,
#     the rows that pass being pyarrow's filtered read;
#   - several row groups (parquet.block.size 256 KiB), small pages, a dictionary that outgrows
#     parquet.dictionary.page.size and falls back to PLAIN in the same chunk; row groups of a
#     batch of 1 MB rows close every few rows (4 MiB blocks), not once per 1,024 rows;
#   - the part file extensions Spark gives (snappy.parquet, lz4hadoop.parquet, ...);
#   - failures: an unwritable path, a bad option value, a non-nullable column holding a null, a
#     closed-without-commit writer: one line naming the file or option, and no file left behind.
# pyarrow is installed by scripts/install-pytools.sh (exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TOOL=$BUILD/tests/formats/parquet_write_tool
need "$TOOL"
PY=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
IPC=$SRC/tests/formats/arrow_ipc_pyarrow.py
CHECK=$SRC/tests/formats/parquet_writer_pyarrow.py
"$PY" "$IPC" write "$T/sample.arrows" >/dev/null || fail "pyarrow cannot write the sample stream"
"$PY" "$CHECK" big "$T/big.arrows" || fail "pyarrow cannot write the big stream"

write() { # IN OUT OPTIONS...
    "$TOOL" "$@" 2>"$T/tool.err" || fail "the writer failed on $2: $(cat "$T/tool.err")"
}
check() { # IN PARQUET CHECKS...
    "$PY" "$CHECK" check "$@" >"$T/check.out" || fail "pyarrow reads $2 differently (above)"
}

# every codec, page v1 and v2
# (pyarrow calls LZ4_RAW "LZ4" and Hadoop's LZ4, which Spark 4 writes for lz4, "UNKNOWN")
for c in none:UNCOMPRESSED snappy:SNAPPY gzip:GZIP zstd:ZSTD lz4:UNKNOWN lz4_raw:LZ4; do
    name=${c%%:*} codec=${c#*:}
    for v in 1 2; do
        write "$T/sample.arrows" "$T/s.$name.v$v.parquet" compression=$name parquet.writer.version=v$v
        check "$T/sample.arrows" "$T/s.$name.v$v.parquet" codec=$codec int96=1 v2=$((v - 1))
    done
done
# the default options are Spark's: snappy, INT96, v1, dictionary
write "$T/sample.arrows" "$T/s.default.parquet"
check "$T/sample.arrows" "$T/s.default.parquet" codec=SNAPPY int96=1 v2=0
write "$T/sample.arrows" "$T/s.micros.parquet" spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS
check "$T/sample.arrows" "$T/s.micros.parquet" int96=0
write "$T/sample.arrows" "$T/s.nodict.parquet" parquet.enable.dictionary=false
check "$T/sample.arrows" "$T/s.nodict.parquet"
"$PY" -c 'import sys, pyarrow.parquet as pq
m = pq.ParquetFile(sys.argv[1]).metadata
encs = {e for g in range(m.num_row_groups) for c in range(m.num_columns) for e in m.row_group(g).column(c).encodings}
assert not encs & {"PLAIN_DICTIONARY", "RLE_DICTIONARY"}, encs' "$T/s.nodict.parquet" ||
    fail "parquet.enable.dictionary=false still wrote dictionaries"

# data page v2 without a dictionary: parquet-mr's V2 encodings (DELTA_BYTE_ARRAY for strings,
# binary and decimals in fixed-length binary, DELTA_BINARY_PACKED for ints)
write "$T/sample.arrows" "$T/s.v2nodict.parquet" parquet.writer.version=v2 parquet.enable.dictionary=false
check "$T/sample.arrows" "$T/s.v2nodict.parquet" v2=1 encoding=s:DELTA_BYTE_ARRAY \
    encoding=bin:DELTA_BYTE_ARRAY encoding=dec38:DELTA_BYTE_ARRAY encoding=i64:DELTA_BINARY_PACKED \
    encoding=m.key_value.key:DELTA_BYTE_ARRAY

# the page index: cspark's reader skips pages of cspark's files (v1 and v2 pages, dictionary
# or DELTA_BYTE_ARRAY), nested columns read beside the filter column
"$PY" "$CHECK" sorted "$T/sorted.arrows" || fail "pyarrow cannot write the sorted stream"
SCAN=$BUILD/tests/formats/parquet_scan_tool
need "$SCAN"
for opts in "parquet.writer.version=v1" "parquet.writer.version=v2 parquet.enable.dictionary=false" \
    "parquet.writer.version=v2"; do
    write "$T/sorted.arrows" "$T/sorted.parquet" parquet.page.size=4096 $opts
    check "$T/sorted.arrows" "$T/sorted.parquet"
    "$PY" "$CHECK" skip "$SCAN" "$T/sorted.parquet" >"$T/skip.out" ||
        fail "page skipping with the page index of a file written with $opts (above)"
done

# several row groups, small pages, dictionary fallback, multi-megabyte strings
write "$T/big.arrows" "$T/big.parquet" parquet.block.size=262144 parquet.page.size=16384 \
    parquet.dictionary.page.size=4096
check "$T/big.arrows" "$T/big.parquet" groups=4 fallback=grow
write "$T/big.arrows" "$T/big.v2.parquet" compression=zstd parquet.writer.version=v2 \
    parquet.dictionary.page.size=32768
check "$T/big.arrows" "$T/big.v2.parquet" codec=ZSTD fallback=grow v2=1 encoding=uniq:DELTA_BYTE_ARRAY \
    encoding=huge:DELTA_BYTE_ARRAY
write "$T/big.arrows" "$T/big.default.parquet"
check "$T/big.arrows" "$T/big.default.parquet" groups=1
grep -q "1 row groups" "$T/check.out" || fail "60,000 rows of about 30 MB should make one 128 MiB row group"

# wide rows: the row group closes every few rows, not after a slice of 1,024 rows (24 MB here)
"$PY" "$CHECK" wide "$T/wide.arrows" || fail "pyarrow cannot write the wide stream"
write "$T/wide.arrows" "$T/wide.parquet" compression=none parquet.block.size=4194304
check "$T/wide.arrows" "$T/wide.parquet" codec=UNCOMPRESSED groups=5

# extensions as Spark names part files
for c in none:parquet uncompressed:parquet snappy:snappy.parquet gzip:gz.parquet \
    zstd:zstd.parquet lz4:lz4hadoop.parquet lz4_raw:lz4raw.parquet; do
    got=$("$TOOL" --extension compression=${c%%:*})
    [ "$got" = "${c#*:}" ] || fail "extension for ${c%%:*}: $got, expected ${c#*:}"
done
[ "$("$TOOL" --extension)" = snappy.parquet ] || fail "the default extension is not snappy.parquet"

# failures: one line, nothing left behind
expect_failure() { # WHAT PATTERN PATH TOOL-ARGS...
    local what=$1 pattern=$2 path=$3
    shift 3
    if "$TOOL" "$@" 2>"$T/err.txt"; then fail "$what: the writer succeeded"; fi
    [ "$(wc -l <"$T/err.txt")" -eq 1 ] || fail "$what: expected one line, got: $(cat "$T/err.txt")"
    grep -q -- "$pattern" "$T/err.txt" || fail "$what: the error does not say '$pattern': $(cat "$T/err.txt")"
    [ -e "$path" ] && fail "$what: $path was left behind"
    ls "$(dirname "$path")" | grep -q '\.tmp$' && fail "$what: a temporary file was left behind"
    return 0
}
touch "$T/afile"
expect_failure "an unwritable path" "$T/afile/x.parquet" "$T/afile/x.parquet" \
    "$T/sample.arrows" "$T/afile/x.parquet"
mkdir -p "$T/bad"
expect_failure "a bad codec" "compression" "$T/bad/x.parquet" "$T/sample.arrows" "$T/bad/x.parquet" compression=brotli2
expect_failure "a bad block size" "parquet.block.size" "$T/bad/y.parquet" "$T/sample.arrows" "$T/bad/y.parquet" parquet.block.size=-5
"$PY" -c 'import sys, pyarrow as pa
s = pa.schema([pa.field("a", pa.int32()), pa.field("req", pa.string(), False)])
b = pa.record_batch([pa.array([1, 2, 3]), pa.array(["x", None, "z"])], schema=s)
with pa.ipc.new_stream(sys.argv[1], s) as w: w.write_batch(b)' "$T/null_in_required.arrows" ||
    fail "pyarrow cannot write a null into a non-nullable column"
expect_failure "a null in a non-nullable column" "column req: a null value in row 1" \
    "$T/bad/z.parquet" "$T/null_in_required.arrows" "$T/bad/z.parquet"
mkdir -p "$T/abort"
"$TOOL" --abort "$T/big.arrows" "$T/abort/x.parquet" || fail "the writer cannot be closed without commit"
[ -z "$(ls -A "$T/abort")" ] || fail "close without commit left $(ls -A "$T/abort")"
echo "PASS: $TEST_NAME"
