"""parquet_pyarrow.py — driven by parquet_pyarrow.sh: writes Parquet files with pyarrow (every
physical type, nulls, nested lists and structs, each encoding through use_dictionary and
column_encoding, every codec, data pages v1 and v2, several row groups and pages, INT96
timestamps), reads each with cspark's reader (build/tests/parquet_dump) and compares the
definition levels, repetition levels and non-null physical values with what pyarrow reads,
column by column. Then checks that pyarrow reads a file made of cspark's encoders
(build/tests/parquet_write_sample) as written, and that damaged files fail with one line naming
the file.

usage: parquet_pyarrow.py DUMP_TOOL WORK_DIR      exit 0, or 1 with the first difference
"""
import datetime
import decimal
import json
import math
import os
import random
import struct
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

DUMP, WORK = sys.argv[1], sys.argv[2]
N = 1000
rnd = random.Random(23)


def maybe(v, p=0.15):
    return None if rnd.random() < p else v


def make_table():
    words = ["", "a", "spark", "parquet", "héllo wörld", "x" * 300, "日本語"]
    ts0 = 1_700_000_000_000_000
    cols = {
        "b": pa.array([maybe(rnd.random() < 0.5) for _ in range(N)], pa.bool_()),
        "i8": pa.array([maybe(rnd.randint(-128, 127)) for _ in range(N)], pa.int8()),
        "i16": pa.array([maybe(rnd.randint(-32768, 32767)) for _ in range(N)], pa.int16()),
        "i32": pa.array([maybe(rnd.randint(-(2**31), 2**31 - 1)) for _ in range(N)], pa.int32()),
        "i32s": pa.array([i // 7 for i in range(N)], pa.int32()),  # required-looking, sorted
        "i64": pa.array([maybe(rnd.randint(-(2**63), 2**63 - 1)) for _ in range(N)], pa.int64()),
        "u32": pa.array([maybe(rnd.randint(0, 2**32 - 1)) for _ in range(N)], pa.uint32()),
        "f32": pa.array([maybe(rnd.choice([rnd.uniform(-1e6, 1e6), math.inf, -0.0, math.nan]))
                         for _ in range(N)], pa.float32()),
        "f64": pa.array([maybe(rnd.choice([rnd.uniform(-1e300, 1e300), -math.inf, 1e-310, 0.5]))
                         for _ in range(N)], pa.float64()),
        "s": pa.array([maybe(rnd.choice(words) + str(rnd.randint(0, 20))) for _ in range(N)], pa.string()),
        "bin": pa.array([maybe(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(0, 12))))
                         for _ in range(N)], pa.binary()),
        "flba": pa.array([maybe(bytes([i % 251, 1, 2, 3, rnd.getrandbits(8)])) for i in range(N)],
                         pa.binary(5)),
        "dec": pa.array([maybe(decimal.Decimal(rnd.randint(-10**9, 10**9)) / 100) for _ in range(N)],
                        pa.decimal128(10, 2)),
        "dec38": pa.array([maybe(decimal.Decimal(rnd.randint(-10**37, 10**37)) / 10**5) for _ in range(N)],
                          pa.decimal128(38, 5)),
        "date": pa.array([maybe(datetime.date(1970, 1, 1) + datetime.timedelta(days=rnd.randint(-50000, 50000)))
                          for _ in range(N)], pa.date32()),
        "ts": pa.array([maybe(ts0 + rnd.randint(-10**15, 10**15)) for _ in range(N)], pa.timestamp("us", "UTC")),
        "ts_ntz": pa.array([maybe(ts0 + rnd.randint(-10**15, 10**15)) for _ in range(N)], pa.timestamp("us")),
        "li": pa.array([maybe([maybe(rnd.randint(-5, 5), 0.1) for _ in range(rnd.randint(0, 4))])
                        for _ in range(N)], pa.list_(pa.int32())),
        "ls": pa.array([maybe([maybe(rnd.choice(words), 0.1) for _ in range(rnd.randint(0, 3))])
                        for _ in range(N)], pa.list_(pa.string())),
        "st": pa.array([maybe({"x": maybe(rnd.randint(0, 100)), "y": maybe(rnd.choice(words))})
                        for _ in range(N)], pa.struct([("x", pa.int32()), ("y", pa.string())])),
        "lst": pa.array([maybe([maybe({"k": maybe(rnd.randint(0, 9))}, 0.1) for _ in range(rnd.randint(0, 3))])
                         for _ in range(N)], pa.list_(pa.struct([("k", pa.int64())]))),
    }
    return pa.table(cols)


