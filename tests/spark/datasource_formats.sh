#!/usr/bin/env bash
# datasource_formats.sh — Parquet, CSV and JSON tables in key=value folders through the data
# source C API (cspark_read_files / cspark_write_files), against Apache Spark 4 and pyarrow in
# the same run (issue 23, acceptance 1 at the data source level):
#   1. Spark writes one table (int, boolean, bigint, double, decimal, string, date, timestamp,
#      nulls, strings that need quoting) with partitionBy("year", "country") as Parquet, CSV
#      (header) and JSON, with a null partition (__HIVE_DEFAULT_PARTITION__) and an escaped one
#      (a%3Db%2Fc) (tests/spark/datasource_formats/spark_tables.py);
#   2. pyarrow writes a Parquet dataset (byte, short, float, binary, timestamp micros, a list and
#      a struct, nulls; year=/country= folders, a null and a %20-escaped value);
#   3. cspark reads each folder (build/tests/jobs/dsformats.so dump, on local[2] and
#      local-cluster[2,1,1024]; CSV with header and inferSchema); its schema (partition column
#      types inferred) must be Spark's reading of the same folder, and its batches, read by
#      pyarrow as the Arrow IPC streams they are, Spark's rows (and pyarrow's, for its dataset);
#   4. cspark writes the Parquet table back partitioned by year and country in each format
#      (dsformats.so copy; modes overwrite, then append: every row twice; and compressed: zstd
#      Parquet, gzip CSV and JSON); Spark reads those
#      folders as it reads its own (same schema, same rows), and pyarrow.dataset (hive
#      partitioning) reads cspark's Parquet folder as it reads Spark's; the folders and part
#      files have Spark's names (part-00000-<uuid>.c000.csv: a regression test for "-c000").
# Installs the pinned Spark and pyarrow (scripts/install-spark.sh, install-pytools.sh; exit 77 =
# SKIP only when that fails).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOB=$BUILD/tests/jobs/dsformats.so
need "$JOB" "$BIN/cspark-executor"
SPARK_HOME=$("$SRC/scripts/install-spark.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
PA=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
HERE=$SRC/tests/spark/datasource_formats
SUBMIT_OPTS=(--conf spark.ui.enabled=false)
SUBMIT_TIMEOUT=300

spark_run() { # ARGS.. of spark_tables.py; stdout in $T/spark.out
    TZ=UTC timeout 800 "$SPARK_HOME/bin/spark-submit" --master 'local[2]' \
        --driver-java-options -Duser.timezone=UTC "$HERE/spark_tables.py" "$@" \
        >"$T/spark.out" 2>"$T/spark.err" || { tail -20 "$T/spark.err" >&2; fail "Spark's run failed: $*"; }
}

spark_run write "$T/spark"
"$PA" "$HERE/arrow_tables.py" write "$T/spark/pyarrow" || fail "pyarrow cannot write its dataset"
FORMATS="parquet csv json"

# 2. cspark reads Spark's folders
read_opts() { [ "$1" = csv ] && echo "header true inferSchema true"; }
: >"$T/cspark.txt"
for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    for f in $FORMATS pyarrow; do
        out=$T/batches-${master%%\[*}-$f
        mkdir -p "$out"
        # shellcheck disable=SC2046
        submit_ok "$master" --class dump "$JOB" "${f/pyarrow/parquet}" "$T/spark/$f" "$out" $(read_opts "$f")
        if [ "$master" = 'local[2]' ]; then
            { echo "== $f"; grep '^schema ' "$T/stdout"; "$PA" "$HERE/arrow_tables.py" batches "$out"; } \
                >>"$T/cspark.txt" || fail "pyarrow cannot read cspark's batches of $f"
        else
            "$PA" "$HERE/arrow_tables.py" batches "$out" >"$T/cluster.rows" || fail "pyarrow: $out"
            "$PA" "$HERE/arrow_tables.py" batches "$T/batches-local-$f" >"$T/local.rows"
            assert_files_eq "$T/cluster.rows" "$T/local.rows" "$f: rows on $master"
        fi
    done
done

# 3. cspark writes: overwrite into a new folder, then into an existing one, then append
for f in $FORMATS; do
    wopts=""
    [ "$f" = csv ] && wopts="header true"
    for mode in overwrite overwrite; do
        # shellcheck disable=SC2086
        submit_ok 'local[2]' --class copy "$JOB" parquet "$T/spark/parquet" "$f" "$T/cspark/$f" \
            $mode year,country $wopts
    done
    # compressed: zstd Parquet, gzip CSV and JSON (part-...c000.csv.gz, as Spark names them)
    copts="compression gzip"
    [ "$f" = parquet ] && copts="compression zstd"
    # shellcheck disable=SC2086
    submit_ok 'local[2]' --class copy "$JOB" parquet "$T/spark/parquet" "$f" "$T/compressed/$f" \
        overwrite year,country $wopts $copts
    mkdir -p "$T/appended"
    cp -r "$T/cspark/$f" "$T/appended/$f"
    # shellcheck disable=SC2086
    submit_ok 'local-cluster[2,1,1024]' --class copy "$JOB" parquet "$T/spark/parquet" "$f" \
        "$T/appended/$f" append year,country $wopts
done
# part files named as Spark names them (part-00000-<uuid>.c000.snappy.parquet), _SUCCESS last
names() { (cd "$1" && find . -type f | sed -E 's/part-[0-9]{5}-[0-9a-f-]{36}/part-N-UUID/' | sort -u); }
for f in $FORMATS; do
    names "$T/spark/$f" | grep -v '\.crc$' >"$T/spark.names"
    names "$T/cspark/$f" >"$T/cspark.names"
    assert_files_eq "$T/cspark.names" "$T/spark.names" "$f: cspark's output files (< cspark, > Spark)"
done
: >"$T/list"
for f in $FORMATS; do
    echo "$f $f $T/spark/$f" >>"$T/list"
    echo "cspark_$f $f $T/cspark/$f" >>"$T/list"
    echo "appended_$f $f $T/appended/$f" >>"$T/list"
    echo "compressed_$f $f $T/compressed/$f" >>"$T/list"
done
echo "pyarrow parquet $T/spark/pyarrow" >>"$T/list"
spark_run read "$T/list"
sections() { # FILE PREFIX: the sections NAME (PREFIX stripped) of spark.out
    awk -v p="$2" '/^== /{keep = (substr($2, 1, length(p)) == p) && (p != "" || $2 !~ /_/);
        if (keep) print "== " substr($2, length(p) + 1); next} keep' "$1"
}
sections "$T/spark.out" "" >"$T/spark.txt"
assert_files_eq "$T/cspark.txt" "$T/spark.txt" "cspark's reading of Spark's tables (< Spark's own)"
sed '/^== pyarrow$/,$d' "$T/spark.txt" >"$T/spark3.txt" # Spark's 3 tables
sections "$T/spark.out" cspark_ >"$T/spark_of_cspark.txt"
assert_files_eq "$T/spark_of_cspark.txt" "$T/spark3.txt" "Spark reading cspark's tables as its own"
sections "$T/spark.out" compressed_ >"$T/spark_of_compressed.txt"
assert_files_eq "$T/spark_of_compressed.txt" "$T/spark3.txt" "Spark reading cspark's compressed tables"
sections "$T/spark.out" appended_ >"$T/spark_of_appended.txt"
awk '/^== /{print; next} /^schema /{print; next} {print; print}' "$T/spark3.txt" >"$T/doubled.txt"
assert_files_eq "$T/spark_of_appended.txt" "$T/doubled.txt" "Spark reading cspark's appended tables"
"$PA" "$HERE/arrow_tables.py" dataset "$T/spark/pyarrow" | tail -n +2 >"$T/pa_pyarrow.txt" ||
    fail "pyarrow cannot read its dataset"
"$PA" "$HERE/arrow_tables.py" batches "$T/batches-local-pyarrow" >"$T/cspark_pyarrow.txt"
assert_files_eq "$T/cspark_pyarrow.txt" "$T/pa_pyarrow.txt" "cspark's rows of pyarrow's dataset (> pyarrow's)"
"$PA" "$HERE/arrow_tables.py" dataset "$T/spark/parquet" >"$T/pa_spark.txt" || fail "pyarrow: Spark's table"
"$PA" "$HERE/arrow_tables.py" dataset "$T/cspark/parquet" >"$T/pa_cspark.txt" || fail "pyarrow: cspark's table"
assert_files_eq "$T/pa_cspark.txt" "$T/pa_spark.txt" "pyarrow reading cspark's Parquet table as Spark's"
rows=$(grep -vc '^== \|^schema ' "$T/spark.txt")
[ "$rows" -eq 184 ] || fail "Spark read $rows rows of its 3 tables and pyarrow's, not 184"
echo "PASS: $TEST_NAME (Spark's Parquet/CSV/JSON tables read by cspark as by Spark; cspark's written back read by Spark and pyarrow as Spark's)"
