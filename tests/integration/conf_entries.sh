#!/usr/bin/env bash
# conf_entries.sh — every configuration key read under src/ with a typed getter
# (cs_conf_get_int/_size/_duration_ms/_bool/_double) is declared in src/common/conf_entries.c
# with the same type and the same default unit, so cspark-submit validates it before anything
# starts; and the check is shown to catch a key read without a declaration.
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
for m in re.finditer(r'\b(BOOL|INT|PORT|SIZE|SIZE_POS|DUR_POS|DUR_NONNEG|DUR_OR_NEVER|DOUBLE|CHOICE)\(\s*"([^"]+)"(?:\s*,\s*(CS_[A-Za-z]+))?', table):
    declared[m.group(2)] = (m.group(1), m.group(3))
kinds = {"int": ("INT", "PORT"), "bool": ("BOOL",), "double": ("DOUBLE",),
         "size": ("SIZE", "SIZE_POS"), "duration_ms": ("DUR_POS", "DUR_NONNEG", "DUR_OR_NEVER")}
call = re.compile(r'cs_conf_get_(int|bool|double|size|duration_ms)\(\s*[^,]+,\s*"([^"]+)"\s*,\s*[^,]+(?:,\s*(CS_[A-Za-z]+))?')
problems = []
for f in sorted(src.rglob("*.c")):
    for m in call.finditer(f.read_text()):
        kind, key, unit = m.groups()
        if key not in declared:
            problems.append(f"{f.relative_to(src)}: {key} is read as {kind} but not declared in conf_entries.c")
            continue
        macro, dunit = declared[key]
        if macro not in kinds[kind]:
            problems.append(f"{f.relative_to(src)}: {key} is read as {kind} but declared {macro}")
        elif unit and dunit and unit != dunit:
            problems.append(f"{f.relative_to(src)}: {key} is read in {unit} but declared in {dunit}")
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
[ "$fails" -eq 0 ] && echo "PASS conf_entries" || exit 1
