"""parquet_rows.py — one canonical text for rows as pyarrow gives them (to_pylist, typed by
Arrow types) and as Apache Spark gives them (collect(), typed by Spark types), so that
tests/spark/parquet_writer.sh can compare what Spark reads from cspark's Parquet files with what
pyarrow reads from the Arrow streams they were written from.

Values: null; true/false; integers; floats by repr (nan); decimals in plain notation; strings as
JSON (longer than 200 characters: their length and SHA-1); binary as hex; timestamps as
microseconds since the epoch (UTC); dates in ISO form; [lists]; <maps k=v>; {structs}.
Imported by parquet_writer_pyarrow.py (pyarrow's python) and tests/spark/parquet_writer/
spark_read.py (Spark's python): no dependency beyond the standard library.
"""
import datetime
import decimal
import hashlib
import json
import math

EPOCH = datetime.datetime(1970, 1, 1)


def prim(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, str):
        if len(v) > 200:
            return "s:%d:%s" % (len(v), hashlib.sha1(v.encode("utf-8")).hexdigest())
        return json.dumps(v)
    if isinstance(v, (bytes, bytearray)):
        return "x:" + bytes(v).hex()
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        return "t:%d" % ((v - EPOCH) // datetime.timedelta(microseconds=1))
    if isinstance(v, datetime.date):
        return "d:" + v.isoformat()
    raise SystemExit("no canonical form for %r" % (v,))


def arrow_value(v, t):
    """v from pyarrow's to_pylist, t its pyarrow type."""
    import pyarrow as pa
    if v is None:
        return "null"
    if pa.types.is_dictionary(t):
        return arrow_value(v, t.value_type)
    if pa.types.is_map(t):
        return "<" + ",".join(arrow_value(k, t.key_type) + "=" + arrow_value(x, t.item_type)
                              for k, x in v) + ">"
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return "[" + ",".join(arrow_value(x, t.value_type) for x in v) + "]"
    if pa.types.is_struct(t):
        return "{" + ",".join(arrow_value(v[f.name], f.type) for f in t) + "}"
    return prim(v)


def spark_value(v, t):
    """v from a Spark Row, t its pyspark DataType."""
    from pyspark.sql import types as T
    if v is None:
        return "null"
    if isinstance(t, T.MapType):
        return "<" + ",".join(spark_value(k, t.keyType) + "=" + spark_value(x, t.valueType)
                              for k, x in v.items()) + ">"
    if isinstance(t, T.ArrayType):
        return "[" + ",".join(spark_value(x, t.elementType) for x in v) + "]"
    if isinstance(t, T.StructType):
        return "{" + ",".join(spark_value(v[i], f.dataType) for i, f in enumerate(t.fields)) + "}"
    return prim(v)


def arrow_rows(table, spark_type, out):
    """The schema line (Spark's simpleString) and one line per row of a pyarrow table."""
    out.write("schema struct<%s>\n" % ",".join(
        "%s:%s" % (f.name, spark_type(f.type)) for f in table.schema))
    types = [f.type for f in table.schema]
    for row in table.to_pylist():
        out.write(" | ".join(arrow_value(v, t) for v, t in zip(row.values(), types)) + "\n")


def spark_rows(df, out):
    out.write("schema %s\n" % df.schema.simpleString())
    types = [f.dataType for f in df.schema.fields]
    for row in df.toLocalIterator():
        out.write(" | ".join(spark_value(v, t) for v, t in zip(row, types)) + "\n")
