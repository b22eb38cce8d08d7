"""parquet_scan_pyarrow.py — the pyarrow side of parquet_scan_pyarrow.sh (and of
tests/spark/parquet_spark_read.sh): writes Parquet files
with pyarrow (every Spark type, nulls, nested columns, every encoding and codec, several row
groups and pages, data pages v1 and v2), has cspark read them (build/tests/formats/
parquet_scan_tool: batches as an Arrow IPC stream) and checks that the values are identical to
pyarrow's own reading of the file, converted to the Spark types cspark returns. Then splits,
projection, row-group pruning from statistics, and damaged files.

    parquet_scan_pyarrow.py TOOL WORKDIR     exit 0 when every case passes, 1 otherwise
    parquet_scan_pyarrow.py TOOL DIR --spark every DIR/<variant>/part-*.parquet (written by
                                             Spark, its schema in DIR/<variant>/schema.txt):
                                             cspark's schema is Spark's, its values pyarrow's
"""
import datetime
import decimal
import json
import math
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

TOOL, WORK = sys.argv[1], sys.argv[2]
failures = []


def fail(msg):
    failures.append(msg)
    print("FAIL:", msg, file=sys.stderr)


def spark_type(t):
    """The Arrow type cspark returns for what pyarrow reads as t (Spark's mapping)."""
    if pa.types.is_uint8(t):
        return pa.int16()
    if pa.types.is_uint16(t):
        return pa.int32()
    if pa.types.is_uint32(t):
        return pa.int64()
    if pa.types.is_uint64(t):
        return pa.decimal128(20, 0)
    if pa.types.is_timestamp(t):
        return pa.int64()  # compared as microseconds; the zone is checked by the schema
    if pa.types.is_fixed_size_binary(t) or pa.types.is_large_binary(t):
        return pa.binary()
    if pa.types.is_large_string(t):
        return pa.string()
    if pa.types.is_dictionary(t):
        return spark_type(t.value_type)
    if pa.types.is_decimal(t):
        return pa.decimal128(t.precision, t.scale)
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return pa.list_(spark_type(t.value_type))
    if pa.types.is_map(t):
        return pa.map_(spark_type(t.key_type), spark_type(t.item_type))
    if pa.types.is_struct(t):
        return pa.struct([pa.field(f.name, spark_type(f.type)) for f in t])
    return t


def normalize(arr):
    """arr as the canonical comparison form: timestamps to int64 microseconds."""
    t = arr.type
    if pa.types.is_dictionary(t):
        arr = arr.cast(t.value_type)
        t = arr.type
    if pa.types.is_timestamp(t):
        if t.unit != "us":
            arr = arr.cast(pa.timestamp("us", t.tz), safe=False)
        return arr.cast(pa.int64())
    if pa.types.is_struct(t):
        kids = [normalize(arr.field(i)) for i in range(t.num_fields)]
        return pa.StructArray.from_arrays(kids, names=[f.name for f in t], mask=arr.is_null())
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        vals = normalize(arr.values)
        offs = arr.offsets
        return pa.ListArray.from_arrays(offs, vals, mask=arr.is_null())
    if pa.types.is_map(t):
        keys, items = normalize(arr.keys), normalize(arr.items)
        return pa.MapArray.from_arrays(arr.offsets, keys, items, mask=arr.is_null())
    return arr.cast(spark_type(t))


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


def run(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True)


reads = [0]


def cspark_read(path, *opts):
    reads[0] += 1  # a new stream each time: pyarrow may map the file it read
    out = f"{path}.{reads[0]}.arrows"
    r = run("read", path, out, *opts)
    if r.returncode != 0:
        return None, r.stderr.strip()
    with pa.ipc.open_stream(out) as rd:
        t = rd.read_all()
    return t, json.loads(r.stderr.strip().splitlines()[-1])


