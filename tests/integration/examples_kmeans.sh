#!/usr/bin/env bash
# examples_kmeans.sh — examples/kmeans.so (cached points, centroids broadcast and destroyed each
# iteration, malformed lines counted by an accumulator) against an independent Python
# implementation (bench/kmeans_ref.py) over points with malformed, blank, comment and odd but
# valid lines: the point count, the accumulator's count of malformed lines and the exact
# centroids ("%.6f") for every storage level on local[2], with and without the cache on
# local-cluster[2,1,1024] (where the event log must show the accumulator and every iteration's
# broadcast is destroyed), when an executor is killed mid-run (after iteration 2: its cached
# partitions are lost and recomputed from the lineage), and when the MEMORY_ONLY points do not fit
# in storage memory (the partitions left out are parsed again by every iteration, no
# out-of-memory failure); plus the usage message for bad arguments.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/../fault/lib/fault.sh"
lib_init "$@"
APP=$EX/kmeans.so
need "$APP" "$BIN/cspark-executor" "$SRC/bench/gen_points.py" "$SRC/bench/kmeans_ref.py"

"$PY" "$SRC/bench/gen_points.py" 60000 6 3 5 40 >"$T/points.txt" || fail "gen_points failed"
"$PY" "$SRC/bench/kmeans_ref.py" "$T/points.txt" 6 8 >"$T/ref.txt" || fail "kmeans_ref failed"
[ "$(wc -l <"$T/ref.txt")" -eq 8 ] || fail "reference: $(cat "$T/ref.txt")"
assert_eq "$(sed -n 2p "$T/ref.txt")" "malformed 40" "malformed lines in the generated points"

for level in NONE MEMORY_ONLY MEMORY_AND_DISK DISK_ONLY; do
    submit_ok 'local[2]' "$APP" "$T/points.txt" 6 8 "$level"
    assert_files_eq "$T/stdout" "$T/ref.txt" "local[2] $level: points, malformed lines, centroids"
    [ "$(grep -c 'kmeans: iteration' "$T/stderr")" -eq 8 ] || fail "local[2] $level: 8 iterations"
done
log "local[2]: every level gives the reference's points, malformed count and centroids"

