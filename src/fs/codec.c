/*
 * codec.c — the codec table and the decompressing reader / compressing writer layers (see
 * codec.h). Each layer keeps one 256 KiB buffer of compressed bytes; a reader decodes straight
 * into its caller's buffer. The four libraries' streaming APIs are driven the same way: feed
 * input, collect output, and at the end of a member (gzip), stream (bzip2) or frame (zstd, lz4)
 * start the next one if more input follows.
 */
#include "fs/codec.h"

#include <bzlib.h>
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include "fs/fs_internal.h"

enum { K_GZIP, K_DEFLATE, K_BZIP2, K_ZSTD, K_LZ4 };

static const cs_codec codecs[] = {
    {"gzip", ".gz", "org.apache.hadoop.io.compress.GzipCodec", K_GZIP},
    {"deflate", ".deflate", "org.apache.hadoop.io.compress.DefaultCodec", K_DEFLATE},
    {"bzip2", ".bz2", "org.apache.hadoop.io.compress.BZip2Codec", K_BZIP2},
    {"zstd", ".zst", "org.apache.hadoop.io.compress.ZStandardCodec", K_ZSTD},
    {"lz4", ".lz4", "org.apache.hadoop.io.compress.Lz4Codec", K_LZ4},
};
#define NCODECS (sizeof codecs / sizeof codecs[0])
#define CODEC_BUF (256u * 1024)

const cs_codec *cs_codec_for_path(const char *path)
{
    size_t n = strlen(path);
    for (size_t i = 0; i < NCODECS; i++) {
        size_t e = strlen(codecs[i].extension);
        if (n > e && strcmp(path + n - e, codecs[i].extension) == 0) return &codecs[i];
    }
    return NULL;
}

const cs_codec *cs_codec_for_name(const char *name)
{
    if (!name) return NULL;
    static const struct {
        const char *alias;
        int index;
    } aliases[] = {{"gz", 0},  {"zlib", 1}, {"default", 1},
                   {"bz2", 2}, {"zst", 3},  {"zstandard", 3}};
    for (size_t i = 0; i < NCODECS; i++) {
        const char *simple = strrchr(codecs[i].hadoop_class, '.') + 1;
        if (strcasecmp(name, codecs[i].name) == 0 || strcmp(name, codecs[i].hadoop_class) == 0 ||
            strcmp(name, simple) == 0)
            return &codecs[i];
    }
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (strcasecmp(name, aliases[i].alias) == 0) return &codecs[aliases[i].index];
    return NULL;
}

const char *cs_codec_names(void)
{
    return "gzip, deflate, bzip2, zstd or lz4 (or a Hadoop codec class such as "
           "org.apache.hadoop.io.compress.GzipCodec)";
}

/* ---- decompression ------------------------------------------------------------------------ */

typedef struct codec_reader {
    cs_fs_reader base;
    const cs_codec *codec;
    cs_fs_reader *raw;
    char *uri;
    uint8_t *in;
    size_t in_pos, in_len;
    bool raw_eof;
    bool in_member; /* a member/stream/frame has started and not ended */
    bool failed;
    uint64_t consumed; /* compressed bytes decoded (for messages) */
    union {
        z_stream z;
        bz_stream bz;
        ZSTD_DCtx *zstd;
        LZ4F_dctx *lz4;
    } s;
    bool s_init;
} codec_reader;

static int dec_fail(codec_reader *r, cs_error *err, const char *what)
{
    r->failed = true;
    return cs_error_set(err, CS_EIO, "cannot decompress %s (%s): %s at compressed byte %llu",
                        r->uri, r->codec->name, what, (unsigned long long)r->consumed);
}

static void dec_end(codec_reader *r)
{
    if (!r->s_init) return;
    switch (r->codec->kind) {
    case K_GZIP:
    case K_DEFLATE:
        inflateEnd(&r->s.z);
        break;
    case K_BZIP2:
        BZ2_bzDecompressEnd(&r->s.bz);
        break;
    case K_ZSTD:
        ZSTD_freeDCtx(r->s.zstd);
        break;
    case K_LZ4:
        LZ4F_freeDecompressionContext(r->s.lz4);
        break;
    }
    r->s_init = false;
}

static int dec_start(codec_reader *r, cs_error *err)
{
    int ok = 1;
    switch (r->codec->kind) {
    case K_GZIP:
    case K_DEFLATE:
        memset(&r->s.z, 0, sizeof r->s.z);
        ok = inflateInit2(&r->s.z, r->codec->kind == K_GZIP ? 15 + 16 : 15) == Z_OK;
        break;
    case K_BZIP2:
        memset(&r->s.bz, 0, sizeof r->s.bz);
        ok = BZ2_bzDecompressInit(&r->s.bz, 0, 0) == BZ_OK;
        break;
    case K_ZSTD:
        ok = (r->s.zstd = ZSTD_createDCtx()) != NULL;
        break;
    case K_LZ4:
        ok = !LZ4F_isError(LZ4F_createDecompressionContext(&r->s.lz4, LZ4F_VERSION));
        break;
    }
    if (!ok) return cs_error_set(err, CS_ENOMEM, "cannot start the %s decoder", r->codec->name);
    r->s_init = true;
    return 0;
}