def compare(name, path, columns=None, opts=(), expect_rows=None):
    t, stats = cspark_read(path, *opts, *(("--columns", ",".join(columns)) if columns else ()))
    if t is None:
        fail(f"{name}: cspark cannot read it: {stats}")
        return None
    ref = pq.read_table(path, columns=columns)
    if t.num_rows != ref.num_rows:
        fail(f"{name}: {t.num_rows} rows, pyarrow reads {ref.num_rows}")
        return stats
    if t.column_names != ref.column_names:
        fail(f"{name}: columns {t.column_names}, pyarrow's {ref.column_names}")
        return stats
    for col in ref.column_names:
        want = normalize(ref.column(col).combine_chunks()).to_pylist()
        got = normalize(t.column(col).combine_chunks()).to_pylist()
        if not same(want, got):
            bad = next(i for i, (x, y) in enumerate(zip(want, got)) if not same(x, y))
            fail(f"{name}: column {col} row {bad}: cspark {got[bad]!r}, pyarrow {want[bad]!r}")
    return stats


def schema_of(path):
    r = run("schema", path)
    return r.stdout.strip() if r.returncode == 0 else "ERROR " + r.stderr.strip()


N = 3000


def nullable(values, every=7):
    return [None if i % every == 3 else v for i, v in enumerate(values)]


def types_table(n=N):
    utc = datetime.timezone.utc
    base = datetime.datetime(2024, 2, 29, 12, 34, 56, 789000)
    return pa.table({
        "b": pa.array(nullable([i % 3 == 0 for i in range(n)]), pa.bool_()),
        "i8": pa.array(nullable([(i % 256) - 128 for i in range(n)]), pa.int8()),
        "i16": pa.array(nullable([(i * 37 % 65536) - 32768 for i in range(n)]), pa.int16()),
        "i32": pa.array(nullable([i * 1000003 % 2**31 - 2**30 for i in range(n)]), pa.int32()),
        "i64": pa.array(nullable([(i * 6700417 - 2**40) * (-1) ** i for i in range(n)]), pa.int64()),
        "u8": pa.array(nullable([i % 256 for i in range(n)]), pa.uint8()),
        "u16": pa.array(nullable([i * 31 % 65536 for i in range(n)]), pa.uint16()),
        "u32": pa.array(nullable([(i * 2654435761) % 2**32 for i in range(n)]), pa.uint32()),
        "u64": pa.array(nullable([(i * 11400714819323198485) % 2**64 for i in range(n)]), pa.uint64()),
        "f32": pa.array(nullable([float("nan") if i % 50 == 1 else i / 3 for i in range(n)]), pa.float32()),
        "f64": pa.array(nullable([float("inf") if i % 60 == 2 else -i / 7 for i in range(n)]), pa.float64()),
        "s": pa.array(nullable([f"str-{i % 97}-é" * (i % 4) for i in range(n)]), pa.string()),
        "bin": pa.array(nullable([bytes([i % 256, 0, 255]) * (i % 3) for i in range(n)]), pa.binary()),
        "fsb": pa.array(nullable([i.to_bytes(4, "big") for i in range(n)]), pa.binary(4)),
        "d9": pa.array(nullable([decimal.Decimal(i * 13 - 9000) / 100 for i in range(n)]), pa.decimal128(9, 2)),
        "d18": pa.array(nullable([decimal.Decimal(i * 10**9 - 7) / 10**4 for i in range(n)]), pa.decimal128(18, 4)),
        "d38": pa.array(nullable([decimal.Decimal((-1) ** i * i * 10**30 + 1) / 10**5 for i in range(n)]), pa.decimal128(38, 5)),
        "dt": pa.array(nullable([datetime.date(1969, 12, 1) + datetime.timedelta(days=i * 7) for i in range(n)]), pa.date32()),
        "ts_ms": pa.array(nullable([(base + datetime.timedelta(seconds=i * 3601)).replace(tzinfo=utc) for i in range(n)]), pa.timestamp("ms", "UTC")),
        "ts_us": pa.array(nullable([base - datetime.timedelta(microseconds=i * 987654321) for i in range(n)]), pa.timestamp("us")),
        "ts_ns": pa.array(nullable([(base + datetime.timedelta(microseconds=i * 1234567)).replace(tzinfo=utc) for i in range(n)]), pa.timestamp("ns", "UTC")),
    })


