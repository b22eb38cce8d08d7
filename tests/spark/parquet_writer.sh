#!/usr/bin/env bash
# parquet_writer.sh — Apache Spark 4 reads the Parquet files cspark's writer writes
# (src/formats/parquet/parquet_writer*.c) exactly as pyarrow reads the Arrow streams they were
# written from: the same types (Spark's schema comes from the footer's row metadata) and values.
# pyarrow writes the streams (tests/formats/arrow_ipc_pyarrow.py's sample of every Spark type
# with nulls and nested columns; parquet_writer_pyarrow.py's 60,000 rows with several row
# groups, dictionary fallback and multi-megabyte strings); build/tests/formats/parquet_write_tool
# writes each as Parquet with every codec, data page v1 and v2, INT96 and TIMESTAMP_MICROS, no
# dictionary, data page v2 without a dictionary (DELTA_BYTE_ARRAY), a sorted stream with small
# pages read again with a filter (parquet-mr filters pages with the column index cspark wrote);
# spark_read.py reads each with the vectorized reader and with parquet-mr's row
# reader; every file must give pyarrow's rows of its stream (parquet_rows.py's canonical form).
# Installs the pinned Spark and pyarrow (scripts/install-spark.sh, install-pytools.sh; exit 77 =
# SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TOOL=$BUILD/tests/formats/parquet_write_tool
need "$TOOL"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
PA=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
CHECK=$SRC/tests/formats/parquet_writer_pyarrow.py
"$PA" "$SRC/tests/formats/arrow_ipc_pyarrow.py" write "$T/sample.arrows" >/dev/null ||
    fail "pyarrow cannot write the sample stream"
"$PA" "$CHECK" big "$T/big.arrows" || fail "pyarrow cannot write the big stream"
mkdir -p "$T/files"
expected=$T/expected.txt
: >"$expected"
case_() { # NAME STREAM OPTIONS...
    local name=$1 stream=$2
    shift 2
    "$TOOL" "$T/$stream.arrows" "$T/files/$name.parquet" "$@" 2>"$T/tool.err" ||
        fail "the writer failed on $name: $(cat "$T/tool.err")"
}
for c in none snappy gzip zstd lz4 lz4_raw; do
    case_ "sample_$c" sample compression=$c
done
case_ sample_v2 sample parquet.writer.version=v2
case_ sample_micros sample spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS
case_ sample_nodict sample parquet.enable.dictionary=false
case_ sample_v2nodict sample parquet.writer.version=v2 parquet.enable.dictionary=false
"$PA" "$CHECK" sorted "$T/sorted.arrows" || fail "pyarrow cannot write the sorted stream"
case_ sorted_v1 sorted parquet.page.size=4096
case_ sorted_v2 sorted parquet.page.size=4096 parquet.writer.version=v2
case_ sorted_v2nodict sorted parquet.page.size=4096 parquet.writer.version=v2 parquet.enable.dictionary=false
case_ big_groups big parquet.block.size=262144 parquet.page.size=16384 parquet.dictionary.page.size=4096
case_ big_v2 big compression=zstd parquet.writer.version=v2 parquet.dictionary.page.size=32768
"$PA" "$CHECK" rows "$T/sample.arrows" >"$T/sample.rows" || fail "cannot dump the sample"
"$PA" "$CHECK" rows "$T/big.arrows" >"$T/big.rows" || fail "cannot dump the big stream"
"$PA" "$CHECK" rows "$T/sorted.arrows" >"$T/sorted.rows" || fail "cannot dump the sorted stream"
"$PA" "$CHECK" rows "$T/sorted.arrows" 15000 15040 >"$T/filtered.rows" || fail "cannot filter the sorted stream"
for f in $(ls "$T/files"); do
    rows=$T/${f%%_*}.rows
    for reader in "" " (parquet-mr rows)"; do
        echo "== $f$reader" >>"$expected"
        cat "$rows" >>"$expected"
        case $f in sorted*)
            echo "== $f filtered$reader" >>"$expected"
            cat "$T/filtered.rows" >>"$expected"
            ;;
        esac
    done
done
TZ=UTC timeout 800 "$SPARK_HOME/bin/spark-submit" --master 'local[1]' \
    --driver-java-options -Duser.timezone=UTC "$SRC/tests/spark/parquet_writer/spark_read.py" \
    "$T/files" >"$T/spark.raw" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
sed -n '/^== /,$p' "$T/spark.raw" >"$T/spark.txt"
if ! cmp -s "$expected" "$T/spark.txt"; then
    diff "$expected" "$T/spark.txt" | head -30 | cut -c1-300 >&2
    fail "Spark reads cspark's Parquet files differently from pyarrow's reading of the streams (< pyarrow, > Spark)"
fi
files=$(ls "$T/files" | wc -l)
[ "$files" -eq 15 ] && [ "$(grep -c '^schema struct<' "$T/spark.txt")" -eq 36 ] &&
    [ "$(wc -l <"$T/spark.txt")" -gt 240000 ] || fail "Spark read fewer files or rows than written"
echo "PASS: $TEST_NAME ($files files, each read by Spark's vectorized and parquet-mr readers as pyarrow reads its stream)"