/* One decoding step over r->in[in_pos, in_len) into out[0, cap): sets *produced and whether a
 * member ended. Returns <0 on corrupt data. */
static int dec_step(codec_reader *r, uint8_t *out, size_t cap, size_t *produced, bool *ended,
                    cs_error *err)
{
    const uint8_t *src = r->in + r->in_pos;
    size_t avail = r->in_len - r->in_pos, used = 0;
    *produced = 0;
    *ended = false;
    switch (r->codec->kind) {
    case K_GZIP:
    case K_DEFLATE: {
        z_stream *z = &r->s.z;
        z->next_in = (Bytef *)src;
        z->avail_in = (uInt)(avail > UINT32_MAX ? UINT32_MAX : avail);
        z->next_out = out;
        z->avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
        int rc = inflate(z, Z_NO_FLUSH);
        used = (size_t)(z->next_in - src);
        *produced = (size_t)(z->next_out - out);
        if (rc == Z_STREAM_END) {
            *ended = true;
            inflateReset(z);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            r->consumed += used;
            return dec_fail(r, err, z->msg ? z->msg : "corrupt data");
        }
        break;
    }
    case K_BZIP2: {
        bz_stream *b = &r->s.bz;
        b->next_in = (char *)src;
        b->avail_in = (unsigned)(avail > UINT32_MAX ? UINT32_MAX : avail);
        b->next_out = (char *)out;
        b->avail_out = (unsigned)(cap > UINT32_MAX ? UINT32_MAX : cap);
        int rc = BZ2_bzDecompress(b);
        used = (size_t)((const uint8_t *)b->next_in - src);
        *produced = (size_t)((uint8_t *)b->next_out - out);
        if (rc == BZ_STREAM_END) {
            *ended = true;
            BZ2_bzDecompressEnd(b);
            memset(b, 0, sizeof *b);
            if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK) {
                r->s_init = false;
                return cs_error_set(err, CS_ENOMEM, "cannot restart the bzip2 decoder");
            }
        } else if (rc != BZ_OK) {
            r->consumed += used;
            return dec_fail(r, err, rc == BZ_DATA_ERROR_MAGIC ? "not bzip2 data" : "corrupt data");
        }
        break;
    }
    case K_ZSTD: {
        ZSTD_inBuffer in = {src, avail, 0};
        ZSTD_outBuffer o = {out, cap, 0};
        size_t rc = ZSTD_decompressStream(r->s.zstd, &o, &in);
        used = in.pos;
        *produced = o.pos;
        if (ZSTD_isError(rc)) {
            r->consumed += used;
            return dec_fail(r, err, ZSTD_getErrorName(rc));
        }
        *ended = rc == 0;
        break;
    }
    case K_LZ4: {
        size_t dst = cap, srcn = avail;
        size_t rc = LZ4F_decompress(r->s.lz4, out, &dst, src, &srcn, NULL);
        used = srcn;
        *produced = dst;
        if (LZ4F_isError(rc)) {
            r->consumed += used;
            return dec_fail(r, err, LZ4F_getErrorName(rc));
        }
        *ended = rc == 0;
        break;
    }
    }
    r->in_pos += used;
    r->consumed += used;
    if (used) r->in_member = true;
    if (*ended) r->in_member = false;
    return 0;
}

static ssize_t codec_read(cs_fs_reader *base, void *buf, size_t n, cs_error *err)
{
    codec_reader *r = (codec_reader *)base;
    if (r->failed) return cs_error_set(err, CS_EIO, "%s: read after a decompression error", r->uri);
    if (n == 0) return 0;
    for (;;) {
        if (r->in_pos == r->in_len && !r->raw_eof) {
            ssize_t k = cs_fs_read(r->raw, r->in, CODEC_BUF, err);
            if (k < 0) return k;
            r->in_pos = 0;
            r->in_len = (size_t)k;
            if (k == 0) r->raw_eof = true;
        }
        size_t produced = 0;
        bool ended = false;
        if (r->in_pos < r->in_len || r->in_member) {
            size_t before = r->in_pos;
            if (dec_step(r, buf, n, &produced, &ended, err) < 0) return -1;
            if (produced) return (ssize_t)produced;
            if (ended) continue; /* an empty member: the next one may follow */
            if (r->in_pos != before) continue;
            /* no progress: the decoder needs more input */
            if (r->in_pos < r->in_len) continue;
        }
        if (r->raw_eof) {
            if (r->in_member) return dec_fail(r, err, "unexpected end of file (truncated)");
            return 0; /* every member ended (an empty file has none) */
        }
    }
}

