#!/usr/bin/python3
"""known_judge.py — compare.py's judgement of every statement of a run, against a list of the
statements known not to match Spark yet: the list only shrinks.

    known_judge.py GOLDEN_DIR RESULT_DIR KNOWN_FILE [--write-known FILE]

Every GOLDEN_DIR/*.out statement is compared with RESULT_DIR's as compare.py compares (error
class and SQLSTATE, schema and types, rows as a multiset or in order). KNOWN_FILE lists, one a
line, `file:N reason` (`#` comments): the statements that differ today. Exit 1 when a statement
that is not listed differs, or a listed one now matches (remove its line), or the list names a
statement with no golden; else 0. Prints every unexpected statement with compare.py's diff and
the counts. --write-known FILE writes the list the run would need (to start or refresh one).
Called by tests/sql/corpus_run.sh and tpch_sf01.sh; plain python3, no packages."""
import io
import os
import sys
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare  # noqa: E402


def read_known(path):
    known = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, reason = line.partition(" ")
            known[key] = reason.strip()
    return known


def main(argv):
    write_known = None
    if "--write-known" in argv:
        i = argv.index("--write-known")
        write_known = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) != 3:
        print("usage: known_judge.py GOLDEN_DIR RESULT_DIR KNOWN_FILE [--write-known FILE]",
              file=sys.stderr)
        return 2
    golden_dir, result_dir, known_file = argv
    known = read_known(known_file) if os.path.exists(known_file) else {}
    opts = {"all": True, "messages": False, "no_names": False}
    matched = total = 0
    bad, now_failing = [], []
    for name in sorted(n for n in os.listdir(golden_dir) if n.endswith(".out")):
        stem = name[:-4]
        golden = compare.parse(os.path.join(golden_dir, name))
        rpath = os.path.join(result_dir, name)
        result = compare.parse(rpath) if os.path.exists(rpath) else {}
        for n in sorted(golden):
            total += 1
            key = "%s:%d" % (stem, n)
            g, r = golden[n], result.get(n)
            reason = compare.compare_block(g, r, opts)
            if reason is None:
                matched += 1
                if key in known:
                    bad.append("%s matches now: remove it from %s" % (key, known_file))
                continue
            why = reason
            if r is not None and r.kind == "error":  # what failed, without the job's wrapping
                msg = r.message.split("(localhost executor driver): ")[-1]
                why = "%s: %s" % (reason, msg[:140])
            now_failing.append("%s %s" % (key, why))
            if key not in known:
                diff = io.StringIO()
                with redirect_stdout(diff):
                    compare.report(name, g, r, reason)
                bad.append("%s differs: %s\n%s" % (key, why, diff.getvalue().rstrip()))
    for key in sorted(known):
        stem, _, n = key.partition(":")
        gpath = os.path.join(golden_dir, stem + ".out")
        if not os.path.exists(gpath) or not n.isdigit() or int(n) not in compare.parse(gpath):
            bad.append("%s on the known list names no golden statement" % key)
    if write_known:
        with open(write_known, "w", encoding="utf-8") as f:
            f.write("\n".join(now_failing) + ("\n" if now_failing else ""))
    for line in bad:
        print("FAIL " + line)
    print("%d of %d statements match Spark; %d known to differ, %d unexpected"
          % (matched, total, len(known), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
