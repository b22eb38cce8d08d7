"""to_parquet.py — the RDD benchmarks' inputs as the SQL benchmark's tables (bench/sql/rdd/data.sh
runs it; bench/sql/README.md, section "RDD workloads in SQL").

    to_parquet.py TEXT RECORDS OUT_DIR

TEXT is gen_text's output (bench/spark_vs_cspark.sh's word count input), RECORDS gen_records'
(its sort input: 100-byte lines). Writes into OUT_DIR, one SNAPPY Parquet file each:

  lines.parquet     lines(value string): one row per line of TEXT, the line without its '\\n'
                    (what spark.read.text and sc.textFile give; gen_text writes no '\\r')
  records.parquet   records(key string, id string, filler string): gensort's fields of each
                    record: bytes 0-9 (the printable-ASCII sort key), 12-43 (the record number in
                    32 hex digits), 46-98 (the filler letters)
  left_kv.parquet   left_kv(key string, value string), the join's left input: one row per record,
                    key = the record key's first 3 bytes, value = the record number in decimal
  right_kv.parquet  right_kv(key string, value string), the right input: one row per 4th record
                    (numbers 0, 4, 8, ...), key = the record key's bytes 3-5, value = 'r' and the
                    record number

The two key/value tables are join.c's inputs ("key<TAB>value" files) as tables: string keys that
repeat on both sides (95^3 possible keys, about 2.3 left and 0.6 right rows per key at 2 M
records), so the inner join makes m x n pairs per key, as join.c's. Deterministic: the same
inputs give the same tables. Row groups of 1 M rows.
"""
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROW_GROUP = 1 << 20


def write(table, path):
    pq.write_table(table, path + ".tmp", compression="snappy", row_group_size=ROW_GROUP)
    os.replace(path + ".tmp", path)


def main(argv):
    if len(argv) != 4:
        print("usage: to_parquet.py TEXT RECORDS OUT_DIR", file=sys.stderr)
        return 2
    text, records, out = argv[1:]
    with open(text, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the final '\n' ends the last line, it does not start one
    del data
    write(pa.table({"value": pa.array([ln.decode("utf-8") for ln in lines], pa.string())}),
          os.path.join(out, "lines.parquet"))
    del lines
    with open(records, "rb") as f:
        data = f.read()
    if len(data) % 100:
        print("to_parquet.py: %s is not made of 100-byte records" % records, file=sys.stderr)
        return 1
    recs = pa.array(data.decode("ascii").split("\n")[:-1], pa.string())
    del data
    key = pc.utf8_slice_codeunits(recs, 0, 10)
    ident = pc.utf8_slice_codeunits(recs, 12, 44)
    write(pa.table({"key": key, "id": ident,
                    "filler": pc.utf8_slice_codeunits(recs, 46, 99)}),
          os.path.join(out, "records.parquet"))
    n = len(recs)
    del recs
    numbers = pa.array(range(n), pa.int64())
    write(pa.table({"key": pc.utf8_slice_codeunits(key, 0, 3),
                    "value": pc.cast(numbers, pa.string())}),
          os.path.join(out, "left_kv.parquet"))
    every4 = pa.array(range(0, n, 4), pa.int64())
    write(pa.table({"key": pc.utf8_slice_codeunits(pc.take(key, every4), 3, 6),
                    "value": pc.binary_join_element_wise(
                        "r", pc.cast(every4, pa.string()), "")}),
          os.path.join(out, "right_kv.parquet"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
