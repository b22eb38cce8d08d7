"""compare.py — judges tests/spark/bucketed_write.sh: for each table folder under SPARK and
CSPARK (the same tables written by Spark 4 and by cspark), every row must be in the same
partition folder and the same bucket (the _NNNNN suffix of its file name, BucketingUtils'),
each file's rows sorted by the table's sort columns (given as TABLE=col,col), and no file may
lack the bucket suffix. Usage: compare.py SPARK CSPARK [TABLE=sortcols ...]."""
import collections
import os
import re
import sys

import pyarrow.parquet as pq

BUCKET = re.compile(r"^part-\d{5}-[0-9a-f-]{36}_(\d{5})\.c\d{3}\.snappy\.parquet$")


def placements(root):
    """{row tuple: Counter of (folder, bucket)}, and the list of (file, rows as dicts)."""
    out = collections.defaultdict(collections.Counter)
    files = []
    for d, _, names in os.walk(root):
        for n in names:
            if n.startswith(("_", ".")) or n.endswith(".crc"):
                continue
            m = BUCKET.match(n)
            if not m:
                sys.exit(f"FAIL: {os.path.join(d, n)}: no bucket suffix in the file name")
            folder = os.path.relpath(d, root)
            rows = pq.read_table(os.path.join(d, n)).to_pylist()
            files.append((os.path.join(d, n), rows))
            for r in rows:
                out[tuple(sorted(r.items()))][(folder, int(m.group(1)))] += 1
    return out, files


def sort_key(v):
    return (v is not None, v)


def main():
    spark_root, cspark_root = sys.argv[1], sys.argv[2]
    sorts = dict(a.split("=", 1) for a in sys.argv[3:])
    tables = sorted(os.listdir(spark_root))
    if sorted(os.listdir(cspark_root)) != tables:
        sys.exit(f"FAIL: tables differ: {tables} vs {sorted(os.listdir(cspark_root))}")
    bad = 0
    for t in tables:
        want, sfiles = placements(os.path.join(spark_root, t))
        got, cfiles = placements(os.path.join(cspark_root, t))
        if want != got:
            diff = [k for k in set(want) | set(got) if want.get(k) != got.get(k)][:5]
            for k in diff:
                print(f"{t}: row {dict(k)}: Spark {dict(want.get(k, {}))}, cspark {dict(got.get(k, {}))}")
            bad += 1
            continue
        cols = [c for c in sorts.get(t, "").split(",") if c]
        for engine, files in (("Spark", sfiles), ("cspark", cfiles)):
            for path, rows in files:
                keys = [tuple(sort_key(r[c]) for c in cols) for r in rows]
                if keys != sorted(keys):
                    print(f"{t}: {engine}'s {path} is not sorted by {cols}")
                    bad += 1
        buckets = len({b for c in want.values() for b in c})
        print(f"{t}: {len(want)} distinct rows in the same buckets ({buckets} bucket folders/ids)")
    if bad:
        sys.exit(f"FAIL: {bad} table(s) differ")


main()
