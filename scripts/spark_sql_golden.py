"""spark_sql_golden.py — the Spark side of scripts/spark-sql-golden.sh: runs SQL corpus files
(tests/sql/corpus/*.sql, tests/sql/tpch/qNN.sql) on Apache Spark 4 and writes, per statement,
its result rows or its error class in the canonical text form tests/sql/README.md defines. The
golden files it writes are what tests/sql/compare.py judges cspark-sql's output against. Run with
spark-submit (one JVM for every file given; one fresh SparkSession.newSession() per file, so temp
views and SET values of one file never reach another).

    spark_sql_golden.py --out DIR [--var NAME=VALUE]... [--views DIR] [--jobs N] [--interpreted]
                        FILE.sql...

--var NAME=VALUE replaces ${NAME} in the statements (e.g. the directory of the generated data
files). --views DIR registers every DIR/<table>/ (a Parquet directory) or DIR/<table>.parquet as
a temporary view named <table> in each file's session before its statements (TPC-H). --jobs N
runs N files at once (default 3), each in its own thread and session. --interpreted turns Spark's
code generation off (the corpus: one-row inputs, where compiling costs more than running). Writes
DIR/<file name without .sql>.out for each file. Exit 0 when every file was written; 1 with a line
naming the file and statement when a statement breaks a corpus rule (an ORDER BY marker that does
not match the query, an error without a Spark error class).
"""
import argparse
import concurrent.futures
import decimal
import logging
import math
import os
import re
import struct
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import types as T

# ---------------------------------------------------------------------------------------------
# The corpus format (tests/sql/README.md): statements end with ';' at the end of a line; lines
# starting with '--' between statements are comments; '--@ordered' before a statement says it
# has a top-level ORDER BY, so its rows are kept in Spark's order.


def parse_corpus(path):
    statements = []
    cur, start, ordered, pending_ordered = [], 0, False, False
    with open(path, encoding="utf-8") as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            stripped = line.strip()
            if not cur:
                if stripped == "--@ordered":
                    pending_ordered = True
                    continue
                if stripped.startswith("--@"):
                    sys.exit("%s:%d: unknown directive %s (expected --@ordered)" %
                             (path, lineno, stripped))
                if not stripped or stripped.startswith("--"):
                    continue
                start, ordered, pending_ordered = lineno, pending_ordered, False
            cur.append(line)
            if stripped.endswith(";"):
                statements.append((start, ordered, "\n".join(cur).rstrip()[:-1].rstrip()))
                cur = []
    if cur:
        sys.exit("%s:%d: the last statement has no ';' at the end of a line" % (path, start))
    if pending_ordered:
        sys.exit("%s: --@ordered at the end of the file marks no statement" % path)
    return statements


# ---------------------------------------------------------------------------------------------
# Canonical values


def escape_text(s):
    """Spark's cast-to-string text of a value, kept on one line."""
    return s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")


def quote_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif o < 0x20 or o == 0x7F:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def canon_double(v):
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return repr(v)


def canon_float(v):
    if math.isnan(v) or math.isinf(v):
        return canon_double(v)
    bits = struct.pack("<f", v)
    for digits in range(1, 10):
        s = "%.*g" % (digits, v)
        try:
            if struct.pack("<f", float(s)) == bits:
                return repr(float(s))
        except OverflowError:  # rounded past the largest float
            continue
    return repr(v)


def canon_decimal(v, scale):
    q = v.quantize(decimal.Decimal(1).scaleb(-scale), context=decimal.Context(prec=100))
    s = format(q, "f")
    if s.startswith("-") and q == 0:
        s = s[1:]
    return s


def formatter(dt):
    """A function printing one top-level value of Spark type dt (after the projection below)."""
    if isinstance(dt, T.BooleanType):
        return lambda v: "true" if v else "false"
    if isinstance(dt, (T.ByteType, T.ShortType, T.IntegerType, T.LongType)):
        return str
    if isinstance(dt, T.DoubleType):
        return canon_double
    if isinstance(dt, T.FloatType):
        return canon_float
    if isinstance(dt, T.DecimalType):
        scale = dt.scale
        return lambda v: canon_decimal(v, scale)
    if isinstance(dt, (T.StringType, T.CharType, T.VarcharType)):
        return quote_string
    if isinstance(dt, T.BinaryType):
        return lambda v: "X'%s'" % v  # hex() was applied in Spark
    return escape_text  # projected to Spark's cast(... as string)


def as_string_in_spark(dt):
    """Types printed through Spark's own cast to string (or hex for binary)."""
    return not isinstance(dt, (T.BooleanType, T.ByteType, T.ShortType, T.IntegerType, T.LongType,
                               T.DoubleType, T.FloatType, T.DecimalType, T.StringType,
                               T.CharType, T.VarcharType))


# ---------------------------------------------------------------------------------------------
# Running one statement


def top_is_sort(df):
    """Spark's analyzed plan has a global Sort at its top (under projections, limits, filters)."""
    plan = df._jdf.queryExecution().analyzed()
    while True:
        name = plan.nodeName()
        if name == "Sort":
            return bool(getattr(plan, "global")())
        if name in ("Project", "Filter", "GlobalLimit", "LocalLimit", "Offset", "SubqueryAlias",
                    "WithCTE", "Limit"):
            if name == "WithCTE":
                plan = plan.plan()
            else:
                plan = plan.child()
            continue
        return False


def first_line(msg):
    for line in msg.splitlines():
        line = line.strip()
        if line:
            return re.sub(r"#\d+", "#N", line)
    return ""


