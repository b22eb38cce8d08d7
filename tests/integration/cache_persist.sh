#!/usr/bin/env bash
# cache_persist.sh — cspark_persist / cspark_cache / cspark_unpersist end to end
# (tests/jobs/cachejobs.so), judged by results and by the event log Spark's History Server reads:
#   * every level (MEMORY_ONLY, MEMORY_AND_DISK, DISK_ONLY) gives the results of no caching, on
#     local[2] and local-cluster[2,1,1024]; the input file is read by the first job only (Input
#     Metrics), the next jobs read the cached blocks; after unpersist the file is read again;
#     RDD Info shows the storage level and every partition cached with its memory or disk size,
#     and the first job's TaskEnd events list the blocks they stored ("Updated Blocks");
#   * local-cluster with spark.locality.wait=0 and more partitions than cores: tasks that run
#     away from their block fetch it from its executor (still no input read);
#   * the locality each task ran at (the event log's Task Info "Locality", Spark's TaskLocality):
#     PROCESS_LOCAL without a cached block to prefer and on the executor holding the task's
#     block, NODE_LOCAL on the other executor of the same host, when the holder of partition 0 is
#     kept busy (tests/jobs/cachejobs.c locality_away) and the other partitions it holds run away;
#   * MEMORY_ONLY data larger than storage memory (spark.executor.memory=32m, local-cluster
#     executors of 32 MiB) is recomputed — correct results, no out-of-memory failure;
#     MEMORY_AND_DISK puts it on disk instead;
#   * LRU eviction between two cached RDDs that do not fit together;
#   * a bad level or a level change is refused with Spark's message.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/cachejobs.so
need "$JOBS" "$BIN/cspark-executor"

seq 1 200000 | sed 's/$/ cached line of text/' >"$T/lines.txt"
seq 1 1000000 | sed 's/$/ some text on the line/' >"$T/big.txt"
lines=$(wc -l <"$T/lines.txt")
chars=$(($(wc -c <"$T/lines.txt") - lines))
size=$(wc -c <"$T/lines.txt")

# evsum.py EVENT_LOG: "job <id> bytes_read <n>" per job; per stage and persisted RDD
# "rdd <id> stage <s> level <memory>/<disk> cached <n> of <parts> mem <bytes> disk <bytes>"; and
# "remote <n>": tasks of jobs 1-2 that ran on another executor than the one that computed their
# partition in job 0.
cat >"$T/evsum.py" <<'PYEOF'
import json, sys
stage_job, bytes_by_job, first_exec, remote, stored = {}, {}, {}, 0, 0
for line in open(sys.argv[1]):
    e = json.loads(line)
    ev = e["Event"]
    if ev == "SparkListenerJobStart":
        bytes_by_job.setdefault(e["Job ID"], 0)
        for s in e["Stage IDs"]:
            stage_job[s] = e["Job ID"]
    elif ev == "SparkListenerTaskEnd":
        job = stage_job[e["Stage ID"]]
        bytes_by_job[job] += e["Task Metrics"]["Input Metrics"]["Bytes Read"]
        part, ex = e["Task Info"]["Partition ID"], e["Task Info"]["Executor ID"]
        if job == 0:
            first_exec[part] = ex
            for b in e["Task Metrics"]["Updated Blocks"]:
                st = b["Status"]
                if b["Block ID"].startswith("rdd_1_") and st["Memory Size"] + st["Disk Size"] > 0:
                    stored += 1
        elif job in (1, 2) and first_exec.get(part, ex) != ex:
            remote += 1
    elif ev == "SparkListenerStageCompleted":
        si = e["Stage Info"]
        for r in si["RDD Info"]:
            lv = r["Storage Level"]
            if lv["Use Memory"] or lv["Use Disk"]:
                print("rdd %d stage %d level %s/%s cached %d of %d mem %d disk %d" % (
                    r["RDD ID"], si["Stage ID"], lv["Use Memory"], lv["Use Disk"],
                    r["Number of Cached Partitions"], r["Number of Partitions"],
                    r["Memory Size"], r["Disk Size"]))
for j in sorted(bytes_by_job):
    print("job %d bytes_read %d" % (j, bytes_by_job[j]))
print("remote %d" % remote)
print("stored %d" % stored)
PYEOF

