#!/usr/bin/env bash
# Builds the shuffle block fuzzer (clang -fsanitize=fuzzer,address,undefined) against the record
# stream and shuffle reader sources (src/records/recio.c, checksum.c, src/shuffle/shuffle.c and
# what they use) and runs it for ~20 s from a seed corpus of valid segments (every codec x
# checksum algorithm, written by the same file built with -DSHUFFLE_BLOCK_SEEDS). $1 = build
# directory. It runs in the normal CI pass, under AddressSanitizer and UBSan, as the RPC and kubesim
# fuzzers do.
set -euo pipefail
BUILD=${1:?usage: shuffle_block.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: shuffle_block: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/shuffle_block"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S/records/recio.c" "$S/records/checksum.c" "$S/records/batch.c" "$S/common/err.c"
  "$S/common/log.c" "$S/common/conf.c" "$S/common/conf_entries.c"
  "$S/common/conf_k8s_keys.c" "$S/common/resource_conf.c" "$S/common/master.c" "$S/common/sync.c"
  "$S/common/strutil.c" "$S/shuffle/shuffle.c" "$S/shuffle/map_status.c" "$S/shuffle/spill.c")
FLAGS=(-g -O1 -std=gnu11 -fno-sanitize-recover=undefined -I"$S" -I"$SRC/include"
  $(pkg-config --cflags liblz4 libxxhash zlib))
LIBS=($(pkg-config --libs liblz4 libxxhash zlib) -lpthread -lm)
clang "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined "$SRC/tests/fuzz/shuffle_block_fuzz.c" \
  "${SOURCES[@]}" "${LIBS[@]}" -o "$OUT/shuffle_block_fuzz"
clang "${FLAGS[@]}" -fsanitize=address,undefined -DSHUFFLE_BLOCK_SEEDS \
  "$SRC/tests/fuzz/shuffle_block_fuzz.c" "${SOURCES[@]}" "${LIBS[@]}" -o "$OUT/shuffle_block_seeds"
"$OUT/shuffle_block_seeds" "$OUT/corpus"
# and a few malformed ones: an empty segment, zeros, a truncated header, an unknown codec
printf '\x01' > "$OUT/corpus/empty"
printf '\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00' > "$OUT/corpus/zeros"
printf '\x03\x05\x00\x00\x00\x05' > "$OUT/corpus/short_header"
printf '\x80\x02\x00\x00\x00\x02\x00\x00\x00\x97\x00\x00\x00\x00\x01\x00' > "$OUT/corpus/codec7"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./shuffle_block_fuzz -max_total_time=20 -error_exitcode=1 -max_len=8192 -rss_limit_mb=2048 \
  -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