def spark_error(exc):
    """(condition, sqlState, first line of the message) of a Spark error, else None."""
    cond = getattr(exc, "getCondition", None)
    if cond is not None and cond():
        return cond(), exc.getSqlState() or "", first_line(str(exc))
    java = getattr(exc, "java_exception", None)
    while java is not None:
        try:
            c = java.getCondition()
        except Exception:
            c = None
        if c:
            return c, java.getSqlState() or "", first_line(java.getMessage())
        java = java.getCause()
    return None


def run_statement(spark, text, ordered):
    """The lines of one statement's record after its echoed text; raises ValueError on a corpus
    rule broken."""
    try:
        df = spark.sql(text)
        schema = df.schema
        is_command = len(schema.fields) == 0
        if not is_command and top_is_sort(df) != ordered:
            raise ValueError("--@ordered %s" % (
                "given but Spark's plan has no top-level ORDER BY" if ordered
                else "missing but Spark's plan has a top-level ORDER BY"))
        cols = []
        renamed = df.toDF(*["c%d" % i for i in range(len(schema.fields))])
        for i, f in enumerate(schema.fields):
            c = "c%d" % i
            if isinstance(f.dataType, T.BinaryType):
                cols.append("hex(%s)" % c)
            elif as_string_in_spark(f.dataType):
                cols.append("cast(%s as string)" % c)
            else:
                cols.append(c)
        rows = renamed.selectExpr(*cols).collect() if cols else df.collect()
    except ValueError:
        raise
    except Exception as exc:  # Spark's errors: parse, analysis and runtime alike
        err = spark_error(exc)
        if err is None:
            raise ValueError("an error without a Spark error class: %s" % first_line(str(exc)))
        return ["-- error", ("[%s] %s" % (err[0], err[1])).rstrip(), "message: " + err[2]]
    fmts = [formatter(f.dataType) for f in schema.fields]
    lines = []
    for r in rows:
        lines.append("\t".join("NULL" if v is None else fmt(v) for fmt, v in zip(fmts, r)))
    if not ordered:
        lines.sort(key=lambda s: s.encode("utf-8"))
    return ["-- schema", escape_text(schema.simpleString()),
            ("-- types " + "\t".join(f.dataType.simpleString() for f in schema.fields)).rstrip(),
            "-- rows %d %s" % (len(lines), "ordered" if ordered else "sorted")] + lines


def register_views(spark, views_dir):
    for entry in sorted(os.listdir(views_dir)):
        path = os.path.join(views_dir, entry)
        name = entry[:-len(".parquet")] if entry.endswith(".parquet") else entry
        if os.path.isdir(path) or entry.endswith(".parquet"):
            spark.read.parquet(path).createOrReplaceTempView(name)


def run_file(base, path, out_dir, views, variables):
    """Runs one corpus file in a new session and writes its .out; returns the broken count."""
    failures = 0
    statements = parse_corpus(path)
    spark = base.newSession()
    if views:
        register_views(spark, views)
    name = os.path.basename(path)[:-len(".sql")]
    out = ["-- golden of %s: %d statements, Apache Spark %s" %
           (os.path.basename(path), len(statements), base.version)]
    for n, (line, ordered, text) in enumerate(statements, 1):
        out.append("")
        out.append("-- query %d (line %d)" % (n, line))
        out.extend(text.split("\n"))
        started = time.time()
        run_text = text
        for var, value in variables.items():
            run_text = run_text.replace("${%s}" % var, value)
        try:
            record = run_statement(spark, run_text, ordered)
            # the golden names no directory of this machine: values back to ${NAME}
            for var, value in variables.items():
                record = [r.replace(value, "${%s}" % var) for r in record]
            out.extend(record)
        except ValueError as e:
            print("spark-sql-golden: %s:%d: %s" % (path, line, e), file=sys.stderr)
            failures += 1
            out.append("-- broken: %s" % e)
        if os.environ.get("SPARK_SQL_GOLDEN_TIMES"):
            print("time: %s:%d %.2fs" % (path, line, time.time() - started), file=sys.stderr)
    tmp = os.path.join(out_dir, name + ".out.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    os.replace(tmp, os.path.join(out_dir, name + ".out"))
    print("written: %s (%d statements)" % (name + ".out", len(statements)))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--var", action="append", default=[])
    ap.add_argument("--views")
    ap.add_argument("--jobs", type=int, default=3)
    ap.add_argument("--interpreted", action="store_true")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    variables = {}
    for v in args.var:
        name, _, value = v.partition("=")
        variables[name] = value
    base = (SparkSession.builder.appName("spark_sql_golden")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.sql.ansi.enabled", "true")
            .config("spark.ui.enabled", "false"))
    if args.interpreted:
        # no Java code generated and compiled per query: Spark's interpreted expressions, the
        # same semantics (Spark's own tests run both), a fraction of the CPU for tiny inputs
        base = (base.config("spark.sql.codegen.wholeStage", "false")
                .config("spark.sql.codegen.factoryMode", "NO_CODEGEN"))
    base = base.getOrCreate()
    base.sparkContext.setLogLevel("OFF")
    # pyspark logs each query error as JSON on stdout (SQLQueryContextLogger): not wanted here
    logging.getLogger("SQLQueryContextLogger").setLevel(logging.CRITICAL + 1)
    os.makedirs(args.out, exist_ok=True)
    # Files run in parallel threads (each its own session): the driver's parsing, analysis and
    # code generation of one file overlap another's tasks. Results do not depend on it.
    biggest_first = sorted(args.files, key=lambda p: -os.path.getsize(p))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        failures = sum(pool.map(lambda p: run_file(base, p, args.out, args.views, variables),
                                biggest_first))
    base.stop()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
