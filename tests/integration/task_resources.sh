#!/usr/bin/env bash
# task_resources.sh — custom resources (GPUs) as Spark's: each executor of local-cluster runs
# spark.executor.resource.gpu.discoveryScript (here: two addresses unique to that executor), and
# tasks asking for spark.task.resource.gpu.amount get that many of its addresses through
# cspark_task_resources, never an address another running task holds (each task marks its
# addresses with O_EXCL files while it runs), with at most as many tasks at once as addresses
# allow; spark.task.cpus limits them the same way. Bad settings are refused with one line naming
# the key, and a failing discovery script fails the application with its reason.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/resourcejobs.so
need "$JOBS" "$BIN/cspark-executor"
command -v flock >/dev/null || fail "flock (util-linux) is missing"

mkdir -p "$T/held" "$T/disc"
cat >"$T/disc/discover.sh" <<'SH'
#!/bin/sh
# a different pair of addresses for every executor that runs it: e<N>-0, e<N>-1
dir=$(dirname "$0")
n=$(flock "$dir/count.lock" sh -c 'n=$(cat "$1" 2>/dev/null || echo 0); echo $((n + 1)) >"$1"; echo "$n"' _ "$dir/count")
echo "{\"name\": \"gpu\", \"addresses\": [\"e$n-0\", \"e$n-1\"]}"
SH
chmod +x "$T/disc/discover.sh"
GPU=(--conf spark.ui.enabled=false --conf spark.executor.resource.gpu.amount=2
    --conf "spark.executor.resource.gpu.discoveryScript=$T/disc/discover.sh")

# addresses_ok AMOUNT: 24 records, each with AMOUNT addresses of one executor's pair
addresses_ok() {
    assert_contains "$T/stdout" "records=24" "$1 address(es) per task"
    $PY - "$T/stdout" "$1" <<'PY' || fail "tasks were given the wrong addresses: $(grep addresses= "$T/stdout" | sort | uniq -c)"
import re, sys
want = int(sys.argv[2])
lines = [l.split("=", 1)[1].strip() for l in open(sys.argv[1]) if l.startswith("addresses=")]
assert len(lines) == 24, lines
for l in lines:
    a = l.split(",")
    assert len(a) == want and len(set(a)) == want, l
    assert all(re.fullmatch(r"e[01]-[01]", x) for x in a), l
    assert len({x.split("-")[0] for x in a}) == 1, l  # one executor's addresses
PY
}

# one address per task: two tasks at a time per executor (2 cores, 2 addresses), never sharing
rm -f "$T/disc/count"
SUBMIT_OPTS=("${GPU[@]}" --conf spark.task.resource.gpu.amount=1 --class gpu_tasks)
submit_ok 'local-cluster[2,2,512]' "$JOBS" "$T/held" 1 1
addresses_ok 1

# both addresses per task: one task at a time per executor although it has 2 cores
rm -f "$T/disc/count"
SUBMIT_OPTS=("${GPU[@]}" --conf spark.task.resource.gpu.amount=2 --class gpu_tasks)
submit_ok 'local-cluster[2,2,512]' "$JOBS" "$T/held" 2 1
addresses_ok 2

# a quarter of an address per task: four tasks may share one, each is given one address
rm -f "$T/disc/count"
SUBMIT_OPTS=("${GPU[@]}" --conf spark.task.resource.gpu.amount=0.25 --class gpu_tasks)
submit_ok 'local-cluster[2,2,512]' "$JOBS" "$T/held" 1 0
addresses_ok 1

# spark.task.cpus=2 on 2-core executors: one task at a time, each holding one address alone
# (an executor running two would give them its two addresses; the O_EXCL marks catch reuse)
rm -f "$T/disc/count"
SUBMIT_OPTS=("${GPU[@]}" --conf spark.task.resource.gpu.amount=1 --conf spark.task.cpus=2 --class gpu_tasks)
submit_ok 'local-cluster[2,2,512]' "$JOBS" "$T/held" 1 1
addresses_ok 1

# refusals: one line naming the key, nothing runs
refused() { # WHAT EXPECTED-TEXT MASTER CONF...
    local what=$1 want=$2 master=$3 rc=0
    shift 3
    SUBMIT_OPTS=(--conf spark.ui.enabled=false "$@" --class gpu_tasks)
    run_submit "$master" "$JOBS" "$T/held" 1 1 || rc=$?
    [ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "$what: exit status $rc"
    assert_contains "$T/stderr" "$want" "$what"
    [ "$(grep -c . "$T/stderr")" -eq 1 ] || fail "$what: more than one line: $(cat "$T/stderr")"
}
refused "task amount without executors having it" \
    "spark.task.resource.gpu.amount is set but spark.executor.resource.gpu.amount is not" \
    'local-cluster[1,1,512]' --conf spark.task.resource.gpu.amount=1
refused "no discovery script" "spark.executor.resource.gpu.discoveryScript is not set" \
    'local-cluster[1,1,512]' --conf spark.executor.resource.gpu.amount=1
refused "a fraction above one half" "invalid value for spark.task.resource.gpu.amount: '0.7'" \
    'local-cluster[1,1,512]' "${GPU[@]}" --conf spark.task.resource.gpu.amount=0.7
refused "more than executors have" \
    "spark.executor.resource.gpu.amount (2) must be at least spark.task.resource.gpu.amount (3)" \
    'local-cluster[1,1,512]' "${GPU[@]}" --conf spark.task.resource.gpu.amount=3
refused "task cpus above executor cores" \
    "spark.executor.cores (1) must not be less than spark.task.cpus (2)" \
    'local-cluster[1,1,512]' --conf spark.task.cpus=2

# a discovery script that fails: the executors cannot start, and the application says why
printf '#!/bin/sh\necho "no devices here" >&2\nexit 3\n' >"$T/disc/broken.sh"
chmod +x "$T/disc/broken.sh"
SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.executor.resource.gpu.amount=1
    --conf "spark.executor.resource.gpu.discoveryScript=$T/disc/broken.sh"
    --conf spark.task.resource.gpu.amount=1 --class gpu_tasks)
rc=0
run_submit 'local-cluster[1,1,512]' "$JOBS" "$T/held" 1 1 || rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "broken discovery script: exit status $rc"
assert_contains "$T/stderr" "discoveryScript $T/disc/broken.sh exited with status 3: no devices here" \
    "broken discovery script"
echo "PASS: $TEST_NAME"
