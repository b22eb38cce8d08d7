#!/usr/bin/env bash
# Builds the kubesim request-body fuzzer (clang -fsanitize=fuzzer,address) against the kubesim sources it
# needs and runs it for ~20 s from a small seed corpus. $1 = build directory. It runs in the normal CI
# pass (its binary is sanitized whatever the pass), as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: kubesim_body.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: kubesim_body: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/kubesim_body"
mkdir -p "$OUT/corpus"
KS="$SRC/tools/kubesim"
protoc-c --c_out="$OUT" -I"$KS" "$KS/kubesim_pb.proto"
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$KS" -I"$OUT" $(pkg-config --cflags jansson libprotobuf-c openssl) \
  "$SRC/tests/fuzz/kubesim_body_fuzz.c" "$KS/store.c" "$KS/store_defaults.c" "$KS/store_delete.c" "$KS/store_kubelet.c" "$KS/pod_history.c" "$KS/quantity.c" "$KS/decode.c" "$KS/schema.c" "$KS/schema_types.c" "$KS/status.c" "$KS/validate.c" "$KS/patch.c" \
  "$KS/selector.c" "$KS/pb.c" "$OUT/kubesim_pb.pb-c.c" \
  $(pkg-config --libs jansson libprotobuf-c openssl) -lpthread -o "$OUT/kubesim_body_fuzz"
# seeds: one per mode (first byte selects the path)
printf '\x00{"metadata":{"name":"p","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}' > "$OUT/corpus/create"
printf '\x01{"metadata":{"labels":{"a":null,"b":"c"}}}' > "$OUT/corpus/merge"
printf '\x02{"spec":{"$setElementOrder/containers":[{"name":"c"}],"containers":[{"name":"c","image":"j","env":[{"name":"A","$patch":"delete"}]}]}}' > "$OUT/corpus/smp"
printf '\x03[{"op":"add","path":"/metadata/labels/x","value":"y"},{"op":"remove","path":"/spec/containers/0/env"}]' > "$OUT/corpus/jsonpatch"
printf '\x04{"metadata":{"name":"base"},"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Running"}}' > "$OUT/corpus/update"
printf '\x05app in (a,b),!tier,x!=y' > "$OUT/corpus/selector"
# protobuf ConfigMap "c" with data {a: b}: "k8s\0" + Unknown{typeMeta{v1, ConfigMap}, raw}
printf '\x06k8s\x00\x0a\x0f\x0a\x02v1\x12\x09ConfigMap\x12\x0f\x0a\x05\x0a\x01c\x1a\x00\x12\x06\x0a\x01a\x12\x01b' > "$OUT/corpus/protobuf"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./kubesim_body_fuzz -max_total_time=20 -error_exitcode=1 -max_len=4096 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
