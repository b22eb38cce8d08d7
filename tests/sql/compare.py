"""compare.py — judges an engine's SQL results against Apache Spark 4's golden files. Both sides
are in the canonical text form tests/sql/README.md defines (the goldens are written by
scripts/spark-sql-golden.sh; cspark-sql prints the same form through its canonical output
option). Plain python3, no packages: CI runs it with /usr/bin/python3.

    compare.py [--all] [--messages] [--no-names] GOLDEN RESULT

GOLDEN and RESULT are two .out files, or two directories (every GOLDEN/*.out must have a
RESULT/*.out of the same name). Per statement (matched by its number): an error must have the
same error class and SQLSTATE (and, with --messages, the same first message line); a result must
have the same schema line (with --no-names only the types line) and the same rows: in order when
the golden says 'ordered', as a multiset when it says 'sorted'. Values compare exactly as text,
except in double columns (relative 1e-9, absolute 1e-12) and float columns (relative 1e-6); NaN
equals NaN. Decimals, nested values and everything else are exact.

Prints the first differing statement (with --all: every one) with the statement's text and a
diff, and a closing 'N passed, N failed' line. Exit: 0 all equal; 1 some differ; 2 bad input.
"""
import difflib
import math
import os
import sys


class Block:
    def __init__(self, number, line):
        self.number = number
        self.line = line
        self.text = []
        self.kind = None  # "rows" | "error" | "broken"
        self.schema = ""
        self.types = []
        self.mode = ""
        self.rows = []
        self.error = ""
        self.message = ""


def fail_input(msg):
    print("compare: " + msg, file=sys.stderr)
    sys.exit(2)


