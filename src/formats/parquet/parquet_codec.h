/* parquet_codec.h — Parquet's page compression codecs over Debian's libraries: SNAPPY
 * (libsnappy's C API), GZIP (zlib, gzip framing), ZSTD (libzstd), LZ4_RAW (liblz4 block format)
 * and LZ4 (Hadoop's framing of lz4 blocks, which parquet-mr wrote; a reader falls back to the
 * LZ4 frame format and to a bare block, as Arrow's does). UNCOMPRESSED copies. LZO and BROTLI
 * are refused with a message naming the codec.
 *
 * Called by parquet_pages.c (decompression of each page) and the writer (compression).
 * Ownership: the caller owns every buffer; nothing is retained between calls.
 */
#ifndef CSPARK_FORMATS_PARQUET_PARQUET_CODEC_H
#define CSPARK_FORMATS_PARQUET_PARQUET_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/strutil.h"

/* Decompresses src into exactly dst_len bytes at dst (the page header's uncompressed size): a
 * stream that is corrupt, or that decodes to another size, is CS_EPROTO saying which. */
int cs_parquet_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, cs_error *err);

/* Appends the compressed form of src to out. */
int cs_parquet_compress(int codec, const uint8_t *src, size_t src_len, cs_sbuf *out, cs_error *err);

#endif /* CSPARK_FORMATS_PARQUET_PARQUET_CODEC_H */
