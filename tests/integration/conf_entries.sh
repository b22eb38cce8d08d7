#!/usr/bin/env bash
# conf_entries.sh — every configuration key read under src/ with a typed getter
# (cs_conf_get_int/_size/_duration_ms/_bool/_double) is declared in src/common/conf_entries.c
# with the same type and the same default unit, so cspark-submit validates it before anything
# starts; every key has at most one default: its entry's (read through the cs_conf_entry_*
# accessors) or, for a key whose entry has none, the one call site that passes a default to a
# typed getter or in place of an unset text key (cs_conf_get(...) ?: "d" and its spellings), that
# sets it when unset (cs_conf_set_if_missing(c, "k", v)), or that calls a helper passing its key
# and a default on to a typed getter (conf_port(c, "k", 7078, ...)); and the check is shown to
# catch a key read without a declaration, a call-site default next to an entry's, two call sites
# with defaults of their own, and the set-if-missing and helper spellings. The per-scope defaults
# of conf_entries.c (scoped_defaults: Kubernetes pods, executors apart from the driver) are the
# one place a key may have a second default, for its scope.
# Usage: conf_entries.sh BUILD_DIR
# ctest-labels: no-asan (it reads the sources, not the build: the sanitizer pass would repeat it)
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
for m in re.finditer(r'\b(BOOL|INT|PORT|SIZE|SIZE_POS|DUR_POS|DUR_NONNEG|DUR_OR_NEVER|DOUBLE|CHOICE|STRING|SECRET)(_D)?\(\s*"([^"]+)"(?:\s*,\s*(CS_[A-Za-z]+))?', table):
    declared[m.group(3)] = (m.group(1), m.group(4))
    if m.group(2):
        defaults.setdefault(m.group(3), []).append("its entry in common/conf_entries.c")
kinds = {"int": ("INT", "PORT"), "bool": ("BOOL",), "double": ("DOUBLE",),
         "size": ("SIZE", "SIZE_POS"), "duration_ms": ("DUR_POS", "DUR_NONNEG", "DUR_OR_NEVER")}
call = re.compile(r'cs_conf_get_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"\s*,\s*([^,]+)(?:,\s*(CS_[A-Za-z]+))?')
accessor = re.compile(r'cs_conf_entry_(int|bool|double|size|duration_ms)(?:_in)?\(\s*[^,]+,\s*"([^"]+)"')
# cs_conf_set_if_missing(c, "k", v): a default of k when v is a literal or a local buffer
set_missing = re.compile(r'cs_conf_set_if_missing\(\s*[^,]+,\s*"([^"]+)"\s*,\s*([^;]*)\);')
# a helper that passes its key parameter and a default on to a typed getter: every call of it
# with a literal key (and a default that is not NULL) is a default of that key
funcdef = re.compile(r'^(?:static\s+)?[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\(([^)]*)\)\s*\{', re.M)
def helpers(text):
    out = {}
    for m in funcdef.finditer(text):
        params = [re.sub(r'.*?([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?$', r'\1', p.strip()) for p in m.group(2).split(',')]
        end = text.find('\n}', m.end())
        body = text[m.end():end if end > 0 else len(text)]
        for g in re.finditer(r'cs_conf_get_(?:int|bool|double|size|duration_ms)\(\s*[^,]+,\s*([A-Za-z_]\w*)\s*,\s*([^,]+),', body):
            key, dflt = g.group(1), g.group(2).strip()
            if key in params and re.fullmatch(r'[A-Za-z_]\w*', dflt) and dflt != "NULL":
                out[m.group(1)] = (params.index(key), params.index(dflt) if dflt in params else None)
    return out
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
texts = {f: f.read_text() for f in sorted(src.rglob("*.c"))}
wrappers = {}
for f, text in texts.items():
    wrappers.update(helpers(text))
def args_of(text, start):
    depth, cur, out = 0, "", []
    for ch in text[start:start + 2000]:
        if ch in "([{": depth += 1
        if ch in ")]}":
            if depth == 0:
                out.append(cur.strip()); return out
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip()); cur = ""; continue
        cur += ch
    return out
for f, text in texts.items():
    where = lambda pos: f"{f.relative_to(src)}:{text.count(chr(10), 0, pos) + 1}"
    for m in set_missing.finditer(text):
        # a literal, or a buffer a constant was printed into; not a value computed for this
        # application (app->prefix, the file's name) nor the entry's own (cs_conf_entry_*)
        if re.fullmatch(r'"[^"]*"|[A-Za-z_]\w*', m.group(2).strip()):
            defaults.setdefault(m.group(1), []).append(where(m.start()))
    for name, (ki, di) in wrappers.items():
        for m in re.finditer(r'(?<![\w.>])%s\(' % re.escape(name), text):
            args = args_of(text, m.end())
            if len(args) <= ki or not re.fullmatch(r'"[^"]+"', args[ki]):
                continue
            if di is not None and (len(args) <= di or args[di] == "NULL"):
                continue
            defaults.setdefault(args[ki].strip('"'), []).append(where(m.start()))
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
printf 'void h(void) { cs_conf_get_int(c, "spark.cores.max", "1", &v, e); }\n' >"$T/src/x/y.c"
printf 'void i(void) { cs_conf_get_int(c,\n "spark.cores.max", "2", &v, e); }\n' >"$T/src/x/z.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") && fail "a second default passed"
echo "$out" | grep -q "spark.executor.cores has 2 defaults, one allowed .*: its entry in common/conf_entries.c, x/x.c:1" ||
    fail "a call-site default next to the entry's not named: $out"
echo "$out" | grep -q "spark.cores.max has 2 defaults, one allowed .*: x/y.c:1, x/z.c:1" ||
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
# ... a default set when the key is unset, and one a helper passes on to a typed getter (the
# shapes spark.authenticate and the Kubernetes driver ports had before they moved into entries)
printf 'void m(void) { cs_conf_set_if_missing(conf, "spark.authenticate", "true"); }\n' >"$T/src/x/x.c"
printf 'static int conf_port(const cs_conf *conf, const char *key, int dflt, int64_t *out)\n{\n    char d[16];\n    snprintf(d, sizeof d, "%%d", dflt);\n    return cs_conf_get_int(conf, key, d, out, NULL);\n}\nvoid n(void) { conf_port(conf, "spark.driver.port", 7078, &p); }\n' >"$T/src/x/y.c"
printf 'void o(void) { cs_conf_set_if_missing(c, "spark.master", cs_conf_entry_string(c, "spark.master")); }\n' >"$T/src/x/z.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") && fail "a set-if-missing or helper default passed"
echo "$out" | grep -q "spark.authenticate has 2 defaults, one allowed .*: its entry in common/conf_entries.c, x/x.c:1" ||
    fail "a default set when the key is unset not named: $out"
echo "$out" | grep -q "spark.driver.port has 2 defaults, one allowed .*: its entry in common/conf_entries.c, x/y.c:7" ||
    fail "a default passed through a helper not named: $out"
echo "$out" | grep -q "spark.master has" && fail "setting the entry's own default counted as a second: $out"
rm -f "$T/src/x/z.c"
# ... and passes when both read through the accessor or with no default
printf 'void g(void) { cs_conf_entry_int(c, "spark.executor.cores", &v, e); }\n' >"$T/src/x/x.c"
printf 'void h(void) { cs_conf_get_int(c, "spark.cores.max", NULL, &v, e); }\n' >"$T/src/x/y.c"
out=$(/usr/bin/python3 "$T/check.py" "$T/src") || fail "one default per key refused: $out"
[ "$fails" -eq 0 ] && echo "PASS conf_entries" || exit 1
