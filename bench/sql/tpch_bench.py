"""tpch_bench.py — the SQL benchmark's harness: runs a query set on each engine over the same
Parquet files, checks that all engines return the same rows, and writes a Markdown table, a JSON
record and a PNG plot. Three sets (--suite): the 22 TPC-H queries (tests/sql/tpch/qNN.sql, the
default), the 43 ClickBench queries over a generated `hits` table
(bench/sql/clickbench/queries/qNN.sql), and the RDD benchmarks' word count, join and sort in SQL
over their generators' inputs as tables (bench/sql/rdd/queries/qNN.sql). Called by
bench/sql/run.sh (which makes the data and installs the engines) under the python3 of
scripts/install-benchtools.sh.

    tpch_bench.py --data DIR --scale S --engines cspark,spark,... --out-md FILE [options]
    tpch_bench.py --suite clickbench --rows N --data DIR --engines ... --out-md FILE [options]
    tpch_bench.py --suite rdd --text-bytes B --rows RECORDS --data DIR --engines ... --out-md FILE

Engines (each a process per query: start, register the tables, run, exit):
  cspark      cspark-sql --master local[2] -i views.sql --output-format golden -f qNN.sql
              (--cspark-master and --cspark-conf K=V change its master and settings, e.g.
              local-cluster[2,1,1024] with spark.executor.memory=1024m; --spill-metrics turns on
              its event log and records the tasks' spill metrics per run)
  spark       $SPARK_HOME/bin/spark-sql --master local[2] --driver-memory M -i views.sql -f qNN.sql
              (--spark-master and --spark-conf K=V change its master and settings, e.g. the
              scale-10 run's local-cluster[2,1,2560] with spark.executor.memory=2g, as cspark's)
  duckdb, datafusion, sail    bench/sql/peer_run.py ENGINE (sail: pysail's Spark Connect server
              in the same process, queried through the PySpark Connect client)
  cspark-connect, spark-connect    bench/sql/peer_run.py ENGINE: the same PySpark Connect client
              as Sail's, against cspark-connect-server or Spark's SparkConnectServer, which the
              runner starts as its child (so its start-up is in the whole-process time)
Every engine runs with the session time zone UTC and 2 threads/cores. Query q runs on every
engine before query q+1 starts, and the engines' order rotates by one per query, so a burst of
load from the machine's other users falls on all of them alike. After the per-query runs each
engine runs once more with all queries in one process (JVM and process start-up paid once).

Measured per run: whole-process wall time (from fork to reaping the process); job-only time (the
process's own "Time taken: S seconds" lines, spark-sql's, which cspark-sql and peer_run.py print
the same way); peak RSS of the whole process tree (the sum of VmRSS over the process and all its
descendants, sampled every 100 ms, and at least the kernel's ru_maxrss of the process).

Result check (reference: Spark when it ran the query, else cspark): the column types and the
ordered/sorted mode come from Spark's golden of the query (tests/sql/golden/tpch-sf0.1/qNN.out:
same query, same types at any scale). Rows compare in order when the query has a top-level ORDER
BY, else as a multiset. Values: decimals equal once rounded (half up) to the column's scale, or,
when the engine computed the value in floating point (more fraction digits than the scale, as
DuckDB's avg of a decimal), within one unit of the scale's last digit; doubles within 1e-9
relative (1e-12 absolute); integers as numbers; everything else as text. An engine/query that
differs or fails is named in the results with the reason.

ClickBench check (no golden; reference: Spark, else cspark, else DuckDB): values compare as
integers when both are integers, else as numbers within 1e-9 relative when both are numbers,
else as text, timestamps once written alike (ISO 'T' or space, no zero fraction or +00:00). Each
query file says how its rows compare in a `-- check:` line: `multiset`; `ordered` (the order key
is the whole row); `rank K,...` (a top-k whose order key is output column(s) K: the keys must
agree row by row, and the rows of each group of equal keys as a multiset, except the first group
of a query with OFFSET and the last of one with LIMIT, which ties may fill with any rows); or
`count` (LIMIT without an order in the output: only the row and column counts).

RDD check (reference: Spark, else cspark, else DuckDB): exact, every value as text (the queries
return strings and integers only); `-- check: ordered` or `multiset` as ClickBench's.

Output: --out-md (the tables), the same name with .json (every measurement, without this
machine's paths, rewritten after each round; --render-only rewrites the Markdown and the plot
from it, --resume continues an interrupted run from it) and .png (per-query times, engine by
engine). --all-concurrently runs the one-process runs beside the rounds instead of after them,
--all-first before them.
"""
import argparse
import datetime
import decimal
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import threading
import time

ALL_ENGINES = ["cspark", "cspark-spill", "spark", "duckdb", "datafusion", "sail",
               "cspark-connect", "spark-connect"]
TITLES = {"cspark": "cspark", "cspark-spill": "cspark (spill)", "spark": "Spark 4", "duckdb": "DuckDB", "datafusion": "DataFusion",
          "sail": "Sail", "cspark-connect": "cspark Connect", "spark-connect": "Spark Connect"}
CSPARK_SQL = ("cspark", "cspark-spill")  # cspark-sql under its two masters and settings
PEERS = ("duckdb", "datafusion", "sail", "cspark-connect", "spark-connect")  # via peer_run.py
TIME_TAKEN = re.compile(r"^Time taken: ([0-9.]+) seconds")
FIRST_RESULT = re.compile(r"^First result after getOrCreate: ([0-9.]+) seconds")
CONNECT = ("sail", "cspark-connect", "spark-connect")  # through the PySpark Connect client
MARKER = "cspark-bench-query "  # spark-sql's one-process runs: a row before each query's rows
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
# The query sets: tables (DATA/<table>.parquet), query texts, engines' own texts, default list.
SUITES = {
    "tpch": {"tables": ["customer", "lineitem", "nation", "orders", "part", "partsupp",
                        "region", "supplier"],
             "queries": os.path.join(SRC, "tests", "sql", "tpch"),
             "dialect": os.path.join(HERE, "dialect"), "list": "1-22"},
    "clickbench": {"tables": ["hits"], "queries": os.path.join(HERE, "clickbench", "queries"),
                   "dialect": os.path.join(HERE, "clickbench", "dialect"), "list": "1-43"},
    "rdd": {"tables": ["lines", "records", "left_kv", "right_kv"],
            "queries": os.path.join(HERE, "rdd", "queries"),
            "dialect": os.path.join(HERE, "rdd", "dialect"), "list": "1-3"},
}
RDD_QUERIES = {"q01": "word count", "q02": "join", "q03": "sort"}
sys.path.insert(0, os.path.join(SRC, "tests", "sql"))
import compare  # noqa: E402  (tests/sql/compare.py: the golden format's parser)

PAGE = os.sysconf("SC_PAGE_SIZE")
LOCK = threading.Lock()  # the record, between the rounds and a concurrent one-process run


# ---- running one process ------------------------------------------------------------------------