def parse(path):
    """{statement number: Block} of one canonical file."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        fail_input("cannot read %s: %s" % (path, e.strerror))
    if lines and lines[-1] == "":
        lines.pop()
    blocks = {}
    i = 0

    def need(cond, what):
        if not cond:
            fail_input("%s:%d: expected %s" % (path, i + 1, what))

    while i < len(lines):
        line = lines[i]
        if not line.startswith("-- query "):
            i += 1
            continue
        head = line[len("-- query "):].split()
        need(head and head[0].isdigit(), "'-- query N (line L)'")
        b = Block(int(head[0]), line)
        i += 1
        while i < len(lines) and lines[i] not in ("-- schema", "-- error") \
                and not lines[i].startswith("-- broken") and not lines[i].startswith("-- query "):
            b.text.append(lines[i])
            i += 1
        need(i < len(lines) and not lines[i].startswith("-- query "), "'-- schema' or '-- error'")
        if lines[i] == "-- error":
            b.kind = "error"
            need(i + 1 < len(lines), "the error class line")
            b.error = lines[i + 1].strip()
            i += 2
            if i < len(lines) and lines[i].startswith("message: "):
                b.message = lines[i][len("message: "):]
                i += 1
        elif lines[i].startswith("-- broken"):
            b.kind = "broken"
            i += 1
        else:
            b.kind = "rows"
            need(i + 3 < len(lines) + 1, "schema, types and rows lines")
            b.schema = lines[i + 1]
            need(lines[i + 2].startswith("-- types"), "'-- types ...'")
            t = lines[i + 2][len("-- types"):]
            b.types = t[1:].split("\t") if t.startswith(" ") else []
            rows_head = lines[i + 3].split() if i + 3 < len(lines) else []
            need(len(rows_head) == 4 and rows_head[:2] == ["--", "rows"] and rows_head[2].isdigit()
                 and rows_head[3] in ("sorted", "ordered"), "'-- rows N sorted|ordered'")
            count = int(rows_head[2])
            b.mode = rows_head[3]
            i += 4
            need(i + count <= len(lines), "%d row lines" % count)
            b.rows = lines[i:i + count]
            i += count
        if b.number in blocks:
            fail_input("%s: statement %d appears twice" % (path, b.number))
        blocks[b.number] = b
    return blocks


def parse_double(s):
    if s == "NaN":
        return math.nan
    if s == "Infinity":
        return math.inf
    if s == "-Infinity":
        return -math.inf
    return float(s)


def value_equal(g, r, typ):
    if g == r:
        return True
    if typ not in ("double", "float") or g == "NULL" or r == "NULL":
        return False
    try:
        a, b = parse_double(g), parse_double(r)
    except ValueError:
        return False
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    rel = 1e-9 if typ == "double" else 1e-6
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), 1e-12)


def row_equal(g, r, types):
    gv, rv = g.split("\t"), r.split("\t")
    if len(gv) != len(rv):
        return False
    if len(types) != len(gv):  # zero-column or malformed: text only
        return g == r
    return all(value_equal(x, y, t) for x, y, t in zip(gv, rv, types))


def rows_equal(golden, result):
    if len(golden.rows) != len(result.rows):
        return False
    types = golden.types
    if golden.mode == "ordered":
        return all(row_equal(g, r, types) for g, r in zip(golden.rows, result.rows))
    res = sorted(result.rows, key=lambda s: s.encode("utf-8"))
    if all(row_equal(g, r, types) for g, r in zip(golden.rows, res)):
        return True
    if not any(t in ("double", "float") for t in types):
        return False
    unused = list(res)  # near-equal doubles may sort apart: match each golden row to any row
    for g in golden.rows:
        for k, r in enumerate(unused):
            if row_equal(g, r, types):
                del unused[k]
                break
        else:
            return False
    return True


def describe(b):
    if b is None:
        return ["(no result for this statement)"]
    if b.kind == "error":
        return ["-- error", b.error] + (["message: " + b.message] if b.message else [])
    if b.kind == "broken":
        return ["-- broken"]
    return ["-- schema", b.schema, "-- types " + "\t".join(b.types),
            "-- rows %d %s" % (len(b.rows), b.mode)] + b.rows


def compare_block(g, r, opts):
    """None when equal, else a reason."""
    if r is None:
        return "the result has no statement %d" % g.number
    if g.kind == "broken":
        return None
    if g.kind == "error":
        if r.kind != "error":
            return "Spark fails with %s; the result has rows" % g.error
        if g.error != r.error:
            return "error %s expected, got %s" % (g.error, r.error)
        if opts["messages"] and g.message != r.message:
            return "the error message differs"
        return None
    if r.kind != "rows":
        return "rows expected, the result fails with %s" % r.error
    if g.types != r.types:
        return "column types differ"
    if not opts["no_names"] and g.schema != r.schema:
        return "schema differs"
    if not rows_equal(g, r):
        return "rows differ (%d expected, %d got)" % (len(g.rows), len(r.rows))
    return None


def report(name, g, r, reason, limit=40):
    where = g.line[len("-- query %d " % g.number):]
    print("DIFF %s statement %d %s: %s" % (name, g.number, where, reason))
    for t in g.text:
        print("    " + t)
    want = describe(g)
    got = describe(r)
    if r is not None and g.kind == "rows" and r.kind == "rows" and g.mode == "sorted":
        got = got[:4] + sorted(r.rows, key=lambda s: s.encode("utf-8"))
    diff = list(difflib.unified_diff(want, got, "golden (Spark)", "result", lineterm="", n=2))
    for d in diff[:limit]:
        print("  " + d)
    if len(diff) > limit:
        print("  ... (%d more diff lines)" % (len(diff) - limit))


def pairs(golden, result):
    if os.path.isdir(golden):
        if not os.path.isdir(result):
            fail_input("%s is a directory, %s is not" % (golden, result))
        names = sorted(n for n in os.listdir(golden) if n.endswith(".out"))
        if not names:
            fail_input("no .out files in %s" % golden)
        return [(n, os.path.join(golden, n), os.path.join(result, n)) for n in names]
    return [(os.path.basename(golden), golden, result)]


def main(argv):
    opts = {"all": False, "messages": False, "no_names": False}
    args = []
    for a in argv:
        if a in ("--all", "--messages", "--no-names"):
            opts[a[2:].replace("-", "_")] = True
        elif a.startswith("--"):
            fail_input("unknown option %s (expected --all, --messages, --no-names)" % a)
        else:
            args.append(a)
    if len(args) != 2:
        fail_input("usage: compare.py [--all] [--messages] [--no-names] GOLDEN RESULT")
    passed = failed = 0
    for name, gpath, rpath in pairs(*args):
        golden = parse(gpath)
        if not os.path.exists(rpath):
            print("DIFF %s: no result file %s" % (name, rpath))
            failed += len(golden)
            if not opts["all"]:
                break
            continue
        result = parse(rpath)
        stop = False
        for n in sorted(golden):
            g, r = golden[n], result.get(n)
            reason = compare_block(g, r, opts)
            if reason is None:
                passed += 1
                continue
            failed += 1
            report(name, g, r, reason)
            if not opts["all"]:
                stop = True
                break
        if stop:
            break
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