TYPES_SCHEMA = ("struct<b:boolean,i8:tinyint,i16:smallint,i32:int,i64:bigint,u8:smallint,u16:int,"
                "u32:bigint,u64:decimal(20,0),f32:float,f64:double,s:string,bin:binary,fsb:binary,"
                "d9:decimal(9,2),d18:decimal(18,4),d38:decimal(38,5),dt:date,ts_ms:timestamp,"
                "ts_us:timestamp_ntz,ts_ns:timestamp>")


def nested_table(n=N):
    def lst(i):
        if i % 11 == 0:
            return None
        return [None if j % 5 == 4 else i * 10 + j for j in range(i % 6)]

    return pa.table({
        "id": pa.array(range(n), pa.int32()),
        "li": pa.array([lst(i) for i in range(n)], pa.list_(pa.int32())),
        "ls": pa.array([None if i % 13 == 0 else [f"s{i}-{j}" if j % 3 else None for j in range(i % 4)] for i in range(n)], pa.list_(pa.string())),
        "lst": pa.array([None if i % 9 == 0 else [None if j == 2 else {"a": i + j, "b": None if j == 1 else f"b{j}"} for j in range(i % 4)] for i in range(n)],
                        pa.list_(pa.struct([("a", pa.int64()), ("b", pa.string())]))),
        "st": pa.array([None if i % 8 == 0 else {"x": None if i % 3 == 0 else i, "y": lst(i + 1), "z": {"q": f"q{i}" if i % 4 else None}} for i in range(n)],
                       pa.struct([("x", pa.int32()), ("y", pa.list_(pa.int32())), ("z", pa.struct([("q", pa.string())]))])),
        "m": pa.array([None if i % 10 == 0 else [(f"k{j}", None if j == 1 else i * j) for j in range(i % 4)] for i in range(n)], pa.map_(pa.string(), pa.int64())),
        "ll": pa.array([None if i % 12 == 0 else [None if j == 1 else list(range(j + i % 3)) for j in range(i % 4)] for i in range(n)], pa.list_(pa.list_(pa.int16()))),
        "ml": pa.array([None if i % 14 == 0 else [(j, lst(i + j)) for j in range(i % 3)] for i in range(n)], pa.map_(pa.int32(), pa.list_(pa.int32()))),
    })


NESTED_SCHEMA = ("struct<id:int,li:array<int>,ls:array<string>,lst:array<struct<a:bigint,b:string>>,"
                 "st:struct<x:int,y:array<int>,z:struct<q:string>>,m:map<string,bigint>,"
                 "ll:array<array<smallint>>,ml:map<int,array<int>>>")


def write(name, table, **kw):
    path = os.path.join(WORK, name + ".parquet")
    pq.write_table(table, path, **kw)
    return path


