#!/usr/bin/env bash
# fs_s3a.sh — runs tests/s3/s3a_fs_live (src/fs's s3a file system: listing, ranged reads,
# multipart writers and their commits, compressed objects, errors) against a fresh S3 server
# (bucket "live"), with fault proxies in front of it for the reads that meet a faulty store: one
# cuts every third ranged GET's body half-way (S3A_CUT_PROXY_URL), one never answers the first
# ranged GET and every second one after it (S3A_STALL_PROXY_URL), one answers ranged GETs with
# 200 instead of 206 (S3A_AS200_PROXY_URL); checks that each did. One more only records the
# paths it is sent (S3A_RECORD_PROXY_URL, its log in S3A_RECORD_PROXY_LOG).
# Usage: fs_s3a.sh BUILD_DIR
set -u
BUILD=$(cd "$1" && pwd)
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/s3/lib/s3.sh"
T=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; s3_server_stop; rm -rf "$T"' EXIT
s3_server_start "$BUILD" || exit $?
s3_mb live || { echo "fs_s3a.sh: cannot create bucket live" >&2; exit 2; }
# proxy NAME CUT_EVERY STALL_EVERY RANGE_AS_200 [LOG_REQUESTS]: starts a fault proxy; its port is
# in $T/NAME.port, what it did in $T/NAME.log
proxy() {
    /usr/bin/python3 "$SRC/tests/s3/fault_proxy.py" "$T/$1.port" "$S3_PORT" 0 0 "$2" "$3" "$4" "${5:-0}" >"$T/$1.log" 2>&1 &
    PIDS+=($!)
    for i in $(seq 1 100); do [ -s "$T/$1.port" ] && break; sleep 0.05; done
    [ -s "$T/$1.port" ] || { echo "fs_s3a.sh: the fault proxy did not start: $(cat "$T/$1.log")" >&2; exit 2; }
}
proxy cut 3 0 0
proxy stall 0 2 0
proxy range_as_200 0 0 1
proxy record 0 0 0 1
url() { echo "http://127.0.0.1:$(cat "$T/$1.port")"; }
S3A_CUT_PROXY_URL=$(url cut) S3A_STALL_PROXY_URL=$(url stall) S3A_AS200_PROXY_URL=$(url range_as_200) \
    S3A_RECORD_PROXY_URL=$(url record) S3A_RECORD_PROXY_LOG="$T/record.log" \
    "$BUILD/tests/s3/s3a_fs_live"
rc=$?
for f in cut stall range_as_200; do
    if [ "$rc" = 0 ] && ! grep -q "fault=$f" "$T/$f.log"; then
        echo "fs_s3a.sh: the fault proxy made no '$f' fault: $(cat "$T/$f.log")" >&2
        rc=1
    fi
done
exit "$rc"
