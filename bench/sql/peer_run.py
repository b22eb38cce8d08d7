"""peer_run.py — one process of a peer engine of the SQL benchmark: registers the tables,
runs the given query files in order and exits, as `spark-sql -i views.sql -f q.sql` does for
Spark. Run by bench/sql/tpch_bench.py under the python3 of scripts/install-benchtools.sh, one
process per query (whole-process time) or one for all queries.

    peer_run.py [--cspark-connect-server PATH] [--spark-home DIR] ENGINE DATA_DIR OUT.jsonl Q.sql...

ENGINE: duckdb (threads=2), datafusion (target_partitions=2, identifiers kept as written, as the
Parquet columns are mixed case), or a Spark Connect server queried through the PySpark Connect
client with the session time zone UTC: sail (pysail's server started in this process on a
loopback port), cspark-connect (cspark-connect-server --master local[2], a child process on a
free loopback port, stopped with SIGTERM at the end) or spark-connect (Spark's
SparkConnectServer through $SPARK_HOME/bin/spark-submit --master local[2], likewise). DATA_DIR
holds <table>.parquet for each table (the 8 TPC-H tables, or ClickBench's hits); every
*.parquet entry in it is registered under its name.

The Connect engines also measure, once per process, the time from
`SparkSession.builder.remote(url).getOrCreate()` to the first result of `SELECT 1` collected
(the client's modules imported before, as a program's imports are; the server already listening)
and print it on stderr as "First result after getOrCreate: 0.012 seconds".

Per query: after the rows are fetched into Python values, a line on stderr as spark-sql prints
it, "Time taken: 1.234 seconds, Fetched 4 row(s)" (the job-only time: the query's run and fetch,
not the process's start nor the tables' registration), and a JSON line in OUT.jsonl:
{"query": "q01", "seconds": 1.234, "rows": [["A", "1.50", ...], ...]} with every value as text (NULL for null,
decimals in plain notation, doubles as Python's repr, dates ISO). A failing query writes
{"query": ..., "error": "..."} and the process goes on to the next one, exiting 1 at the end.
"""
import argparse
import datetime
import decimal
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time

SERVER_START_TIMEOUT_S = 300


def tables(data):
    """(name, path) of each <name>.parquet file or directory in data."""
    return [(f[:-len(".parquet")], os.path.join(data, f)) for f in sorted(os.listdir(data))
            if f.endswith(".parquet")]


def text(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (datetime.date, datetime.datetime)):
        return v.isoformat()
    return str(v)


def statement(path):
    """The query text of a file: comment lines dropped, no trailing ';'."""
    with open(path, encoding="utf-8") as f:
        lines = [ln for ln in f.read().split("\n") if not ln.lstrip().startswith("--")]
    return "\n".join(lines).strip().rstrip(";").strip()


def arrow_rows(table):
    """The rows of a pyarrow Table as tuples of Python values."""
    return list(zip(*[c.to_pylist() for c in table.columns]))


class DuckDB:
    def __init__(self, data, _):
        import duckdb
        self.con = duckdb.connect()
        self.con.execute("SET threads = 2")
        self.con.execute("SET TimeZone = 'UTC'")
        for t, path in tables(data):
            path = path.replace("'", "''")
            self.con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (t, path))

    def run(self, sql):
        # through Arrow: timestamps with a time zone need no pytz
        return arrow_rows(self.con.execute(sql).to_arrow_table())


class DataFusion:
    def __init__(self, data, _):
        import datafusion
        config = datafusion.SessionConfig().with_target_partitions(2) \
            .set("datafusion.sql_parser.enable_ident_normalization", "false") \
            .set("datafusion.execution.time_zone", "+00:00")
        self.ctx = datafusion.SessionContext(config)
        for t, path in tables(data):
            self.ctx.register_parquet(t, path)

    def run(self, sql):
        import pyarrow
        batches = self.ctx.sql(sql).collect()
        if not batches:
            return []
        return arrow_rows(pyarrow.Table.from_batches(batches))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, server, log_path):
    """Waits until the server's port accepts connections; exits when the server died first."""
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("peer_run: the server exited (%d) before listening; see %s"
                             % (server.returncode, log_path))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("peer_run: the server did not listen within %d s" % SERVER_START_TIMEOUT_S)


