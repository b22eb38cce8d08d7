#!/usr/bin/python3
"""analyze_schemas.py — judges cspark's parser + analyzer against Spark 4's goldens, without
executing: for every corpus statement, the result schema (the `-- schema` and `-- types` lines) or
the error class + SQLSTATE line that tests/tools/sql_analyze_check printed must equal the golden's.
A golden error that Spark raises while executing (SQLSTATE class 22 data exception, 21
cardinality, 23 integrity constraint, 38 function call, P0 raise_error; the classes in
RUNTIME_CLASSES) says nothing of the schema: there analysis must
succeed (or fail with that same class).

    analyze_schemas.py GOLDEN_DIR RESULT_DIR KNOWN_FILE

KNOWN_FILE lists the statements that do not match yet, one `file:N  reason` a line (`#` comments).
Exit 1 when a statement not listed mismatches or a listed one matches (the list stays honest),
else 0. Prints every mismatch and the counts. Called by analyze_schemas.sh."""
import os
import re
import sys

RUNTIME_STATES = ("22", "21", "23", "38", "P0")
# Errors Spark raises while executing whatever their SQLSTATE: QueryExecutionErrors' legacy
# classes (_LEGACY_ERROR_TEMP_2xxx) and the datetime formatter's refusals of a pattern.
RUNTIME_CLASSES = ("[_LEGACY_ERROR_TEMP_2", "[INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_",
                   "[INVALID_FORMAT.MISMATCH_INPUT]")  # to_number's input, checked as it runs


def blocks(path):
    """{N: (kind, lines)} from a golden or the tool's output: kind 'schema' or 'error'."""
    out = {}
    cur = None
    mode = None
    with open(path, encoding="utf-8") as f:
        for line in f.read().split("\n"):
            m = re.match(r"^-- query (\d+) \(line \d+\)$", line)
            if m:
                cur = int(m.group(1))
                mode = None
                continue
            if cur is None:
                continue
            if line == "-- schema":
                mode = "schema"
                out[cur] = ("schema", [])
            elif line == "-- error":
                mode = "error"
                out[cur] = ("error", [])
            elif mode == "schema" and (line.startswith("struct<") or line.startswith("-- types")):
                out[cur][1].append(line)
                if line.startswith("-- types"):
                    mode = None
            elif mode == "error" and line.startswith("["):
                out[cur][1].append(" ".join(line.split()))  # "[CLASS] STATE", or "[CLASS]"
                mode = None
    return out


def runtime_error(block):
    if block[0] != "error" or not block[1]:
        return False
    parts = block[1][0].split()
    if parts[0].startswith(RUNTIME_CLASSES):
        return True
    return len(parts) == 2 and parts[1].startswith(RUNTIME_STATES)


def main():
    if len(sys.argv) != 4:
        print("usage: analyze_schemas.py GOLDEN_DIR RESULT_DIR KNOWN_FILE", file=sys.stderr)
        return 2
    golden_dir, result_dir, known_file = sys.argv[1:]
    known = {}
    with open(known_file, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, reason = line.partition(" ")
            known[key] = reason.strip()
    matched = total = 0
    bad = []
    for name in sorted(os.listdir(golden_dir)):
        if not name.endswith(".out"):
            continue
        stem = name[:-4]
        golden = blocks(os.path.join(golden_dir, name))
        result_path = os.path.join(result_dir, name)
        result = blocks(result_path) if os.path.exists(result_path) else {}
        for n in sorted(golden):
            total += 1
            key = "%s:%d" % (stem, n)
            g, r = golden[n], result.get(n)
            if r is None:
                ok = False
                got = "(no result)"
            elif runtime_error(g):
                ok = r[0] == "schema" or r[1] == g[1]
                got = " | ".join(r[1])
            else:
                ok = r == g
                got = " | ".join(r[1])
            matched += ok
            if ok and key in known:
                bad.append("%s matches now: remove it from the known list" % key)
            elif not ok and key not in known:
                bad.append("%s differs: golden %s, cspark %s" % (key, " | ".join(g[1]), got))
            elif not ok:
                print("known %s (%s): golden %s, cspark %s" % (key, known[key], " | ".join(g[1]), got))
    for key in sorted(set(known)):
        stem, _, n = key.partition(":")
        if not os.path.exists(os.path.join(golden_dir, stem + ".out")):
            bad.append("%s on the known list names no golden statement" % key)
    for line in bad:
        print("FAIL " + line)
    print("%d of %d statements match Spark's schema or error class; %d known, %d unexpected"
          % (matched, total, len(known), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
