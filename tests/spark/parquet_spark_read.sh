#!/usr/bin/env bash
# parquet_spark_read.sh — Parquet files written by Apache Spark 4 are read by cspark's Parquet
# format (src/formats/parquet/parquet_format.c) with Spark's schema and pyarrow's values. In one
# run, tests/spark/parquet/spark_write.py has Spark write one DataFrame of every Spark type
# (nulls, NaN, infinities, decimals of 9/18/38 digits, dates, timestamp and timestamp_ntz, arrays,
# maps, structs and arrays of structs, maps of arrays, arrays of arrays) in 7 writer setups:
# Spark's defaults (SNAPPY, INT96 timestamps, dictionary), TIMESTAMP_MICROS + GZIP,
# TIMESTAMP_MILLIS + ZSTD, writeLegacyFormat (2-level lists, decimals in FIXED_LEN_BYTE_ARRAY)
# uncompressed, LZ4_RAW without dictionary, PARQUET_2_0 (data pages v2, DELTA encodings) with and
# without dictionary, each with small row groups and pages. Then
# tests/formats/parquet_scan_pyarrow.py --spark checks for each file that cspark's inferred schema
# is the one Spark wrote (its row metadata) and that the batches (4096 and 100 rows) hold exactly
# the values pyarrow reads. Installs the pinned Spark and pyarrow (scripts/install-spark.sh,
# scripts/install-pytools.sh; exit 77 = SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TOOL=$BUILD/tests/formats/parquet_scan_tool
need "$TOOL"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
PA=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
TZ=UTC timeout 900 "$SPARK_HOME/bin/spark-submit" --master 'local[1]' \
    --driver-java-options -Duser.timezone=UTC "$SRC/tests/spark/parquet/spark_write.py" "$T/spark" \
    >"$T/spark.out" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed"; }
[ "$(grep -c '^written: ' "$T/spark.out")" -eq 7 ] || fail "Spark did not write the 7 variants"
"$PA" "$SRC/tests/formats/parquet_scan_pyarrow.py" "$TOOL" "$T/spark" --spark ||
    fail "cspark reads Spark's files otherwise than Spark and pyarrow (see above)"
echo "PASS: $TEST_NAME (7 Spark writer setups read with Spark's schema and pyarrow's values)"
