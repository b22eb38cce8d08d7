"""connect_long_lived.py — what a long-lived Connect server keeps per query: the server's resident
memory and the shuffle files left in its local directory after many small queries with shuffles,
with spark.cleaner.referenceTracking on (cspark's default: a finished query's shuffles and lineage
are given back, docs/sql.md "How a query runs") and off (kept until the server stops). Not a test
(tests/connect/shuffle_files_removed.sh checks the files): a measurement, run by hand
(bench/results/connect_long_lived.md).

    connect_long_lived.py [--server PATH] [--rounds N] [--master URL]

Each setting starts cspark-connect-server (a free loopback port, SPARK_LOCAL_DIRS in a temporary
directory), runs N rounds through the PySpark client (each: an aggregation ordered and limited,
and a shuffled join counted: two SQL executions, three shuffles), reads the server's VmRSS after
round 100 and after the last, counts the shuffle files left while the server still runs, and
stops the server with SIGTERM. Run it with the pinned client's python
(~/.cache/cspark/pyspark-client-4.0.1/python3).
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def run(server, master, rounds, tracking):
    from pyspark.sql import SparkSession
    from pyspark.sql import functions as F
    local = tempfile.mkdtemp(prefix="connect-long-lived-")
    port = free_port()
    env = dict(os.environ, SPARK_LOCAL_DIRS=local)
    proc = subprocess.Popen([server, "--master", master, "--conf", "spark.ui.enabled=false",
                             "--conf", f"spark.connect.grpc.binding.port={port}",
                             "--conf", f"spark.cleaner.referenceTracking={tracking}"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        spark.conf.set("spark.sql.autoBroadcastJoinThreshold", "-1")
        marks = {}
        for i in range(1, rounds + 1):
            (spark.range(20000).groupBy((F.col("id") % 100).alias("k")).count()
             .orderBy("k").limit(1).collect())
            left = spark.range(2000).select((F.col("id") % 50).alias("k"))
            left.join(spark.range(50).select(F.col("id").alias("k")), "k").count()
            if i in (100, rounds):
                marks[i] = rss_kb(proc.pid)
        files = sum(1 for _, _, names in os.walk(local) for n in names if n.startswith("shuffle_"))
        size = sum(os.path.getsize(os.path.join(d, n)) for d, _, names in os.walk(local) for n in names)
        spark.stop()
        per_round = (marks[rounds] - marks[100]) * 1024 / (rounds - 100)
        print(f"referenceTracking={tracking}: RSS {marks[100] / 1024:.1f} MB after 100 rounds, "
              f"{marks[rounds] / 1024:.1f} MB after {rounds} ({per_round:.0f} bytes per round); "
              f"{files} shuffle files ({size / 1e6:.1f} MB) left while the server runs")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
        shutil.rmtree(local, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default="build/bin/cspark-connect-server")
    ap.add_argument("--rounds", type=int, default=1100)
    ap.add_argument("--master", default="local[2]")
    a = ap.parse_args()
    if a.rounds <= 100:
        sys.exit("--rounds must be above 100")
    for tracking in ("true", "false"):
        run(a.server, a.master, a.rounds, tracking)


if __name__ == "__main__":
    main()
