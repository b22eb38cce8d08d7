#!/usr/bin/env bash
# Builds the rpc frame-decoder fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/rpc/frame.c and the generated <build>/proto/cspark.pb-c.c, and runs it for ~20 s from a small
# seed corpus. $1 = build directory. It runs in the normal CI pass (its
# binary is sanitized whatever the pass), as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: rpc_frame.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: rpc_frame: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/rpc_frame"
mkdir -p "$OUT/corpus" "$OUT/proto"
# the generated sources, fresh (the build may not have made them yet)
protoc-c --c_out="$OUT/proto" -I"$SRC/proto" "$SRC/proto/cspark.proto"
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$SRC/src" -I"$SRC/include" -I"$OUT/proto" $(pkg-config --cflags libprotobuf-c) \
  "$SRC/tests/fuzz/rpc_frame_fuzz.c" "$SRC/src/rpc/frame.c" "$OUT/proto/cspark.pb-c.c" \
  $(pkg-config --libs libprotobuf-c) -o "$OUT/rpc_frame_fuzz"
# seeds (first byte = piece size): a heartbeat, a launch task with request id, two frames back to
# back, a block data frame, an oversized length, an empty frame
printf '\x03\x00\x00\x00\x05\xea\x01\x02\x0a\x00' > "$OUT/corpus/heartbeat"
printf '\x00\x00\x00\x00\x08\x08\x07\xca\x01\x03\x08\x2a\x28' > "$OUT/corpus/launch"
printf '\x05\x00\x00\x00\x03\xe2\x01\x00\x00\x00\x00\x03\xe2\x01\x00' > "$OUT/corpus/two"
printf '\x10\x00\x00\x00\x0e\x08\x01\xca\x02\x09\x0a\x02\x08\x01\x12\x01\x41\x18\x01' > "$OUT/corpus/block"
printf '\x01\x7f\xff\xff\xff' > "$OUT/corpus/huge"
printf '\x02\x00\x00\x00\x00' > "$OUT/corpus/empty"
# regression: an unknown field 0 with an overlong tag inside a body decodes, but its canonical
# re-encoding is refused (the round trip must then fail gracefully)
printf '\x00\x00\x00\x00\x08\x08\x07\xd2\x01\x03\x82\x00\x00\x03\x18\xa2\x00\x36\x28' > "$OUT/corpus/overlong_tag0"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./rpc_frame_fuzz -max_total_time=20 -error_exitcode=1 -max_len=4096 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
