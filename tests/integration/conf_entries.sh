#!/usr/bin/env bash
# conf_entries.sh — every configuration key read under src/ with a typed getter
# (cs_conf_get_int/_size/_duration_ms/_bool/_double) is declared in src/common/conf_entries.c
# with the same type and the same default unit, so cspark-submit validates it before anything
# starts; every key has at most one default: its entry's (read through the cs_conf_entry_*
# accessors) or, for a key whose entry has none, the one call site that passes a default to a
# typed getter; and the check is shown to catch a key read without a declaration, a call-site
# default next to an entry's, and two call sites with defaults of their own.
# Usage: conf_entries.sh BUILD_DIR
set -u
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat >"$T/check.py" <<'PY'
import re, sys, pathlib
src = pathlib.Path(sys.argv[1])
table = (src / "common" / "conf_entries.c").read_text()
declared = {}
defaults = {}  # key -> where its defaults are
for m in re.finditer(r'\b(BOOL|INT|PORT|SIZE|SIZE_POS|DUR_POS|DUR_NONNEG|DUR_OR_NEVER|DOUBLE|CHOICE)(_D)?\(\s*"([^"]+)"(?:\s*,\s*(CS_[A-Za-z]+))?', table):
    declared[m.group(3)] = (m.group(1), m.group(4))
    if m.group(2):
        defaults.setdefault(m.group(3), []).append("its entry in common/conf_entries.c")
kinds = {"int": ("INT", "PORT"), "bool": ("BOOL",), "double": ("DOUBLE",),
         "size": ("SIZE", "SIZE_POS"), "duration_ms": ("DUR_POS", "DUR_NONNEG", "DUR_OR_NEVER")}
call = re.compile(r'cs_conf_get_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"\s*,\s*([^,]+)(?:,\s*(CS_[A-Za-z]+))?')
accessor = re.compile(r'cs_conf_entry_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"')
problems = []
for f in sorted(src.rglob("*.c")):
    text = f.read_text()
    reads = [(m.group(1), m.group(2), None) for m in accessor.finditer(text)]
    for m in call.finditer(text):
        kind, key, dflt, unit = m.groups()
        reads.append((kind, key, unit))
        if dflt.strip() != "NULL":
            line = text.count("\n", 0, m.start()) + 1
            defaults.setdefault(key, []).append(f"{f.relative_to(src)}:{line}")
    for kind, key, unit in reads:
        if key not in declared:
            problems.append(f"{f.relative_to(src)}: {key} is read as {kind} but not declared in conf_entries.c")
            continue
        macro, dunit = declared[key]
        if macro not in kinds[kind]:
            problems.append(f"{f.relative_to(src)}: {key} is read as {kind} but declared {macro}")
        elif unit and dunit and unit != dunit:
            problems.append(f"{f.relative_to(src)}: {key} is read in {unit} but declared in {dunit}")
for key, where in sorted(defaults.items()):
    if len(where) > 1:
        problems.append(f"{key} has {len(where)} defaults, one allowed (put it in its entry, read "
                        f"it with cs_conf_entry_*): {', '.join(where)}")
for p in problems:
    print(p)
print(f"checked {len(declared)} declared keys")
sys.exit(1 if problems else 0)
PY
fails=0
fail() { echo "FAIL: conf_entries: $*"; fails=$((fails + 1)); }
out=$(/usr/bin/python3 "$T/check.py" "$SRC/src") || fail "$out"
# the check catches an undeclared key and a unit mismatch
mkdir -p "$T/src/common" "$T/src/x"
cp "$SRC/src/common/conf_entries.c" "$T/src/common/"
printf 'void f(void) { cs_conf_get_int(c, "spark.made.up", "1", &v, e);\n cs_conf_get_duration_ms(c, "spark.network.timeout", "120s", CS_MS, &v, e); }\n' >"$T/src/x/x.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") && fail "an undeclared key passed"
echo "$out" | grep -q "spark.made.up is read as int but not declared" || fail "undeclared key not named: $out"
echo "$out" | grep -q "spark.network.timeout is read in CS_MS but declared in CS_SEC" || fail "unit mismatch not named: $out"
# ... a call-site default for a key whose entry has one, and two call sites with their own
printf 'void g(void) { cs_conf_get_int(c, "spark.executor.cores", "1", &v, e); }\n' >"$T/src/x/x.c"
printf 'void h(void) { cs_conf_get_int(c, "spark.task.cpus", "1", &v, e); }\n' >"$T/src/x/y.c"
printf 'void i(void) { cs_conf_get_int(c,\n "spark.task.cpus", "2", &v, e); }\n' >"$T/src/x/z.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") && fail "a second default passed"
echo "$out" | grep -q "spark.executor.cores has 2 defaults, one allowed .*: its entry in common/conf_entries.c, x/x.c:1" ||
    fail "a call-site default next to the entry's not named: $out"
echo "$out" | grep -q "spark.task.cpus has 2 defaults, one allowed .*: x/y.c:1, x/z.c:1" ||
    fail "two call-site defaults not named: $out"
# ... and passes when both read through the accessor or with no default
printf 'void g(void) { cs_conf_entry_int(c, "spark.executor.cores", &v, e); }\n' >"$T/src/x/x.c"
printf 'void h(void) { cs_conf_get_int(c, "spark.task.cpus", NULL, &v, e); }\n' >"$T/src/x/y.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") || fail "one default per key refused: $out"
[ "$fails" -eq 0 ] && echo "PASS conf_entries" || exit 1