def tree_rss(root):
    """Bytes resident in root and all its descendants now (0 when it is gone)."""
    total, todo, seen = 0, [root], set()
    while todo:
        pid = todo.pop()
        if pid in seen:
            continue
        seen.add(pid)
        try:
            with open("/proc/%d/statm" % pid) as f:
                total += int(f.read().split()[1]) * PAGE
            for tid in os.listdir("/proc/%d/task" % pid):
                with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total


def run_measured(cmd, cwd, env, stdout_path, stderr_path, timeout):
    """Runs cmd; returns {whole_s, rss_mb, rc} (rc 124 when killed at the timeout).

    The process is reaped by a blocking wait, so the whole time ends when the process does; a
    thread samples the process tree's memory every 100 ms meanwhile and kills the session at the
    timeout (a polling loop would round every time up to its next poll)."""
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, start_new_session=True)
        ended = threading.Event()
        sampled = {"peak": 0, "killed": False}

        def sample():
            while not ended.wait(0.1):
                sampled["peak"] = max(sampled["peak"], tree_rss(p.pid))
                if time.monotonic() - t0 > timeout:
                    sampled["killed"] = True
                    try:
                        os.killpg(p.pid, 9)
                    except OSError:
                        pass
                    return

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, ru = os.wait4(p.pid, 0)
        whole = time.monotonic() - t0
        ended.set()
        sampler.join()
        rc = 124 if sampled["killed"] else os.waitstatus_to_exitcode(status)
        p.returncode = rc  # reaped above: keep Popen from waiting again
    try:  # descendants left in the session (none expected): end them
        os.killpg(p.pid, 9)
    except OSError:
        pass
    peak = max(sampled["peak"], ru.ru_maxrss * 1024)
    return {"whole_s": whole, "rss_mb": peak / 1e6, "rc": rc}


def job_times(stderr_path, count):
    """The last count "Time taken" seconds of a run's stderr (the query statements')."""
    times = []
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = TIME_TAKEN.match(line)
            if m:
                times.append(float(m.group(1)))
    if count == 0:
        return times
    return times[-count:] if len(times) >= count else None


def peer_lines(path):
    """The JSON lines of a peer_run.py answer file, by query name."""
    with open(path, encoding="utf-8") as f:
        return {r["query"]: r for r in (json.loads(ln) for ln in f if ln.strip())}


def peer_jobs(path, names):
    """Each query's seconds in a peer_run.py run of several queries (None where it failed)."""
    try:
        lines = peer_lines(path)
    except (OSError, ValueError):
        return [None] * len(names)
    return [(lines.get(n) or {}).get("seconds") for n in names]


def first_result(stderr_path):
    """The Connect client's getOrCreate-to-first-result seconds of a run (peer_run.py's line),
    or None."""
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = FIRST_RESULT.match(line)
            if m:
                return float(m.group(1))
    return None


def spill_metrics(event_dir):
    """Spark's task spill metrics summed over a run's event log: tasks that spilled, memory
    and disk bytes spilled (MB)."""
    tasks, mem, disk = 0, 0, 0
    for name in sorted(os.listdir(event_dir)) if os.path.isdir(event_dir) else []:
        with open(os.path.join(event_dir, name), encoding="utf-8", errors="replace") as f:
            for line in f:
                if '"SparkListenerTaskEnd"' not in line:
                    continue
                try:
                    m = json.loads(line).get("Task Metrics") or {}
                except ValueError:
                    continue
                d = m.get("Disk Bytes Spilled", 0)
                mem += m.get("Memory Bytes Spilled", 0)
                disk += d
                tasks += d > 0
    return {"spill_tasks": tasks, "spill_mem_mb": mem / 1e6, "spill_disk_mb": disk / 1e6}


def last_error(stderr_path):
    with open(stderr_path, encoding="utf-8", errors="replace") as f:
        lines = [ln.strip() for ln in f if ln.strip()]
    errs = [ln for ln in lines if ln.startswith("[") or "Error" in ln or "error" in ln]
    return (errs or lines or ["(no output)"])[-1][:300]


# ---- the engines' commands and answers ---------------------------------------------------------

class Bench:
    def __init__(self, a):
        self.a = a
        for k in ("cspark_sql", "cspark_connect_server", "spark_home", "data", "queries", "work"):
            if getattr(a, k):
                setattr(a, k, os.path.abspath(getattr(a, k)))
        self.work = a.work
        os.makedirs(self.work, exist_ok=True)
        self.views = os.path.join(self.work, "views.sql")
        with open(self.views, "w") as f:
            for t in SUITES[a.suite]["tables"]:
                f.write("CREATE TEMPORARY VIEW %s USING parquet OPTIONS (path '%s');\n"
                        % (t, os.path.join(a.data, t + ".parquet")))
        self.env = dict(os.environ, TZ="UTC")
        for k in ("SPARK_SUBMIT_OPTS", "SPARK_LAUNCHER_OPTS"):  # the tests' JVM settings
            self.env.pop(k, None)

    def query_file(self, engine, name):
        """The engine's text of a query: bench/sql/dialect/ENGINE/qNN.sql if present."""
        alt = os.path.join(SUITES[self.a.suite]["dialect"], engine, name + ".sql")
        return alt if os.path.exists(alt) else os.path.join(self.a.queries, name + ".sql")

    def command(self, engine, files, out):
        a = self.a
        if engine in CSPARK_SQL:
            spill = engine == "cspark-spill"
            confs = ["spark.sql.session.timeZone=UTC"] + (a.spill_conf if spill else a.cspark_conf)
            if a.spill_metrics:
                confs += ["spark.eventLog.enabled=true", "spark.eventLog.dir=" + self.event_dir(out),
                          "spark.eventLog.compress=false", "spark.eventLog.rolling.enabled=false"]
            cmd = [a.cspark_sql, "--master", a.spill_master if spill else a.cspark_master]
            for c in confs:
                cmd += ["--conf", c]
            return cmd + ["-i", self.views, "--output-format", "golden", "-f", files[0]]
        if engine == "spark":
            cmd = [os.path.join(a.spark_home, "bin", "spark-sql"), "--master", a.spark_master,
                   "--driver-memory", a.spark_driver_memory]
            for c in ["spark.sql.session.timeZone=UTC"] + a.spark_conf:
                cmd += ["--conf", c]
            return cmd + ["-i", self.views, "-f", files[0]]
        servers = []
        if engine == "cspark-connect":
            servers = ["--cspark-connect-server", a.cspark_connect_server]
        elif engine == "spark-connect":
            servers = ["--spark-home", a.spark_home, "--spark-driver-memory",
                       a.spark_driver_memory]
        return [a.python, os.path.join(HERE, "peer_run.py")] + servers + [engine, a.data, out] \
            + files

    def event_dir(self, out):
        """The event log directory of the cspark run writing out (made empty)."""
        d = os.path.splitext(out)[0] + ".events"
        if os.path.isdir(d):
            for f in os.listdir(d):
                os.unlink(os.path.join(d, f))
        os.makedirs(d, exist_ok=True)
        return d

    def run(self, engine, names, tag):
        """One process of engine over the queries names; returns its record."""
        files = [self.query_file(engine, n) for n in names]
        base = os.path.join(self.work, "%s-%s" % (engine, tag))
        out = base + (".jsonl" if engine not in CSPARK_SQL + ("spark",) else ".out")
        # spark-sql's one-process run (even of one query): a marker row before each query's rows
        marked = engine == "spark" and tag == "all"
        if engine in CSPARK_SQL + ("spark",) and (len(files) > 1 or marked):
            with open(base + ".sql", "w") as f:
                for name, path in zip(names, files):
                    if marked:  # a row naming the query before its rows (see all_answer)
                        f.write("SELECT '%s%s';\n" % (MARKER, name))
                    with open(path) as q:
                        f.write(q.read().rstrip() + "\n")
            files = [base + ".sql"]
        cmd = self.command(engine, files, out)
        stdout = out if engine in CSPARK_SQL + ("spark",) else base + ".stdout"
        # each tag its own working directory: spark-sql keeps a Derby metastore in it, which
        # two JVMs at once (--all-concurrently) cannot share
        cwd = os.path.join(self.work, "cwd-" + tag)
        os.makedirs(cwd, exist_ok=True)
        rec = run_measured(cmd, cwd, self.env, stdout, base + ".err", self.a.timeout)
        rec["cmd"] = " ".join(shlex.quote(c) for c in cmd)
        if marked:  # each query's time follows its marker's
            jobs = job_times(base + ".err", 2 * len(names))
            jobs = jobs[1::2] if jobs is not None else None
            # (marker, query) pairs as far as the run went (-i's statements print no time)
            rec["partial_jobs"] = job_times(base + ".err", 0)[1::2]
        else:
            jobs = job_times(base + ".err", len(names))
        rec["job_s"] = sum(jobs) if jobs is not None else None
        rec["jobs"] = jobs
        rec["out"] = out
        if engine in CONNECT:
            rec["first_result_s"] = first_result(base + ".err")
        if engine in PEERS and len(names) > 1:  # each query's time, None where it failed
            rec["partial_jobs"] = peer_jobs(out, names)
        if engine in CSPARK_SQL and self.a.spill_metrics:
            rec.update(spill_metrics(os.path.splitext(out)[0] + ".events"))
        if rec["rc"] != 0 or jobs is None:
            rec["error"] = "exit %d: %s" % (rec["rc"], last_error(base + ".err"))
        return rec


