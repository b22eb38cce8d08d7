"""connect_first_result.py — the Spark Connect issue's latency figure: the time from
`SparkSession.builder.remote(url).getOrCreate()` to the first result, for a client that connects
to a server already running (a program started against a long-lived Connect server), measured
against cspark-connect-server and/or Apache Spark's SparkConnectServer. Not a test: a
measurement, run by hand or after bench/sql/run.sh (bench/results/sql_connect_tpch.md).

    connect_first_result.py [--cspark-connect-server PATH] [--spark-home DIR] [--samples N]
                            [--load N] [--out FILE.json] ENGINE...

ENGINE: cspark-connect or spark-connect; each server is started as peer_run.py starts it
(--master local[2], a free loopback port) and stopped with SIGTERM at the end. Against it, N
client processes run one after another (python3 of this script with --client PORT): each imports
the PySpark Connect client (not timed, as a program's imports are not), then times getOrCreate()
and `spark.sql("SELECT 1").collect()`, and reports that wall time and its own CPU time in it.
The server's CPU time (utime + stime of its process tree, from /proc, counted by the kernel in
ticks of 10 ms: its mean over the clients is the figure) is read before and after each client,
so a busy machine's waiting shows as wall time above the two CPU times. The first
client of each server is reported apart (the server's first session).

--load N: the machine loaded, as this bench defines it: N processes spinning on the CPU (a
Python busy loop each, at normal priority) run from before the server starts until it stops, on
top of whatever else the machine runs (its load averages are reported); 0 (the default) adds
none.

Output: a Markdown table on stdout (milliseconds: wall median, 90th percentile, min and max,
client CPU median and server CPU mean over the clients after the first; the first client's
alone), every sample in FILE.json when --out is given. Exit 0, or 1 with
a line on stderr when a server or a client failed.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import peer_run

TICK = os.sysconf("SC_CLK_TCK")


def client(port):
    """One client process's sample, as a JSON line on stdout."""
    from pyspark.sql import SparkSession
    import pyspark.sql.connect.session  # noqa: F401  (the client's modules: not timed)
    w0, c0 = time.monotonic(), time.process_time()
    spark = SparkSession.builder.remote("sc://127.0.0.1:%d" % port).getOrCreate()
    rows = spark.sql("SELECT 1").collect()
    wall, cpu = time.monotonic() - w0, time.process_time() - c0
    if [tuple(r) for r in rows] != [(1,)]:
        raise SystemExit("connect_first_result: SELECT 1 returned %r" % (rows,))
    print(json.dumps({"wall_s": wall, "client_cpu_s": cpu}), flush=True)
    spark.stop()


def tree_cpu(root):
    """Seconds of CPU (user + system) used so far by root and its live descendants."""
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime
            for tid in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError, IndexError):
            continue
    return total / TICK


def measure(engine, opts):
    """Starts engine's server, runs the clients, stops it; returns the samples."""
    port = peer_run.free_port()
    opts.out_base = os.path.join(opts.work, engine)
    runner = {"cspark-connect": peer_run.CsparkConnect,
              "spark-connect": peer_run.SparkConnect}[engine]
    cmd = runner.__new__(runner).command(opts, port)  # the command only: no __init__
    log_path = opts.out_base + ".server.log"
    with open(log_path, "wb") as log:
        server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True)
        samples = []
        try:
            peer_run.wait_port(port, server, log_path)
            for _ in range(opts.samples):
                s0 = tree_cpu(server.pid)
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--client",
                                      str(port)], capture_output=True, text=True, timeout=600)
                if out.returncode != 0:
                    raise SystemExit("connect_first_result: a client of %s failed: %s"
                                     % (engine, (out.stderr.strip().split("\n") or [""])[-1]))
                rec = json.loads(out.stdout.strip().split("\n")[-1])
                # the server's CPU over the client's whole life: its session, SELECT 1, release
                rec["server_cpu_s"] = tree_cpu(server.pid) - s0
                samples.append(rec)
        finally:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
                try:
                    server.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(server.pid, signal.SIGKILL)
                    server.wait()
    return samples


def row(title, xs):
    def ms(key, pick):
        vals = sorted(x[key] for x in xs)
        return "%.1f" % (pick(vals) * 1000) if vals else "—"
    mid = lambda v: v[len(v) // 2]  # noqa: E731
    p90 = lambda v: v[min(len(v) - 1, (9 * len(v)) // 10)]  # noqa: E731  (nearest rank)
    mean = lambda v: sum(v) / len(v)  # noqa: E731  (the kernel counts in ticks: a mean)
    return "| %s | %d | %s | %s | %s | %s | %s | %s |" % (
        title, len(xs), ms("wall_s", mid), ms("wall_s", p90), ms("wall_s", min),
        ms("wall_s", max), ms("client_cpu_s", mid), ms("server_cpu_s", mean))


def start_load(n):
    """n CPU-spinning processes (the bench's loaded machine), stopped by stop_load."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             stdin=subprocess.DEVNULL) for _ in range(n)]


def stop_load(procs):
    for p in procs:
        p.kill()
    for p in procs:
        p.wait()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--client", type=int, help=argparse.SUPPRESS)
    p.add_argument("--cspark-connect-server")
    p.add_argument("--spark-home")
    p.add_argument("--spark-driver-memory", default="4g")
    p.add_argument("--samples", type=int, default=20)
    p.add_argument("--load", type=int, default=0,
                   help="CPU-spinning processes run during the measurement")
    p.add_argument("--out")
    p.add_argument("--work", default=None, help="directory for the servers' logs")
    p.add_argument("engines", nargs="*")
    opts = p.parse_args(argv)
    if opts.client is not None:
        client(opts.client)
        return 0
    if not opts.engines or any(e not in ("cspark-connect", "spark-connect") for e in opts.engines):
        p.error("ENGINE must be cspark-connect and/or spark-connect")
    if opts.load < 0:
        p.error("--load must be 0 or more")
    if opts.samples < 2:
        p.error("--samples must be at least 2 (the first is reported apart)")
    opts.work = opts.work or os.path.dirname(os.path.abspath(opts.out or "."))
    os.makedirs(opts.work, exist_ok=True)
    with open("/proc/loadavg") as f:
        load_start = " / ".join(f.read().split()[:3])
    results = {"samples": opts.samples, "load": opts.load, "load_start": load_start,
               "engines": {}}
    spinners = start_load(opts.load)
    try:
        for e in opts.engines:
            results["engines"][e] = measure(e, opts)
        with open("/proc/loadavg") as f:
            results["load_end"] = " / ".join(f.read().split()[:3])
    finally:
        stop_load(spinners)
    print("| server | clients | wall median | wall p90 | wall min | wall max | client CPU median "
          "| server CPU mean |")
    print("|---|---|---|---|---|---|---|---|")
    for e, xs in results["engines"].items():
        title = peer_run_title(e)
        print(row(title + ", first client", xs[:1]))
        print(row(title + ", later clients", xs[1:]))
    print("\n%d spinning processes; load average %s at the start, %s at the end"
          % (opts.load, results["load_start"], results["load_end"]))
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump(results, f, indent=1)
            f.write("\n")
    return 0


def peer_run_title(engine):
    return {"cspark-connect": "cspark Connect", "spark-connect": "Spark Connect"}[engine]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