static uint64_t codec_bytes(const cs_fs_reader *base)
{
    const codec_reader *r = (const codec_reader *)base;
    return cs_fs_reader_bytes(r->raw);
}

static void codec_close(cs_fs_reader *base)
{
    codec_reader *r = (codec_reader *)base;
    dec_end(r);
    cs_fs_reader_close(r->raw);
    free(r->in);
    free(r->uri);
    free(r);
}

cs_fs_reader *cs_codec_reader_new(const cs_codec *codec, cs_fs_reader *raw, const char *uri,
                                  cs_error *err)
{
    codec_reader *r = cs_xcalloc(1, sizeof *r);
    r->base.read = codec_read;
    r->base.bytes = codec_bytes;
    r->base.close = codec_close;
    r->codec = codec;
    r->raw = raw;
    r->uri = cs_xstrdup(uri);
    r->in = cs_xmalloc(CODEC_BUF);
    if (dec_start(r, err) < 0) {
        codec_close(&r->base);
        return NULL;
    }
    return &r->base;
}

/* ---- compression -------------------------------------------------------------------------- */

typedef struct codec_writer {
    cs_fs_writer base;
    const cs_codec *codec;
    cs_fs_writer *inner;
    char *uri;
    uint8_t *out;
    size_t out_len, out_cap;
    union {
        z_stream z;
        bz_stream bz;
        ZSTD_CCtx *zstd;
        LZ4F_cctx *lz4;
    } s;
    bool s_init;
    bool header_done; /* lz4: frame header written */
} codec_writer;

static int enc_flush_out(codec_writer *w, cs_error *err)
{
    if (!w->out_len) return 0;
    int rc = cs_fs_write(w->inner, w->out, w->out_len, err);
    w->out_len = 0;
    return rc;
}

static int enc_fail(codec_writer *w, cs_error *err, const char *what)
{
    return cs_error_set(err, CS_EIO, "cannot compress %s (%s): %s", w->uri, w->codec->name, what);
}

/* Compresses src (finishing the stream when `end`). */
static int enc_run(codec_writer *w, const uint8_t *src, size_t n, bool end, cs_error *err)
{
    switch (w->codec->kind) {
    case K_GZIP:
    case K_DEFLATE: {
        z_stream *z = &w->s.z;
        z->next_in = (Bytef *)src;
        z->avail_in = (uInt)n;
        for (;;) {
            if (w->out_len == w->out_cap && enc_flush_out(w, err) < 0) return -1;
            z->next_out = w->out + w->out_len;
            z->avail_out = (uInt)(w->out_cap - w->out_len);
            int rc = deflate(z, end ? Z_FINISH : Z_NO_FLUSH);
            w->out_len = w->out_cap - z->avail_out;
            if (rc == Z_STREAM_END) return 0;
            if (rc != Z_OK && rc != Z_BUF_ERROR) return enc_fail(w, err, "deflate failed");
            if (!end && z->avail_in == 0 && z->avail_out != 0) return 0;
        }
    }
    case K_BZIP2: {
        bz_stream *b = &w->s.bz;
        b->next_in = (char *)src;
        b->avail_in = (unsigned)n;
        for (;;) {
            if (w->out_len == w->out_cap && enc_flush_out(w, err) < 0) return -1;
            b->next_out = (char *)w->out + w->out_len;
            b->avail_out = (unsigned)(w->out_cap - w->out_len);
            int rc = BZ2_bzCompress(b, end ? BZ_FINISH : BZ_RUN);
            w->out_len = w->out_cap - b->avail_out;
            if (rc == BZ_STREAM_END) return 0;
            if (rc != BZ_RUN_OK && rc != BZ_FINISH_OK) return enc_fail(w, err, "bzip2 failed");
            if (!end && b->avail_in == 0) return 0;
        }
    }
    case K_ZSTD: {
        ZSTD_inBuffer in = {src, n, 0};
        for (;;) {
            if (w->out_len == w->out_cap && enc_flush_out(w, err) < 0) return -1;
            ZSTD_outBuffer o = {w->out, w->out_cap, w->out_len};
            size_t rc =
                ZSTD_compressStream2(w->s.zstd, &o, &in, end ? ZSTD_e_end : ZSTD_e_continue);
            w->out_len = o.pos;
            if (ZSTD_isError(rc)) return enc_fail(w, err, ZSTD_getErrorName(rc));
            if (end ? rc == 0 : in.pos == in.size) return 0;
        }
    }
    case K_LZ4: {
        size_t bound = LZ4F_compressBound(64 * 1024, NULL);
        if (!w->header_done) {
            if (w->out_cap - w->out_len < LZ4F_HEADER_SIZE_MAX && enc_flush_out(w, err) < 0)
                return -1;
            LZ4F_preferences_t prefs;
            memset(&prefs, 0, sizeof prefs);
            prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled; /* as lz4(1) */
            size_t h =
                LZ4F_compressBegin(w->s.lz4, w->out + w->out_len, w->out_cap - w->out_len, &prefs);
            if (LZ4F_isError(h)) return enc_fail(w, err, LZ4F_getErrorName(h));
            w->out_len += h;
            w->header_done = true;
        }
        size_t off = 0;
        while (off < n) {
            size_t chunk = n - off < 64 * 1024 ? n - off : 64 * 1024;
            if (w->out_cap - w->out_len < bound && enc_flush_out(w, err) < 0) return -1;
            size_t k = LZ4F_compressUpdate(w->s.lz4, w->out + w->out_len, w->out_cap - w->out_len,
                                           src + off, chunk, NULL);
            if (LZ4F_isError(k)) return enc_fail(w, err, LZ4F_getErrorName(k));
            w->out_len += k;
            off += chunk;
        }
        if (end) {
            if (w->out_cap - w->out_len < bound && enc_flush_out(w, err) < 0) return -1;
            size_t k =
                LZ4F_compressEnd(w->s.lz4, w->out + w->out_len, w->out_cap - w->out_len, NULL);
            if (LZ4F_isError(k)) return enc_fail(w, err, LZ4F_getErrorName(k));
            w->out_len += k;
        }
        return 0;
    }
    }
    return 0;
}

