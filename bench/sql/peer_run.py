"""peer_run.py — one process of a peer engine of the SQL benchmark: registers the TPC-H tables,
runs the given query files in order and exits, as `spark-sql -i views.sql -f q.sql` does for
Spark. Run by bench/sql/tpch_bench.py under the python3 of scripts/install-benchtools.sh, one
process per query (whole-process time) or one for all queries.

    peer_run.py ENGINE DATA_DIR OUT.jsonl QUERY.sql...

ENGINE: duckdb (threads=2), datafusion (target_partitions=2) or sail (pysail's Spark Connect
server started in this process on a loopback port, queried through the PySpark Connect client,
session time zone UTC). DATA_DIR holds <table>.parquet for the 8 TPC-H tables.

Per query: after the rows are fetched into Python values, a line on stderr as spark-sql prints
it, "Time taken: 1.234 seconds, Fetched 4 row(s)" (the job-only time: the query's run and fetch,
not the process's start nor the tables' registration), and a JSON line in OUT.jsonl:
{"query": "q01", "rows": [["A", "1.50", ...], ...]} with every value as text (NULL for null,
decimals in plain notation, doubles as Python's repr, dates ISO). A failing query writes
{"query": ..., "error": "..."} and the process goes on to the next one, exiting 1 at the end.
"""
import datetime
import decimal
import json
import os
import sys
import time

TABLES = ["customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]


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


class DuckDB:
    def __init__(self, data):
        import duckdb
        self.con = duckdb.connect()
        self.con.execute("SET threads = 2")
        for t in TABLES:
            path = os.path.join(data, t + ".parquet").replace("'", "''")
            self.con.execute("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')" % (t, path))

    def run(self, sql):
        return self.con.execute(sql).fetchall()


class DataFusion:
    def __init__(self, data):
        import datafusion
        config = datafusion.SessionConfig().with_target_partitions(2)
        self.ctx = datafusion.SessionContext(config)
        for t in TABLES:
            self.ctx.register_parquet(t, os.path.join(data, t + ".parquet"))

    def run(self, sql):
        import pyarrow
        batches = self.ctx.sql(sql).collect()
        if not batches:
            return []
        table = pyarrow.Table.from_batches(batches)
        cols = [c.to_pylist() for c in table.columns]
        return list(zip(*cols))


class Sail:
    def __init__(self, data):
        from pysail.spark import SparkConnectServer
        from pyspark.sql import SparkSession
        self.server = SparkConnectServer(ip="127.0.0.1", port=0)
        self.server.start(background=True)
        _, port = self.server.listening_address
        self.spark = SparkSession.builder.remote("sc://127.0.0.1:%d" % port).getOrCreate()
        self.spark.conf.set("spark.sql.session.timeZone", "UTC")
        for t in TABLES:
            self.spark.read.parquet(os.path.join(data, t + ".parquet")).createOrReplaceTempView(t)

    def run(self, sql):
        return [tuple(r) for r in self.spark.sql(sql).collect()]

    def close(self):
        self.spark.stop()
        self.server.stop()


ENGINES = {"duckdb": DuckDB, "datafusion": DataFusion, "sail": Sail}


def main(argv):
    if len(argv) < 4 or argv[0] not in ENGINES:
        print("usage: peer_run.py duckdb|datafusion|sail DATA_DIR OUT.jsonl QUERY.sql...",
              file=sys.stderr)
        return 2
    engine, data, out_path, queries = argv[0], argv[1], argv[2], argv[3:]
    runner = ENGINES[engine](data)
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
            out.write(json.dumps({"query": name, "rows": [[text(v) for v in r] for r in rows]})
                      + "\n")
    if hasattr(runner, "close"):
        runner.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
