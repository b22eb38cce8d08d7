#!/usr/bin/env bash
# task_size_guard.sh — issue 10 item 3 / issue 13 item 4: a task whose serialized plan (here, a map
# closure) exceeds spark.rpc.message.maxSize fails its stage before launch with Spark's message
# — naming the key and suggesting broadcast variables — and no executor dies (it used to be sent
# anyway, every executor exited on the oversized frame, was replaced, and the job ended only after
# spark.executor.maxNumFailures with a misleading reason). A plan under a lowered limit still runs.
# local-cluster; Kubernetes executors are driven by the same coarse backend.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOB=$BUILD/tests/jobs/task_size.so
need "$BIN/cspark-executor" "$JOB"

# expect_guard LABEL MAX_BYTES SUBMIT_ARGS...: the job fails at once with the guard's message
expect_guard() {
    local label=$1 max=$2 rc=0
    shift 2
    timeout 300 "$SUBMIT" --master 'local-cluster[2,1,1024]' "$@" >"$T/out" 2>"$T/err" || rc=$?
    [ $rc -ne 124 ] || fail "$label: the job hangs"
    [ $rc -ne 0 ] || fail "$label: a task over spark.rpc.message.maxSize ran"
    local last
    last=$(tail -1 "$T/err")
    case "$last" in
    "cspark-submit: Job aborted due to stage failure: Serialized task "*" was "*" bytes, which exceeds max allowed: spark.rpc.message.maxSize ($max bytes). Consider increasing spark.rpc.message.maxSize or using broadcast variables for large values.") ;;
    *) fail "$label: expected Spark's task size message as the reason, got: $last" ;;
    esac
    grep -q "event=task_failed .* attempt=[1-9]" "$T/err" && fail "$label: the task was retried: $(grep -m1 'attempt=[1-9]' "$T/err")"
    grep -Eq "event=executor_(exited|lost)" "$T/err" && fail "$label: an executor died: $(grep -Em1 'event=executor_(exited|lost)' "$T/err")"
    grep -q "frame larger than" "$T/err" && fail "$label: an oversized frame reached a peer"
    [ "$(grep -c 'event=executor_started' "$T/err")" -eq 2 ] || fail "$label: executors were replaced"
    [ ! -s "$T/out" ] || fail "$label: unexpected output: $(cat "$T/out")"
}

# the report: a 129 MiB closure at the default limit (128 MiB)
expect_guard "default limit" 134217728 --class big_closure "$JOB" 129
# a configured limit is the one enforced and named
expect_guard "spark.rpc.message.maxSize=1" 1048576 --conf spark.rpc.message.maxSize=1 --class big_closure "$JOB" 2
# under a lowered limit, driver and executors agree: a 1 MiB closure with a 2 MiB limit runs
SUBMIT_OPTS=(--conf spark.rpc.message.maxSize=2 --class big_closure)
submit_ok 'local-cluster[2,1,1024]' "$JOB" 1
assert_eq "count=16" "$(cat "$T/stdout")" "a plan under the limit"
echo "PASS: $TEST_NAME"
