#!/usr/bin/env bash
# ui_storage_accumulators.sh — what the UI once did not show (issue 20, item 11): cached RDDs,
# the executors' share of them and named accumulators, on the live UI and on the history server
# replaying the same event log.
#
# tests/jobs/uijobs.c's ui_storage on local-cluster[2,1,512] caches a MEMORY_ONLY RDD of 4
# partitions and a DISK_ONLY RDD of 3, each mapped through a named accumulator, then waits. The
# live REST API must show (checked by the Python below, state "cached"):
#   * storage/rdd: both RDDs, every partition cached, Spark's storage level descriptions, memory
#     for the first and disk for the second; storage/rdd/{id}: its partitions (rdd_<id>_<n>,
#     each on an executor) and data distribution, summing to the RDD's figures;
#   * executors: rddBlocks 7 in all, memoryUsed and diskUsed summing to the RDDs';
#   * stages/{id}: accumulatorUpdates naming "records tagged" = 10000 and "disk records" = 5000
#     on the stages that computed them, and the successful tasks' updates;
#   * the Storage page, each RDD's page (its partitions), the Executors page and the stage
#     pages show the same.
# Then the DISK_ONLY RDD is unpersisted (state "unpersisted"): it leaves storage/rdd (and
# storage/rdd/{id} answers 404) and the executors' figures drop to the MEMORY_ONLY RDD's.
# Every endpoint is checked against Spark 4's schema (tests/browser/rest_check.py). After the
# application ends, cspark-history serves its log: the same checks, and the same answers as the
# live UI gave.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/uijobs.so
need "$JOBS" "$BIN/cspark-executor" "$BIN/cspark-history"
REST=$SRC/tests/browser
mkdir -p "$T/gates" "$T/events"
APP_PID="" HIST_PID=""
stop_all() {
    : >"$T/gates/unpersist"
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    [ -n "$HIST_PID" ] && kill "$HIST_PID" 2>/dev/null && wait "$HIST_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

# wait_for FILE PATTERN WHAT: up to 120 s for a line matching PATTERN in FILE
wait_for() {
    local i
    for i in $(seq 1 600); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        kill -0 "$APP_PID" 2>/dev/null || break
        sleep 0.2
    done
    grep -q "$2" "$1" 2>/dev/null || fail "waiting for $3: not seen in $1 (last lines: $(tail -3 "$T/err" 2>/dev/null))"
}

# check.py API_BASE PAGE_BASE APP STATE: the storage, executor and accumulator figures (STATE cached or
# unpersisted), one line per problem, exit 1 when any; retries for up to 60 s while the answer
# is not yet there (the UI follows the listener bus, which delivers after the job returned).
cat >"$T/check.py" <<'PYEOF'
import json, sys, time, urllib.error, urllib.request
api, base, app, state = sys.argv[1:5]
root = f"{api}/api/v1/applications/{app}"

def get(path, want=200):
    try:
        with urllib.request.urlopen(root + path, timeout=30) as r:
            return json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return None if e.code == want else {"status": e.code}

def page(path):
    with urllib.request.urlopen(base + path, timeout=30) as r:
        return r.read().decode()

def problems():
    errs = []
    rdds = get("/storage/rdd")
    levels = {r["storageLevel"]: r for r in rdds}
    want = {"Memory Deserialized 1x Replicated": 4}
    if state == "cached":
        want["Disk Serialized 1x Replicated"] = 3
    if sorted(levels) != sorted(want) or len(rdds) != len(want):
        return [f"storage/rdd: {json.dumps(rdds)[:400]}, expected RDDs at {sorted(want)}"]
    mem, disk = levels["Memory Deserialized 1x Replicated"], levels.get("Disk Serialized 1x Replicated")
    for level, r in levels.items():
        if r["numPartitions"] != want[level] or r["numCachedPartitions"] != want[level]:
            errs.append(f"rdd {r['id']}: {r['numCachedPartitions']} of {r['numPartitions']} cached, expected {want[level]}")
        if "partitions" in r or "dataDistribution" in r:
            errs.append("storage/rdd lists details (Spark leaves them out of the list)")
        one = get(f"/storage/rdd/{r['id']}")
        parts = one.get("partitions") or []
        if sorted(p["blockName"] for p in parts) != [f"rdd_{r['id']}_{i}" for i in range(want[level])]:
            errs.append(f"storage/rdd/{r['id']}: partitions {[p['blockName'] for p in parts]}")
        if any(len(p["executors"]) != 1 or p["storageLevel"] != level for p in parts):
            errs.append(f"storage/rdd/{r['id']}: partition copies {json.dumps(parts)[:300]}")
        dist = one.get("dataDistribution") or []
        for k in ("memoryUsed", "diskUsed"):
            if sum(p[k] for p in parts) != r[k] or sum(d[k] for d in dist) != r[k]:
                errs.append(f"storage/rdd/{r['id']}: {k} of partitions / distribution != {r[k]}")
    if mem["memoryUsed"] <= 0 or mem["diskUsed"] != 0:
        errs.append(f"MEMORY_ONLY rdd: memoryUsed {mem['memoryUsed']} diskUsed {mem['diskUsed']}")
    if disk and disk["id"] != mem["id"] + 2:
        errs.append(f"the DISK_ONLY RDD is {disk['id']}, expected {mem['id'] + 2}")
    if disk and (disk["diskUsed"] <= 0 or disk["memoryUsed"] != 0):
        errs.append(f"DISK_ONLY rdd: memoryUsed {disk['memoryUsed']} diskUsed {disk['diskUsed']}")
    gone = get("/storage/rdd/%d" % (mem["id"] + 2), 404)  # the DISK_ONLY RDD, when unpersisted
    if state == "unpersisted" and gone is not None:
        errs.append(f"storage/rdd/{mem['id'] + 2} still answers after unpersist: {json.dumps(gone)[:200]}")
    execs = get("/allexecutors")
    blocks = sum(e["rddBlocks"] for e in execs)
    used = sum(e["memoryUsed"] for e in execs)
    on_disk = sum(e["diskUsed"] for e in execs)
    if blocks != sum(want.values()) or used != mem["memoryUsed"] or on_disk != (disk["diskUsed"] if disk else 0):
        errs.append(f"executors: rddBlocks {blocks} memoryUsed {used} diskUsed {on_disk}, expected "
                    f"{sum(want.values())} {mem['memoryUsed']} {disk['diskUsed'] if disk else 0}")
    accs, task_updates = {}, {}
    for st in get("/stages?details=true"):
        for a in st["accumulatorUpdates"]:
            accs.setdefault(a["name"], set()).add((st["stageId"], a["value"], "update" in a))
        for t in st.get("tasks", {}).values():
            for a in t["accumulatorUpdates"]:
                task_updates[a["name"]] = task_updates.get(a["name"], 0) + int(a["update"])
    for name, value in (("records tagged", "10000"), ("disk records", "5000")):
        if {v for _, v, _ in accs.get(name, ())} != {value} or any(u for _, _, u in accs[name]):
            errs.append(f"stages: accumulatorUpdates of {name!r}: {sorted(accs.get(name, ()))}, expected value {value}")
        if task_updates.get(name) != int(value):
            errs.append(f"tasks: the updates of {name!r} sum to {task_updates.get(name)}, expected {value}")
    if not errs:
        html = page("/storage/")
        if f'id="rdd-count">{len(want)}<' not in html or f'id="rdd-{mem["id"]}"' not in html:
            errs.append("the Storage page does not list the cached RDDs")
        for level, r in levels.items():
            rdd_page = page(f"/storage/rdd/?id={r['id']}")
            if (f'id="rdd-cached">{want[level]}<' not in rdd_page or
                    rdd_page.count('class="rdd-block"') != want[level]):
                errs.append(f"the page of RDD {r['id']} does not show its {want[level]} partitions")
        if 'class="num rdd-blocks">' not in page("/executors/"):
            errs.append("the Executors page has no RDD Blocks column")
        sid = min(s for s, _, _ in accs["records tagged"])
        stage = page(f"/stages/stage/?id={sid}&attempt=0")
        if "records tagged" not in stage or 'id="accumulators"' not in stage:
            errs.append(f"the page of stage {sid} does not show the accumulator")
    return errs

deadline = time.time() + 60
while True:
    errs = problems()
    if not errs or time.time() > deadline:
        break
    time.sleep(0.5)
for e in errs:
    print(f"{state}: {e}")
sys.exit(1 if errs else 0)
PYEOF

"$SUBMIT" --master 'local-cluster[2,1,512]' --conf spark.ui.port=0 \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/events" \
    --class ui_storage "$JOBS" "$T/gates" >"$T/out" 2>"$T/err" &
APP_PID=$!
wait_for "$T/out" "^counts " "the application's counts"
assert_eq "$(cat "$T/out")" "counts 10000 10000 5000 tagged 10000 disk 5000" "ui_storage's counts"
app=$(grep -o "ui app=[^ ]*" "$T/err" | head -1 | cut -d= -f2)
port=$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/err" | head -1 | grep -o '[0-9]*$')
URL=http://127.0.0.1:$port
"$PY" "$T/check.py" "$URL" "$URL" "$app" cached >&2 || fail "the live UI while both RDDs are cached"
log "live UI: both cached RDDs, the executors' share and the accumulators shown"

: >"$T/gates/unpersist"
wait_for "$T/out" "^unpersisted" "the unpersist"
"$PY" "$T/check.py" "$URL" "$URL" "$app" unpersisted >&2 || fail "the live UI after unpersist"
(cd "$REST" && "$PY" rest_check.py check "$URL" "$app" "$T/live.json") ||
    fail "the live REST API does not match Spark 4's schema"
log "live UI: the unpersisted RDD left storage and its executors"

: >"$T/gates/exit"
wait "$APP_PID" || fail "the application failed: $(tail -5 "$T/err")"
APP_PID=""
# rolled and compressed (Spark 4's defaults): finished when its appstatus file lost .inprogress
[ -f "$T/events/eventlog_v2_$app/appstatus_$app" ] || fail "no finished event log $T/events/eventlog_v2_$app"

"$BIN/cspark-history" --conf spark.history.ui.port=0 "$T/events" >"$T/hist.out" 2>&1 &
HIST_PID=$!
hport=$(history_port "$T/hist.out")
[ -n "$hport" ] || fail "the history server did not start: $(cat "$T/hist.out")"
HURL=http://127.0.0.1:$hport
"$PY" "$T/check.py" "$HURL" "$HURL/history/$app" "$app" unpersisted >&2 ||
    fail "the history server does not show what the live UI showed"
(cd "$REST" && "$PY" rest_check.py check "$HURL" "$app" "$T/history.json") ||
    fail "the history server's REST API does not match Spark 4's schema"
(cd "$REST" && "$PY" rest_check.py compare "$T/live.json" "$T/history.json") ||
    fail "the history server answers differently from the live UI for the same application"
echo "PASS: $TEST_NAME"
