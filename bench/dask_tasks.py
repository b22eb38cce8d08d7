#!/usr/bin/python3
"""dask_tasks.py — the Dask peer of the scheduler benchmarks.

usage: dask_tasks.py empty N    N empty tasks: client.map(noop, range(N)) + gather;
                                prints "dask_tasks: N tasks in S s, T tasks/s"
       dask_tasks.py tiny N     N sequential tiny jobs, each db.from_sequence(range(100),
                                npartitions=2).count().compute(); prints
                                "dask_tasks: N jobs, median M us, p90 P us, min A us, max B us"

Runs on LocalCluster(n_workers=2, threads_per_worker=1, processes=True); cluster start-up is
not timed.
"""
import sys
import time


def noop(x):
    return None


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("empty", "tiny") or not sys.argv[2].isdigit():
        print("usage: dask_tasks.py empty|tiny N", file=sys.stderr)
        return 2
    import dask.bag as db
    from dask.distributed import Client, LocalCluster

    mode, n = sys.argv[1], int(sys.argv[2])
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        if mode == "empty":
            t0 = time.monotonic()
            futures = client.map(noop, range(n), pure=False)
            client.gather(futures)
            dt = time.monotonic() - t0
            print("dask_tasks: %d tasks in %.3f s, %.0f tasks/s" % (n, dt, n / dt))
        else:
            lat = []
            for _ in range(n):
                t0 = time.monotonic_ns()
                c = db.from_sequence(range(100), npartitions=2).count().compute()
                lat.append((time.monotonic_ns() - t0) // 1000)
                assert c == 100
            lat.sort()
            p90 = lat[(9 * n + 9) // 10 - 1]
            print("dask_tasks: %d jobs, median %d us, p90 %d us, min %d us, max %d us"
                  % (n, lat[(n - 1) // 2], p90, lat[0], lat[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