static void enc_end(codec_writer *w)
{
    if (!w->s_init) return;
    switch (w->codec->kind) {
    case K_GZIP:
    case K_DEFLATE:
        deflateEnd(&w->s.z);
        break;
    case K_BZIP2:
        BZ2_bzCompressEnd(&w->s.bz);
        break;
    case K_ZSTD:
        ZSTD_freeCCtx(w->s.zstd);
        break;
    case K_LZ4:
        LZ4F_freeCompressionContext(w->s.lz4);
        break;
    }
    w->s_init = false;
}

static int codec_write(cs_fs_writer *base, const void *buf, size_t n, cs_error *err)
{
    codec_writer *w = (codec_writer *)base;
    return n ? enc_run(w, buf, n, false, err) : 0;
}

static void codec_writer_free(codec_writer *w)
{
    enc_end(w);
    free(w->out);
    free(w->uri);
    free(w);
}

static int codec_finish(cs_fs_writer *base, cs_fs_pending **pending, cs_error *err)
{
    codec_writer *w = (codec_writer *)base;
    if (enc_run(w, NULL, 0, true, err) < 0 || enc_flush_out(w, err) < 0) {
        cs_fs_writer_abort(w->inner);
        codec_writer_free(w);
        return err ? err->code : CS_EIO;
    }
    int rc = w->inner->finish(w->inner, pending, err);
    codec_writer_free(w);
    return rc;
}

static void codec_abort(cs_fs_writer *base)
{
    codec_writer *w = (codec_writer *)base;
    cs_fs_writer_abort(w->inner);
    codec_writer_free(w);
}

cs_fs_writer *cs_codec_writer_new(const cs_codec *codec, cs_fs_writer *inner, const char *uri,
                                  cs_error *err)
{
    codec_writer *w = cs_xcalloc(1, sizeof *w);
    w->base.write = codec_write;
    w->base.finish = codec_finish;
    w->base.abort = codec_abort;
    w->codec = codec;
    w->inner = inner;
    w->uri = cs_xstrdup(uri);
    w->out_cap = CODEC_BUF;
    w->out = cs_xmalloc(w->out_cap);
    int ok = 1;
    switch (codec->kind) {
    case K_GZIP:
    case K_DEFLATE:
        ok = deflateInit2(&w->s.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED,
                          codec->kind == K_GZIP ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
        break;
    case K_BZIP2:
        ok = BZ2_bzCompressInit(&w->s.bz, 9, 0, 0) == BZ_OK;
        break;
    case K_ZSTD:
        ok = (w->s.zstd = ZSTD_createCCtx()) != NULL &&
             !ZSTD_isError(ZSTD_CCtx_setParameter(w->s.zstd, ZSTD_c_checksumFlag, 1)); /* zstd(1) */
        break;
    case K_LZ4:
        ok = !LZ4F_isError(LZ4F_createCompressionContext(&w->s.lz4, LZ4F_VERSION));
        break;
    }
    w->s_init = ok;
    if (!ok) {
        cs_error_set(err, CS_ENOMEM, "cannot start the %s encoder for %s", codec->name, uri);
        codec_abort(&w->base);
        return NULL;
    }
    return &w->base;
}
