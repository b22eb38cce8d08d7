"""make_tables.py — writes the small tables tests/sql/corpus/files.sql reads (as ${DATA}/...):
people.parquet (pyarrow, one row group, SNAPPY), people.csv (header, ',' separated) and
sales.parquet, with fixed values, so the same bytes come out on every run and any machine with
the pinned pyarrow (scripts/install-pytools.sh). Called by scripts/spark-sql-golden.sh before
Spark runs the corpus; cspark's SQL tests call it the same way before running files.sql.

    make_tables.py DIR
"""
import datetime
import decimal
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

out = sys.argv[1]
os.makedirs(out, exist_ok=True)

people = [
    (1, "Alice", 34, "Paris", decimal.Decimal("5200.50"), datetime.date(2019, 3, 1)),
    (2, "Bob", 45, "Berlin", decimal.Decimal("6100.00"), datetime.date(2015, 7, 15)),
    (3, "Carla", None, "Paris", decimal.Decimal("4800.25"), datetime.date(2021, 1, 4)),
    (4, "Dan", 29, None, None, datetime.date(2022, 11, 30)),
    (5, "Eve", 52, "Madrid", decimal.Decimal("7300.75"), None),
    (6, "Fritz", 41, "Berlin", decimal.Decimal("5900.00"), datetime.date(2018, 5, 20)),
]
cols = list(zip(*people))
schema = pa.schema([("id", pa.int32()), ("name", pa.string()), ("age", pa.int32()),
                    ("city", pa.string()), ("salary", pa.decimal128(10, 2)),
                    ("hired", pa.date32())])
table = pa.Table.from_arrays([pa.array(c, type=f.type) for c, f in zip(cols, schema)],
                             schema=schema)
pq.write_table(table, os.path.join(out, "people.parquet"), compression="snappy")

with open(os.path.join(out, "people.csv"), "w", encoding="utf-8", newline="\n") as f:
    f.write("id,name,age,city,salary,hired\n")
    for r in people:
        f.write(",".join("" if v is None else str(v) for v in r) + "\n")

sales = {
    "sale_id": pa.array(range(1, 13), type=pa.int64()),
    "person_id": pa.array([1, 2, 1, 3, 5, 5, 6, 2, 1, 4, 6, 5], type=pa.int32()),
    "amount": pa.array([12.5, 40.0, 7.25, 99.0, 3.5, 18.75, 60.0, 22.0, 5.0, 41.5, 8.0, 11.0],
                       type=pa.float64()),
    "qty": pa.array([1, 4, 1, 9, 1, 3, 6, 2, 1, 5, 1, 2], type=pa.int16()),
    "day": pa.array([datetime.date(2024, 1, d) for d in (3, 3, 4, 5, 5, 6, 7, 7, 8, 9, 9, 10)],
                    type=pa.date32()),
}
pq.write_table(pa.table(sales), os.path.join(out, "sales.parquet"), compression="snappy")
