/* parquet_codec.c — page codecs (see parquet_codec.h). Each decompressor is told the exact
 * output size and checks it: a page that lies about its uncompressed size is an error, never a
 * write past the buffer.
 */
#include "formats/parquet/parquet_codec.h"

#include <lz4.h>
#include <lz4frame.h>
#include <snappy-c.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "formats/parquet/parquet_meta.h"

static int size_lie(cs_error *err, const char *codec, size_t got, size_t want)
{
    return cs_error_set(err, CS_EPROTO, "%s page decompresses to %zu bytes, its header says %zu",
                        codec, got, want);
}

static int gunzip(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len, cs_error *err)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK)
        return cs_error_set(err, CS_ENOMEM, "GZIP: inflateInit failed");
    z.next_in = (Bytef *)src;
    z.avail_in = (uInt)src_len;
    z.next_out = dst;
    z.avail_out = (uInt)dst_len;
    int rc;
    /* concatenated gzip members are one stream, as gzip(1) reads them */
    while ((rc = inflate(&z, Z_FINISH)) == Z_STREAM_END && z.avail_in > 0 && z.avail_out > 0)
        inflateReset(&z);
    size_t produced = dst_len - z.avail_out;
    bool ended = rc == Z_STREAM_END && z.avail_in == 0;
    bool too_big = (rc == Z_STREAM_END || rc == Z_BUF_ERROR) && z.avail_out == 0 && z.avail_in > 0;
    const char *msg = z.msg ? z.msg : "truncated";
    inflateEnd(&z);
    if (too_big)
        return cs_error_set(err, CS_EPROTO,
                            "GZIP page decompresses to more than the %zu bytes its header says",
                            dst_len);
    if (!ended) return cs_error_set(err, CS_EPROTO, "GZIP page is corrupt or truncated (%s)", msg);
    if (produced != dst_len) return size_lie(err, "GZIP", produced, dst_len);
    return CS_OK;
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Hadoop's Lz4Codec: [u32 BE uncompressed][u32 BE compressed][block]... per frame. */
static int hadoop_lz4(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len)
{
    size_t in = 0, out = 0;
    while (in < src_len) {
        if (src_len - in < 8) return -1;
        uint32_t raw = be32(src + in), comp = be32(src + in + 4);
        in += 8;
        if (comp > src_len - in || raw > dst_len - out || comp > INT32_MAX) return -1;
        int n = LZ4_decompress_safe((const char *)src + in, (char *)dst + out, (int)comp, (int)raw);
        if (n < 0 || (uint32_t)n != raw) return -1;
        in += comp;
        out += raw;
    }
    return out == dst_len ? 0 : -1;
}

static int lz4_frame(const uint8_t *src, size_t src_len, uint8_t *dst, size_t dst_len,
                     size_t *produced)
{
    LZ4F_dctx *ctx;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&ctx, LZ4F_VERSION))) return -1;
    size_t in = 0, out = 0, rc = 1;
    while (in < src_len && rc != 0) {
        size_t din = src_len - in, dout = dst_len - out;
        rc = LZ4F_decompress(ctx, dst + out, &dout, src + in, &din, NULL);
        if (LZ4F_isError(rc) || (din == 0 && dout == 0)) {
            LZ4F_freeDecompressionContext(ctx);
            return -1;
        }
        in += din;
        out += dout;
    }
    LZ4F_freeDecompressionContext(ctx);
    *produced = out;
    return rc == 0 && in == src_len ? 0 : -1;
}

int cs_parquet_decompress(int codec, const uint8_t *src, size_t src_len, uint8_t *dst,
                          size_t dst_len, cs_error *err)
{
    switch (codec) {
    case CS_PQ_CODEC_UNCOMPRESSED:
        if (src_len != dst_len) return size_lie(err, "UNCOMPRESSED", src_len, dst_len);
        if (dst_len) memcpy(dst, src, dst_len);
        return CS_OK;
    case CS_PQ_CODEC_SNAPPY: {
        size_t n;
        if (snappy_uncompressed_length((const char *)src, src_len, &n) != SNAPPY_OK)
            return cs_error_set(err, CS_EPROTO, "SNAPPY page has no valid length header");
        if (n != dst_len) return size_lie(err, "SNAPPY", n, dst_len);
        if (snappy_uncompress((const char *)src, src_len, (char *)dst, &n) != SNAPPY_OK)
            return cs_error_set(err, CS_EPROTO, "SNAPPY page is corrupt");
        return n == dst_len ? CS_OK : size_lie(err, "SNAPPY", n, dst_len);
    }
    case CS_PQ_CODEC_GZIP:
        return gunzip(src, src_len, dst, dst_len, err);
    case CS_PQ_CODEC_ZSTD: {
        size_t n = ZSTD_decompress(dst, dst_len, src, src_len);
        if (ZSTD_isError(n))
            return ZSTD_getErrorCode(n) == ZSTD_error_dstSize_tooSmall
                       ? size_lie(err, "ZSTD", dst_len + 1, dst_len)
                       : cs_error_set(err, CS_EPROTO, "ZSTD page is corrupt (%s)",
                                      ZSTD_getErrorName(n));
        return n == dst_len ? CS_OK : size_lie(err, "ZSTD", n, dst_len);
    }
    case CS_PQ_CODEC_LZ4_RAW: {
        if (src_len > INT32_MAX || dst_len > INT32_MAX)
            return cs_error_set(err, CS_EPROTO, "LZ4_RAW page larger than 2 GiB");
        int n = LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len);
        if (n < 0)
            return cs_error_set(err, CS_EPROTO,
                                "LZ4_RAW page is corrupt or larger than its header says");
        return (size_t)n == dst_len ? CS_OK : size_lie(err, "LZ4_RAW", (size_t)n, dst_len);
    }
    case CS_PQ_CODEC_LZ4: {
        size_t produced = 0;
        if (hadoop_lz4(src, src_len, dst, dst_len) == 0) return CS_OK;
        if (lz4_frame(src, src_len, dst, dst_len, &produced) == 0 && produced == dst_len)
            return CS_OK;
        if (src_len <= INT32_MAX && dst_len <= INT32_MAX &&
            LZ4_decompress_safe((const char *)src, (char *)dst, (int)src_len, (int)dst_len) ==
                (int)dst_len)
            return CS_OK;
        return cs_error_set(err, CS_EPROTO,
                            "LZ4 page is corrupt, or not %zu bytes once decompressed (as Hadoop "
                            "frames, an LZ4 frame or a raw block)",
                            dst_len);
    }
    default:
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "compression codec %s (%d) is not supported "
                            "(UNCOMPRESSED, SNAPPY, GZIP, ZSTD, LZ4 and LZ4_RAW are)",
                            cs_parquet_codec_name(codec), codec);
    }
}

