#!/usr/bin/env bash
# s3a_hostile.sh — runs tests/s3/s3a_hostile (src/fs's s3a client against an endpoint that
# misbehaves on purpose: repeated continuation tokens, empty truncated pages, bodies that never
# end, keys with dot segments kept verbatim) with tests/s3/hostile_s3.py on a loopback port.
# Before the fixes the listings looped for ever: the program runs under a generous bound, and
# passing it is a failure. The server is always stopped.
# Usage: s3a_hostile.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
T=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill "$PID" 2>/dev/null; rm -rf "$T"' EXIT
/usr/bin/python3 "$SRC/tests/s3/hostile_s3.py" "$T/port" >"$T/server.log" 2>&1 &
PID=$!
for i in $(seq 1 100); do [ -s "$T/port" ] && break; sleep 0.05; done
[ -s "$T/port" ] || { echo "s3a_hostile.sh: the hostile server did not start: $(cat "$T/server.log")" >&2; exit 2; }
HOSTILE_S3_URL="http://127.0.0.1:$(cat "$T/port")" timeout -s KILL 300 "$BUILD/tests/s3/s3a_hostile"
rc=$?
[ "$rc" = 137 ] && echo "s3a_hostile.sh: s3a_hostile did not finish in 300 s (a listing that never ends?)" >&2
for b in repeat-token empty-pages; do
    echo "s3a_hostile.sh: $b: $(grep -c "bucket=$b " "$T/server.log") requests" >&2
done
exit "$rc"