def physical(typ, v, type_length):
    """What cspark's dump prints for one non-null value of Arrow type typ."""
    if pa.types.is_boolean(typ):
        return v
    if pa.types.is_integer(typ):
        bits = 64 if typ.bit_width == 64 else 32
        return v - (1 << bits) if v >= 1 << (bits - 1) else v
    if pa.types.is_floating(typ):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if pa.types.is_string(typ):
        return v.encode().hex()
    if pa.types.is_binary(typ) or pa.types.is_fixed_size_binary(typ):
        return v.hex()
    if pa.types.is_decimal(typ):
        unscaled = int(v.scaleb(typ.scale))
        return unscaled.to_bytes(type_length, "big", signed=True).hex()
    if pa.types.is_date32(typ):
        return (v - datetime.date(1970, 1, 1)).days
    raise AssertionError(f"no physical form for {typ}")


def shred(typ, v, path, d, r, rdepth, out, nullable=True):
    """Dremel levels of one leaf (path below typ) for value v of a field (nullable: OPTIONAL, which
    counts in the definition level; else REQUIRED): appends (definition level, repetition level,
    value or None) per entry."""
    if v is None:
        out.append((d, r, None))
        return
    if nullable:
        d += 1
    if pa.types.is_list(typ):  # optional list > repeated group "list" > optional "element"
        if len(v) == 0:
            out.append((d, r, None))
            return
        for i, e in enumerate(v):
            shred(typ.value_type, e, path[2:], d + 1, r if i == 0 else rdepth + 1, rdepth + 1, out)
    elif pa.types.is_struct(typ):
        shred(typ.field(path[0]).type, v[path[0]], path[1:], d, r, rdepth, out)
    else:
        out.append((d, r, v))


def expected_columns(path, table_for_levels):
    """(path, def, rep, values) per leaf, in the file's leaf order."""
    pf = pq.ParquetFile(path)
    schema = pf.metadata.schema
    out = []
    for i in range(len(schema)):
        leaf = schema.column(i)
        parts = leaf.path.split(".")
        top = parts[0]
        col = table_for_levels.column(top)
        typ = col.type
        py = col.to_pylist()
        if pa.types.is_timestamp(typ) or pa.types.is_date32(typ):
            py = col.cast(pa.int64() if pa.types.is_timestamp(typ) else pa.int32()).to_pylist()
        levels = []
        for v in py:
            shred(typ, v, parts[1:], 0, 0, 0, levels, table_for_levels.schema.field(top).nullable)
        leaf_type = typ
        for p in parts[1:]:
            if pa.types.is_list(leaf_type):
                leaf_type = leaf_type.value_type
            elif pa.types.is_struct(leaf_type) and p in [f.name for f in leaf_type]:
                leaf_type = leaf_type.field(p).type
        if pa.types.is_timestamp(leaf_type):
            leaf_type = pa.int64()
        if pa.types.is_date32(leaf_type):
            leaf_type = pa.int32()
        mx = leaf.max_definition_level
        values = []
        for d, r, v in levels:
            if d == mx:
                values.append(physical(leaf_type, v, leaf.length or 0))
        out.append((leaf.path, [d for d, _, _ in levels], [r for _, r, _ in levels], values,
                    leaf.max_definition_level, leaf.max_repetition_level))
    return out


def int96_expected(table, path):
    ns = table.column("t96").cast(pa.int64()).to_pylist()
    vals = []
    for x in ns:
        if x is None:
            continue
        days, nod = divmod(x, 86_400_000_000_000)
        vals.append(struct.pack("<qi", nod, days + 2440588).hex())
    return vals


