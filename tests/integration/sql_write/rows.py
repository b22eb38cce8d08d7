"""sql_write.sh's reader: the rows of a folder written by cspark or Spark, read by pyarrow.

Usage: rows.py FORMAT DIR. Prints the column names, then each row (sorted), one a line; a
partitioned folder's key=value parts are read as columns (hive partitioning). Files starting
with '_' or '.' (_SUCCESS, checksums) are skipped, as Spark skips them, and so are empty files
(Spark may write one for a partition without rows). CSV columns are read as text: pyarrow
would infer each column's type from the first file alone, and a file whose first rows are null in
a column (a part file of a few rows) would then fail the next file's values; the two writers'
texts are compared instead, which is stricter.
"""
import csv
import os
import sys

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.dataset as ds


def main():
    fmt, path = sys.argv[1], sys.argv[2]
    files = []
    for root, dirs, names in os.walk(path):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        files += [os.path.join(root, n) for n in names
                  if not n.startswith(("_", ".")) and os.path.getsize(os.path.join(root, n)) > 0]
    if fmt == "csv":
        header = set()
        for f in files:
            with open(f, newline="") as h:
                header.update(next(csv.reader(h), []))
        fmt = ds.CsvFileFormat(convert_options=pcsv.ConvertOptions(
            strings_can_be_null=True, column_types={n: pa.string() for n in header}))
    table = ds.dataset(sorted(files), format=fmt, partitioning="hive",
                       partition_base_dir=path).to_table()
    print("columns", sorted(table.column_names))
    names = sorted(table.column_names)
    rows = [tuple(repr(r[n]) for n in names) for r in table.to_pylist()]
    for r in sorted(rows):
        print("\t".join(r))


main()
