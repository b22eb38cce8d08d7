#!/usr/bin/env bash
# log_injection.sh — an application name and a local directory holding '"', '\', ESC and bytes
# that are not UTF-8 (issue 10 item 24) were written raw into key=value log lines, so a line
# could be split into forged fields or carry terminal escapes. Now every log line of the run is
# valid UTF-8 without control bytes, every line parses as key=value fields with balanced quotes,
# and the context line gives the name and directory escaped (\" \\ \x1b \xff).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
need "$EX/pi.so"
NAME=$(printf 'ev"il\\ app\033[31m\377 x=1')
LOCAL="$T/lo\"cal=$(printf '\033')"
mkdir -p "$LOCAL"
SUBMIT_OPTS=(--name "$NAME" --conf "spark.local.dir=$LOCAL" --conf spark.ui.enabled=false)
submit_ok 'local[2]' "$EX/pi.so" 4
cat >"$T/check.py" <<'PY'
import re, sys
raw = open(sys.argv[1], "rb").read()
problems = []
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as e:
    sys.exit(f"the log is not valid UTF-8: {e}")
field = re.compile(r'([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|[^\s"]*)(?=\s|$)')
lines = [l for l in text.split("\n") if re.match(r"(DEBUG|INFO|WARN|ERROR) \S+ \S+ ", l)]
if not lines:
    sys.exit("no log line")
context = None
for l in lines:
    if any(ord(c) < 0x20 or ord(c) == 0x7f for c in l):
        problems.append(f"control byte in: {l!r}")
    body = l.split(" ", 3)[3]
    # every '"' belongs to a quoted value: remove the parsed quoted values, none may remain
    rest = field.sub("", body)
    if '"' in rest:
        problems.append(f"unbalanced quote in: {l!r}")
    if " context " in l and "event=" not in body and "name=" in body:
        context = dict(field.findall(body))
if context is None:
    problems.append("no context line with name=")
else:
    want_name = r'"ev\"il\\ app\x1b[31m\xff x=1"'
    if context.get("name") != want_name:
        problems.append(f"name field {context.get('name')!r}, want {want_name!r}")
    if not (context.get("local_dir", "").startswith('"') and r'lo\"cal=\x1b/' in context.get("local_dir", "")):
        problems.append(f"local_dir field {context.get('local_dir')!r}")
    if "x" in context and context.get("x") == "1":
        problems.append("a forged field x=1 parsed from the name")
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
out=$($PY "$T/check.py" "$T/stderr") || fail "$out"
echo "PASS: $TEST_NAME"