class ConnectClient:
    """The PySpark Connect client over a server at 127.0.0.1:port (the same for every server)."""

    def connect(self, port, data):
        from pyspark.sql import SparkSession
        import pyspark.sql.connect.session  # noqa: F401  (the client's modules: not timed)
        t0 = time.monotonic()
        self.spark = SparkSession.builder.remote("sc://127.0.0.1:%d" % port).getOrCreate()
        self.spark.sql("SELECT 1").collect()
        print("First result after getOrCreate: %.6f seconds" % (time.monotonic() - t0),
              file=sys.stderr, flush=True)
        self.spark.conf.set("spark.sql.session.timeZone", "UTC")
        for t, path in tables(data):
            self.spark.read.parquet(path).createOrReplaceTempView(t)

    def run(self, sql):
        return [tuple(r) for r in self.spark.sql(sql).collect()]


class Sail(ConnectClient):
    def __init__(self, data, _):
        from pysail.spark import SparkConnectServer
        self.server = SparkConnectServer(ip="127.0.0.1", port=0)
        self.server.start(background=True)
        _, port = self.server.listening_address
        self.connect(port, data)

    def close(self):
        self.spark.stop()
        self.server.stop()


class ChildServer(ConnectClient):
    """A Connect server started as a child process on a free port, stopped by close()."""

    def __init__(self, data, opts):
        port = free_port()
        self.log_path = opts.out + ".server.log"
        self.log = open(self.log_path, "wb")
        self.server = subprocess.Popen(self.command(opts, port), stdout=self.log,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        try:
            wait_port(port, self.server, self.log_path)
            self.connect(port, data)
        except BaseException:
            self.stop_server()
            raise

    def stop_server(self):
        if self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.log.close()

    def close(self):
        try:
            self.spark.stop()
        finally:
            self.stop_server()


class CsparkConnect(ChildServer):
    def command(self, opts, port):
        if not opts.cspark_connect_server:
            raise SystemExit("peer_run: cspark-connect needs --cspark-connect-server PATH")
        return [opts.cspark_connect_server, "--master", "local[2]", "--conf",
                "spark.connect.grpc.binding.port=%d" % port, "--conf",
                "spark.sql.session.timeZone=UTC"]


class SparkConnect(ChildServer):
    def command(self, opts, port):
        if not opts.spark_home:
            raise SystemExit("peer_run: spark-connect needs --spark-home DIR")
        return [os.path.join(opts.spark_home, "bin", "spark-submit"), "--master", "local[2]",
                "--driver-memory", opts.spark_driver_memory,
                "--class", "org.apache.spark.sql.connect.service.SparkConnectServer",
                "--conf", "spark.connect.grpc.binding.port=%d" % port,
                "--conf", "spark.connect.grpc.binding.address=127.0.0.1",
                "--conf", "spark.sql.session.timeZone=UTC", "spark-internal"]


ENGINES = {"duckdb": DuckDB, "datafusion": DataFusion, "sail": Sail,
           "cspark-connect": CsparkConnect, "spark-connect": SparkConnect}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cspark-connect-server", help="cspark-connect-server (cspark-connect)")
    p.add_argument("--spark-home", help="Apache Spark's home (spark-connect)")
    p.add_argument("--spark-driver-memory", default="4g")
    p.add_argument("engine", choices=sorted(ENGINES))
    p.add_argument("data")
    p.add_argument("out")
    p.add_argument("queries", nargs="+")
    opts = p.parse_args(argv)
    engine, data, out_path, queries = opts.engine, opts.data, opts.out, opts.queries
    runner = ENGINES[engine](data, opts)
    failed = False
    with open(out_path, "w", encoding="utf-8") as out:
        for path in queries:
            name = os.path.splitext(os.path.basename(path))[0]
            sql = statement(path)
            t0 = time.monotonic()
            try:
                rows = runner.run(sql)
            except Exception as e:  # the engine's error, reported per query
                first = (str(e).strip().split("\n") or [""])[0]
                print("peer_run: %s %s: %s" % (engine, name, first), file=sys.stderr)
                out.write(json.dumps({"query": name, "error": first}) + "\n")
                failed = True
                continue
            taken = time.monotonic() - t0
            msg = "Time taken: %.3f seconds" % taken
            if rows:
                msg += ", Fetched %d row(s)" % len(rows)
            print(msg, file=sys.stderr, flush=True)
            out.write(json.dumps({"query": name, "seconds": round(taken, 6),
                                  "rows": [[text(v) for v in r] for r in rows]}) + "\n")
    if hasattr(runner, "close"):
        runner.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
