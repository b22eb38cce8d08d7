"""parquet_writer_pyarrow.py — pyarrow's side of tests/formats/parquet_writer_pyarrow.sh and
tests/spark/parquet_writer.sh: makes the Arrow IPC streams cspark's Parquet writer is given, and
judges the Parquet files it writes.

  big FILE              writes a stream of 60,000 rows in 6 batches: a low-cardinality string
                        and int (dictionary), unique strings (PLAIN: a dictionary does not pay),
                        strings each repeated 8 times (a dictionary that outgrows its limit), strings of
                        300 KB to 3 MB (pages larger than parquet.page.size), nullable ints with
                        long null runs, doubles with NaN and both zeros, lists of lists
  wide FILE             writes 24 rows of incompressible 1 MB strings in one batch
  sorted FILE           writes 20,000 rows sorted by k (and s) with nullable ints, a list of
                        strings, a struct holding a list and a map: for page skipping
  check IPC PARQUET [codec=C] [groups=N] [int96=0|1] [fallback=COLUMN] [v2=0|1]
                    [encoding=COLUMN:ENC]...
                        pyarrow reads PARQUET: the same rows and types as the stream IPC (dumped
                        as arrow_ipc_pyarrow.py does; INT96 read as microseconds and UTC), every
                        chunk compressed with C, at least N row groups, Spark's footer keys, each
                        chunk's statistics equal to the min/max/null count of its values, COLUMN's
                        first chunk both dictionary- and PLAIN-encoded, data page v2 or v1, ENC
                        among COLUMN's encodings in every row group; every chunk has an offset
                        index, and a column index unless it is INT96 (or a float holding NaN)
  skip SCAN_TOOL PARQUET
                        cspark's reader (tests/formats/parquet_scan_tool) reads a file of the
                        sorted stream with pushed filters: pages are skipped through the page
                        index the writer wrote, and the rows read that pass are exactly
                        pyarrow's filtered read of the file
  rows IPC [FROM TO]    prints the canonical rows of a stream (parquet_rows.py; the Spark test),
                        only those whose k is in [FROM, TO) when given

Run with the python3 of scripts/install-pytools.sh. Exit 0, or 1 with a line saying what differs.
"""
import io
import json
import math
import os
import random
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arrow_ipc_pyarrow as ipc  # noqa: E402
import parquet_rows  # noqa: E402