def pruning():
    """Row groups skipped from statistics; what is read still holds every matching row."""
    n = 10000
    t = pa.table({
        "k": pa.array(range(n), pa.int64()),
        "s": pa.array([f"key{i:05d}" for i in range(n)]),
        "u": pa.array([i % 1000 + (i // 1000) * 4000000000 % 2**32 for i in range(n)], pa.uint32()),
        "f": pa.array([i / 4 for i in range(n)], pa.float64()),
        "d": pa.array([datetime.date(2000, 1, 1) + datetime.timedelta(days=i) for i in range(n)]),
        "ts": pa.array([datetime.datetime(2020, 1, 1) + datetime.timedelta(minutes=i) for i in range(n)], pa.timestamp("ms")),
        "some_null": pa.array([None if i < 5000 else i for i in range(n)], pa.int32()),
        "v": pa.array([i * 7 for i in range(n)], pa.int32()),
    })
    path = write("prune", t, row_group_size=1000)
    ts0 = 1577836800 * 1000000  # 2020-01-01 in microseconds
    d0 = 10957  # 2000-01-01 in days
    cases = [  # filter, row groups pruned (of 10), the predicate on a row
        ("k:eq:2500", 9, lambda r: r["k"] == 2500),
        ("k:lt:1000", 9, lambda r: r["k"] < 1000),
        ("k:le:1000", 8, lambda r: r["k"] <= 1000),
        ("k:gt:8999", 9, lambda r: r["k"] > 8999),
        ("k:ge:8999", 8, lambda r: r["k"] >= 8999),
        ("k:in:5|7005|99999", 8, lambda r: r["k"] in (5, 7005, 99999)),
        ("k:eq:-1", 10, lambda r: False),
        ("s:eq:key04321", 9, lambda r: r["s"] == "key04321"),
        ("s:lt:key01000", 9, lambda r: r["s"] < "key01000"),
        ("f:ge:2000.25", 8, lambda r: r["f"] >= 2000.25),
        ("d:eq:" + str(d0 + 3333), 9, lambda r: r["d"] == datetime.date(2000, 1, 1) + datetime.timedelta(days=3333)),
        ("ts:gt:" + str(ts0 + 9000 * 60000000), 9, lambda r: r["ts"] > datetime.datetime(2020, 1, 1) + datetime.timedelta(minutes=9000)),
        ("some_null:isnull:", 5, lambda r: r["some_null"] is None),
        ("some_null:notnull:", 5, lambda r: r["some_null"] is not None),
        ("some_null:eq:7777", 9, lambda r: r["some_null"] == 7777),
        ("k:isnull:", 10, lambda r: False),
        ("u:eq:1", 9, lambda r: r["u"] == 1),  # UINT_32 bounds are compared unsigned:
        ("u:gt:3000000000", 6, lambda r: r["u"] > 3000000000),  # 4 row groups hold values >= 2^31
    ]
    rows = t.to_pylist()
    for spec, pruned, pred in cases:
        got, stats = cspark_read(path, "--filter", spec)
        if got is None:
            fail(f"filter {spec}: {stats}")
            continue
        if stats["row_groups_pruned"] != pruned:
            fail(f"filter {spec}: {stats['row_groups_pruned']} row groups skipped, expected {pruned}")
        read = set(got.column("k").to_pylist())
        missing = [r["k"] for r in rows if pred(r) and r["k"] not in read]
        if missing:
            fail(f"filter {spec}: matching rows not read, k = {missing[:5]}")
        if got.num_rows != (10 - pruned) * 1000:
            fail(f"filter {spec}: {got.num_rows} rows read from {10 - pruned} row groups")
    # two filters: a conjunction
    got, stats = cspark_read(path, "--filter", "k:ge:3000", "--filter", "v:lt:28000")
    if got is None or stats["row_groups_pruned"] != 9:
        fail(f"k >= 3000 and v < 28000: {stats}")
    return len(cases) + 1


def page_skipping():
    """Pages skipped with the page index (ColumnIndex/OffsetIndex) inside one row group, the
    filter on a flat column while nested columns (a list, a struct holding a list, a map) are
    read too: their pages end on other rows, so skipping goes by row ranges, counted in the
    nested columns by their repetition levels. The rows read that pass the predicate are
    exactly pyarrow's filtered read of the file."""
    n = 50000
    t = pa.table({
        "k": pa.array(range(n), pa.int64()),
        "s": pa.array([f"key{i:06d}" for i in range(n)]),
        "v": pa.array([None if i % 5 == 0 else i * 3 for i in range(n)], pa.int32()),
        "tags": pa.array([None if i % 7 == 0 else [f"t{i}-{j}" for j in range(i % 4)]
                          for i in range(n)], pa.list_(pa.string())),
        "st": pa.array([None if i % 11 == 0 else {"a": i, "b": list(range(i % 3))}
                        for i in range(n)],
                       pa.struct([("a", pa.int32()), ("b", pa.list_(pa.int64()))])),
        "m": pa.array([[(f"k{j}", i * j) for j in range(i % 5)] for i in range(n)],
                      pa.map_(pa.string(), pa.int64())),
    })
    cases = 0
    for version in ["1.0", "2.0"]:
        path = write(f"page_index_v{version[0]}", t, row_group_size=n, write_page_index=True,
                     data_page_size=2048, write_batch_size=1000, data_page_version=version,
                     use_dictionary=version == "2.0")  # skipped pages before dictionary ones
        md = pq.ParquetFile(path).metadata
        assert md.num_row_groups == 1 and md.row_group(0).column(0).has_column_index
        rows = t.to_pylist()
        ref = {r["k"]: r for r in rows}
        for spec, pred, filt in [
                ("k:eq:31234", lambda r: r["k"] == 31234, [("k", "==", 31234)]),
                ("k:lt:1500", lambda r: r["k"] < 1500, [("k", "<", 1500)]),
                ("s:ge:key049000", lambda r: r["s"] >= "key049000", [("s", ">=", "key049000")]),
                ("k:in:10|45000", lambda r: r["k"] in (10, 45000), [("k", "in", [10, 45000])]),
                ("v:eq:3", lambda r: r["v"] == 3, [("v", "==", 3)])]:
            want_rows = pq.read_table(path, filters=filt).to_pylist()
            want = [r["k"] for r in want_rows]
            for columns in [None, "k,tags,st,m", "m,k"]:
                for batch in ["4096", "333"]:
                    opts = ["--filter", spec, "--batch", batch]
                    if columns:
                        opts += ["--columns", columns]
                    got, stats = cspark_read(path, *opts)
                    cases += 1
                    what = f"page index v{version} {spec} columns {columns} batch {batch}"
                    if got is None:
                        fail(f"{what}: {stats}")
                        continue
                    read = got.to_pylist()
                    # pages before the first match are skipped undecoded; after the last, not read
                    if (min(want) >= 2000 and stats["pages_skipped"] == 0) or got.num_rows > n // 4:
                        fail(f"{what}: {got.num_rows} rows read, {stats['pages_skipped']} pages skipped")
                    # the rows read are whole, aligned rows of the file
                    for r in read:
                        if any(not same(ref[r["k"]][c], r[c]) for c in r):
                            fail(f"{what}: row {r} is not the file's")
                            break
                    # the rows that pass are pyarrow's filtered read, in its order
                    passing = [r for r in read if pred(ref[r["k"]])]
                    expect = [{c: w[c] for c in got.column_names} for w in want_rows]
                    if not same([tuple(r.items()) for r in passing],
                                [tuple(r.items()) for r in expect]):
                        fail(f"{what}: {len(passing)} rows pass, pyarrow's filtered read has {len(expect)}")
        # no filter: every row, nothing skipped
        got, stats = cspark_read(path)
        if got is None or got.num_rows != n or stats["pages_skipped"] != 0:
            fail(f"page index v{version} without a filter: {stats}")
    return cases


def expect_error(name, path, *words):
    r = run("read", path, path + ".err.arrows")
    lines = r.stderr.strip().splitlines()
    if r.returncode != 1 or len(lines) != 1 or not all(w in lines[0] for w in (path, *words)):
        fail(f"{name}: expected one line naming {path} and {words}, got exit {r.returncode}: {r.stderr!r}")


def damaged():
    """A truncated file, a wrong magic, a page that lies about its size: one line each."""
    src = os.path.join(WORK, "types_SNAPPY_v1_dict.parquet")
    data = open(src, "rb").read()
    out = []

    def save(name, b):
        p = os.path.join(WORK, name)
        open(p, "wb").write(b)
        out.append(p)
        return p

    expect_error("truncated", save("truncated.parquet", data[: len(data) // 2]))
    expect_error("bad magic", save("magic.parquet", b"PAR2" + data[4:]), "magic")
    # the first page of column i32: its compressed_page_size (field 3) made huge
    md = pq.ParquetFile(src).metadata
    col = next(i for i in range(md.num_columns) if md.schema.column(i).path == "i32")
    cm = md.row_group(0).column(col)
    off = cm.dictionary_page_offset or cm.data_page_offset
    b = bytearray(data)
    p = off
    for _ in range(3):  # fields 1, 2, 3: a type byte then a zigzag varint each
        assert b[p] == 0x15, "page header layout"
        p += 1
        start = p
        while b[p] & 0x80:
            p += 1
        p += 1
    for q in range(start, p - 1):  # the same length, the largest even (positive) zigzag value
        b[q] = 0xFF
    b[start] = 0xFE
    b[p - 1] = 0x7F
    expect_error("page lies about its size", save("liar.parquet", bytes(b)), "column i32", "row group 0",
                 "compressed bytes")
    # garbage inside a chunk of column s
    cs = md.row_group(1).column(next(i for i in range(md.num_columns) if md.schema.column(i).path == "s"))
    b = bytearray(data)
    at = (cs.dictionary_page_offset or cs.data_page_offset) + 40
    b[at:at + 64] = bytes(range(64))
    expect_error("garbage page", save("garbage.parquet", bytes(b)), "column s", "row group 1")
    return 4


def main():
    cases = 0
    types = types_table()
    nested = nested_table()
    # the mapping of every type, and of nested ones
    p = write("types", types, row_group_size=1000, data_page_size=4096)
    if schema_of(p) != TYPES_SCHEMA:
        fail(f"types: schema {schema_of(p)}, expected {TYPES_SCHEMA}")
    p = write("nested", nested, row_group_size=1100, data_page_size=2048)
    if schema_of(p) != NESTED_SCHEMA:
        fail(f"nested: schema {schema_of(p)}, expected {NESTED_SCHEMA}")
    # every codec and page version, dictionary and plain
    for codec in ["NONE", "SNAPPY", "GZIP", "ZSTD", "LZ4"]:
        for version in ["1.0", "2.0"]:
            for dictionary in [True, False]:
                for tname, table in [("types", types), ("nested", nested)]:
                    name = f"{tname}_{codec}_v{version[0]}_{'dict' if dictionary else 'plain'}"
                    p = write(name, table, compression=codec, data_page_version=version,
                              use_dictionary=dictionary, row_group_size=1200, data_page_size=8192)
                    compare(name, p)
                    cases += 1
    # the other encodings
    enc_cols = {
        "DELTA_BINARY_PACKED": ["i8", "i16", "i32", "i64", "u32", "dt", "ts_us"],
        "DELTA_LENGTH_BYTE_ARRAY": ["s", "bin"],
        "DELTA_BYTE_ARRAY": ["s", "bin", "fsb", "d38"],
        "BYTE_STREAM_SPLIT": ["f32", "f64", "i32", "i64", "fsb"],
        "RLE": ["b"],
    }
    for enc, cols in enc_cols.items():
        for version in ["1.0", "2.0"]:
            name = f"enc_{enc}_v{version[0]}"
            try:
                p = write(name, types.select(cols), use_dictionary=False, column_encoding={c: enc for c in cols},
                          data_page_version=version, row_group_size=1000, data_page_size=2048)
            except Exception as e:  # an encoding this pyarrow cannot write for a type
                fail(f"{name}: pyarrow cannot write it: {e}")
                continue
            compare(name, p)
            cases += 1
    # decimals stored as INT32 / INT64, INT96 timestamps, a dictionary falling back to PLAIN
    p = write("dec_int", types.select(["d9", "d18", "d38"]), store_decimal_as_integer=True)
    compare("dec_int", p)
    p = write("int96", types.select(["ts_ms", "ts_us", "ts_ns"]), use_deprecated_int96_timestamps=True)
    s = schema_of(p)
    if s != "struct<ts_ms:timestamp,ts_us:timestamp,ts_ns:timestamp>":
        fail(f"int96: schema {s}")
    compare("int96", p)
    # Spark's schema in the footer wins (readSchemaFromFooter): unannotated bytes read as string
    spark_json = json.dumps({"type": "struct", "fields": [
        {"name": "raw", "type": "string", "nullable": True, "metadata": {}},
        {"name": "n", "type": "long", "nullable": False, "metadata": {}}]})
    t = pa.table({"raw": pa.array([b"caf\xc3\xa9", None, b"x"] * 500, pa.binary()),
                  "n": pa.array(range(1500), pa.int64())})
    p = write("spark_metadata", t.replace_schema_metadata({"org.apache.spark.sql.parquet.row.metadata": spark_json}))
    if schema_of(p) != "struct<raw:string,n:bigint>":
        fail(f"spark_metadata: schema {schema_of(p)}, Spark's row metadata says struct<raw:string,n:bigint>")
    got, stats = cspark_read(p)
    if got is None or got.schema.field("raw").type != pa.string() or \
            got.column("raw").to_pylist() != [None if v is None else v.decode() for v in t.column("raw").to_pylist()]:
        fail(f"spark_metadata: binary read as string: {stats}")
    p = write("no_spark_metadata", t)
    if schema_of(p) != "struct<raw:binary,n:bigint>":
        fail(f"no_spark_metadata: schema {schema_of(p)}")
    cases += 2
    wide = pa.table({"s": [f"value-{i}" for i in range(20000)], "t": [f"{i % 5}" for i in range(20000)]})
    p = write("fallback", wide, dictionary_pagesize_limit=4096, row_group_size=20000)
    st = compare("fallback", p, opts=("--batch", "3000"))
    if st and st["dictionary_columns"] == 0:
        fail("fallback: no batch kept a dictionary-encoded column")
    cases += 3
    # batch sizes, projection, splits by row group
    p = os.path.join(WORK, "nested.parquet")
    for batch in ["1", "7", "1000", "100000"]:
        compare(f"nested batch {batch}", p, opts=("--batch", batch))
    compare("projection", os.path.join(WORK, "types.parquet"), columns=["s", "i8", "ts_ns"])
    compare("nested projection", p, columns=["m", "id"])
    for path in [os.path.join(WORK, "types.parquet"), p]:
        size = os.path.getsize(path)
        total = 0
        parts = []
        for k in range(3):
            start, length = size * k // 3, size * (k + 1) // 3 - size * k // 3
            t, stats = cspark_read(path, "--split", f"{start}:{length}")
            if t is None:
                fail(f"split {k} of {path}: {stats}")
                continue
            total += t.num_rows
            parts.append(t)
        ref = pq.read_table(path)
        if total != ref.num_rows:
            fail(f"splits of {path}: {total} rows, the file has {ref.num_rows}")
        elif parts and not same(normalize(pa.concat_tables(parts).column(0).combine_chunks()).to_pylist(),
                                normalize(ref.column(0).combine_chunks()).to_pylist()):
            fail(f"splits of {path}: the splits' rows differ from the file's")
    cases += 8
    cases += pruning()
    cases += page_skipping()
    cases += damaged()
    print(f"{cases} cases compared with pyarrow")
    return 1 if failures else 0


def spark_files():
    """Files Apache Spark wrote: the schema as Spark has it, the values as pyarrow reads them."""
    cases = 0
    for variant in sorted(os.listdir(WORK)):
        d = os.path.join(WORK, variant)
        if not os.path.isdir(d):
            continue
        want = open(os.path.join(d, "schema.txt")).read().strip()
        files = sorted(f for f in os.listdir(d) if f.endswith(".parquet"))
        if not files:
            fail(f"spark {variant}: no Parquet file written")
        for f in files:
            path = os.path.join(d, f)
            got = schema_of(path)
            if got != want:
                fail(f"spark {variant}: cspark's schema {got}, Spark's {want}")
            groups = pq.ParquetFile(path).metadata.num_row_groups
            if groups < 2:
                fail(f"spark {variant}: {groups} row group (several expected)")
            compare(f"spark {variant}", path)
            compare(f"spark {variant} batch 100", path, opts=("--batch", "100"))
            cases += 1
    print(f"{cases} files written by Spark compared with pyarrow")
    return 1 if failures or cases < 7 else 0


if __name__ == "__main__":
    sys.exit(spark_files() if sys.argv[3:] == ["--spark"] else main())