def dump(path):
    p = subprocess.run([DUMP, path], capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"parquet_dump {path} failed: {p.stderr.strip()}")
    return json.loads(p.stdout)


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def compare(path, table, want_encodings=None, want_pages=None, want_codec=None):
    got = dump(path)
    if got["num_rows"] != table.num_rows:
        raise AssertionError(f"{path}: {got['num_rows']} rows, pyarrow wrote {table.num_rows}")
    exp = expected_columns(path, table)
    if len(exp) != len(got["columns"]):
        raise AssertionError(f"{path}: {len(got['columns'])} leaf columns, pyarrow has {len(exp)}")
    for (p, defs, reps, vals, mdef, mrep), g in zip(exp, got["columns"]):
        if g["path"] != p:
            raise AssertionError(f"{path}: leaf {g['path']} where pyarrow has {p}")
        if (g["max_def"], g["max_rep"]) != (mdef, mrep):
            raise AssertionError(f"{path}: {p}: levels {g['max_def']}/{g['max_rep']}, pyarrow {mdef}/{mrep}")
        if mdef > 0 and g["def"] != defs:
            raise AssertionError(f"{path}: {p}: definition levels differ")
        if mrep > 0 and g["rep"] != reps:
            raise AssertionError(f"{path}: {p}: repetition levels differ")
        gv = g["values"]
        if len(gv) != len(vals) or not all(same(a, b) for a, b in zip(gv, vals)):
            bad = next((i for i, (a, b) in enumerate(zip(gv, vals)) if not same(a, b)), min(len(gv), len(vals)))
            raise AssertionError(f"{path}: {p}: value {bad} differs: cspark "
                                 f"{gv[bad] if bad < len(gv) else 'none'}, pyarrow {vals[bad] if bad < len(vals) else 'none'}")
        want = (want_encodings or {}).get(p) or (want_encodings or {}).get(p.split(".")[0])
        if want and want not in g["encodings"]:
            raise AssertionError(f"{path}: {p}: pages encoded {g['encodings']}, {want} expected")
        if want_pages and want_pages not in g["page_types"]:
            raise AssertionError(f"{path}: {p}: page types {g['page_types']}, {want_pages} expected")
        if want_codec and g["codecs"] != [want_codec]:
            raise AssertionError(f"{path}: {p}: codecs {g['codecs']}, {want_codec} expected")
    return got


