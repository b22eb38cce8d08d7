#!/usr/bin/env bash
# Builds the Kubernetes watch stream fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/kube/kube_watch.c (included by the target) and the kube client sources it links with, and
# runs it for ~20 s from a seed corpus of watch streams. $1 = build directory. It runs in both CI
# passes, as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: kube_watch.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: kube_watch: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/kube_watch"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S/kube/kube_client.c" "$S/kube/kube_http.c" "$S/kube/kube_errors.c"
  "$S/kube/kube_config.c" "$S/kube/kube_exec.c" "$S/kube/kube_yaml.c" "$S/common/conf.c"
  "$S/common/conf_entries.c" "$S/common/conf_k8s_keys.c"
  "$S/common/err.c" "$S/common/log.c" "$S/common/strutil.c" "$S/common/sync.c"
  "$S/common/curl_pool.c" "$S/common/master.c" "$S/common/shutdown.c" "$S/common/token_bucket.c"
  "$S/common/run_command.c" "$S/common/resource_conf.c")
PKGS="jansson libcurl yaml-0.1 openssl"
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$S" -I"$SRC/include" $(pkg-config --cflags $PKGS) "$SRC/tests/fuzz/kube_watch_fuzz.c" \
  "${SOURCES[@]}" $(pkg-config --libs $PKGS) -lpthread -lm -o "$OUT/kube_watch_fuzz"
# seeds (first byte = piece size): events, a bookmark, a 410 and another error event, a CRLF
# line, a last line without its newline, a line that is not JSON
{
    printf '\x07'
    printf '%s\n' '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"5"}}}'
    printf '%s\r\n' '{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"6"},"status":{"phase":"Running"}}}'
    printf '%s\n' '{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"9"}}}'
    printf '%s' '{"type":"DELETED","object":{"kind":"Pod","metadata":{"name":"a","resourceVersion":"10"}}}'
} >"$OUT/corpus/events"
{
    printf '\x20'
    printf '%s\n' '{"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old resource version"}}'
    printf '%s\n' '{"type":"ADDED","object":{"metadata":{"name":"b"}}}'
} >"$OUT/corpus/gone"
printf '\x03%s\n%s\n' '{"type":"ERROR","object":{"code":500,"message":"boom"}}' 'not json' >"$OUT/corpus/error"
# an event whose object is not an object (found by this fuzzer): a stream error, never delivered
printf '\x07%s\n' '{"type":"ADDED","object":"BOOKMARK"}' >"$OUT/corpus/object_not_object"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./kube_watch_fuzz -max_total_time=20 -error_exitcode=1 -max_len=8192 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits 1 on a crash, leak or abort (-error_exitcode: its own default, 77, is
# ctest's skip code); pipefail carries it
