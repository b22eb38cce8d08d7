#!/usr/bin/env python3
"""arrow_tables.py — pyarrow's side of tests/spark/datasource_formats.sh: prints rows in
parquet_rows.py's canonical form, sorted (as spark_tables.py prints Spark's).

  batches DIR   the rows of every DIR/*.arrows (the column batches cspark_read_files gave, each an
                Arrow IPC stream as the record's value).
  write DIR     pyarrow writes a table (byte, short, float, binary, timestamps in microseconds,
                a list and a struct column, nulls) with hive partitioning by year and country
                (a null country: __HIVE_DEFAULT_PARTITION__) as the Parquet dataset DIR.
  dataset DIR   "schema <arrow schema>" and the rows of the Parquet table DIR read by
                pyarrow.dataset with hive partitioning (__HIVE_DEFAULT_PARTITION__ is null).
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "formats"))
import parquet_rows  # noqa: E402
import pyarrow as pa  # noqa: E402
import pyarrow.dataset as ds  # noqa: E402


def print_rows(tables):
    lines = []
    for t in tables:
        types = [f.type for f in t.schema]
        for r in t.to_pylist():
            lines.append(" | ".join(parquet_rows.arrow_value(v, ty)
                                    for v, ty in zip(r.values(), types)))
    sys.stdout.write("".join(x + "\n" for x in sorted(lines)))


def write(d):
    n = 40
    t = pa.table({
        "b": pa.array([None if i % 9 == 4 else i - 20 for i in range(n)], pa.int8()),
        "sh": pa.array([None if i % 9 == 5 else i * 300 for i in range(n)], pa.int16()),
        "f": pa.array([None if i % 9 == 6 else i / 4.0 for i in range(n)], pa.float32()),
        "bin": pa.array([None if i % 9 == 7 else bytes([i, 0, 255 - i]) for i in range(n)]),
        "ts": pa.array([None if i % 9 == 8 else 1700000000000000 + i * 3600000001
                        for i in range(n)], pa.timestamp("us", tz="UTC")),
        "tags": pa.array([None if i % 9 == 1 else ["t%d" % j for j in range(i % 3)]
                          for i in range(n)], pa.list_(pa.string())),
        "pt": pa.array([None if i % 9 == 2 else {"x": i, "y": "p%d" % i} for i in range(n)],
                       pa.struct([("x", pa.int64()), ("y", pa.string())])),
        "year": pa.array([2020 + i % 3 for i in range(n)], pa.int32()),
        "country": pa.array([[None, "FR", "a b"][i % 3 if i % 2 else 1] for i in range(n)]),
    })
    ds.write_dataset(t, d, format="parquet", partitioning=["year", "country"],
                     partitioning_flavor="hive", max_rows_per_group=16)


if sys.argv[1] == "write":
    write(sys.argv[2])
elif sys.argv[1] == "batches":
    tables = []
    for f in sorted(glob.glob(os.path.join(sys.argv[2], "*.arrows"))):
        with pa.ipc.open_stream(pa.OSFile(f, "rb")) as r:
            tables.append(r.read_all())
    print_rows(tables)
else:
    t = ds.dataset(sys.argv[2], format="parquet", partitioning="hive").to_table()
    sys.stdout.write("schema %s\n" % ", ".join("%s:%s" % (f.name, f.type) for f in t.schema))
    print_rows([t])
