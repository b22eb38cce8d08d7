"""arrow_ipc_pyarrow.py — pyarrow's side of tests/formats/arrow_ipc_pyarrow.sh.

  dump FILE           reads an Arrow IPC stream with pyarrow and prints the canonical dump of
                      tests/formats/ipc_sample.h (schema line, then one line per row)
  write FILE [CODEC]  writes a table with a column of every Spark type (nested, nulls, extremes,
                      a dictionary column whose dictionary grows by a delta and is then replaced)
                      in several batches as an Arrow IPC stream (bodies compressed with CODEC,
                      lz4 or zstd, when given), and prints its dump
  rewrite IN OUT      reads IN with pyarrow and writes its batches again with pyarrow to OUT
  equal FILE_A FILE_B the two streams hold the same schema (pyarrow's equality) and values

Run with the python3 of scripts/install-pytools.sh (pinned pyarrow). Exit 0, or 1 with a line.
"""
import datetime
import decimal
import io
import struct
import sys

import pyarrow as pa


def spark_type(t):
    if pa.types.is_dictionary(t):
        return spark_type(t.value_type)
    if pa.types.is_boolean(t):
        return "boolean"
    for check, name in ((pa.types.is_int8, "tinyint"), (pa.types.is_int16, "smallint"),
                        (pa.types.is_int32, "int"), (pa.types.is_int64, "bigint"),
                        (pa.types.is_float32, "float"), (pa.types.is_float64, "double"),
                        (pa.types.is_string, "string"), (pa.types.is_binary, "binary"),
                        (pa.types.is_date32, "date")):
        if check(t):
            return name
    if pa.types.is_decimal(t):
        return "decimal(%d,%d)" % (t.precision, t.scale)
    if pa.types.is_timestamp(t):
        assert t.unit == "us", t
        return "timestamp" if t.tz else "timestamp_ntz"
    if pa.types.is_map(t):
        return "map<%s,%s>" % (spark_type(t.key_type), spark_type(t.item_type))
    if pa.types.is_list(t):
        return "array<%s>" % spark_type(t.value_type)
    if pa.types.is_struct(t):
        return "struct<%s>" % ",".join("%s:%s" % (f.name, spark_type(f.type)) for f in t)
    raise SystemExit("no Spark type for %s" % t)


def unscaled(d, scale):
    sign, digits, exp = d.as_tuple()
    n = int("".join(map(str, digits)) or "0")
    shift = exp + scale
    n = n * 10 ** shift if shift >= 0 else n // 10 ** (-shift)
    return -n if sign else n


def value(s):
    """The canonical text of one pyarrow scalar."""
    if not s.is_valid:
        return "null"
    t = s.type
    if pa.types.is_dictionary(t):
        return value(s.value)
    if pa.types.is_boolean(t):
        return "true" if s.as_py() else "false"
    if pa.types.is_integer(t):
        return str(s.as_py())
    if pa.types.is_float32(t):
        return "f:%08x" % struct.unpack("<I", struct.pack("<f", s.as_py()))[0]
    if pa.types.is_float64(t):
        return "d:%016x" % struct.unpack("<Q", struct.pack("<d", s.as_py()))[0]
    if pa.types.is_decimal(t):
        return str(unscaled(s.as_py(), t.scale))
    if pa.types.is_string(t):
        return "x:" + s.as_py().encode("utf-8").hex()
    if pa.types.is_binary(t):
        return "x:" + s.as_py().hex()
    if pa.types.is_date32(t) or pa.types.is_timestamp(t):
        return str(s.cast(pa.int32() if pa.types.is_date32(t) else pa.int64()).as_py())
    if pa.types.is_map(t):
        e = s.values
        if e is None:
            return "<>"
        keys, vals = e.field(0), e.field(1)
        return "<" + ",".join(value(keys[i]) + "=" + value(vals[i]) for i in range(len(e))) + ">"
    if pa.types.is_list(t):
        v = s.values
        return "[" + ",".join(value(v[i]) for i in range(len(v))) + "]" if v is not None else "[]"
    if pa.types.is_struct(t):
        return "{" + ",".join(value(s[i]) for i in range(t.num_fields)) + "}"
    raise SystemExit("cannot dump %s" % t)


def dump(batches, out):
    first = True
    for b in batches:
        if first:
            fields = []
            for f in b.schema:
                fields.append("%s:%s%s" % (f.name, spark_type(f.type),
                                           "#dict" if pa.types.is_dictionary(f.type) else ""))
            out.write("schema struct<%s>\n" % ",".join(fields))
            first = False
        cols = b.columns
        for r in range(b.num_rows):
            out.write(" | ".join(value(c[r]) for c in cols) + "\n")


