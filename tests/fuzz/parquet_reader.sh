#!/usr/bin/env bash
# Builds the Parquet reader fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/formats/parquet (the footer, the page iterator and the scan into column batches) and what it
# uses, and runs it for ~30 s from a seed corpus pyarrow writes
# (scripts/install-pytools.sh): small files of every physical type, nested and null columns, each
# encoding and codec, data pages v1 and v2, and the same files' column chunks alone (the
# fuzzer's chunk mode, reaching the page decoders without a footer). $1 = build directory. It runs
# in the normal CI pass, under AddressSanitizer and UBSan, as the other fuzzers do. Inputs that once
# broke the reader are kept in tests/fuzz/parquet_reader_seeds/ and run first.
set -euo pipefail
BUILD=${1:?usage: parquet_reader.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: parquet_reader: clang is required (scripts/install-deps.sh)"; exit 77; }
PA_PY=$(bash "$SRC/scripts/install-pytools.sh") || { echo "SKIP: parquet_reader: cannot install pyarrow"; exit 77; }
OUT="$BUILD/fuzz/parquet_reader"
rm -rf "$OUT/corpus"
mkdir -p "$OUT/corpus"
S="$SRC/src"
# the format's table (parquet_format.c) and the writer (parquet_writer*.c) are left out: they need
# the format registry and the file systems' writers; the fuzzer drives the scan (parquet_scan.c)
# directly.
SOURCES=($(ls "$S"/formats/parquet/*.c | grep -Ev '/parquet_(format|writer[a-z_]*)\.c$') "$S"/columnar/*.c
  "$S/common/err.c" "$S/common/log.c" "$S/common/strutil.c" "$S/common/sync.c" "$S/common/conf.c" "$S/common/conf_entries.c"
  "$S/common/conf_k8s_keys.c" "$S/common/resource_conf.c" "$S/common/master.c")
FLAGS=(-g -O1 -std=gnu11 -fno-sanitize-recover=undefined -I"$S" -I"$SRC/include"
  $(pkg-config --cflags liblz4 libzstd zlib snappy libxxhash jansson))
LIBS=($(pkg-config --libs liblz4 libzstd zlib snappy libxxhash jansson) -lpthread -lm)
# parquet_file.c reads through src/fs; the fuzzer's file systems are a stub serving the input in
# memory (cs_fuzz_file) for any URI, so that the scan reads it as a file. The task-memory calls of
# src/columnar are stubbed too (the fuzzer's allocator charges no task).
cat >"$OUT/fs_stub.c" <<'STUB'
#include <string.h>
#include "fs/fs.h"
#include "shuffle/memory.h"
const unsigned char *cs_fuzz_file;
size_t cs_fuzz_file_len;
struct cs_fs_reader { uint64_t pos, end; };
int cs_fs_stat(const char *uri, cs_fs_status *st, cs_error *err)
{
    (void)uri; (void)err;
    st->exists = cs_fuzz_file != 0; st->is_dir = false; st->size = cs_fuzz_file_len;
    return 0;
}
cs_fs_reader *cs_fs_open(const char *uri, uint64_t o, uint64_t l, uint64_t s, cs_error *err)
{
    (void)uri; (void)s;
    if (o > cs_fuzz_file_len) { cs_error_set(err, CS_EIO, "past the end"); return 0; }
    static struct cs_fs_reader r;
    r.pos = o; r.end = l > cs_fuzz_file_len - o ? cs_fuzz_file_len : o + l;
    return &r;
}
ssize_t cs_fs_read(cs_fs_reader *r, void *b, size_t n, cs_error *err)
{
    (void)err;
    if (n > r->end - r->pos) n = r->end - r->pos;
    memcpy(b, cs_fuzz_file + r->pos, n);
    r->pos += n;
    return (ssize_t)n;
}
void cs_fs_reader_close(cs_fs_reader *r) { (void)r; }
bool cs_task_memory_over(const cs_task_memory *m) { (void)m; return false; }
void cs_task_memory_acquire(cs_task_memory *m, int64_t n) { (void)m; (void)n; }
void cs_task_memory_release(cs_task_memory *m, int64_t n) { (void)m; (void)n; }
STUB
clang "${FLAGS[@]}" -fsanitize=fuzzer,address,undefined "$SRC/tests/fuzz/parquet_reader_fuzz.c" \
  "${SOURCES[@]}" "$OUT/fs_stub.c" "${LIBS[@]}" -o "$OUT/parquet_reader_fuzz"
"$PA_PY" - "$OUT/corpus" <<'PY'
import sys, pyarrow as pa, pyarrow.parquet as pq
d = sys.argv[1]
t = pa.table({
    "b": [True, None, False, True], "i": pa.array([1, None, -3, 2**31 - 1], pa.int32()),
    "l": pa.array([2**40, -1, None, 0], pa.int64()), "f": pa.array([1.5, None, -0.0, 3.0], pa.float32()),
    "d": [0.25, 1e300, None, -2.0], "s": ["a", None, "spark", "spark"], "x": pa.array([b"ab", b"", None, b"c"]),
    "fx": pa.array([b"abc", None, b"abd", b"xyz"], pa.binary(3)),
    "dec": pa.array([None, 1, 2, 3], pa.decimal128(20, 2)),
    "li": [[1, None], None, [], [4]], "st": [{"k": 1}, None, {"k": None}, {"k": 4}]})
delta = {"i": "DELTA_BINARY_PACKED", "l": "DELTA_BINARY_PACKED", "s": "DELTA_LENGTH_BYTE_ARRAY",
         "x": "DELTA_BYTE_ARRAY", "fx": "DELTA_BYTE_ARRAY", "f": "BYTE_STREAM_SPLIT", "b": "RLE"}
n = 0
for codec in ("none", "snappy", "gzip", "zstd", "lz4"):
    for v in ("1.0", "2.0"):
        for dic in (True, False):
            opts = dict(compression=codec, data_page_version=v, use_dictionary=dic)
            if not dic:
                opts["column_encoding"] = delta
            path = f"{d}/f_{n}.parquet"
            pq.write_table(t, path, **opts)
            data = open(path, "rb").read()
            md = pq.ParquetFile(path).metadata
            types = {"BOOLEAN": 0, "INT32": 1, "INT64": 2, "INT96": 3, "FLOAT": 4, "DOUBLE": 5,
                     "BYTE_ARRAY": 6, "FIXED_LEN_BYTE_ARRAY": 7}
            codecs = {"UNCOMPRESSED": 0, "SNAPPY": 1, "GZIP": 2, "LZ4": 5, "ZSTD": 6, "LZ4_RAW": 7}
            for c in range(md.num_columns):
                cc = md.row_group(0).column(c)
                start = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
                col = md.schema.column(c)
                head = bytes([types[col.physical_type], col.max_definition_level,
                              col.max_repetition_level, codecs[cc.compression], (col.length or 1) - 1])
                open(f"{d}/c_{n}_{c}", "wb").write(head + data[start:start + cc.total_compressed_size])
            n += 1
PY
# inputs that once broke the reader (named after what broke) stay in the corpus
cp "$SRC"/tests/fuzz/parquet_reader_seeds/* "$OUT/corpus/"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./parquet_reader_fuzz -max_total_time=30 -error_exitcode=1 -max_len=16384 -rss_limit_mb=2048 \
  -timeout=10 -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak, timeout or abort; pipefail carries it