def main():
    table = make_table()
    cases = []
    for version in ("1.0", "2.0"):
        v = "DATA_PAGE" if version == "1.0" else "DATA_PAGE_V2"
        for codec, name in (("none", "UNCOMPRESSED"), ("snappy", "SNAPPY"), ("gzip", "GZIP"),
                            ("zstd", "ZSTD"), ("lz4", "LZ4_RAW")):
            for dictionary in (True, False):
                cases.append((f"{codec}_v{version}_dict{int(dictionary)}",
                              dict(compression=codec, data_page_version=version, use_dictionary=dictionary),
                              {c: "RLE_DICTIONARY" for c in ("i32", "s", "li")} if dictionary else
                              {c: "PLAIN" for c in ("i32", "s", "li")}, v, name))
    delta = {"i8": "DELTA_BINARY_PACKED", "i16": "DELTA_BINARY_PACKED", "i32": "DELTA_BINARY_PACKED",
             "i32s": "DELTA_BINARY_PACKED", "i64": "DELTA_BINARY_PACKED", "u32": "DELTA_BINARY_PACKED",
             "date": "DELTA_BINARY_PACKED", "ts": "DELTA_BINARY_PACKED", "li.list.element": "DELTA_BINARY_PACKED",
             "s": "DELTA_LENGTH_BYTE_ARRAY", "bin": "DELTA_BYTE_ARRAY", "ls.list.element": "DELTA_BYTE_ARRAY",
             "flba": "DELTA_BYTE_ARRAY", "dec": "DELTA_BYTE_ARRAY",
             "f32": "BYTE_STREAM_SPLIT", "f64": "BYTE_STREAM_SPLIT", "b": "RLE"}
    for version in ("1.0", "2.0"):
        cases.append((f"delta_v{version}", dict(compression="snappy", data_page_version=version,
                                                use_dictionary=False, column_encoding=delta),
                      delta, "DATA_PAGE" if version == "1.0" else "DATA_PAGE_V2", "SNAPPY"))
    # several row groups, several pages each, dictionary falling back to PLAIN
    cases.append(("row_groups", dict(compression="zstd", row_group_size=300, data_page_size=512,
                                     write_batch_size=64, dictionary_pagesize_limit=256), None, None, "ZSTD"))
    checked = 0
    for name, opts, encs, pages, codec in cases:
        path = f"{WORK}/{name}.parquet"
        pq.write_table(table, path, **opts)
        got = compare(path, table, encs, pages, codec)
        if name == "row_groups" and got["row_groups"] < 3:
            raise AssertionError(f"{path}: {got['row_groups']} row groups, 4 expected")
        checked += 1
    # INT96 timestamps (Spark's legacy timestamp form)
    t96 = pa.table({"t96": pa.array([maybe(1_700_000_000_000_000_000 + rnd.randint(-10**18, 10**18))
                                     for _ in range(N)], pa.timestamp("ns"))})
    path = f"{WORK}/int96.parquet"
    pq.write_table(t96, path, use_deprecated_int96_timestamps=True, use_dictionary=False)
    got = dump(path)
    if got["columns"][0]["type"] != "INT96" or got["columns"][0]["values"] != int96_expected(t96, path):
        raise AssertionError(f"{path}: INT96 values differ from pyarrow's")
    checked += 1
    print(f"parquet_pyarrow: {checked} files read identically to pyarrow")

    # the writer's pieces (cspark's encoders, page headers, FileMetaData) against pyarrow's reader
    path = f"{WORK}/cspark_sample.parquet"
    subprocess.run([os.path.join(os.path.dirname(DUMP), "parquet_write_sample"), path], check=True)
    want = {
        "i32": [None if r % 5 == 0 else r * 7 % 13 for r in range(500)],
        "i64": [r * 1000003 - 250000000 for r in range(500)],
        "s": [None if r % 4 == 0 else f"s{r % 17}" for r in range(500)],
        "b": [r % 3 == 0 for r in range(500)],
        "li": [None if r % 6 == 0 else [] if r % 6 == 1 else [r, None, r + 2] if r % 2 else [r, r + 1]
               for r in range(500)],
    }
    read = pq.read_table(path)
    for name, values in want.items():
        if read.column(name).to_pylist() != values:
            raise AssertionError(f"{path}: pyarrow reads column {name} of cspark's file differently")
    compare(path, read)
    print("parquet_pyarrow: a file of cspark's encoders (dictionary, DELTA_BINARY_PACKED, PLAIN, "
          "RLE levels, v1 and v2 pages, 5 codecs) reads in pyarrow as written")

    # damaged files: one line naming the file, exit 1, never a crash
    good = open(f"{WORK}/none_v1.0_dict0.parquet", "rb").read()
    meta = pq.ParquetFile(f"{WORK}/none_v1.0_dict0.parquet").metadata
    first = meta.row_group(0).column(0).data_page_offset
    damaged = {
        "truncated": (good[: len(good) // 2], "magic PAR1"),
        "wrong_magic": (b"PAR2" + good[4:], "magic PAR1"),
        "footer_length": (good[:-8] + struct.pack("<I", len(good)) + b"PAR1", "footer length"),
        "zero_footer": (good[:-8 - meta.serialized_size] + bytes(meta.serialized_size) + good[-8:], "corrupt footer"),
        "page_garbage": (good[:first] + b"\xff" * 64 + good[first + 64:], "page at byte 0"),
    }
    for name, (data, words) in damaged.items():
        path = f"{WORK}/damaged_{name}.parquet"
        open(path, "wb").write(data)
        p = subprocess.run([DUMP, path], capture_output=True, text=True)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 1 or len(lines) != 1 or path not in lines[0] or words not in lines[0]:
            raise AssertionError(f"damaged file {name}: exit {p.returncode}, stderr {p.stderr!r} "
                                 f"(one line naming the file and '{words}' expected)")
        print(f"parquet_pyarrow: {name}: {lines[0]}")
    # an unsupported codec is named
    path = f"{WORK}/brotli.parquet"
    pq.write_table(table.select(["i32"]), path, compression="brotli")
    p = subprocess.run([DUMP, path], capture_output=True, text=True)
    if p.returncode != 1 or "BROTLI" not in p.stderr or "column i32" not in p.stderr:
        raise AssertionError(f"brotli file: exit {p.returncode}, stderr {p.stderr!r}")
    print(f"parquet_pyarrow: brotli: {p.stderr.strip()}")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(f"FAIL: parquet_pyarrow: {e}", file=sys.stderr)
        sys.exit(1)
