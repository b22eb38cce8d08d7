#!/usr/bin/env bash
# local_cluster_limits.sh — resources asked for by configuration are bounded (issue 10 item 21):
# local-cluster[100000,1,512] forked executors until the host gave out, the M MiB of
# local-cluster[N,C,M] was not enforced (an executor grew to 2.7 GB) and
# spark.default.parallelism=100000000 aborted on a 4.8 GB allocation leaving _temporary.
# Now: counts beyond the host are refused in one line before anything starts; an executor's
# data is limited to M plus Spark's overhead, so a task allocating far beyond it fails (naming
# spark.executor.memory and the master URL) while one within it runs; partition counts above
# 1,000,000 are refused, from the configuration and from the API, with no output left.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
APP=$BUILD/tests/jobs/badjobs.so
need "$APP"
nothing_left() {
    local left
    left=$(find "$T/tmp" -mindepth 1 -maxdepth 1 | head -3)
    [ -z "$left" ] || fail "$1: left behind: $left"
    [ ! -e "$T/out" ] || fail "$1: an output directory was left: $(ls -A "$T/out" | head -3)"
}

# too many executors / cores: refused before any executor starts
for m in 'local-cluster[100000,1,512]' 'local-cluster[2,100000,512]'; do
    SUBMIT_OPTS=(--conf spark.ui.enabled=false --class over_allocate)
    rc=0
    run_submit "$m" "$APP" 1 || rc=$?
    assert_eq "$rc" 1 "$m: exit status"
    assert_eq "$(grep -vc '^INFO\|^WARN' "$T/stderr")" 1 "$m: error lines"
    last=$(tail -1 "$T/stderr")
    [[ "$last" == "cspark-submit: invalid master URL '$m': "*" task slots "*" is more than this host can run (at most "*": 16 per CPU, "*" CPUs)" ]] ||
        fail "$m: $last"
    grep -q "executor_started" "$T/stderr" && fail "$m: an executor was started"
    nothing_left "$m"
done

# the executor memory limit
SUBMIT_OPTS=(--conf spark.ui.enabled=false --class over_allocate)
submit_ok 'local-cluster[1,1,256]' "$APP" 100 # well within 256 MiB + overhead
assert_eq "$(cat "$T/stdout")" "rc=0 count=2" "100 MiB per task in local-cluster[1,1,256]"
if [ "${CSPARK_SANITIZE:-0}" = 1 ]; then
    # AddressSanitizer reserves terabytes of address space: sanitizer builds do not limit
    # executors' data (docs/configuration.md), so only the normal pass checks the refusal
    echo "$TEST_NAME: sanitizer build: the executor memory limit is not enforced, not checked"
else
    rc=0
    run_submit 'local-cluster[1,1,256]' "$APP" 4096 || rc=$?
    assert_eq "$rc" 1 "4 GiB per task in local-cluster[1,1,256]: exit status"
    tail -1 "$T/stderr" | grep -q "grow: cannot allocate 4096 MiB (executor [0-9]* is limited to [0-9]* MiB of memory: spark.executor.memory 256 MiB from the master URL 'local-cluster\[1,1,256\]' plus overhead)" ||
        fail "over-allocation: $(tail -1 "$T/stderr")"
    grep -q "event=memory_limit data_limit_mb=" "$T/stderr" || fail "the executor did not log its memory limit"
    nothing_left "over-allocation"
fi

# partitions: at most 1,000,000, from the configuration and from the API
SUBMIT_OPTS=(--conf spark.ui.enabled=false --conf spark.default.parallelism=100000000 --class save_default_parallelism)
rc=0
run_submit 'local[2]' "$APP" "$T/out" || rc=$?
assert_eq "$rc" 1 "parallelism 100000000: exit status"
assert_eq "$(cat "$T/stderr")" "cspark-submit: invalid value for spark.default.parallelism: '100000000' (expected an integer between 1 and 1000000)" "parallelism 100000000"
nothing_left "parallelism 100000000"
SUBMIT_OPTS=(--conf spark.ui.enabled=false --class huge_slices)
rc=0
run_submit 'local[2]' "$APP" "$T/out" || rc=$?
assert_eq "$rc" 1 "range of 100000000 slices: exit status"
assert_eq "$(tail -1 "$T/stderr")" "cspark-submit: range: number of slices must be between 1 and 1000000, got 100000000" "range of 100000000 slices"
nothing_left "range of 100000000 slices"
echo "PASS: $TEST_NAME"