# run_level NAME MASTER LEVEL [OPTIONS...]: persist_text over $INPUT (default lines.txt) with an
# event log in $T/ev-NAME; the summary in $T/NAME.sum, stdout and stderr in $T/NAME.{out,err}
run_level() {
    local name=$1 master=$2 level=$3 input=${INPUT:-$T/lines.txt} parts=${PARTS:-0}
    shift 3
    mkdir -p "$T/ev-$name"
    SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$T/ev-$name" "$@")
    submit_ok "$master" --class persist_text "$JOBS" "$input" "$level" "$parts"
    cp "$T/stdout" "$T/$name.out"
    cp "$T/stderr" "$T/$name.err"
    cat_event_log "$T/ev-$name"/* >"$T/ev-$name.json" || fail "$name: cannot read the event log"
    "$PY" "$T/evsum.py" "$T/ev-$name.json" >"$T/$name.sum" || fail "$name: cannot read the event log"
}
job_bytes() { awk -v j="$2" '$1 == "job" && $2 == j { print $4 }' "$T/$1.sum"; }

printf 'level=0 count=%s count=%s bytes=%s\nafter unpersist: level=0 count=%s\n' \
    "$lines" "$lines" "$chars" "$lines" >"$T/expected"
run_level none 'local[2]' NONE
assert_files_eq "$T/none.out" "$T/expected" "results without caching"
# what one pass reads (the splits' lines: at least the file's size)
pass=$(job_bytes none 0)
[ "$pass" -ge "$size" ] || fail "NONE: job 0 read $pass bytes of a $size-byte file"
for j in 1 2 3; do assert_eq "$(job_bytes none $j)" "$pass" "NONE: input bytes of job $j"; done

# check_cached NAME LEVEL_NUMBER mem|disk PARTITIONS
check_cached() {
    local name=$1 line
    sed "s/^level=$2 /level=0 /" "$T/$name.out" >"$T/$name.cmp"
    assert_files_eq "$T/$name.cmp" "$T/expected" "$name: results"
    local first
    first=$(job_bytes "$name" 0)
    [ "$first" -ge "$size" ] || fail "$name: the first job read $first bytes of a $size-byte input"
    assert_eq "$(job_bytes "$name" 1)" 0 "$name: the second job reads the cache, not the input"
    assert_eq "$(job_bytes "$name" 2)" 0 "$name: the third job reads the cache, not the input"
    assert_eq "$(job_bytes "$name" 3)" "$first" "$name: after unpersist the input is read again"
    assert_eq "$(awk '$1 == "stored" { print $2 }' "$T/$name.sum")" "$4" \
        "$name: Updated Blocks of the first job's tasks"
    # the Storage view: job 1's stage shows every partition cached, with its sizes
    line=$(grep '^rdd 1 stage 1 ' "$T/$name.sum") || fail "$name: no RDD Info for the persisted RDD"
    case $3 in
    mem) [[ $line =~ cached\ $4\ of\ $4\ mem\ [1-9][0-9]*\ disk\ 0$ ]] || fail "$name: RDD Info: $line" ;;
    disk) [[ $line =~ cached\ $4\ of\ $4\ mem\ 0\ disk\ [1-9][0-9]*$ ]] || fail "$name: RDD Info: $line" ;;
    esac
}
run_level mem 'local[2]' MEMORY_ONLY
check_cached mem 1 mem 2
grep -q '^rdd 1 stage 1 level True/False' "$T/mem.sum" || fail "MEMORY_ONLY: storage level in RDD Info"
run_level memdisk 'local[2]' MEMORY_AND_DISK
check_cached memdisk 2 mem 2
grep -q '^rdd 1 stage 1 level True/True' "$T/memdisk.sum" || fail "MEMORY_AND_DISK: storage level"
run_level disk 'local[2]' DISK_ONLY
check_cached disk 3 disk 2
grep -q '^rdd 1 stage 1 level False/True' "$T/disk.sum" || fail "DISK_ONLY: storage level"
log "local[2]: every level cached, input read by the first job only"

LC='local-cluster[2,1,1024]'
run_level lc-mem "$LC" MEMORY_ONLY
check_cached lc-mem 1 mem 2
run_level lc-disk "$LC" DISK_ONLY
check_cached lc-disk 3 disk 2
# away from their blocks: 8 partitions on 2 one-core executors, no locality wait
PARTS=8 run_level lc-remote "$LC" MEMORY_AND_DISK --conf spark.locality.wait=0
check_cached lc-remote 2 mem 8
log "local-cluster: cached on executors; $(awk '$1 == "remote" { print $2 }' "$T/lc-remote.sum") task(s) read a block held by the other executor"

mkdir "$T/ev-away"
SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$T/ev-away"
    --conf spark.locality.wait=0)
submit_ok "$LC" --class locality_away "$JOBS" "$T/lines.txt" 3
assert_eq "$(cat "$T/stdout")" "counts $lines $lines" "locality_away: counts"
# "wrong N": tasks whose Locality is not where they ran; "away N": NODE_LOCAL tasks of job 1;
# "must_go_away yes": partition 0's executor holds another partition (which then runs away)
cat_event_log "$T"/ev-away/* >"$T/ev-away.json" || fail "locality_away: cannot read the event log"
"$PY" - "$T/ev-away.json" >"$T/away.txt" <<'PYEOF' || fail "locality_away: cannot read the event log"
import json, sys
stage_job, holder, job1, wrong = {}, {}, [], []
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["Event"] == "SparkListenerJobStart":
        for s in e["Stage IDs"]:
            stage_job[s] = e["Job ID"]
    elif e["Event"] == "SparkListenerTaskEnd" and e["Task End Reason"]["Reason"] == "Success":
        ti = e["Task Info"]
        part, ex, loc = ti["Partition ID"], ti["Executor ID"], ti["Locality"]
        if stage_job[e["Stage ID"]] == 0:
            holder[part] = ex
            if loc != "PROCESS_LOCAL":
                wrong.append("job 0 partition %d: %s" % (part, loc))
        else:
            job1.append((part, ex, loc))
away = 0
for part, ex, loc in job1:
    want = "PROCESS_LOCAL" if ex == holder[part] else "NODE_LOCAL"
    away += loc == "NODE_LOCAL"
    if loc != want:
        wrong.append("job 1 partition %d on %s (block on %s): %s" % (part, ex, holder[part], loc))
print("wrong %d %s" % (len(wrong), "; ".join(wrong)))
print("away %d" % away)
print("must_go_away %s" % ("yes" if sum(h == holder[0] for h in holder.values()) > 1 else "no"))
PYEOF
assert_eq "$(head -1 "$T/away.txt")" "wrong 0 " "locality_away: the Locality of each task"
if grep -q "must_go_away yes" "$T/away.txt"; then
    grep -q "^away [1-9]" "$T/away.txt" || fail "locality_away: no task ran away from its block: $(cat "$T/away.txt")"
fi
log "locality: $(sed -n 2p "$T/away.txt") task(s) NODE_LOCAL, the others PROCESS_LOCAL where their block is"
SUBMIT_OPTS=()

# larger than storage memory: 32m x 0.6 = 19 MiB for execution and storage, ~50 MB of records
big_lines=$(wc -l <"$T/big.txt")
big_chars=$(($(wc -c <"$T/big.txt") - big_lines))
big_size=$(wc -c <"$T/big.txt")
INPUT=$T/big.txt run_level small-mem 'local[2]' MEMORY_ONLY --conf spark.executor.memory=32m
assert_eq "$(head -1 "$T/small-mem.out")" "level=1 count=$big_lines count=$big_lines bytes=$big_chars" \
    "MEMORY_ONLY larger than memory: results"
[ "$(job_bytes small-mem 1)" -ge "$big_size" ] || fail "MEMORY_ONLY larger than memory is not recomputed"
assert_contains "$T/small-mem.err" "event=block_not_stored" "MEMORY_ONLY larger than memory: logged"
INPUT=$T/big.txt run_level small-memdisk 'local[2]' MEMORY_AND_DISK --conf spark.executor.memory=32m
assert_eq "$(head -1 "$T/small-memdisk.out")" "level=2 count=$big_lines count=$big_lines bytes=$big_chars" \
    "MEMORY_AND_DISK larger than memory: results"
assert_eq "$(job_bytes small-memdisk 1)" 0 "MEMORY_AND_DISK larger than memory: read from disk"
grep -q '^rdd 1 stage 1 .* cached 2 of 2 mem 0 disk [1-9]' "$T/small-memdisk.sum" ||
    fail "MEMORY_AND_DISK larger than memory: $(grep '^rdd 1 stage 1' "$T/small-memdisk.sum")"
# the same on executors of 32 MiB each
INPUT=$T/big.txt run_level lc-small-mem 'local-cluster[2,1,32]' MEMORY_ONLY
assert_eq "$(head -1 "$T/lc-small-mem.out")" "level=1 count=$big_lines count=$big_lines bytes=$big_chars" \
    "local-cluster: MEMORY_ONLY larger than memory: results"
[ "$(job_bytes lc-small-mem 1)" -ge "$big_size" ] || fail "local-cluster: MEMORY_ONLY larger than memory is not recomputed"
log "larger than storage memory: MEMORY_ONLY recomputed (local and local-cluster), MEMORY_AND_DISK on disk"

# two cached RDDs of ~15 MB each in 20 MB: each evicts the other (least recently used)
seq 1 300000 | sed 's/$/ cached line of text/' >"$T/mid.txt"
SUBMIT_OPTS=(--conf spark.executor.memory=32m)
submit_ok 'local[1]' --class cache_twice "$JOBS" "$T/mid.txt"
assert_eq "$(cat "$T/stdout")" "counts 300000 300000 300000 300000" "cache_twice counts"
assert_contains "$T/stderr" "event=block_evicted" "LRU eviction between two cached RDDs"

SUBMIT_OPTS=()
rc=0
run_submit 'local[1]' --class bad_level "$JOBS" || rc=$?
[ $rc -ne 0 ] || fail "bad_level exited 0"
assert_contains "$T/stdout" "refused: cspark_persist: unknown storage level 7" "a bad level"
assert_contains "$T/stderr" "cspark_persist: unknown storage level 7" "a bad level on stderr"
run_submit 'local[1]' --class level_change "$JOBS" || true
assert_contains "$T/stdout" "refused: Cannot change storage level of an RDD after it was already assigned a level" \
    "a level change"
grep -q "accepted\|the same level refused" "$T/stdout" && fail "persist levels: $(cat "$T/stdout")"
echo "PASS: $TEST_NAME"