static uint8_t *room(cs_sbuf *out, size_t n)
{
    size_t old = out->len;
    if (out->cap < old + n + 1) {
        size_t cap = out->cap ? out->cap : 256;
        while (cap < old + n + 1)
            cap *= 2;
        out->data = cs_xrealloc(out->data, cap);
        out->cap = cap;
    }
    return (uint8_t *)out->data + old;
}

static void grew(cs_sbuf *out, size_t n)
{
    out->len += n;
    out->data[out->len] = 0;
}

int cs_parquet_compress(int codec, const uint8_t *src, size_t src_len, cs_sbuf *out, cs_error *err)
{
    switch (codec) {
    case CS_PQ_CODEC_UNCOMPRESSED:
        cs_sbuf_append(out, src, src_len);
        return CS_OK;
    case CS_PQ_CODEC_SNAPPY: {
        size_t n = snappy_max_compressed_length(src_len);
        uint8_t *dst = room(out, n);
        if (snappy_compress((const char *)src, src_len, (char *)dst, &n) != SNAPPY_OK)
            return cs_error_set(err, CS_EIO, "SNAPPY compression failed");
        grew(out, n);
        return CS_OK;
    }
    case CS_PQ_CODEC_GZIP: {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
            Z_OK)
            return cs_error_set(err, CS_ENOMEM, "GZIP: deflateInit failed");
        size_t n = deflateBound(&z, (uLong)src_len) + 32;
        uint8_t *dst = room(out, n);
        z.next_in = (Bytef *)src;
        z.avail_in = (uInt)src_len;
        z.next_out = dst;
        z.avail_out = (uInt)n;
        int rc = deflate(&z, Z_FINISH);
        size_t produced = n - z.avail_out;
        deflateEnd(&z);
        if (rc != Z_STREAM_END) return cs_error_set(err, CS_EIO, "GZIP compression failed");
        grew(out, produced);
        return CS_OK;
    }
    case CS_PQ_CODEC_ZSTD: {
        size_t n = ZSTD_compressBound(src_len);
        size_t got = ZSTD_compress(room(out, n), n, src, src_len, 1);
        if (ZSTD_isError(got))
            return cs_error_set(err, CS_EIO, "ZSTD compression failed: %s", ZSTD_getErrorName(got));
        grew(out, got);
        return CS_OK;
    }
    case CS_PQ_CODEC_LZ4_RAW:
    case CS_PQ_CODEC_LZ4: {
        if (src_len > (size_t)LZ4_MAX_INPUT_SIZE)
            return cs_error_set(err, CS_EINVAL, "LZ4 page of %zu bytes is too large", src_len);
        int bound = LZ4_compressBound((int)src_len);
        size_t hdr = codec == CS_PQ_CODEC_LZ4 ? 8 : 0;
        uint8_t *dst = room(out, (size_t)bound + hdr);
        int n = LZ4_compress_default((const char *)src, (char *)dst + hdr, (int)src_len, bound);
        if (n <= 0) return cs_error_set(err, CS_EIO, "LZ4 compression failed");
        if (hdr) { /* one Hadoop frame */
            uint32_t v[2] = {(uint32_t)src_len, (uint32_t)n};
            for (int k = 0; k < 2; k++)
                for (int i = 0; i < 4; i++)
                    dst[k * 4 + i] = (uint8_t)(v[k] >> (24 - 8 * i));
        }
        grew(out, (size_t)n + hdr);
        return CS_OK;
    }
    default:
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "compression codec %s (%d) is not supported for writing",
                            cs_parquet_codec_name(codec), codec);
    }
}
