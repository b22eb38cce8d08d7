#!/usr/bin/env bash
# Builds the kubesim request-body fuzzer (clang -fsanitize=fuzzer,address) against the kubesim sources it
# needs and runs it for ~20 s from a small seed corpus. $1 = build directory. Skipped (exit 0) in the
# sanitizer pass (CSPARK_SANITIZE=1) because the normal pass already runs it.
set -euo pipefail
BUILD=${1:?usage: kubesim_body.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
if [ "${CSPARK_SANITIZE:-0}" = 1 ]; then
  echo "skip: the fuzzer runs in the normal pass"
  exit 0
fi
command -v clang >/dev/null || { echo "kubesim_body: clang is required" >&2; exit 1; }
OUT="$BUILD/fuzz/kubesim_body"
mkdir -p "$OUT/corpus"
KS="$SRC/tools/kubesim"
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$KS" $(pkg-config --cflags jansson) \
  "$SRC/tests/fuzz/kubesim_body_fuzz.c" "$KS/store.c" "$KS/status.c" "$KS/validate.c" "$KS/patch.c" \
  "$KS/selector.c" $(pkg-config --libs jansson) -lpthread -o "$OUT/kubesim_body_fuzz"
# seeds: one per mode (first byte selects the path)
printf '\x00{"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}' > "$OUT/corpus/create"
printf '\x01{"metadata":{"labels":{"a":null,"b":"c"}}}' > "$OUT/corpus/merge"
printf '\x02{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"name":"c","image":"j","env":[{"name":"A","$patch":"delete"}]}]}}' > "$OUT/corpus/smp"
printf '\x03[{"op":"add","path":"/metadata/labels/x","value":"y"},{"op":"remove","path":"/spec/containers/0/env"}]' > "$OUT/corpus/jsonpatch"
printf '\x04{"metadata":{"name":"base"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}}' > "$OUT/corpus/update"
printf '\x05app in (a,b),!tier,x!=y' > "$OUT/corpus/selector"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./kubesim_body_fuzz -max_total_time=20 -max_len=4096 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
