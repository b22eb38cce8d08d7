#!/usr/bin/env bash
# unauthenticated_flood.sh — issue 10 item 16: a peer that has not authenticated must not be able
# to make a process reserve memory. While a job runs in local-cluster (spark.authenticate on, as
# by default), 1,000 connections to the driver's rpc port and 1,000 to an executor's block server
# each send a 128 MiB frame length and 256 KiB of junk, never authenticating, and stay open. The
# driver's and the executor's resident memory must stay within 50 MB of what it was before, and
# the job must finish with the right answer (outcomes only: no timing is asserted).
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
FLOOD=$SRC/tests/fault/lib/length_prefix_flood.py
need "$FLOOD" "$PY"
LIMIT_KB=$((50 * 1024))

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null; }

start_slow_job 1500
flood_pid=
trap '[ -n "$flood_pid" ] && kill "$flood_pid" 2>/dev/null; kill $pid 2>/dev/null; _lib_cleanup' EXIT
port=$(grep -o "driver event=listening host=127.0.0.1 port=[0-9]*" "$T/err" | grep -o "[0-9]*$")
reg=$(grep -m1 "driver event=executor_registered" "$T/err")
bport=$(sed 's/.*block_port=\([0-9]*\).*/\1/' <<<"$reg")
epid=$(sed 's/.*pid=\([0-9]*\).*/\1/' <<<"$reg")
[ -n "$port" ] && [ -n "$bport" ] && [ -n "$epid" ] || fail "driver port, block port or executor pid not logged"
driver_idle=$(rss_kb $pid)
exec_idle=$(rss_kb "$epid")
[ -n "$driver_idle" ] && [ -n "$exec_idle" ] || fail "cannot read the RSS of the driver or executor"

mkfifo "$T/flood_in"
"$PY" "$FLOOD" 1000 262144 "127.0.0.1:$port" "127.0.0.1:$bport" <"$T/flood_in" >"$T/flood_out" 2>&1 &
flood_pid=$!
exec 9>"$T/flood_in" # the flood keeps its connections open until this closes
i=0
until grep -q "^ready" "$T/flood_out"; do
    kill -0 "$flood_pid" 2>/dev/null || fail "the flood ended early: $(cat "$T/flood_out")"
    i=$((i + 1))
    [ $i -le 3000 ] || fail "the flood did not get its connections out"
    sleep 0.1
done
grep -q "target=127.0.0.1:$port connected=1000 " "$T/flood_out" || fail "not every connection to the driver was made: $(cat "$T/flood_out")"
grep -q "target=127.0.0.1:$bport connected=1000 " "$T/flood_out" || fail "not every connection to the block server was made: $(cat "$T/flood_out")"
driver_flood=$(rss_kb $pid)
exec_flood=$(rss_kb "$epid")
exec 9>&-
wait "$flood_pid" 2>/dev/null
flood_pid=

finish_slow_job "beside the flood"
log "driver RSS ${driver_idle} kB idle, ${driver_flood} kB under 1000 connections; executor ${exec_idle} kB, ${exec_flood} kB"
[ $((driver_flood - driver_idle)) -le $LIMIT_KB ] || fail "driver RSS grew by $((driver_flood - driver_idle)) kB (limit $LIMIT_KB kB)"
[ $((exec_flood - exec_idle)) -le $LIMIT_KB ] || fail "executor RSS grew by $((exec_flood - exec_idle)) kB (limit $LIMIT_KB kB)"
grep -q 'event=auth_failed reason="frame larger than 4096 bytes before authentication" endpoint=driver' "$T/err" ||
    fail "the driver did not log the refused peers"
grep -q 'event=auth_failed reason="frame larger than 4096 bytes before authentication" endpoint=block-server' "$T/err" ||
    fail "the block server did not log the refused peers"
echo "PASS: $TEST_NAME"
