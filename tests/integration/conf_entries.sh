#!/usr/bin/env bash
# conf_entries.sh — every configuration key read under src/ with a typed getter
# (cs_conf_get_int/_size/_duration_ms/_bool/_double) is declared in src/common/conf_entries.c
# with the same type and the same default unit, so cspark-submit validates it before anything
# starts; every key has at most one default: its entry's (read through the cs_conf_entry_*
# accessors) or, for a key whose entry has none, the one call site that passes a default to a
# typed getter or in place of an unset text key (cs_conf_get(...) ?: "d" and its spellings); and
# the check is shown to catch a key read without a declaration, a call-site
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
for m in re.finditer(r'\b(BOOL|INT|PORT|SIZE|SIZE_POS|DUR_POS|DUR_NONNEG|DUR_OR_NEVER|DOUBLE|CHOICE|STRING)(_D)?\(\s*"([^"]+)"(?:\s*,\s*(CS_[A-Za-z]+))?', table):
    declared[m.group(3)] = (m.group(1), m.group(4))
    if m.group(2):
        defaults.setdefault(m.group(3), []).append("its entry in common/conf_entries.c")
kinds = {"int": ("INT", "PORT"), "bool": ("BOOL",), "double": ("DOUBLE",),
         "size": ("SIZE", "SIZE_POS"), "duration_ms": ("DUR_POS", "DUR_NONNEG", "DUR_OR_NEVER")}
call = re.compile(r'cs_conf_get_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"\s*,\s*([^,]+)(?:,\s*(CS_[A-Za-z]+))?')
accessor = re.compile(r'cs_conf_entry_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"')
problems = []
# a text key read raw with a literal (not "": that is no value) in its place when unset: `cs_conf_get(c, "k") ?: "d"`,
# `or(cs_conf_get(c, "k"), "d")`, or `v = cs_conf_get(c, "k")` ... `v ? v : "d"` (the same
# statement or the next lines); each is a default of its own
raw = re.compile(r'cs_conf_get\(\s*[^,()]+,\s*"([^"]+)"\)')
def text_defaults(text):
    for m in raw.finditer(text):
        after = text[m.end():m.end() + 200]
        wrapped = re.match(r'\s*(?:\?:|,)\s*"[^"]+"', after)
        if wrapped and (after.lstrip().startswith("?:") or text[:m.start()].rstrip().endswith("(")):
            yield m.group(1), m.start()
            continue
        assigned = re.search(r'\b([A-Za-z_]\w*)\s*=\s*$', text[max(0, m.start() - 120):m.start()])
        if not assigned:
            continue
        v = re.escape(assigned.group(1))
        if re.search(r'\b%s\s*(?:&&\s*\*%s\s*)?\?\s*%s\s*:\s*"[^"]+"' % (v, v, v),
                     text[m.end():m.end() + 1500]):
            yield m.group(1), m.start()
        elif re.match(r'\s*;\s*if\s*\(!%s\)\s*%s\s*=\s*"' % (v, v), after):
            yield m.group(1), m.start()
for f in sorted(src.rglob("*.c")):
    text = f.read_text()
    for key, pos in text_defaults(text):
        defaults.setdefault(key, []).append(f"{f.relative_to(src)}:{text.count(chr(10), 0, pos) + 1}")
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
# ... a text key's literal in two places, or beside its entry's
printf 'void j(void) { const char *m = cs_conf_get(c, "spark.master");\n run(m ? m : "local[*]"); }\n' >"$T/src/x/x.c"
printf 'void k(void) { const char *n = cs_conf_get(c, "spark.x.ns");\n if (!n) n = "default"; }\n' >"$T/src/x/y.c"
printf 'void l(void) { use(dup_or(cs_conf_get(c, "spark.x.ns"), "default")); }\n' >"$T/src/x/z.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") && fail "a second default of a text key passed"
echo "$out" | grep -q "spark.master has 2 defaults, one allowed .*: its entry in common/conf_entries.c, x/x.c:1" ||
    fail "a text key's literal next to the entry's default not named: $out"
echo "$out" | grep -q "spark.x.ns has 2 defaults, one allowed .*: x/y.c:1, x/z.c:1" ||
    fail "two literals for a text key not named: $out"
rm -f "$T/src/x/z.c"
# ... and passes when both read through the accessor or with no default
printf 'void g(void) { cs_conf_entry_int(c, "spark.executor.cores", &v, e); }\n' >"$T/src/x/x.c"
printf 'void h(void) { cs_conf_get_int(c, "spark.task.cpus", NULL, &v, e); }\n' >"$T/src/x/y.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") || fail "one default per key refused: $out"
[ "$fails" -eq 0 ] && echo "PASS conf_entries" || exit 1
