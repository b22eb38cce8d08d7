#!/usr/bin/env bash
# examples_weblog.sh — examples/weblog.so against an independent Python analysis of the same
# access log: line and malformed counts (the latter from the "malformed lines" accumulator),
# every status code's count, the top 10 pages and top 5 hosts (count / bytes descending, then
# name descending), in local[2] and local-cluster[2,1,1024]. On local-cluster the event log shows
# the parsed log cached (the input read by the first job only) and the accumulator's value.
# The log (two files, one gzipped) has ties in the rankings, "-" byte counts, Combined Log Format
# lines and malformed lines of several kinds. Also: a usage error exits 2 with "usage:".
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/weblog.so
need "$APP" "$BIN/cspark-executor"
mkdir "$T/in" "$T/tmp"
export TMPDIR="$T/tmp"

$PY - "$T/in" >"$T/ref.txt" <<'PY' || fail "cannot generate the log"
import gzip, random, re, sys
from collections import Counter
rnd = random.Random(2024)
hosts = [f"10.0.{i // 256}.{i % 256}" for i in range(300)] + ["gw.example.org", "-h"]
paths = [f"/p/{i}" for i in range(400)] + ["/", "/index.html", "/a b", "/ünï"]
lines = []
for i in range(60000):
    r = rnd.random()
    if r < 0.01:
        lines.append(rnd.choice(["", "garbage", '1.2.3.4 - - [x] "GET /x HTTP/1.0" 2x0 5',
                                 '1.2.3.4 - - [01/Jan/2026:00:00:00 +0000] "GET" 200 5',
                                 '1.2.3.4 - - [01/Jan/2026:00:00:00 +0000] "GET /y HTTP/1.1" 200 x']))
        continue
    h = rnd.choice(hosts[:40]) if rnd.random() < 0.5 else rnd.choice(hosts)
    p = rnd.choice(paths[:20]) if rnd.random() < 0.6 else rnd.choice(paths)
    st = rnd.choice([200] * 8 + [304, 404, 500, 301])
    b = "-" if st == 304 else str(rnd.randrange(0, 50000))
    tail = ' "http://ref/" "agent/1.0"' if rnd.random() < 0.3 else ""
    lines.append(f'{h} - u{i % 7} [10/Oct/2026:13:{i % 60:02d}:00 -0700] "GET {p} HTTP/1.1" {st} {b}{tail}')
with open(f"{sys.argv[1]}/access.log", "w") as f:
    f.write("\n".join(lines[:40000]) + "\n")
with gzip.open(f"{sys.argv[1]}/access.old.gz", "wt") as f:
    f.write("\n".join(lines[40000:]) + "\n")

pat = re.compile(r'^(\S{1,}) \S+ \S+ \[[^\]]*\] "\S+ (\S+) \S+" (\d{3}) (-|\d{1,18})( .*)?$')
status, pages, hostbytes, malformed = Counter(), Counter(), Counter(), 0
for l in lines:
    m = pat.match(l)
    if not m or len(m.group(1)) < 1:
        malformed += 1
        continue
    h, p, st, b = m.groups()[:4]
    status[st] += 1
    pages[p] += 1
    hostbytes[h] += 0 if b == "-" else int(b)
print(f"lines {len(lines)}")
print(f"malformed {malformed}")
for st in sorted(status):
    print(f"status {st} {status[st]}")
key = lambda kv: (kv[1], kv[0].encode())
for p, c in sorted(pages.items(), key=key, reverse=True)[:10]:
    print(f"page {c} {p}")
for h, c in sorted(hostbytes.items(), key=key, reverse=True)[:5]:
    print(f"host {c} {h}")
PY
grep -q "^malformed [1-9]" "$T/ref.txt" || fail "the generated log has no malformed line"

submit_ok 'local[2]' "$APP" "$T/in"
assert_files_eq "$T/stdout" "$T/ref.txt" "local[2]: weblog output differs from the reference"
mkdir "$T/ev"
SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$T/ev")
submit_ok 'local-cluster[2,1,1024]' "$APP" "$T/in"
assert_files_eq "$T/stdout" "$T/ref.txt" "local-cluster: weblog output differs from the reference"
SUBMIT_OPTS=()
# per job: input bytes read; the "malformed lines" value after job 0 (the status count)
cat_event_log "$T"/ev/* >"$T/ev.json" || fail "cannot read the event log"
"$PY" - "$T/ev.json" >"$T/ev.txt" <<'PYEOF' || fail "cannot read the event log"
import json, sys
stage_job, read, acc = {}, {}, None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerJobStart":
        read[e["Job ID"]] = 0
        for s in e["Stage IDs"]:
            stage_job[s] = e["Job ID"]
    elif e["Event"] == "SparkListenerTaskEnd":
        read[stage_job[e["Stage ID"]]] += e["Task Metrics"]["Input Metrics"]["Bytes Read"]
    elif e["Event"] == "SparkListenerStageCompleted" and stage_job[e["Stage Info"]["Stage ID"]] == 0:
        for a in e["Stage Info"]["Accumulables"]:
            if a.get("Name") == "malformed lines":
                acc = a["Value"]
print("malformed", acc)
print("jobs", len(read), "first_reads", "yes" if read[0] > 0 else "no",
      "later_reads", sum(v for j, v in read.items() if j > 0))
PYEOF
assert_eq "$(head -1 "$T/ev.txt")" "$(grep '^malformed' "$T/ref.txt")" "the accumulator in the event log"
assert_eq "$(tail -1 "$T/ev.txt")" "jobs 3 first_reads yes later_reads 0" \
    "the log read by the first job only (the parsed lines cached)"

rc=0
run_submit 'local[1]' "$APP" || rc=$?
[ $rc -eq 2 ] || fail "weblog.so without arguments exited $rc, want 2"
assert_contains "$T/stderr" "usage: weblog.so" "usage message"
log "ok ($(head -n 2 "$T/ref.txt" | tr '\n' ' '))"
