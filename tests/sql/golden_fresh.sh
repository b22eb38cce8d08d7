#!/usr/bin/env bash
# golden_fresh.sh — the SQL judge checks itself without cspark: Apache Spark 4 reruns
# tests/sql/corpus/canonical.sql through scripts/spark-sql-golden.sh and its output must be byte
# for byte the committed golden (tests/sql/golden/corpus/canonical.out): the goldens are
# reproducible and the canonical printing is deterministic. Then tests/sql/compare.py is checked
# on that golden: equal to itself (rows shuffled where the golden says 'sorted', doubles off by
# 1e-12 relative), and different when a value, an error class, the order of an 'ordered' result
# or a statement is changed or missing. Installs the pinned Spark (scripts/install-spark.sh);
# exits 77 (SKIP) only when that fails.
. "$(dirname "$0")/../lib/prelude.sh"
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
export LC_ALL=C
make_tmp T
GOLDEN=$SRC/tests/sql/golden/corpus/canonical.out
COMPARE=$SRC/tests/sql/compare.py
[ -f "$GOLDEN" ] || fail "no golden $GOLDEN"

"$SRC/scripts/install-spark.sh" >/dev/null 2>"$T/install.err" || {
    echo "SKIP: $TEST_NAME: Apache Spark cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
timeout 900 "$SRC/scripts/spark-sql-golden.sh" --out "$T/fresh" --data "$T/data" corpus \
    "$SRC/tests/sql/corpus/canonical.sql" 2>"$T/run.err" || {
    cat "$T/run.err" >&2
    fail "scripts/spark-sql-golden.sh failed"
}
diff -u "$GOLDEN" "$T/fresh/canonical.out" >&2 ||
    fail "Spark's answers differ from the committed golden (rerun scripts/spark-sql-golden.sh)"

# compare.py: equal cases
"$PY" "$COMPARE" "$GOLDEN" "$GOLDEN" >"$T/c.out" ||
    { cat "$T/c.out" >&2; fail "the golden differs from itself"; }
"$PY" - "$GOLDEN" "$T" <<'PYEOF' || fail "cannot write the mutated results"
import re, sys
src, out = sys.argv[1], sys.argv[2]
lines = open(src, encoding="utf-8").read().split("\n")

def write(name, ls):
    open("%s/%s.out" % (out, name), "w", encoding="utf-8").write("\n".join(ls))

def rows_of(ls, mode):
    """(index of the '-- rows N mode' line, N) of the first block with N >= 2 of that mode"""
    for i, l in enumerate(ls):
        m = re.match(r"-- rows (\d+) (\w+)$", l)
        if m and m.group(2) == mode and int(m.group(1)) >= 2:
            return i, int(m.group(1))
    raise SystemExit("no %s block with 2 rows" % mode)

# equal: sorted rows reversed (the engine's order), doubles nudged by 1e-12 relative
eq = list(lines)
i, n = rows_of(eq, "sorted")
eq[i + 1:i + 1 + n] = reversed(eq[i + 1:i + 1 + n])
for k, l in enumerate(eq):
    if l.startswith("0.1\t-0.0\t1e+16"):
        eq[k] = l.replace("0.1\t", "0.1000000000001\t", 1)
write("equal", eq)
# different: the order of an ordered block
d = list(lines)
i, n = rows_of(d, "ordered")
d[i + 1], d[i + 2] = d[i + 2], d[i + 1]
write("order", d)
# different: a decimal value off by its last digit
write("decimal", [l.replace("1.50\t", "1.51\t", 1) if l.startswith("1.50\t") else l for l in lines])
# different: an error class
write("error", [l.replace("[DIVIDE_BY_ZERO]", "[ARITHMETIC_OVERFLOW]") for l in lines])
# different: a double beyond the tolerance
write("double", [l.replace("0.1\t", "0.1000001\t", 1) if l.startswith("0.1\t-0.0") else l
                  for l in lines])
# different: the last statement missing
cut = max(k for k, l in enumerate(lines) if l.startswith("-- query "))
write("missing", lines[:cut])
PYEOF
"$PY" "$COMPARE" "$GOLDEN" "$T/equal.out" >"$T/c.out" ||
    { cat "$T/c.out" >&2; fail "compare.py rejects shuffled sorted rows or a 1e-12 difference"; }
for m in order decimal error double missing; do
    if "$PY" "$COMPARE" "$GOLDEN" "$T/$m.out" >"$T/c.out"; then
        fail "compare.py accepts the '$m' mutation"
    fi
    grep -q '^DIFF canonical.out statement' "$T/c.out" || grep -q '^DIFF' "$T/c.out" ||
        { cat "$T/c.out" >&2; fail "compare.py printed no DIFF for '$m'"; }
    grep -q '^[0-9]* passed, [1-9][0-9]* failed$' "$T/c.out" || fail "no closing count for '$m'"
done
echo "PASS: $TEST_NAME (Spark reproduces canonical.out byte for byte; compare.py finds 5 mutations)"