def sample_table_batches():
    """Batches with every type, built by pyarrow's own constructors."""
    def el(t, nullable=True):
        return pa.field("element", t, nullable)
    deep_t = pa.struct([pa.field("p", pa.float64()), pa.field("q", pa.list_(el(pa.string())))])
    schema = pa.schema([
        pa.field("b", pa.bool_()), pa.field("i8", pa.int8()), pa.field("i16", pa.int16()),
        pa.field("i32", pa.int32(), False), pa.field("i64", pa.int64()),
        pa.field("f32", pa.float32()), pa.field("f64", pa.float64()),
        pa.field("dec38", pa.decimal128(38, 10)), pa.field("dec5", pa.decimal128(5, 2)),
        pa.field("s", pa.string()), pa.field("bin", pa.binary()), pa.field("d", pa.date32()),
        pa.field("ts", pa.timestamp("us", tz="UTC")), pa.field("ntz", pa.timestamp("us")),
        pa.field("arr", pa.list_(el(pa.int32()))),
        pa.field("st", pa.struct([pa.field("x", pa.int32()), pa.field("y", pa.string())])),
        pa.field("m", pa.map_(pa.string(), pa.int64())),
        pa.field("deep", pa.list_(el(deep_t, False))),
        pa.field("dict", pa.dictionary(pa.int32(), pa.string())),
    ])
    decimal.getcontext().prec = 60  # 38 digits; the default context rounds at 28
    big = decimal.Decimal("9" * 28 + "." + "9" * 10)
    words = ["", "a", "héllo", "Spark", "ünïcödé ✓", "x y z", "ü" * 40]
    batches = []
    dictionary = ["red", "green", "blue"]
    for k, rows in enumerate((7, 0, 12, 5)):
        cols = {n: [] for n in schema.names}
        for r in range(rows):
            null = r % 5 == 4
            x = (r * 7919 + k * 104729) % 1000003
            def put(name, v):
                cols[name].append(None if null else v)
            put("b", x % 2 == 0)
            put("i8", -128 if r == 0 else x % 256 - 128)
            put("i16", 32767 if r == 0 else x % 65536 - 32768)
            cols["i32"].append(-2147483648 if r == 0 else x - 500000)
            put("i64", -(2 ** 63) if r == 0 else (2 ** 63 - 1 if r == 1 else x * 1000003 - 2 ** 40))
            put("f32", [-0.0, float("inf"), 1.5, -3.25][r % 4] if r < 4 else x / 8.0)
            put("f64", [float("nan"), float("-inf"), 5e-324][r] if r < 3 else x / 3.0)
            put("dec38", -big if r == 0 else (big if r == 1 else decimal.Decimal(x).scaleb(-10)))
            put("dec5", decimal.Decimal(x % 199999 - 99999).scaleb(-2))
            put("s", words[(r + k) % 7])
            put("bin", bytes([0, 255, r, 128, k])[: r % 6])
            put("d", datetime.date(1, 1, 1) + datetime.timedelta(days=x) if r else datetime.date(1, 1, 1))
            put("ts", x * 123456789 - 2 ** 40)
            put("ntz", 253402300799999999 if r == 0 else x * 987654321)
            put("arr", [None if j == 1 else r * 10 + j for j in range(x % 4)])
            put("st", {"x": x, "y": None if r % 3 == 1 else words[r % 7]})
            put("m", [("k%d" % j, None if (r + j) % 4 == 0 else r * 100 + j) for j in range(r % 3)])
            put("deep", [{"p": r + j / 4, "q": [words[(r + q) % 7] for q in range(j + 1)]}
                         for j in range(r % 2 + 1)])
            put("dict", x % 3)
        arrays = []
        for f in schema:
            if f.name == "dict":
                if k == 2:
                    dictionary = dictionary + ["cyan"]  # a delta
                if k == 3:
                    dictionary = ["one", "two", "three", "four"]  # a replacement
                idx = pa.array(cols["dict"], pa.int32())
                arrays.append(pa.DictionaryArray.from_arrays(idx, pa.array(dictionary)))
            elif f.name in ("ts", "ntz"):
                arrays.append(pa.array(cols[f.name], pa.int64()).cast(f.type))
            else:
                arrays.append(pa.array(cols[f.name], f.type))
        batches.append(pa.record_batch(arrays, schema=schema))
    return schema, batches


def main():
    cmd = sys.argv[1]
    if cmd == "dump":
        with pa.ipc.open_stream(open(sys.argv[2], "rb")) as r:
            dump(r, sys.stdout)
    elif cmd == "write":
        schema, batches = sample_table_batches()
        codec = sys.argv[3] if len(sys.argv) > 3 else None
        opts = pa.ipc.IpcWriteOptions(emit_dictionary_deltas=True, compression=codec)
        with pa.ipc.new_stream(sys.argv[2], schema, options=opts) as w:
            for b in batches:
                w.write_batch(b)
        dump(batches, sys.stdout)
    elif cmd == "rewrite":
        with pa.ipc.open_stream(open(sys.argv[2], "rb")) as r:
            opts = pa.ipc.IpcWriteOptions(emit_dictionary_deltas=True)
            with pa.ipc.new_stream(sys.argv[3], r.schema, options=opts) as w:
                for b in r:
                    w.write_batch(b)
    elif cmd == "equal":
        # pyarrow's equality holds NaN unequal to itself: values are compared by their dumps
        # (floats bit for bit), types by pyarrow's schema equality, field names and nullability
        texts, schemas = [], []
        for path in sys.argv[2:4]:
            with pa.ipc.open_stream(open(path, "rb")) as r:
                out = io.StringIO()
                dump(r, out)
                schemas.append(r.schema)
                texts.append(out.getvalue())
        if not schemas[0].equals(schemas[1]):
            raise SystemExit("schemas differ:\n%s\n--\n%s" % tuple(schemas))
        if texts[0] != texts[1]:
            raise SystemExit("values differ")
        print("equal: %d rows, %d columns" % (texts[0].count("\n") - 1, len(schemas[0])))
    else:
        raise SystemExit("usage: dump FILE | write FILE | equal A B")


if __name__ == "__main__":
    main()
