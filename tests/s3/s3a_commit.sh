#!/usr/bin/env bash
# s3a_commit.sh — the output commit on a real S3 server when things go wrong:
#   - a task that fails half-way through its part and is retried leaves exactly one copy of each
#     part (local[2,4]: local[N] tries a task once, as Spark; local-cluster[2,1,1024]);
#   - an executor killed half-way through its part (local-cluster): its upload is never
#     completed and is aborted at job commit, the output is whole;
#   - a job that fails leaves no _SUCCESS, no part visible in a listing and no upload stored;
#   - through a fault proxy answering 503 SlowDown and resetting connections, word count from
#     s3a:// to s3a:// gives the local output (the client retried);
#   - the server stopped (SIGSTOP) for a few seconds while a job writes: stalled requests time
#     out (fs.s3a.connection.request.timeout) and are retried, the output is whole.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
PROXY_PID=
trap '[ -n "$PROXY_PID" ] && kill $PROXY_PID 2>/dev/null; s3_server_stop; _lib_cleanup' EXIT
JOBS=$BUILD/tests/jobs/s3jobs.so
need "$JOBS" "$EX/wordcount.so" "$BIN/gen_text"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb data || fail "cannot create bucket data"
seq 0 3999 >"$T/want.txt"

# check_output PREFIX WHAT: 4 parts + _SUCCESS, each number once, nothing else stored
check_output() {
    local keys
    keys=$(s3_keys data "$1/")
    assert_eq "$(echo "$keys" | tr '\n' ' ')" "$1/_SUCCESS $1/part-00000 $1/part-00001 $1/part-00002 $1/part-00003 " "$2: objects under $1"
    s3_cat_parts data "$1" | sort -n >"$T/got.txt" || fail "$2: output incomplete"
    assert_files_eq "$T/got.txt" "$T/want.txt" "$2: output"
    [ -z "$(s3_uploads data "$1/")" ] || fail "$2: uploads left stored: $(s3_uploads data "$1/")"
}

for m in "local[2,4]" "local-cluster[2,1,1024]"; do
    tag=$(echo "$m" | tr -c 'a-z0-9\n' '-')
    submit_ok "$m" --class save_retried "$JOBS" "s3a://data/retried-$tag"
    assert_contains "$T/stderr" "fail_mid_part: planned failure" "$m: the planned failure did not happen"
    check_output "retried-$tag" "$m retried task"
done

submit_ok "local-cluster[2,1,1024]" --class save_crash_once "$JOBS" "s3a://data/crashed"
check_output crashed "executor killed mid-part"

run_submit "local-cluster[2,1,1024]" --class save_fails "$JOBS" "s3a://data/failed" && fail "save_fails succeeded"
assert_contains "$T/stderr" "fail_partition_3: planned failure" "the failing job's reason"
[ -z "$(s3_keys data failed/)" ] || fail "a failed job left objects: $(s3_keys data failed/)"
[ -z "$(s3_uploads data failed/)" ] || fail "a failed job left uploads: $(s3_uploads data failed/)"

# a fault proxy: 503 SlowDown every 4th request, a reset connection every 7th
"$BIN/gen_text" -s 5 2000000 >"$T/words.txt" || fail "gen_text"
s3_put "$T/words.txt" data/in/words.txt || fail "upload"
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/wc-local"
cat_parts "$T/wc-local" >"$T/wc-local.txt"
/usr/bin/python3 "$SRC/tests/s3/fault_proxy.py" "$T/proxy.port" "$S3_PORT" 4 7 >"$T/proxy.log" 2>&1 &
PROXY_PID=$!
for i in $(seq 1 100); do [ -s "$T/proxy.port" ] && break; sleep 0.05; done
[ -s "$T/proxy.port" ] || fail "the fault proxy did not start: $(cat "$T/proxy.log")"
SUBMIT_OPTS=(--conf "spark.hadoop.fs.s3a.endpoint=http://127.0.0.1:$(cat "$T/proxy.port")"
    --conf spark.hadoop.fs.s3a.retry.interval=20ms --conf spark.hadoop.fs.s3a.prefetch.block.size=256k)
for m in "local[2]" "local-cluster[2,1,1024]"; do
    tag=$(echo "$m" | tr -c 'a-z0-9\n' '-')
    submit_ok "$m" "$EX/wordcount.so" "s3a://data/in" "s3a://data/proxied-$tag"
    s3_cat_parts data "proxied-$tag" >"$T/proxied.txt" || fail "$m: proxied output incomplete"
    assert_files_eq "$T/proxied.txt" "$T/wc-local.txt" "$m: output through the fault proxy differs"
done
SUBMIT_OPTS=()
grep -q 'fault=slowdown' "$T/proxy.log" || fail "the proxy injected no SlowDown"
grep -q 'fault=reset' "$T/proxy.log" || fail "the proxy reset no connection"
[ -z "$(s3_uploads data)" ] || fail "uploads left after the proxied jobs: $(s3_uploads data)"

# the server stops answering for 3 s while the job writes
SUBMIT_OPTS=(--conf spark.hadoop.fs.s3a.connection.request.timeout=1s --conf spark.hadoop.fs.s3a.retry.interval=200ms)
timeout 120 "$SUBMIT" --master "local[2]" "${SUBMIT_OPTS[@]}" --class save_slow "$JOBS" "s3a://data/paused" \
    >"$T/stdout" 2>"$T/stderr" &
job=$!
for i in $(seq 1 200); do s3_uploads data paused/ | grep -q part && break; sleep 0.05; done
s3_server_pause
sleep 3
s3_server_resume
wait $job || { tail -5 "$T/stderr" >&2; fail "the job failed while the server was stopped"; }
SUBMIT_OPTS=()
assert_contains "$T/stderr" "retry_in_ms=" "no request was retried while the server was stopped"
check_output paused "server stopped mid-job"
log "ok ($(grep -c fault= "$T/proxy.log") faults injected)"
