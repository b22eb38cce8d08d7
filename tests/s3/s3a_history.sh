#!/usr/bin/env bash
# s3a_history.sh — cspark-history over an object store (spark.history.fs.logDirectory=
# s3a://bucket/prefix, as Spark's History Server reads it through S3A): two applications log to
# s3a with Spark 4's defaults (a rolled, zstd-compressed log) and with rolling and compression off
# (one plain object); the server lists both as completed and serves their jobs; an application
# that ends while the server runs appears at the next update; the cleaner
# (spark.history.fs.cleaner.maxNum=1) deletes the older logs from the bucket itself, keeping the
# newest; a log directory with nothing under it is refused at start with Spark's message, exit 1.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
. "$SRC/tests/s3/lib/s3.sh"
HIST=$BIN/cspark-history
HIST_PID=
stop_hist() { [ -n "$HIST_PID" ] && kill "$HIST_PID" 2>/dev/null; wait "$HIST_PID" 2>/dev/null; HIST_PID=; }
trap 'stop_hist; s3_server_stop; _lib_cleanup' EXIT
need "$EX/wordcount.so" "$BIN/gen_text" "$HIST"
s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb logs || fail "cannot create bucket logs"
"$BIN/gen_text" -s 5 50000 >"$T/words.txt"

SUBMIT_OPTS=(--conf spark.eventLog.enabled=true --conf spark.eventLog.dir=s3a://logs/events)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out0"
SUBMIT_OPTS+=(--conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false)
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out1"
keys=$(s3_keys logs events/)
echo "$keys" | grep -q '^events/eventlog_v2_.*\.zstd$' || fail "no rolled zstd log in the bucket: $keys"

# start_hist [CONF...]: the server on the bucket, its port in $URL. The output file is emptied
# first: the background child truncates it only once it runs, and until then the port read
# would be the previous (stopped) server's.
start_hist() {
    : >"$T/hist.out"
    "$HIST" --conf spark.history.ui.port=0 --conf spark.history.fs.update.interval=1s \
        --conf spark.history.fs.logDirectory=s3a://logs/events "$@" >"$T/hist.out" 2>&1 &
    HIST_PID=$!
    local port
    port=$(history_port "$T/hist.out")
    [ -n "$port" ] || fail "the history server did not start: $(cat "$T/hist.out")"
    URL=http://127.0.0.1:$port/api/v1
}
# apps: "id:completed" of every listed application, sorted
apps() {
    curl -sf "$URL/applications" |
        "$PY" -c 'import json,sys; print(" ".join(sorted("%s:%s" % (a["id"], a["attempts"][0]["completed"]) for a in json.load(sys.stdin))))'
}
count_apps() { apps | wc -w; }
# hist_said: what the server printed last and the listing's HTTP status, for a failure's message
hist_said() {
    echo "server: $(tail -n 20 "$T/hist.out" | tr '\n' ' ') listing: HTTP $(curl -s -o /dev/null -w '%{http_code}' "$URL/applications")"
}
wait_apps() { # wait_apps N: until N applications are listed
    local i
    for i in $(seq 1 300); do
        [ "$(count_apps)" = "$1" ] && return 0
        sleep 0.2
    done
    return 1
}

start_hist
wait_apps 2 || fail "expected 2 applications, listed: $(apps); $(hist_said)"
case "$(apps)" in *:False*) fail "an application is not completed: $(apps)" ;; esac
for id in $(curl -sf "$URL/applications" | "$PY" -c 'import json,sys; print(" ".join(a["id"] for a in json.load(sys.stdin)))'); do
    n=$(curl -sf "$URL/applications/$id/jobs" | "$PY" -c 'import json,sys; print(len(json.load(sys.stdin)))')
    [ "$n" -ge 1 ] 2>/dev/null || fail "application $id: no jobs served ($n)"
done

# a third application, while the server runs: listed at the next update
submit_ok "local[2]" "$EX/wordcount.so" "$T/words.txt" "$T/out2"
wait_apps 3 || fail "the new application was not listed: $(apps); $(hist_said)"
newest=$(curl -sf "$URL/applications?limit=1" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
stop_hist

# the cleaner: only the newest log stays, in the bucket too
start_hist --conf spark.history.fs.cleaner.enabled=true --conf spark.history.fs.cleaner.maxNum=1
wait_apps 1 || fail "the cleaner left: $(apps); $(hist_said)"
assert_eq "$(apps)" "$newest:True" "the newest application is the one kept"
for i in $(seq 1 100); do
    [ "$(s3_keys logs events/ | grep -vc "$newest")" = 0 ] && break
    sleep 0.2
done
left=$(s3_keys logs events/)
[ -n "$left" ] && [ "$(echo "$left" | grep -vc "$newest")" = 0 ] ||
    fail "the bucket should hold the newest log only: $left"
stop_hist

# a log directory with nothing in it: Spark's refusal, one line
rc=0
"$HIST" --conf spark.history.ui.port=0 --conf spark.history.fs.logDirectory=s3a://logs/none >"$T/none.out" 2>&1 || rc=$?
[ $rc -eq 1 ] || fail "an empty log directory: exit $rc, expected 1"
assert_contains "$T/none.out" "Log directory specified does not exist: s3a://logs/none" "the refusal"
[ "$(wc -l <"$T/none.out")" -eq 1 ] || fail "the refusal is not one line: $(cat "$T/none.out")"
log ok