def big(path):
    rnd = random.Random(23)
    schema = pa.schema([
        pa.field("id", pa.int64(), False), pa.field("low", pa.string()),
        pa.field("lowint", pa.int32()), pa.field("uniq", pa.string()),
        pa.field("grow", pa.string()),
        pa.field("huge", pa.string()), pa.field("sparse", pa.int16()),
        pa.field("dbl", pa.float64()),
        pa.field("ll", pa.list_(pa.field("element", pa.list_(pa.field("element", pa.int64()))))),
    ])
    with pa.ipc.new_stream(path, schema) as w:
        for k in range(6):
            n = 10000
            ids = list(range(k * n, (k + 1) * n))
            huge = [None] * n
            if k in (1, 4):
                for j in range(0, 4):
                    huge[j * 97] = chr(ord("a") + j) * (300000 * (j + 1) + k)
            cols = [
                ids,
                [None if i % 11 == 0 else "color-%d" % (i % 7) for i in ids],
                [i % 5 - 2 for i in ids],
                ["u%08d-%s" % (i, "x" * (i % 13)) for i in ids],
                ["g%07d" % (i // 8) for i in ids],
                huge,
                [None if (i // 1000) % 2 else i % 30000 - 15000 for i in ids],
                [[math.nan, -0.0, 0.0, 1e300, -1e-300][i % 5] if i % 9 == 0 else rnd.random()
                 for i in ids],
                [None if i % 17 == 0 else [[i, None] if j % 2 else [] for j in range(i % 4)]
                 for i in ids],
            ]
            w.write_batch(pa.record_batch([pa.array(c, f.type) for c, f in zip(cols, schema)],
                                          schema=schema))


def wide(path):
    """24 rows of 1 MB strings that do not compress: row groups must close every few rows."""
    rnd = random.Random(7)
    schema = pa.schema([pa.field("n", pa.int32()), pa.field("blob", pa.string())])
    rows = [rnd.getrandbits(4 * 1000000).to_bytes(500000, "little").hex() for _ in range(24)]
    with pa.ipc.new_stream(path, schema) as w:
        w.write_batch(pa.record_batch([pa.array(range(24), pa.int32()), pa.array(rows)],
                                      schema=schema))


def sorted_stream(path):
    n = 20000
    schema = pa.schema([
        pa.field("k", pa.int64()), pa.field("s", pa.string()), pa.field("v", pa.int32()),
        pa.field("f", pa.float64()),
        pa.field("tags", pa.list_(pa.field("element", pa.string()))),
        pa.field("st", pa.struct([("a", pa.int32()),
                                  ("b", pa.list_(pa.field("element", pa.int64())))])),
        pa.field("m", pa.map_(pa.string(), pa.int64())),
    ])
    ks = list(range(n))
    cols = [
        ks,
        ["key%06d" % i + "z" * (i % 3) * 40 for i in ks],  # some bounds past 64 bytes
        [None if i % 5 == 0 else (i * 7919) % 100003 for i in ks],
        [i / 4 for i in ks],
        [None if i % 7 == 0 else ["t%d-%d" % (i, j) for j in range(i % 4)] for i in ks],
        [None if i % 11 == 0 else {"a": i, "b": list(range(i % 3))} for i in ks],
        [[("k%d" % j, i * j) for j in range(i % 4)] for i in ks],  # Spark keeps 3 in order
    ]
    with pa.ipc.new_stream(path, schema) as w:
        w.write_batch(pa.record_batch([pa.array(c, f.type) for c, f in zip(cols, schema)],
                                      schema=schema))


def skip(tool, path):
    import subprocess
    table = pq.read_table(path)
    ref = {r["k"]: r for r in table.to_pylist()}
    cases = [("k:eq:15234", [("k", "==", 15234)], lambda r: r["k"] == 15234),
             ("k:lt:700", [("k", "<", 700)], lambda r: r["k"] < 700),
             ("s:ge:key019000", [("s", ">=", "key019000")], lambda r: r["s"] >= "key019000"),
             ("k:in:10|15000", [("k", "in", [10, 15000])], lambda r: r["k"] in (10, 15000)),
             ("f:gt:4990", [("f", ">", 4990.0)], lambda r: r["f"] > 4990)]
    for spec, filt, pred in cases:
        want = pq.read_table(path, filters=filt).to_pylist()
        for columns in ("k,s,v,f,tags,st,m", "m,k,st"):
            out = path + ".skip.arrows"
            r = subprocess.run([tool, "read", path, out, "--filter", spec, "--columns", columns,
                                "--batch", "1000"], capture_output=True, text=True)
            if r.returncode != 0:
                raise SystemExit("%s: cspark cannot read it: %s" % (spec, r.stderr.strip()))
            stats = json.loads(r.stderr.strip().splitlines()[-1])
            with pa.ipc.open_stream(out) as rd:
                got = rd.read_all().to_pylist()
            # pages before the first match are skipped undecoded; after the last, not read
            first = min(w["k"] for w in want)
            if (first >= 2000 and stats["pages_skipped"] == 0) or len(got) > len(ref) // 4:
                raise SystemExit("%s: %d rows read, %d pages skipped: the page index was not used"
                                 % (spec, len(got), stats["pages_skipped"]))
            names = columns.split(",")
            passing = [tuple(g[c] for c in names) for g in got if pred(ref[g["k"]])]
            expect = [tuple(w[c] for c in names) for w in want]
            if passing != expect:
                raise SystemExit("%s (%s): %d rows pass, pyarrow's filtered read has %d"
                                 % (spec, columns, len(passing), len(expect)))
    print("ok: %d filters, pages skipped" % len(cases))


def read_ipc(path):
    with pa.ipc.open_stream(open(path, "rb")) as r:
        return r.read_all()


def dump(table):
    out = io.StringIO()
    ipc.dump(table.to_batches(max_chunksize=1 << 30) or [], out)
    return out.getvalue()


def conform(table, schema):
    """pyarrow's reading of Parquet, given the stream's types where Parquet has no way to say
    them (INT96 timestamps are UTC; a dictionary-encoded string is a string)."""
    cols = []
    for f in schema:
        c = table.column(f.name)
        if pa.types.is_timestamp(f.type) and f.type.tz and not c.type.tz:
            c = c.cast(pa.timestamp("us")).cast(f.type)
        elif pa.types.is_dictionary(f.type):
            c = c.cast(f.type.value_type).dictionary_encode().cast(f.type)
        cols.append(c)
    return pa.table(cols, schema=pa.schema([pa.field(f.name, c.type) for f, c in zip(schema, cols)]))


STAT_TYPES = (pa.types.is_integer, pa.types.is_floating, pa.types.is_string, pa.types.is_binary,
              pa.types.is_date32)


def check_statistics(pf, table):
    meta = pf.metadata
    row = 0
    for g in range(meta.num_row_groups):
        rg = meta.row_group(g)
        part = table.slice(row, rg.num_rows)
        row += rg.num_rows
        for c in range(rg.num_columns):
            col = rg.column(c)
            name = col.path_in_schema
            if "." in name or col.statistics is None:
                if "." not in name:
                    raise SystemExit("%s: row group %d has no statistics" % (name, g))
                continue
            st = col.statistics
            values = part.column(name)
            if st.null_count != values.null_count:
                raise SystemExit("%s: null count %s, expected %d" % (name, st.null_count,
                                                                   values.null_count))
            t = values.type
            if pa.types.is_dictionary(t):
                values = values.cast(t.value_type)
                t = t.value_type
            if not any(p(t) for p in STAT_TYPES):
                continue
            if pa.types.is_floating(t):
                values = pc.filter(values, pc.invert(pc.is_nan(values)))
            if len(values) - values.null_count == 0:
                if st.has_min_max:
                    raise SystemExit("%s: min/max of no values" % name)
                continue
            if pa.types.is_string(t) and max(len(v) for v in values.to_pylist() if v) > 4096:
                continue  # left out above 4 KiB, as parquet-mr
            mm = pc.min_max(values)
            want = (mm["min"].as_py(), mm["max"].as_py())
            got = (st.min, st.max)
            if pa.types.is_floating(t):
                want = tuple(float(v) for v in want)
                if want[0] == 0:
                    want = (-0.0, want[1])
                if want[1] == 0:
                    want = (want[0], 0.0)
                if math.copysign(1, got[0]) != math.copysign(1, want[0]) or \
                        math.copysign(1, got[1]) != math.copysign(1, want[1]):
                    raise SystemExit("%s: the signs of zeros in %s, expected %s" % (name, got, want))
            if got != want:
                raise SystemExit("%s row group %d: min/max %s, expected %s" % (name, g, got, want))


def check(ipc_path, pq_path, args):
    opts = dict(a.split("=", 1) for a in args)
    encodings = [a.split("=", 1)[1].split(":") for a in args if a.startswith("encoding=")]
    expected = read_ipc(ipc_path)
    pf = pq.ParquetFile(pq_path, coerce_int96_timestamp_unit="us")
    table = pf.read()
    got = conform(table, expected.schema)
    a, b = dump(expected), dump(got)
    if a != b:
        al, bl = a.splitlines(), b.splitlines()
        for i, (x, y) in enumerate(zip(al, bl)):
            if x != y:
                raise SystemExit("line %d differs:\n  ipc:     %s\n  parquet: %s" % (i, x[:300], y[:300]))
        raise SystemExit("%d lines read, %d written" % (len(bl), len(al)))
    meta = pf.metadata
    kv = meta.metadata or {}
    spark = json.loads(kv.get(b"org.apache.spark.sql.parquet.row.metadata", b"{}"))
    if [f["name"] for f in spark.get("fields", [])] != expected.schema.names:
        raise SystemExit("the Spark schema JSON names other columns: %s" % spark)
    if kv.get(b"org.apache.spark.version") is None or not meta.created_by.startswith("cspark"):
        raise SystemExit("footer: %s, created_by %s" % (kv.keys(), meta.created_by))
    codec = opts.get("codec", "SNAPPY")
    groups = int(opts.get("groups", "1"))
    if meta.num_rows and meta.num_row_groups < groups:
        raise SystemExit("%d row groups, expected at least %d" % (meta.num_row_groups, groups))
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            if col.compression != codec:
                raise SystemExit("%s is %s, expected %s" % (col.path_in_schema, col.compression, codec))
    int96 = opts.get("int96")
    for i in range(len(pf.schema)):
        col = pf.schema.column(i)
        if int96 is not None and col.path.endswith("ts") and \
                (col.physical_type == "INT96") != (int96 == "1"):
            raise SystemExit("%s is %s" % (col.path, col.physical_type))
    fallback = opts.get("fallback")
    if fallback:
        col = next(meta.row_group(0).column(c) for c in range(meta.num_columns)
                   if meta.row_group(0).column(c).path_in_schema == fallback)
        enc = set(col.encodings)
        if not ({"PLAIN_DICTIONARY", "RLE_DICTIONARY"} & enc and "PLAIN" in enc) or \
                not col.has_dictionary_page:
            raise SystemExit("%s: encodings %s, expected a dictionary and PLAIN" % (fallback, enc))
    v2 = opts.get("v2")
    if v2 is not None:
        page_type = read_first_page_type(pq_path, meta)
        if page_type != (3 if v2 == "1" else 0):
            raise SystemExit("the first data page is of type %d" % page_type)
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            col = meta.row_group(g).column(c)
            floats = col.physical_type in ("FLOAT", "DOUBLE")  # none with a NaN
            if not col.has_offset_index or \
                    (col.has_column_index != (col.physical_type != "INT96") and not floats):
                raise SystemExit("%s, row group %d: offset index %s, column index %s"
                                 % (col.path_in_schema, g, col.has_offset_index,
                                    col.has_column_index))
            for path, enc in encodings:
                if col.path_in_schema == path and enc not in col.encodings:
                    raise SystemExit("%s, row group %d: encodings %s, expected %s"
                                     % (path, g, col.encodings, enc))
    check_statistics(pf, got)
    print("ok: %d rows, %d row groups" % (meta.num_rows, meta.num_row_groups))


def read_first_page_type(path, meta):
    """The type of the first data page of the first column (thrift compact: field 1, i32)."""
    col = meta.row_group(0).column(0)
    with open(path, "rb") as f:
        f.seek(col.data_page_offset)
        head = f.read(2)
    if head[0] != 0x15:
        raise SystemExit("unexpected page header byte %#x" % head[0])
    return head[1] >> 1  # zigzag


def main():
    cmd = sys.argv[1]
    if cmd == "big":
        big(sys.argv[2])
    elif cmd == "wide":
        wide(sys.argv[2])
    elif cmd == "sorted":
        sorted_stream(sys.argv[2])
    elif cmd == "skip":
        skip(sys.argv[2], sys.argv[3])
    elif cmd == "check":
        check(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == "rows":
        table = read_ipc(sys.argv[2])
        if len(sys.argv) > 3:  # the rows of k in [FROM, TO)
            lo, hi = int(sys.argv[3]), int(sys.argv[4])
            table = table.filter(pc.and_(pc.greater_equal(table["k"], lo), pc.less(table["k"], hi)))
        parquet_rows.arrow_rows(table, ipc.spark_type, sys.stdout)
    else:
        raise SystemExit("usage: big FILE | wide FILE | sorted FILE | skip TOOL PARQUET | check IPC PARQUET [...] | rows IPC")


if __name__ == "__main__":
    main()
