#!/usr/bin/env bash
# ui_executor_logs.sh — local-cluster executors write their task stdout/stderr to their own log
# files, never into the driver's stdout: a task's printf is not in cspark-submit's output but in
# the executor's stdout, which the UI serves; an executor that crashed (SIGSEGV in a task) is
# listed dead on the Executors page with its logs still readable there, its stderr holding the
# crash report, and the driver's log quotes the end of it.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/uijobs.so
need "$JOBS" "$BIN/cspark-executor"
mkdir -p "$T/gates"
APP_PID=""
stop_all() {
    : >"$T/gates/exit"
    [ -n "$APP_PID" ] && kill "$APP_PID" 2>/dev/null && wait "$APP_PID" 2>/dev/null
    _lib_cleanup
}
trap stop_all EXIT

"$SUBMIT" --master 'local-cluster[2,1,512]' --conf spark.ui.port=0 --class ui_crash "$JOBS" \
    "$T/gates" >"$T/out" 2>"$T/err" &
APP_PID=$!
for i in $(seq 1 300); do
    grep -q "^count=" "$T/out" 2>/dev/null && break
    sleep 0.2
done
grep -q "^count=1000$" "$T/out" || fail "the job did not finish after the crash: $(tail -5 "$T/err")"
port=$(grep -o "ui app=[^ ]* port=[0-9]*" "$T/err" | grep -o '[0-9]*$')
URL=http://127.0.0.1:$port

grep -q "hello from task" "$T/out" && fail "task output reached the driver's stdout"
grep -q "event=executor_exited executor=[12] exit code 139 .*stderr_tail=.*SIGSEGV in task" "$T/err" ||
    fail "the driver did not log the crashed executor's stderr: $(grep executor_exited "$T/err")"
dead=$(grep -o "event=executor_exited executor=[12]" "$T/err" | head -1 | grep -o '[12]$')

curl -sf "$URL/executors/" >"$T/executors.html" || fail "GET /executors/"
grep -q 'dead-executors">1<' "$T/executors.html" || fail "the Executors page does not list the dead executor"
grep -q "id=\"executor-$dead\"><td>$dead</td><td>[^<]*</td><td class=\"status\">Dead" "$T/executors.html" ||
    fail "executor $dead is not shown dead"
grep -q "logPage/?executorId=$dead&amp;logType=stderr" "$T/executors.html" ||
    fail "the dead executor has no stderr link"
curl -sf "$URL/logPage/?executorId=$dead&logType=stderr" >"$T/stderr.html" || fail "the dead executor's stderr page"
grep -q "SIGSEGV in task" "$T/stderr.html" || fail "the crash report is not in the executor's stderr"
grep -q "stderr line from partition 1" "$T/stderr.html" || fail "the task's stderr is not in the log"
curl -sf "$URL/logPage/?executorId=$dead&logType=stdout" >"$T/stdout.html" || fail "the dead executor's stdout page"
grep -q "hello from task of partition 1 attempt 0" "$T/stdout.html" || fail "the task's stdout is not in the executor's log"
all=$(for e in 1 2 3; do curl -sf "$URL/logPage/?executorId=$e&logType=stdout&offset=0"; done)
[ "$(echo "$all" | grep -c 'hello from task of partition')" -ge 5 ] ||
    fail "the executors' stdout logs do not hold every task's output"
code=$(curl -s -o /dev/null -w '%{http_code}' "$URL/logPage/?executorId=../../etc&logType=stdout")
[ "$code" == 404 ] || fail "a path in executorId answered $code"
: >"$T/gates/exit"
wait "$APP_PID" || fail "the application failed"
APP_PID=""
echo "PASS: $TEST_NAME"