LC='local-cluster[2,1,1024]'
for level in NONE MEMORY_ONLY; do
    mkdir "$T/ev-$level"
    SUBMIT_OPTS=(--conf spark.default.parallelism=4 --conf spark.eventLog.enabled=true
        --conf "spark.eventLog.dir=file:$T/ev-$level")
    submit_ok "$LC" "$APP" "$T/points.txt" 6 8 "$level"
    assert_files_eq "$T/stdout" "$T/ref.txt" "local-cluster $level: points, malformed lines, centroids"
    # the accumulator as Spark's event log shows it: the "malformed lines" value of job 1's stage
    # (iteration 1, which parses every line) is the reference's count
    cat_event_log "$T/ev-$level"/* >"$T/ev-$level.json" || fail "$level: cannot read the event log"
    malformed=$("$PY" - "$T/ev-$level.json" <<'PYEOF'
import json, sys
stage_job, value = {}, None
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerJobStart":
        for s in e["Stage IDs"]:
            stage_job[s] = e["Job ID"]
    elif e["Event"] == "SparkListenerStageCompleted" and stage_job.get(e["Stage Info"]["Stage ID"]) == 1:
        for a in e["Stage Info"]["Accumulables"]:
            if a.get("Name") == "malformed lines" and value is None:
                value = a["Value"]
print(value)
PYEOF
    )
    assert_eq "malformed $malformed" "malformed 40" "local-cluster $level: the accumulator in the event log"
    # one broadcast per iteration, each destroyed once its job is done
    assert_eq "$(grep -c 'broadcast=[0-9]* event=destroyed' "$T/stderr")" 8 \
        "local-cluster $level: broadcasts destroyed"
done
log "local-cluster: the reference with and without the cache; the accumulator in the event log"

# MEMORY_ONLY points larger than storage memory: 32m x 0.6 = 19 MiB for execution and storage
# against ~26 MB of parsed points (200,000 x 16 doubles, in blocks of 256): what does not fit is
# not stored and is parsed again by each iteration (the input read again, in the event log); the
# same answer
"$PY" "$SRC/bench/gen_points.py" 200000 2 16 8 10 >"$T/big.txt"
"$PY" "$SRC/bench/kmeans_ref.py" "$T/big.txt" 2 3 >"$T/big-ref.txt"
mkdir "$T/ev-big"
SUBMIT_OPTS=(--conf spark.executor.memory=32m --conf spark.eventLog.enabled=true
    --conf "spark.eventLog.dir=file:$T/ev-big")
submit_ok 'local[2]' "$APP" "$T/big.txt" 2 3 MEMORY_ONLY
assert_files_eq "$T/stdout" "$T/big-ref.txt" "MEMORY_ONLY larger than storage memory: the reference"
assert_contains "$T/stderr" "event=block_not_stored" "MEMORY_ONLY larger than storage memory: left out"
cat_event_log "$T/ev-big"/* >"$T/ev-big.json" || fail "cannot read the event log"
read3=$("$PY" - "$T/ev-big.json" <<'PYEOF'
import json, sys
stage_job, read = {}, 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerJobStart":
        for s in e["Stage IDs"]:
            stage_job[s] = e["Job ID"]
    elif e["Event"] == "SparkListenerTaskEnd" and stage_job[e["Stage ID"]] == 3:
        read += e["Task Metrics"]["Input Metrics"]["Bytes Read"]
print(read)
PYEOF
)
[ "$read3" -gt 0 ] || fail "MEMORY_ONLY larger than storage memory: iteration 3 read no input (nothing recomputed)"
log "MEMORY_ONLY larger than storage memory: recomputed ($read3 bytes read again by iteration 3), same centroids"

# an executor killed once iteration 2 is done: its blocks are gone (the registry forgets them
# and later tasks recompute those partitions from the text file), the job ends with the same
# centroids and the same count of malformed lines (read after iteration 1). The driver's stderr
# goes through a FIFO of one page that the test stops reading at "iteration 2 took": the driver
# then blocks in its next few log lines (iterations log several each), however fast iterations
# are, and is paused while the executor is killed, with most of its 148 iterations left.
"$PY" "$SRC/bench/gen_points.py" 3000 4 3 6 7 >"$T/kill-points.txt"
"$PY" "$SRC/bench/kmeans_ref.py" "$T/kill-points.txt" 4 150 >"$T/kill-ref.txt"
SUBMIT_OPTS=(--conf spark.default.parallelism=4)
mkfifo "$T/kill.fifo"
"$PY" - "$T/kill.fifo" "$T/kill.err" "$T/kill.held" "$T/kill.go" <<'PYEOF' &
import fcntl, os, sys, time
fifo, out, held, go = sys.argv[1:5]
fd = os.open(fifo, os.O_RDONLY)
for _ in range(1000):  # one page (EBUSY while more than that is already in the pipe)
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 4096)
        break
    except OSError:
        time.sleep(0.001)
with open(out, "wb", buffering=0) as w, os.fdopen(fd, "rb", buffering=0) as r:
    buf, waiting = b"", True
    while True:
        chunk = r.read(512)
        if not chunk:
            break
        w.write(chunk)
        buf = (buf + chunk)[-4096:]
        if waiting and b"kmeans: iteration 2 took" in buf:
            waiting = False
            open(held, "w").close()
            for _ in range(6000):  # the test stops the driver, kills an executor, says go
                if os.path.exists(go):
                    break
                time.sleep(0.05)
PYEOF
reader=$!
"$SUBMIT" --master "$LC" "${SUBMIT_OPTS[@]}" "$APP" "$T/kill-points.txt" 4 150 MEMORY_ONLY \
    >"$T/kill.out" 2>"$T/kill.fifo" &
pid=$!
trap 'kill -CONT $pid 2>/dev/null; kill $pid $reader 2>/dev/null; _lib_cleanup' EXIT
for _ in $(seq 2400); do [ -e "$T/kill.held" ] && break; kill -0 $pid 2>/dev/null || break; sleep 0.05; done
[ -e "$T/kill.held" ] || fail "kmeans never reached iteration 2: $(tail -3 "$T/kill.err")"
kill -STOP $pid
mapfile -t execs < <(executor_pids $pid)
[ ${#execs[@]} -ge 1 ] || { kill -CONT $pid; fail "no executor to kill"; }
kill -9 "${execs[0]}"
log "executor ${execs[0]} killed after $(grep -c "kmeans: iteration" "$T/kill.err") iterations"
touch "$T/kill.go"
kill -CONT $pid
timeout 300 tail --pid=$pid -f /dev/null || fail "kmeans hangs after an executor was killed"
rc=0
wait $pid || rc=$?
wait $reader
[ $rc -eq 0 ] || { tail -5 "$T/kill.err" >&2; fail "kmeans failed with $rc after an executor was killed"; }
assert_files_eq "$T/kill.out" "$T/kill-ref.txt" "centroids after an executor was killed"
assert_contains "$T/kill.err" "event=executor_lost" "the kill was seen"
assert_contains "$T/kill.err" "event=cached_blocks_lost" "the lost executor's blocks were forgotten"
log "an executor killed after iteration 2: same centroids and malformed count"

SUBMIT_OPTS=()
for args in "6 8 SOMETIMES" "6 0" "0 8" "6 x"; do
    rc=0
    # shellcheck disable=SC2086 # the arguments are words
    run_submit 'local[1]' "$APP" "$T/points.txt" $args || rc=$?
    [ $rc -eq 2 ] || fail "kmeans.so POINTS $args exited $rc, want 2"
    assert_contains "$T/stderr" "usage: kmeans.so" "usage message for $args"
done
echo "PASS: $TEST_NAME"