def unquote(v):
    """A golden string value ("a\\"b") as its text."""
    if len(v) < 2 or v[0] != '"' or v[-1] != '"':
        return v
    s, out, i = v[1:-1], [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "u":
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "t": "\t", "r": "\r"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def local_path(path):
    """A path of the record (scrubbed: relative to the source tree, or under ~) as a real one."""
    if path.startswith("~"):
        return os.path.expanduser(path)
    return path if os.path.isabs(path) else os.path.join(SRC, path)


def save_json(results, path):
    """The record, without this machine's paths (see scrub), written atomically."""
    with LOCK:
        text = json.dumps(results, indent=1)
    with open(path + ".tmp", "w") as f:
        f.write(scrub(text) + "\n")
    os.replace(path + ".tmp", path)


def all_answer(path, name):
    """The rows of query name in a spark-sql run of all queries (its rows follow its marker)."""
    with open(local_path(path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    try:
        start = lines.index(MARKER + name) + 1
    except ValueError:
        return None, "no rows (the one-process run stopped before it)"
    end = next((i for i in range(start, len(lines)) if lines[i].startswith(MARKER)), len(lines))
    return [ln.split("\t") for ln in lines[start:end]], None


def answer(engine, path, from_all=False, name=None):
    """The rows of a single-query run (or of query name in spark's one-process run, from_all):
    a list of lists of text, or None with a reason."""
    if from_all and engine in PEERS:
        try:
            rec = peer_lines(local_path(path)).get(name)
        except (OSError, ValueError) as e:
            return None, "unreadable answer (%s)" % e
        if rec is None:
            return None, "no rows (the one-process run stopped before it)"
        return (None, rec["error"]) if "error" in rec else (rec["rows"], None)
    if from_all:
        return all_answer(path, name)
    path = local_path(path)
    try:
        if engine in CSPARK_SQL:
            blocks = compare.parse(path)
            b = blocks.get(1)
            if b is None or b.kind != "rows":
                return None, "no rows (%s)" % (b.error if b is not None else "no answer")
            return [[unquote(v) for v in r.split("\t")] for r in b.rows], None
        if engine == "spark":
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            return [ln.split("\t") for ln in lines], None
        with open(path, encoding="utf-8") as f:
            rec = json.loads(f.readline())
        if "error" in rec:
            return None, rec["error"]
        return rec["rows"], None
    except (OSError, ValueError, SystemExit) as e:
        return None, "unreadable answer (%s)" % e


# ---- the result check ---------------------------------------------------------------------------

def as_decimal(v):
    try:
        return decimal.Decimal(v)
    except decimal.InvalidOperation:
        return None


def value_equal(ref, got, typ):
    if ref == got:
        return True
    if ref == "NULL" or got == "NULL":
        return False
    if typ.startswith("decimal("):
        scale = int(typ[:-1].split(",")[1])
        r, g = as_decimal(ref), as_decimal(got)
        if r is None or g is None:
            return False
        unit = decimal.Decimal(1).scaleb(-scale)
        if r.quantize(unit, decimal.ROUND_HALF_UP) == g.quantize(unit, decimal.ROUND_HALF_UP):
            return True
        floating = "e" in got.lower() or ("." in got and len(got.split(".")[1]) > scale)
        return floating and abs(r - g) <= unit
    if typ in ("double", "float"):
        try:
            r, g = float(ref), float(got)
        except ValueError:
            return False
        return abs(r - g) <= max(1e-9 * max(abs(r), abs(g)), 1e-12)
    if typ in ("tinyint", "smallint", "int", "bigint"):
        r, g = as_decimal(ref), as_decimal(got)
        return r is not None and g is not None and r == g
    if typ == "date":
        return ref[:10] == got[:10] and len(got) in (10, 19) and got[10:] in ("", "T00:00:00")
    return False


def row_equal(ref, got, types):
    return len(ref) == len(got) and all(value_equal(r, g, t) for r, g, t in zip(ref, got, types))


def sort_key(row, types):
    key = []
    for v, t in zip(row, types):
        d = as_decimal(v) if t.startswith("decimal(") or t in ("double", "float", "bigint", "int") \
            else None
        key.append((0, float(d), "") if d is not None and d.is_finite() else (1, 0.0, v))
    return key


def same_rows(ref, got, types, ordered):
    """None when equal, else a reason."""
    if len(ref) != len(got):
        return "%d rows, the reference has %d" % (len(got), len(ref))
    if any(len(r) != len(types) for r in ref) or any(len(g) != len(types) for g in got):
        return "column count differs from the %d expected" % len(types)
    if ordered:
        for i, (r, g) in enumerate(zip(ref, got)):
            if not row_equal(r, g, types):
                if same_rows(ref, got, types, False) is None:
                    return "same rows in another order (ties of the ORDER BY?)"
                c = next(j for j, t in enumerate(types) if not value_equal(r[j], g[j], t))
                return "row %d column %d (%s): %s, the reference has %s" % (
                    i + 1, c + 1, types[c], g[c], r[c])
        return None
    rs = sorted(ref, key=lambda r: sort_key(r, types))
    gs = sorted(got, key=lambda r: sort_key(r, types))
    if all(row_equal(r, g, types) for r, g in zip(rs, gs)):
        return None
    unused = list(gs)  # values within tolerance may sort apart: match each row to any row
    for r in rs:
        for k, g in enumerate(unused):
            if row_equal(r, g, types):
                del unused[k]
                break
        else:
            return "no row matches %s" % "|".join(r)
    return None


def golden_shape(name):
    """(types, ordered) of a query from Spark's golden at scale 0.1."""
    b = compare.parse(os.path.join(SRC, "tests", "sql", "golden", "tpch-sf0.1",
                                   name + ".out"))[1]
    return b.types, b.mode == "ordered"


# ---- the ClickBench check (no golden: the rules of the header) ---------------------------------

TIMESTAMP = re.compile(r"^(\d{4}-\d\d-\d\d)[ T](\d\d:\d\d:\d\d)(?:\.0*)?(?:\+00:00|Z)?$")
CHECK_LINE = re.compile(r"^--\s*check:\s*(multiset|ordered|rank|count)\s*([0-9,]*)\s*$")


def query_rule(path):
    """(mode, key columns 0-based, has LIMIT, has OFFSET) of a ClickBench query file."""
    mode, keys = "multiset", []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for line in text.split("\n"):
        m = CHECK_LINE.match(line.strip())
        if m:
            mode, keys = m.group(1), [int(k) - 1 for k in m.group(2).split(",") if k]
    body = "\n".join(ln for ln in text.split("\n") if not ln.lstrip().startswith("--"))
    return (mode, keys, re.search(r"\bLIMIT\b", body, re.I) is not None,
            re.search(r"\bOFFSET\b", body, re.I) is not None)


def plain(v):
    m = TIMESTAMP.match(v)
    return m.group(1) + " " + m.group(2) if m else v


def loose_equal(ref, got):
    ref, got = plain(ref), plain(got)
    if ref == got:
        return True
    if "NULL" in (ref, got):
        return False
    try:
        return int(ref) == int(got)
    except ValueError:
        pass
    try:
        r, g = float(ref), float(got)
    except ValueError:
        return False
    return abs(r - g) <= max(1e-9 * max(abs(r), abs(g)), 1e-12)


def loose_rows_equal(ref, got):
    return len(ref) == len(got) and all(loose_equal(r, g) for r, g in zip(ref, got))


def loose_multiset(ref, got):
    """None when the rows are the same multiset, else a reason."""
    if len(ref) != len(got):
        return "%d rows, the reference has %d" % (len(got), len(ref))
    key = lambda r: [plain(v) for v in r]  # noqa: E731
    rs, gs = sorted(ref, key=key), sorted(got, key=key)
    if all(loose_rows_equal(r, g) for r, g in zip(rs, gs)):
        return None
    unused = list(gs)  # numbers within tolerance may sort apart: match each row to any row
    for r in rs:
        for k, g in enumerate(unused):
            if loose_rows_equal(r, g):
                del unused[k]
                break
        else:
            return "no row matches %s" % "|".join(r)[:200]
    return None


def clickbench_same(ref, got, rule):
    """None when got answers like ref under the query's rule, else a reason."""
    mode, keys, limit, offset = rule
    if len(ref) != len(got):
        return "%d rows, the reference has %d" % (len(got), len(ref))
    width = len(ref[0]) if ref else None
    if any(len(g) != width for g in got):
        return "column count differs from the reference's %s" % width
    if mode == "count":
        return None
    if mode == "multiset":
        return loose_multiset(ref, got)
    if mode == "ordered":
        for i, (r, g) in enumerate(zip(ref, got)):
            if not loose_rows_equal(r, g):
                return "row %d: %s, the reference has %s" % (i + 1, "|".join(g)[:120],
                                                             "|".join(r)[:120])
        return None
    for i, (r, g) in enumerate(zip(ref, got)):  # rank: the order keys row by row
        if not all(loose_equal(r[k], g[k]) for k in keys):
            return "row %d: order key %s, the reference has %s" % (
                i + 1, "|".join(g[k] for k in keys), "|".join(r[k] for k in keys))
    groups, start = [], 0
    for i in range(1, len(ref) + 1):
        if i == len(ref) or [plain(ref[i][k]) for k in keys] != \
                [plain(ref[start][k]) for k in keys]:
            groups.append((start, i))
            start = i
    for j, (lo, hi) in enumerate(groups):
        if (j == 0 and offset) or (j == len(groups) - 1 and limit):
            continue  # ties at the window's edge: any rows of that key
        why = loose_multiset(ref[lo:hi], got[lo:hi])
        if why is not None:
            return "rows %d-%d (equal order keys): %s" % (lo + 1, hi, why)
    return None


def check_clickbench(results, engines, names, queries, same=None):
    """check() for the ClickBench set: the rules of each query's `-- check:` line (for the RDD
    set, same=exact_same: the rows exactly)."""
    same = same or clickbench_same
    for name in names:
        rule = query_rule(os.path.join(queries, name + ".sql"))
        per = results["queries"][name]
        answers = {}
        for e in engines:
            rec = per.get(e)
            if rec is None:
                continue
            if "error" in rec:
                rec["check"] = "failed: " + rec["error"]
                continue
            rows, why = answer(e, rec["out"], "from_all" in rec, name)
            if rows is None:
                rec["check"] = "failed: " + why
            else:
                answers[e] = rows
        ref = next((e for e in ("spark", "cspark", "duckdb") if e in answers),
                   next(iter(answers), None))
        for e, rows in answers.items():
            if e == ref:
                per[e]["check"] = "reference"
                continue
            why = same(answers[ref], rows, rule)
            per[e]["check"] = "same" if why is None else "differs from %s: %s" % (ref, why)


def exact_same(ref, got, rule):
    """None when got has exactly ref's rows (in order for an `ordered` query), else a reason."""
    if len(ref) != len(got):
        return "%d rows, the reference has %d" % (len(got), len(ref))
    if rule[0] != "ordered":
        ref, got = sorted(ref), sorted(got)
    for i, (r, g) in enumerate(zip(ref, got)):
        if r != g:
            return "row %d: %s, the reference has %s" % (i + 1, "|".join(g)[:160],
                                                         "|".join(r)[:160])
    return None


def check(results, engines, names, golden=None, suite="tpch", queries=None):
    """Sets per engine/query "reference", "same", "differs from E: why" or "failed: why".
    golden: a directory of Spark's recorded answers (qNN.out), the reference when given."""
    if suite == "clickbench":
        return check_clickbench(results, engines, names, queries)
    if suite == "rdd":
        return check_clickbench(results, engines, names, queries, exact_same)
    for name in names:
        types, ordered = golden_shape(name)
        per = results["queries"][name]
        answers = {}
        for e in engines:
            rec = per.get(e)
            if rec is None:
                continue
            if "error" in rec:
                rec["check"] = "failed: " + rec["error"]
                continue
            rows, why = answer(e, rec["out"], "from_all" in rec, name)
            if rows is None:
                rec["check"] = "failed: " + why
            else:
                answers[e] = rows
        ref = next((e for e in ("spark", "spark-connect", "cspark") if e in answers),
                   next(iter(answers), None))
        if golden:
            ref = "Spark's recorded answer"
            answers[ref], why = answer("cspark", os.path.join(golden, name + ".out"))
            if answers[ref] is None:
                raise SystemExit("tpch_bench: %s/%s.out: %s" % (golden, name, why))
        for e, rows in answers.items():
            if e not in per:
                continue
            if e == ref:
                per[e]["check"] = "reference"
                continue
            why = same_rows(answers[ref], rows, types, ordered)
            per[e]["check"] = "same" if why is None else "differs from %s: %s" % (ref, why)


# ---- the report ----------------------------------------------------------------------------------

def fmt(x, digits=2):
    return "—" if x is None else ("%.*f" % (digits, x))


def ratio(a, b):
    return None if a is None or b is None or b <= 0 else a / b


def scrub(text):
    """text without this machine's paths: the source tree relative, the home directory as ~."""
    text = text.replace(SRC + "/", "")
    home = os.path.expanduser("~")
    return text.replace(home + "/", "~/") if home not in ("", "/") else text


def render(results, md_path):
    engines = results["engines"]
    names = results["names"]
    q = results["queries"]
    has = lambda e: e in engines  # noqa: E731

    def tot(e, key):
        vals = [q[n].get(e, {}).get(key) for n in names]
        return None if any(v is None or "error" in q[n].get(e, {}) for v, n in zip(vals, names)) \
            else sum(vals)

    L = []
    w = L.append
    clickbench = results.get("suite") == "clickbench"
    rdd = results.get("suite") == "rdd"
    lead = "cspark" if "cspark" in engines else engines[0]  # the engine the title opposes
    peers = ", ".join(TITLES[e] for e in engines if e != lead)
    if clickbench:
        w("# ClickBench-shaped, %s generated rows: %s against %s"
          % (format(results["rows"], ","), TITLES[lead], peers))
        w("")
        w("**Generated data, not the real ClickBench data set**: a `hits` table with "
          "ClickBench's 105 columns and types, filled by `bench/sql/clickbench/hits_gen.py` "
          "(seed %s) with Zipf-skewed URLs, referers, search phrases, users, counters and "
          "client IPs, mostly empty string columns and event times over July 2013; the 43 "
          "ClickBench queries (`bench/sql/clickbench/queries/`). Times are not comparable "
          "with published ClickBench results." % results.get("seed", "?"))
    elif rdd:
        w("# The RDD benchmarks' word count, join and sort in SQL (%s): %s against %s"
          % (rdd_sizes(results), TITLES[lead], peers))
        w("")
        w("The workloads of `bench/spark_vs_cspark.sh` (word count, sort) and `examples/join.c` "
          "as SQL over their inputs made Parquet tables (`bench/sql/rdd/data.sh`): q01 the word "
          "count (every word and its count, count descending then word: all of them), q02 the "
          "inner join of two key/value tables derived from the records (its pairs summed into "
          "one row: count, sums, a per-pair checksum, least and greatest pair), q03 the sort of "
          "the 100-byte records by (key, id) (a window numbering every record in the global "
          "order, summed into a position-weighted checksum: no top-N shortcut). "
          "`bench/sql/README.md` says why each is written so.")
    else:
        w("# TPC-H scale %s: %s against %s" % (results["scale"], TITLES[lead], peers))
    w("")
    w("Run %s on `%s` (%s cores, %s). **The machine is shared** with other engineers' builds and "
      "tests: its load average was %s at the start and %s at the end of the run, so absolute "
      "times are noisy; the engines ran alternately (query by query, the engines' order rotating)"
      " so that load falls on all alike, and the ratios are within this one run."
      % (results["started"], results["host"], results["cpus"], results["kernel"],
         results["load_start"], results["load_end"]))
    w("")
    w("Commands (harness: `bench/sql/README.md`):")
    w("")
    w("```")
    w(results["command"])
    all_only = results.get("all_only") or []
    for e in engines:
        w("# %s, %s:" % (TITLES[e], "one process for all the queries" if e in all_only
                         else "one process per query"))
        w(scrub(results["commands"].get(e, "")))
    w("```")
    w("")
    data = ("`hits_gen.py --rows %s` (one SNAPPY Parquet file, row groups of 1 M rows)"
            % results.get("rows") if clickbench else
            "`gen_text -s 1 %s` and `gen_records -s 2 %s` made tables by "
            "`bench/sql/rdd/to_parquet.py` (`lines`, `records`, `left_kv`, `right_kv`; SNAPPY, "
            "one file each, row groups of 1 M rows)"
            % (results.get("text_bytes"), results.get("rows")) if rdd else
            "`tpchgen-cli parquet -s %s` (SNAPPY, one file per table)" % results["scale"])
    w("Data: %s, every engine on the same files, session time zone UTC, 2 threads "
      "(`local[2]`, DuckDB `threads=2`, DataFusion `target_partitions=2`, Sail on the "
      "machine's 2 cores). Spark 4.0.1 with its default settings and `--driver-memory %s`; "
      "cspark-sql with its defaults. The Connect engines (cspark Connect, Spark Connect, Sail) "
      "run the same PySpark Connect client script (`bench/sql/peer_run.py`) against a server "
      "the runner starts, so their whole-process time includes the server's start. "
      "Versions: %s." % (data, results["spark_driver_memory"], results["versions"]))
    w("")
    if results.get("cspark_master", "local[2]") != "local[2]" or results.get("cspark_conf"):
        w("cspark-sql ran with `--master %s`%s instead (the command above)."
          % (results["cspark_master"], "".join(" `--conf %s`" % c
                                               for c in results.get("cspark_conf", []))))
        w("")
    if results.get("spark_master", "local[2]") != "local[2]" or results.get("spark_conf"):
        w("Spark's spark-sql ran with `--master %s`%s instead (the command above)."
          % (results["spark_master"], "".join(" `--conf %s`" % c
                                               for c in results.get("spark_conf", []))))
        w("")
    if "cspark-spill" in engines:
        w("*cspark (spill)* is cspark-sql again with `--master %s`%s: smaller executors, so "
          "its operators spill; its rows are checked like every engine's."
          % (results["spill_master"], "".join(" `--conf %s`" % c
                                              for c in results.get("spill_conf", []))))
        w("")
    w("*whole* = the whole process (start, register the tables, run the query, print, exit), "
      "one process per query; *job* = the query only, from the process's own `Time taken:` line "
      "(spark-sql's; cspark-sql prints the same; the peers' runner times its query and fetch). "
      "Seconds. Spark/cspark above 1: cspark is faster; cspark/DuckDB above 1: DuckDB is "
      "faster; Spark Connect/cspark Connect above 1: cspark's Connect server is faster.")
    w("")
    head = ["query"]
    for e in engines:
        head += ["%s whole" % TITLES[e], "%s job" % TITLES[e]]
    if has("spark") and has("cspark"):
        head += ["Spark/cspark whole", "Spark/cspark job"]
    if has("duckdb") and has("cspark"):
        head += ["cspark/DuckDB whole", "cspark/DuckDB job"]
    connect_pair = has("spark-connect") and has("cspark-connect")
    if connect_pair:
        head += ["Spark Connect/cspark Connect whole", "Spark Connect/cspark Connect job"]
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))

    def line(label, get):
        cells = [label]
        for e in engines:
            cells += [fmt(get(e, "whole_s")), fmt(get(e, "job_s"))]
        if has("spark") and has("cspark"):
            cells += [fmt(ratio(get("spark", k), get("cspark", k))) for k in ("whole_s", "job_s")]
        if has("duckdb") and has("cspark"):
            cells += [fmt(ratio(get("cspark", k), get("duckdb", k))) for k in ("whole_s", "job_s")]
        if connect_pair:
            cells += [fmt(ratio(get("spark-connect", k), get("cspark-connect", k)))
                      for k in ("whole_s", "job_s")]
        w("| " + " | ".join(cells) + " |")

    for n in names:
        def get(e, key, n=n):
            r = q[n].get(e)
            return None if r is None or "error" in r else r.get(key)
        line("%s %s" % (n, RDD_QUERIES.get(n, "")) if rdd else n, get)
    line("**total**", tot)
    if results.get("all"):
        line("**one process, all %d**" % len(names),
             lambda e, k: (results["all"].get(e) or {}).get(k)
             if "error" not in (results["all"].get(e) or {"error": 1}) else None)
    w("")
    if all_only:
        w("%s ran only as one process with all %d queries (`--all-only`; a process per query "
          "did not fit the run's time on the busy machine): its *job* column is each query's "
          "time in that process, its *whole* per query was not measured, and its check uses "
          "that process's rows." % (", ".join(TITLES[e] for e in all_only), len(names)))
        w("")
    if results.get("all_concurrently"):
        w("The one-process runs ran at the same time as the per-query rounds (to fit the run in "
          "its time on the busy machine), so each slowed the other; compare them across engines "
          "only.")
        w("")
    if results.get("resumed"):
        w("The run was interrupted and resumed (`--resume`): the finished rounds were kept.")
        w("")
    w("Totals are sums over the per-query processes (so the *whole* total pays each engine's "
      "start-up %d times); *one process, all %d* is one more run per engine with every query in "
      "one process (`-f` of the query files concatenated), where a JVM starts once."
      % (len(names), len(names)))
    w("")
    if any(e in CONNECT for e in engines):
        render_first_result(results, w)
    w("## Peak resident memory (MB, whole process tree)")
    w("")
    head = ["query"] + [TITLES[e] for e in engines]
    w("| " + " | ".join(head) + " |")
    w("|" + "---|" * len(head))
    for n in names:
        w("| %s | %s |" % (n, " | ".join(fmt((q[n].get(e) or {}).get("rss_mb"), 0)
                                           for e in engines)))
    w("| **max** | %s |" % " | ".join(  # (none for an engine run only as one process)
        fmt(max([(q[n].get(e) or {}).get("rss_mb") or 0 for n in names]) or None, 0)
        for e in engines))
    if results.get("all"):
        w("| **one process, all %d** | %s |" % (len(names), " | ".join(
            fmt((results["all"].get(e) or {}).get("rss_mb"), 0) for e in engines)))
    w("")
    w("The sum of VmRSS over the process and its descendants, sampled every 100 ms (and at least "
      "the kernel's peak RSS of the process).")
    w("")
    for e in CSPARK_SQL:
        if e not in engines or not any("spill_tasks" in (q[n].get(e) or {}) for n in names):
            continue
        w("## %s's spills" % TITLES[e])
        w("")
        w("Spark's task metrics from cspark's event log (`SparkListenerTaskEnd`): the tasks that "
          "spilled, and the bytes they released from memory and wrote to disk (MB).")
        w("")
        w("| query | tasks that spilled | memory spilled | disk spilled |")
        w("|---|---|---|---|")
        for n in names:
            r = q[n].get(e) or {}
            w("| %s | %s | %s | %s |" % (n, r.get("spill_tasks", "-"),
                                         fmt(r.get("spill_mem_mb"), 0),
                                         fmt(r.get("spill_disk_mb"), 0)))
        w("")
    if has("spark") and has("cspark"):
        render_against_spark(results, w)
    w("## Results check")
    w("")
    bad = []
    for n in names:
        for e in engines:
            c = (q[n].get(e) or {}).get("check", "not run")
            if c not in ("same", "reference"):
                bad.append("- %s %s: %s" % (TITLES[e], n, c))
    if results.get("all"):
        for e in engines:
            r = results["all"].get(e) or {}
            if "error" in r:
                bad.append("- %s, all queries in one process: %s" % (TITLES[e], r["error"]))
    reference = results.get("reference") or ("Spark's rows (Spark Connect's where spark-sql did "
                                             "not run, cspark's where neither did)")
    if rdd:
        w("Reference: " + reference + ". Exact: every value as text, the rows in order (each "
          "query's `-- check:` line; the queries return strings and integers only). See "
          "bench/sql/tpch_bench.py.")
    elif clickbench:
        w("Reference: " + reference + ". Integers exactly, other numbers within 1e-9 "
          "relative, timestamps once written alike, the rest as text. Each query's "
          "`-- check:` line says how rows compare: `multiset`; `ordered`; `rank K` (a top-k "
          "ordered by output column K: the K values must agree row by row, and the rows "
          "of each group of equal K as a multiset, except the group at the window's edge — "
          "the last with LIMIT, the first with OFFSET — which ties may fill with any rows); "
          "`count` (LIMIT without an output order key: Q17 and Q24, only the row count). "
          "See bench/sql/tpch_bench.py.")
    else:
        w("Reference: " + reference + ". Decimals equal once rounded to the column's scale (a "
          "value an engine computed in floating point, e.g. DuckDB's `avg` of a decimal, "
          "within one unit of the last digit); doubles within 1e-9 relative; rows in order "
          "where the query has `ORDER BY`, else as a multiset (bench/sql/tpch_bench.py).")
    w("")
    if bad:
        w("Engines and queries that differ or failed:")
        w("")
        L.extend(bad)
    else:
        w("All engines returned the same rows for all %d queries." % len(names))
    dialect = results.get("dialect") or []
    w("")
    qdir = "bench/sql/%s/queries" % results["suite"] if clickbench or rdd else "tests/sql/tpch"
    ddir = "bench/sql/%s/dialect" % results["suite"] if clickbench or rdd else "bench/sql/dialect"
    if dialect:
        w("Query texts that differ from `%s/` (the engine's own SQL): " % qdir
          + ", ".join("`%s/%s`" % (ddir, d) for d in dialect) + ".")
    else:
        w("Every engine ran the same query text (`%s/qNN.sql`)." % qdir)
    w("")
    w("![per-query times](%s)" % os.path.basename(os.path.splitext(md_path)[0] + ".png"))
    w("")
    with open(md_path, "w", encoding="utf-8") as f:
        f.write(scrub("\n".join(L)) + "\n")


def rdd_sizes(results):
    """The RDD set's input sizes, as its title gives them."""
    mb = round((results.get("text_bytes") or 0) / 1e6)
    return "%s MB of text, %s records" % (format(mb, ","), format(results.get("rows") or 0, ","))


def peak_rss(results, e):
    """An engine's largest peak RSS over its per-query processes and its one-process run (MB),
    or None when none was measured."""
    q = results["queries"]
    vals = [(q[n].get(e) or {}).get("rss_mb") for n in results["names"]]
    vals.append(((results.get("all") or {}).get(e) or {}).get("rss_mb"))
    vals = [v for v in vals if v]
    return max(vals) if vals else None


def render_against_spark(results, w):
    """cspark against Spark: total job time and the whole application's peak memory."""
    q, names = results["queries"], results["names"]

    def ok(e, n):
        r = q[n].get(e) or {}
        return "error" not in r and r.get("job_s") is not None

    both = [n for n in names if ok("spark", n) and ok("cspark", n)]  # queries both finished
    ts = sum(q[n]["spark"]["job_s"] for n in both) if both else None
    tc = sum(q[n]["cspark"]["job_s"] for n in both) if both else None
    ms, mc = peak_rss(results, "spark"), peak_rss(results, "cspark")
    w("## cspark against Spark 4")
    w("")
    w("| | Spark 4 | cspark | Spark/cspark |")
    w("|---|---|---|---|")
    w("| total job time, the %d queries both finished (s) | %s | %s | %s |"
      % (len(both), fmt(ts), fmt(tc), fmt(ratio(ts, tc))))
    w("| peak memory of the whole application (MB) | %s | %s | %s |"
      % (fmt(ms, 0), fmt(mc, 0), fmt(ratio(ms, mc))))
    w("")
    w("Peak memory: the largest peak RSS of the process tree (driver and executors) over the "
      "engine's processes; job time: the sum of the queries' `Time taken:`.")
    w("")


def render_first_result(results, w):
    """The Connect engines' time from getOrCreate() to the first result, over their processes."""
    engines = [e for e in results["engines"] if e in CONNECT]
    w("## Connect: from `getOrCreate()` to the first result")
    w("")
    w("Each Connect client process (`peer_run.py`) times `SparkSession.builder.remote(url)"
      ".getOrCreate()` followed by `spark.sql(\"SELECT 1\").collect()`, once, right after its "
      "server started listening (the client's Python modules imported before the clock starts, "
      "as a program's imports are): the channel, the session's first RPCs and the first query "
      "on a server that has run nothing yet. Milliseconds over the per-query processes (one "
      "sample each), and the one-process run's.")
    w("")
    w("| engine | samples | median | min | max | one process, all |")
    w("|---|---|---|---|---|---|")
    for e in engines:
        xs = sorted(r["first_result_s"] for r in (results["queries"][n].get(e) or {}
                                                   for n in results["names"])
                    if r.get("first_result_s") is not None)
        one = ((results.get("all") or {}).get(e) or {}).get("first_result_s")
        ms = lambda x: fmt(None if x is None else x * 1000, 1)  # noqa: E731
        w("| %s | %d | %s | %s | %s | %s |" % (
            TITLES[e], len(xs), ms(xs[len(xs) // 2] if xs else None), ms(xs[0] if xs else None),
            ms(xs[-1] if xs else None), ms(one)))
    w("")


def plot(results, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    engines, names, q = results["engines"], results["names"], results["queries"]
    fig, axes = plt.subplots(2, 1, figsize=(min(max(10, len(names) * 0.8), 24), 9),
                             sharex=True)
    width = 0.8 / len(engines)
    for ax, key, title in ((axes[0], "whole_s", "whole process"), (axes[1], "job_s", "job only")):
        for i, e in enumerate(engines):
            ys = [((q[n].get(e) or {}).get(key) if "error" not in (q[n].get(e) or {}) else None)
                  for n in names]
            xs = [k + (i - (len(engines) - 1) / 2) * width for k in range(len(names))]
            ax.bar([x for x, y in zip(xs, ys) if y], [y for y in ys if y], width,
                   label=TITLES[e], color="C%d" % i)  # an engine's colour in both panels
        ax.set_yscale("log")
        ax.set_ylabel("seconds (log)")
        ax.set_title("%s, %s, one process per query"
                     % ("ClickBench-shaped (generated), %s rows" % format(results.get("rows"), ",")
                        if results.get("suite") == "clickbench"
                        else "RDD workloads in SQL, %s" % rdd_sizes(results)
                        if results.get("suite") == "rdd"
                        else "TPC-H scale %s" % results["scale"], title))
        ax.grid(axis="y", which="both", alpha=0.3)
    axes[1].set_xticks(range(len(names)))
    axes[1].set_xticklabels([n + (" " + RDD_QUERIES.get(n, "") if results.get("suite") == "rdd"
                                  else "") for n in names],
                            rotation=90 if len(names) > 25 else 0)
    # handles of their own: an engine with no bars in a panel (a one-process-only engine has no
    # whole time per query) still shows its own colour
    from matplotlib.patches import Patch
    axes[0].legend(handles=[Patch(color="C%d" % i, label=TITLES[e]) for i, e in enumerate(engines)],
                   ncol=len(engines))
    fig.tight_layout()
    fig.savefig(png_path, dpi=90)


# ---- main ----------------------------------------------------------------------------------------

def loadavg():
    with open("/proc/loadavg") as f:
        return " / ".join(f.read().split()[:3])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", help="directory of the 8 <table>.parquet files")
    p.add_argument("--scale", default="1")
    p.add_argument("--suite", choices=sorted(SUITES), default="tpch")
    p.add_argument("--rows", type=int, help="ClickBench: the generated table's row count")
    p.add_argument("--seed", help="ClickBench: the generator's seed")
    p.add_argument("--text-bytes", type=int, help="RDD: the word count text's size in bytes "
                   "(--rows: the sort's records)")
    p.add_argument("--cspark-connect-server")
    p.add_argument("--engines", default=",".join(ALL_ENGINES))
    p.add_argument("--queries-list", help="e.g. 1-22 or 1,3,5 (default: all of the set)")
    p.add_argument("--queries", help="the query files' directory (default: the set's)")
    p.add_argument("--cspark-sql")
    p.add_argument("--cspark-master", default="local[2]")
    p.add_argument("--cspark-conf", action="append", default=[], help="K=V, repeatable")
    p.add_argument("--spill-master", default="local-cluster[2,1,1024]",
                   help="the cspark-spill engine's master")
    p.add_argument("--spill-conf", action="append", default=[],
                   help="the cspark-spill engine's K=V, repeatable (default: "
                        "spark.executor.memory=1024m)")
    p.add_argument("--spill-metrics", action="store_true",
                   help="cspark's event log on: its spill metrics per run")
    p.add_argument("--spark-home")
    p.add_argument("--spark-driver-memory", default="4g")
    p.add_argument("--spark-master", default="local[2]", help="spark-sql's master (engine spark)")
    p.add_argument("--spark-conf", action="append", default=[],
                   help="spark-sql's K=V (engine spark), repeatable")
    p.add_argument("--python", default=sys.executable, help="python3 of the bench tools")
    p.add_argument("--versions", default="")
    p.add_argument("--work", help="directory for the runs' outputs")
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--no-all", action="store_true", help="skip the one-process runs")
    p.add_argument("--all-only", default="",
                   help="spark and/or peers (e.g. spark-connect): no per-query processes, only "
                        "the one-process run, whose rows and job times per query stand in the "
                        "per-query table")
    p.add_argument("--out-md", required=True)
    p.add_argument("--command", default="")
    p.add_argument("--render-only", action="store_true")
    p.add_argument("--no-plot", action="store_true", help="no PNG (no matplotlib needed)")
    p.add_argument("--resume", action="store_true",
                   help="keep the finished rounds of an interrupted run (its .json)")
    p.add_argument("--all-first", action="store_true",
                   help="the one-process runs before the per-query rounds (recorded at once, so "
                        "a run cut short keeps them)")
    p.add_argument("--all-concurrently", action="store_true",
                   help="the one-process runs at the same time as the per-query rounds")
    p.add_argument("--golden", help="Spark's recorded answers (qNN.out) as the reference")
    a = p.parse_args()
    a.spill_conf = a.spill_conf or ["spark.executor.memory=1024m"]
    a.queries = a.queries or SUITES[a.suite]["queries"]
    a.queries_list = a.queries_list or SUITES[a.suite]["list"]
    json_path = os.path.splitext(a.out_md)[0] + ".json"
    png_path = os.path.splitext(a.out_md)[0] + ".png"
    if a.render_only:
        with open(json_path) as f:
            results = json.load(f)
        # a record of an interrupted run: the finished rounds, checked now
        results["names"] = [n for n in results["names"] if n in results["queries"]]
        results.setdefault("load_end", loadavg())
        if any("check" not in r for n in results["names"] for r in results["queries"][n].values()):
            check(results, results["engines"], results["names"], a.golden,
                  results.get("suite", "tpch"), a.queries)
        save_json(results, json_path)
        render(results, a.out_md)
        plot(results, png_path)
        return 0
    engines = [e for e in a.engines.split(",") if e]
    all_only = [e for e in a.all_only.split(",") if e]
    if any((e != "spark" and e not in PEERS) or e not in engines for e in all_only):
        print("tpch_bench: --all-only takes spark or peer engines, when they are engines "
              "(got '%s')" % a.all_only,
              file=sys.stderr)
        return 2
    rounds = [e for e in engines if e not in all_only]
    for e in engines:
        if e not in ALL_ENGINES:
            print("tpch_bench: unknown engine '%s' (expected some of %s)"
                  % (e, ",".join(ALL_ENGINES)), file=sys.stderr)
            return 2
    nums = []
    for part in a.queries_list.split(","):
        lo, _, hi = part.partition("-")
        nums += list(range(int(lo), int(hi or lo) + 1))
    names = ["q%02d" % n for n in nums]
    bench = Bench(a)
    results = {
        "scale": a.scale, "suite": a.suite, "rows": a.rows, "seed": a.seed,
        "text_bytes": a.text_bytes,
        "all_only": all_only,
        "engines": engines, "names": names, "queries": {},
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(), "cpus": os.cpu_count(), "kernel": platform.release(),
        "load_start": loadavg(), "command": a.command, "commands": {},
        "spark_driver_memory": a.spark_driver_memory, "versions": a.versions,
        "cspark_master": a.cspark_master, "cspark_conf": a.cspark_conf,
        "spark_master": a.spark_master, "spark_conf": a.spark_conf,
        "spill_master": a.spill_master, "spill_conf": a.spill_conf,
        "dialect": sorted("%s/%s" % (e, f) for e in engines
                          if os.path.isdir(os.path.join(SUITES[a.suite]["dialect"], e))
                          for f in os.listdir(os.path.join(SUITES[a.suite]["dialect"], e))),
    }
    if a.resume and os.path.exists(json_path):  # rounds of an interrupted run are kept
        with open(json_path) as f:
            old = json.load(f)
        if old.get("engines") == engines and old.get("scale") == a.scale:
            for key in ("started", "load_start", "commands"):
                results[key] = old[key]
            results["queries"] = {n: r for n, r in old["queries"].items()
                                  if n in names and set(r) == set(engines)}
            results["resumed"] = True

    def report(label, e, rec):
        print("tpch_bench: %s %-10s whole %7.2f s job %s rss %6.0f MB%s"
              % (label, e, rec["whole_s"], fmt(rec["job_s"]), rec["rss_mb"],
                 "  " + rec["error"] if "error" in rec else ""), file=sys.stderr, flush=True)

    def all_runs():
        with LOCK:
            results["all"] = {}
        for e in engines:
            if a.no_all and e not in all_only:
                continue
            rec = bench.run(e, names, "all")
            with LOCK:  # the rounds may be saving the record meanwhile (--all-concurrently)
                results["all"][e] = rec
                results["commands"].setdefault(e, rec["cmd"])
            report("all", e, rec)

    one_process = not a.no_all or bool(all_only)  # some engine has a one-process run
    results["all_concurrently"] = bool(a.all_concurrently and one_process)
    concurrent = None
    if one_process and a.all_concurrently:
        concurrent = threading.Thread(target=all_runs)
        concurrent.start()
    elif a.all_first and one_process:
        all_runs()
        save_json(results, json_path)
    for k, name in enumerate(names):
        if name in results["queries"]:
            continue
        round_ = {}
        order = rounds[k % len(rounds):] + rounds[:k % len(rounds)] if rounds else []
        for e in order:
            round_[e] = bench.run(e, [name], name)
            with LOCK:
                results["commands"].setdefault(e, round_[e]["cmd"])
            report(name, e, round_[e])
        with LOCK:
            results["queries"][name] = round_
        save_json(results, json_path)  # progress, for --resume
    if concurrent is not None:
        concurrent.join()
    elif one_process and not a.all_first:
        all_runs()
    for e in all_only:  # the one-process run's queries stand in the per-query table
        rec = results["all"][e]
        for k, name in enumerate(names):
            done = rec.get("partial_jobs") or []
            r = {"whole_s": None, "rss_mb": None, "out": rec["out"], "from_all": k,
                 "job_s": done[k] if k < len(done) else None}
            if r["job_s"] is None:
                r["error"] = rec.get("error") or "no time for this query"
            results["queries"][name][e] = r
    results["load_end"] = loadavg()
    check(results, engines, names, a.golden, a.suite, a.queries)
    if a.golden:
        results["reference"] = "Spark's recorded answers (%s)" % scrub(os.path.abspath(a.golden))
    save_json(results, json_path)
    render(results, a.out_md)
    if not a.no_plot:
        plot(results, png_path)
    bad = [(n, e) for n in names for e in engines
           if results["queries"][n][e].get("check") not in ("same", "reference")]
    for n, e in bad:
        print("tpch_bench: %s %s: %s" % (e, n, results["queries"][n][e].get("check")),
              file=sys.stderr)
    print("tpch_bench: wrote %s, %s, %s" % (a.out_md, json_path, png_path), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
