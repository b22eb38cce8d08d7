#!/usr/bin/env bash
# Builds the Arrow IPC stream reader fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/formats (flatbuf.c, arrow_ipc_*.c), src/columnar and what they use, and runs it for ~20 s
# from a seed corpus of valid streams (the sample of every Spark type, one row, an empty stream:
# written by the same file built with -DARROW_IPC_SEEDS) and a few malformed ones. $1 = build
# directory. It runs under AddressSanitizer and UBSan, in the normal CI pass, as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: arrow_ipc.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: arrow_ipc: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/arrow_ipc"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S/formats/flatbuf.c" "$S/formats/arrow_ipc_schema.c" "$S/formats/arrow_ipc_read.c"
  "$S/formats/arrow_ipc_write.c" "$S/columnar/col_type.c" "$S/columnar/col_collation.c" "$S/columnar/col_memory.c"
  "$S/columnar/column.c" "$S/columnar/col_builder.c" "$S/shuffle/memory.c" "$S/common/err.c"
  "$S/common/log.c" "$S/common/sync.c" "$S/common/strutil.c")
FLAGS=(-g -O1 -std=gnu11 -fno-sanitize-recover=undefined -I"$S" -I"$SRC/include"
  $(pkg-config --cflags liblz4 libzstd))
LIBS=($(pkg-config --libs liblz4 libzstd) -lpthread -lm)
clang "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined "$SRC/tests/fuzz/arrow_ipc_fuzz.c" \
  "${SOURCES[@]}" "${LIBS[@]}" -o "$OUT/arrow_ipc_fuzz"
clang "${FLAGS[@]}" -fsanitize=address,undefined -DARROW_IPC_SEEDS \
  "$SRC/tests/fuzz/arrow_ipc_fuzz.c" "${SOURCES[@]}" "${LIBS[@]}" -o "$OUT/arrow_ipc_seeds"
"$OUT/arrow_ipc_seeds" "$OUT/corpus"
# and a few malformed ones: nothing, end-of-stream alone, a metadata length past the input, a
# legacy (no continuation marker) prefix, read byte by byte
printf '\x00' > "$OUT/corpus/nothing"
printf '\x00\xff\xff\xff\xff\x00\x00\x00\x00' > "$OUT/corpus/eos"
printf '\x00\xff\xff\xff\xff\x00\x00\x00\x10\x01\x02' > "$OUT/corpus/long_meta"
printf '\x01\x10\x00\x00\x00\x0c\x00\x00\x00\x08\x00\x0c\x00' > "$OUT/corpus/legacy"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./arrow_ipc_fuzz -max_total_time=20 -error_exitcode=1 -max_len=16384 -rss_limit_mb=2048 \
  -malloc_limit_mb=512 -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
