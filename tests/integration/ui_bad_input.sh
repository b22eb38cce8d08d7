#!/usr/bin/env bash
# ui_bad_input.sh — settings of the UI and the history server a user can get wrong: one line
# naming the key and what is expected, a non-zero exit, nothing left behind; spark.ui.enabled=false
# starts no server; a taken spark.ui.port moves to the next port as Spark does.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
HIST=$BIN/cspark-history
need "$HIST" "$EX/pi.so"
mkdir -p "$T/events"

# expect_refused KEY OUTFILE: exit status non-zero and one line naming KEY
expect_refused() {
    grep -q -- "$1" "$2" || fail "the error does not name $1: $(cat "$2")"
}

rc=0
"$SUBMIT" --master 'local[1]' --conf spark.ui.port=80 --conf spark.eventLog.enabled=true \
    --conf spark.eventLog.dir="$T/events" "$EX/pi.so" 10 >"$T/o" 2>"$T/e" || rc=$?
[ $rc -ne 0 ] || fail "spark.ui.port=80 was accepted"
expect_refused "spark.ui.port" "$T/e"
[ -z "$(ls "$T/events")" ] || fail "a refused application left an event log: $(ls "$T/events")"

rc=0
"$SUBMIT" --master 'local[1]' --conf spark.ui.retainedTasks=0 "$EX/pi.so" 10 >"$T/o" 2>"$T/e" || rc=$?
[ $rc -ne 0 ] || fail "spark.ui.retainedTasks=0 was accepted"
expect_refused "spark.ui.retainedTasks" "$T/e"

# a taken port: the next one, or with no retries a clear refusal
"$PY" -c "
import socket, time
s = socket.socket(); s.bind(('0.0.0.0', 0)); s.listen(1)
print(s.getsockname()[1], flush=True)
time.sleep(120)" >"$T/port" &
HOLD=$!
trap 'kill $HOLD 2>/dev/null; wait $HOLD 2>/dev/null; _lib_cleanup' EXIT
for i in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.1; done
taken=$(cat "$T/port")
[ -n "$taken" ] || fail "could not hold a port"
rc=0
"$SUBMIT" --master 'local[1]' --conf spark.ui.port="$taken" --conf spark.port.maxRetries=0 \
    "$EX/pi.so" 10 >"$T/o" 2>"$T/e" || rc=$?
[ $rc -ne 0 ] || fail "a taken spark.ui.port with no retries was accepted"
expect_refused "spark.ui.port=$taken" "$T/e"
grep -q "in use" "$T/e" || fail "the refusal does not say the port is in use: $(cat "$T/e")"
"$SUBMIT" --master 'local[1]' --conf spark.ui.port="$taken" "$EX/pi.so" 10 >"$T/o" 2>"$T/e" ||
    fail "with retries the application should use the next port: $(tail -3 "$T/e")"
grep -q "could not bind on port $taken. Attempting port $((taken + 1))" "$T/e" ||
    fail "no retry was logged: $(grep ui "$T/e")"
grep -q "Bound SparkUI to 127.0.0.1, and started at http://[^ ]*:$((taken + 1))" "$T/e" ||
    grep -q "Bound SparkUI to 127.0.0.1, and started at http://[^ ]*:$((taken + 2))" "$T/e" ||
    fail "the UI did not start on a next port: $(grep ui "$T/e")"

# spark.ui.enabled=false: no server
"$SUBMIT" --master 'local[1]' --conf spark.ui.enabled=false "$EX/pi.so" 10 >"$T/o" 2>"$T/e" ||
    fail "spark.ui.enabled=false failed"
grep -q "Bound SparkUI" "$T/e" && fail "spark.ui.enabled=false started the UI"

# the history server
rc=0
"$HIST" "$T/nowhere" >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 1 ] || fail "a missing log directory exited $rc"
expect_refused "spark.history.fs.logDirectory" "$T/e"
[ "$(wc -l <"$T/e")" -eq 1 ] || fail "more than one line for a missing directory: $(cat "$T/e")"
rc=0
"$HIST" --conf spark.history.fs.logDirectory=hdfs://nn/logs >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 1 ] || fail "hdfs:// was accepted"
expect_refused "spark.history.fs.logDirectory" "$T/e"
rc=0
"$HIST" --conf spark.history.ui.port=99999 "$T/events" >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 1 ] || fail "port 99999 was accepted"
expect_refused "spark.history.ui.port" "$T/e"
rc=0
"$HIST" --conf spark.history.fs.update.interval=soon "$T/events" >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 1 ] || fail "a bad interval was accepted"
expect_refused "spark.history.fs.update.interval" "$T/e"
rc=0
"$HIST" --frobnicate >"$T/o" 2>"$T/e" || rc=$?
[ $rc -eq 1 ] || fail "an unknown option was accepted"
grep -q -- "--frobnicate" "$T/e" || fail "the error does not name the option"
"$HIST" --help >"$T/o" 2>&1 || fail "--help failed"
grep -q "Usage: cspark-history" "$T/o" || fail "--help shows no usage"
echo "PASS: $TEST_NAME"
