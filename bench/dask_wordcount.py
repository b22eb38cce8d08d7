#!/usr/bin/python3
"""dask_wordcount.py — the Dask peer of the word count benchmark.

usage: dask_wordcount.py INPUT OUTDIR [BLOCKSIZE]

Starts a LocalCluster of 2 worker processes with 1 thread each (the analogue of local[2]),
then times only the job (cluster start-up excluded, which favours Dask):

    db.read_text(INPUT, blocksize=BLOCKSIZE).str.split().flatten().frequencies()
      .map(lambda wc: f"{w}\t{c}").to_textfiles(OUTDIR/*.part)

and prints "dask_wordcount: S s (T s with cluster start-up)": the job alone, and what a user
waits for from the script's start (cluster start-up and shutdown included). BLOCKSIZE defaults to 32MiB. str.split()
splits on Unicode whitespace, which equals the example's ASCII whitespace on generated text.
"""
import os
import sys
import time


def main():
    if len(sys.argv) not in (3, 4):
        print("usage: dask_wordcount.py INPUT OUTDIR [BLOCKSIZE]", file=sys.stderr)
        return 2
    import dask.bag as db
    from dask.distributed import Client, LocalCluster

    started = time.monotonic()
    src, outdir = sys.argv[1], sys.argv[2]
    blocksize = sys.argv[3] if len(sys.argv) == 4 else "32MiB"
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        t0 = time.monotonic()
        counts = db.read_text(src, blocksize=blocksize).str.split().flatten().frequencies()
        counts.map(lambda wc: "%s\t%d" % wc).to_textfiles(os.path.join(outdir, "*.part"))
        dt = time.monotonic() - t0
    print("dask_wordcount: %.3f s (%.3f s with cluster start-up)" % (dt, time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
