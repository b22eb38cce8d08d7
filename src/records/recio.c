/*
 * recio.c — record stream writer and readers (see recio.h for the format).
 *
 * The writer keeps two buffers: the raw block being filled (serialized records) and the encoded
 * output buffer; a full raw block is compressed straight into the output buffer, which is
 * written to the fd only when it cannot hold another block, so writes are large. The readers
 * validate every length before touching bytes: corrupt input yields CS_EPROTO.
 * Called by the shuffle writer/reader and the external sorter/aggregator.
 */
#include "records/recio.h"

#include <errno.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"

static inline void put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t cs_recio_block_bound(uint32_t raw_len)
{
    size_t b = (size_t)LZ4_compressBound((int)raw_len);
    if (b < raw_len) b = raw_len;
    return RECIO_HEADER_LEN + b;
}

/* The checksum of an encoded block: its header's first 9 bytes, then its payload. */
static uint32_t block_checksum(cs_checksum_algo algo, const uint8_t *h, const uint8_t *payload,
                               size_t stored)
{
    uint32_t c = cs_checksum_update(algo, cs_checksum_init(algo), h, 9);
    return cs_checksum_update(algo, c, payload, stored);
}

/* Writes the header of a block whose payload is already at out + RECIO_HEADER_LEN. */
static size_t finish_block(uint8_t *out, uint32_t raw_len, uint32_t stored, uint8_t codec,
                           cs_checksum_algo algo)
{
    put_u32le(out, raw_len);
    put_u32le(out + 4, stored);
    out[8] = (uint8_t)(codec | (unsigned)algo << 4);
    uint32_t sum = 0;
    if (algo != CS_CHECKSUM_NONE) sum = block_checksum(algo, out, out + RECIO_HEADER_LEN, stored);
    put_u32le(out + 9, sum);
    return RECIO_HEADER_LEN + (size_t)stored;
}

size_t cs_recio_encode_block(const uint8_t *raw, uint32_t raw_len, bool compress,
                             cs_checksum_algo algo, uint8_t *out)
{
    int stored = 0;
    uint8_t codec = RECIO_CODEC_NONE;
    if (compress && raw_len > 0) {
        stored = LZ4_compress_default((const char *)raw, (char *)out + RECIO_HEADER_LEN,
                                      (int)raw_len, LZ4_compressBound((int)raw_len));
        if (stored > 0 && (uint32_t)stored < raw_len) codec = RECIO_CODEC_LZ4;
    }
    if (codec == RECIO_CODEC_NONE) {
        stored = (int)raw_len;
        if (raw_len) memcpy(out + RECIO_HEADER_LEN, raw, raw_len);
    }
    return finish_block(out, raw_len, (uint32_t)stored, codec, algo);
}

size_t cs_recio_seal_stored_block(uint8_t *block, uint32_t raw_len, cs_checksum_algo algo)
{
    return finish_block(block, raw_len, raw_len, RECIO_CODEC_NONE, algo);
}

size_t cs_recio_encode_batch(const cs_batch *b, cs_checksum_algo algo, uint8_t *out)
{
    size_t total = 0, i = 0;
    while (i < b->n) {
        size_t raw = 0, j = i;
        while (j < b->n) { /* records for one block, cut where the writer cuts */
            size_t rs = recio_record_size(b->recs[j].klen, b->recs[j].vlen);
            if (raw > 0 && raw + rs > RECIO_BLOCK_TARGET) break;
            raw += rs;
            j++;
        }
        if (out) {
            uint8_t *p = out + total + RECIO_HEADER_LEN;
            for (size_t k = i; k < j; k++) {
                const cs_rec *r = &b->recs[k];
                p += recio_put_header(p, r->klen, r->vlen);
                memcpy(p, b->data + r->off, (size_t)r->klen + r->vlen);
                p += (size_t)r->klen + r->vlen;
            }
            cs_recio_seal_stored_block(out + total, (uint32_t)raw, algo);
        }
        total += RECIO_HEADER_LEN + raw;
        i = j;
    }
    return total;
}

int cs_recio_check_record(size_t klen, size_t vlen, const char *what, cs_error *err)
{
    if (klen <= CSPARK_MAX_RECORD_BYTES && vlen <= CSPARK_MAX_RECORD_BYTES - klen) return 0;
    return cs_error_set(err, CS_EINVAL,
                        "%s: a record of %zu key + %zu value bytes is over the record limit of "
                        "%zu bytes (CSPARK_MAX_RECORD_BYTES, 256 MiB)",
                        what, klen, vlen, CSPARK_MAX_RECORD_BYTES);
}

/* ---- writer ------------------------------------------------------------------------------- */

struct recio_writer {
    int fd;
    bool compress;
    cs_checksum_algo checksum;
    size_t block_target;
    uint8_t *raw;
    size_t raw_len, raw_cap;
    uint8_t *out;
    size_t out_len, out_cap, out_min_cap;
    uint64_t flushed; /* bytes already written to fd (or taken) */
    uint64_t records;
    uint64_t raw_bytes; /* the raw lengths of the blocks produced or copied */
};

recio_writer *cs_recio_writer_new(int fd, bool compress, size_t buf_size)
{
    recio_writer *w = cs_xcalloc(1, sizeof *w);
    w->fd = fd;
    w->compress = compress;
    w->checksum = CS_CHECKSUM_DEFAULT;
    w->block_target = RECIO_BLOCK_TARGET;
    w->out_min_cap = buf_size ? buf_size : RECIO_WRITE_BUF;
    return w;
}

void cs_recio_writer_set_checksum(recio_writer *w, cs_checksum_algo algo)
{
    w->checksum = algo;
}

void cs_recio_writer_set_block_target(recio_writer *w, size_t bytes)
{
    if (bytes < 1024) bytes = 1024;
    if (bytes > (1u << 20)) bytes = 1u << 20;
    w->block_target = bytes;
}

static int write_all(int fd, const uint8_t *p, size_t n, cs_error *err)
{
    while (n > 0) {
        ssize_t k = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return cs_error_set(err, CS_EIO, "write failed: %s", strerror(errno));
        }
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static int out_drain(recio_writer *w, cs_error *err)
{
    if (w->fd < 0 || w->out_len == 0) return 0;
    int rc = write_all(w->fd, w->out, w->out_len, err);
    if (rc < 0) return rc;
    w->flushed += w->out_len;
    w->out_len = 0;
    return 0;
}

/* Makes room for n more bytes in the output buffer. */
static int out_reserve(recio_writer *w, size_t n, cs_error *err)
{
    if (w->out_len + n <= w->out_cap) return 0;
    if (w->fd >= 0) {
        int rc = out_drain(w, err);
        if (rc < 0) return rc;
        if (n <= w->out_cap) return 0;
    }
    size_t c = w->out_cap ? w->out_cap : w->out_min_cap;
    while (c < w->out_len + n)
        c *= 2;
    w->out = cs_xrealloc(w->out, c);
    w->out_cap = c;
    return 0;
}

int cs_recio_writer_end_block(recio_writer *w, cs_error *err)
{
    if (w->raw_len == 0) return 0;
    size_t bound = cs_recio_block_bound((uint32_t)w->raw_len);
    int rc = out_reserve(w, bound, err);
    if (rc < 0) return rc;
    w->out_len += cs_recio_encode_block(w->raw, (uint32_t)w->raw_len, w->compress, w->checksum,
                                        w->out + w->out_len);
    w->raw_bytes += w->raw_len;
    w->raw_len = 0;
    return 0;
}

int cs_recio_writer_add(recio_writer *w, const void *key, uint32_t klen, const void *val,
                        uint32_t vlen, cs_error *err)
{
    size_t rs = recio_record_size(klen, vlen);
    if (rs > RECIO_MAX_BLOCK)
        return cs_error_set(err, CS_EINVAL, "record of %zu bytes exceeds the %u byte limit", rs,
                            RECIO_MAX_BLOCK);
    if (w->raw_len > 0 && w->raw_len + rs > w->block_target) {
        int rc = cs_recio_writer_end_block(w, err);
        if (rc < 0) return rc;
    }
    if (w->raw_len + rs > w->raw_cap) {
        size_t c = w->raw_cap ? w->raw_cap : 4096;
        while (c < w->raw_len + rs)
            c *= 2;
        w->raw = cs_xrealloc(w->raw, c);
        w->raw_cap = c;
    }
    uint8_t *p = w->raw + w->raw_len;
    p += recio_put_header(p, klen, vlen);
    if (klen) memcpy(p, key, klen);
    if (vlen) memcpy(p + klen, val, vlen);
    w->raw_len += rs;
    w->records++;
    return 0;
}

int cs_recio_writer_add_batch(recio_writer *w, const cs_batch *b, cs_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        const cs_rec *r = &b->recs[i];
        const uint8_t *k = b->data + r->off;
        int rc = cs_recio_writer_add(w, k, r->klen, k + r->klen, r->vlen, err);
        if (rc < 0) return rc;
    }
    return 0;
}

/* Adds the raw lengths of whole encoded blocks to w's count, from their headers (a header cut
 * short ends the walk). */
static void count_raw(recio_writer *w, const uint8_t *blocks, size_t len)
{
    for (size_t at = 0; at + RECIO_HEADER_LEN <= len;) {
        w->raw_bytes += get_u32le(blocks + at);
        at += RECIO_HEADER_LEN + (size_t)get_u32le(blocks + at + 4);
    }
}

#define WRITEV_MAX 512 /* iovecs per writev (Linux takes 1024) */

/* Writes every byte of iov[0..n) to fd (writev, WRITEV_MAX at a time, partial writes resumed);
 * iov is modified. */
static int writev_all(int fd, struct iovec *iov, int n, cs_error *err)
{
    while (n > 0) {
        ssize_t k = writev(fd, iov, n > WRITEV_MAX ? WRITEV_MAX : n);
        if (k < 0) {
            if (errno == EINTR) continue;
            return cs_error_set(err, CS_EIO, "write failed: %s", strerror(errno));
        }
        while (n > 0 && (size_t)k >= iov->iov_len) {
            k -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + k;
            iov->iov_len -= (size_t)k;
        }
    }
    return 0;
}

int cs_recio_writer_add_raw_iov(recio_writer *w, struct iovec *iov, int n, cs_error *err)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (w->fd < 0 || total < RECIO_BLOCK_TARGET) { /* small: through the write buffer */
        for (int i = 0; i < n; i++) {
            int rc = cs_recio_writer_add_raw(w, iov[i].iov_base, iov[i].iov_len, err);
            if (rc < 0) return rc;
        }
        return 0;
    }
    int rc = cs_recio_writer_end_block(w, err);
    if (rc == 0) rc = out_drain(w, err);
    if (rc < 0) return rc;
    for (int i = 0; i < n; i++)
        count_raw(w, iov[i].iov_base, iov[i].iov_len);
    rc = writev_all(w->fd, iov, n, err);
    if (rc < 0) return rc;
    w->flushed += total;
    return 0;
}

int cs_recio_writer_add_raw(recio_writer *w, const uint8_t *blocks, size_t len, cs_error *err)
{
    int rc = cs_recio_writer_end_block(w, err);
    if (rc < 0 || len == 0) return rc;
    count_raw(w, blocks, len);
    if (w->fd >= 0 && len >= w->out_min_cap) {
        /* large: write through */
        rc = out_drain(w, err);
        if (rc < 0) return rc;
        rc = write_all(w->fd, blocks, len, err);
        if (rc < 0) return rc;
        w->flushed += len;
        return 0;
    }
    rc = out_reserve(w, len, err);
    if (rc < 0) return rc;
    memcpy(w->out + w->out_len, blocks, len);
    w->out_len += len;
    return 0;
}

int cs_recio_writer_flush(recio_writer *w, cs_error *err)
{
    int rc = cs_recio_writer_end_block(w, err);
    if (rc < 0) return rc;
    return out_drain(w, err);
}

uint64_t cs_recio_writer_offset(const recio_writer *w)
{
    return w->flushed + w->out_len;
}

uint64_t cs_recio_writer_raw_bytes(const recio_writer *w)
{
    return w->raw_bytes;
}

uint64_t cs_recio_writer_records(const recio_writer *w)
{
    return w->records;
}

size_t cs_recio_writer_memory(const recio_writer *w)
{
    return w->raw_cap + w->out_cap + sizeof *w;
}

uint8_t *cs_recio_writer_take(recio_writer *w, size_t *len, cs_error *err)
{
    *len = 0;
    if (cs_recio_writer_end_block(w, err) < 0) return NULL;
    uint8_t *p = w->out;
    *len = w->out_len;
    w->flushed += w->out_len;
    w->out = NULL;
    w->out_len = w->out_cap = 0;
    if (!p) p = cs_xrealloc(NULL, 1);
    return p;
}

void cs_recio_writer_free(recio_writer *w)
{
    if (!w) return;
    free(w->raw);
    free(w->out);
    free(w);
}

/* ---- reader ------------------------------------------------------------------------------- */

struct recio_reader {
    /* memory source */
    const uint8_t *mem;
    size_t mem_len, mem_pos;
    /* pull source: mem/mem_len/mem_pos are the current part; buf assembles what straddles */
    recio_pull_fn pull;
    void *pull_arg;
    int pull_end;
    /* fd source */
    int fd;
    uint64_t foff, fend;
    uint8_t *buf;
    size_t buf_cap, buf_pos, buf_len;
    /* current decoded block */
    const uint8_t *blk;
    size_t blk_len, blk_pos;
    uint8_t *dec;
    size_t dec_cap;
    uint64_t pos; /* stream offset of the next block */
    int failed;   /* sticky error code */
};

recio_reader *cs_recio_reader_mem(const uint8_t *data, size_t len)
{
    recio_reader *r = cs_xcalloc(1, sizeof *r);
    r->fd = -1;
    r->mem = data;
    r->mem_len = data ? len : 0;
    return r;
}

recio_reader *cs_recio_reader_fd(int fd, uint64_t off, uint64_t len, size_t buf_size)
{
    recio_reader *r = cs_xcalloc(1, sizeof *r);
    r->fd = fd;
    r->foff = off;
    r->fend = off + len;
    r->buf_cap = buf_size ? buf_size : RECIO_WRITE_BUF;
    if (r->buf_cap < 4096) r->buf_cap = 4096;
    return r;
}

recio_reader *cs_recio_reader_pull(recio_pull_fn pull, void *arg)
{
    recio_reader *r = cs_xcalloc(1, sizeof *r);
    r->fd = -1;
    r->pull = pull;
    r->pull_arg = arg;
    return r;
}

size_t cs_recio_reader_memory(const recio_reader *r)
{
    return r->buf_cap * (r->buf != NULL) + r->dec_cap + sizeof *r;
}

uint64_t cs_recio_reader_offset(const recio_reader *r)
{
    return r->pos;
}

void cs_recio_reader_free(recio_reader *r)
{
    if (!r) return;
    free(r->buf);
    free(r->dec);
    free(r);
}

/* fd mode: makes at least n bytes available at buf + buf_pos. Returns 1 when available, 0 when
 * the range ends first (with *avail the bytes that are there), <0 on read error. */
static int fd_fill(recio_reader *r, size_t n, size_t *avail, cs_error *err)
{
    size_t have = r->buf_len - r->buf_pos;
    if (have >= n) return 1;
    if ((uint64_t)(n - have) > r->fend - r->foff) { /* the range ends first: no need to read */
        *avail = have + (size_t)(r->fend - r->foff);
        return 0;
    }
    if (!r->buf || n > r->buf_cap || r->buf_pos + n > r->buf_cap) {
        if (r->buf_pos > 0 && have) memmove(r->buf, r->buf + r->buf_pos, have);
        r->buf_len = have;
        r->buf_pos = 0;
        size_t c = r->buf_cap;
        while (c < n)
            c *= 2;
        if (!r->buf || c != r->buf_cap) {
            r->buf = cs_xrealloc(r->buf, c);
            r->buf_cap = c;
        }
    }
    while (r->buf_len - r->buf_pos < n && r->foff < r->fend) {
        size_t room = r->buf_cap - r->buf_len;
        uint64_t left = r->fend - r->foff;
        size_t want = left < room ? (size_t)left : room;
        ssize_t k = pread(r->fd, r->buf + r->buf_len, want, (off_t)r->foff);
        if (k < 0) {
            if (errno == EINTR) continue;
            return cs_error_set(err, CS_EIO, "read failed: %s", strerror(errno));
        }
        if (k == 0) /* file shorter than the range */
            return cs_error_set(err, CS_EPROTO, "unexpected end of file at offset %llu",
                                (unsigned long long)r->foff);
        r->buf_len += (size_t)k;
        r->foff += (uint64_t)k;
    }
    *avail = r->buf_len - r->buf_pos;
    return *avail >= n ? 1 : 0;
}

/* pull mode: the source's next part becomes the current one. 1 = a part, 0 = the stream ended
 * (no current part any more), <0 error. */
static int pull_part(recio_reader *r, cs_error *err)
{
    const uint8_t *part = NULL;
    size_t plen = 0;
    int rc = r->pull(r->pull_arg, &part, &plen, err);
    if (rc < 0) return rc;
    if (rc == 0) {
        r->pull_end = 1;
        part = NULL;
        plen = 0;
    }
    r->mem = part;
    r->mem_len = plen;
    r->mem_pos = 0;
    return rc;
}

/* pull mode: buf holds at least n bytes, keeping its first `keep` bytes. */
static void pull_buf_reserve(recio_reader *r, size_t n, size_t keep)
{
    if (n <= r->buf_cap) return;
    size_t c = r->buf_cap ? r->buf_cap : 4096;
    while (c < n)
        c *= 2;
    if (keep) {
        r->buf = cs_xrealloc(r->buf, c);
    } else {
        free(r->buf);
        r->buf = cs_xrealloc(NULL, c);
    }
    r->buf_cap = c;
}

/* pull mode: n contiguous bytes at *out, consumed. Inside the current part they are borrowed
 * from it (no copy); a range straddling parts is assembled in buf. 1 = taken, 0 = the stream
 * ended before (*got bytes were there), <0 error. */
static int pull_take(recio_reader *r, size_t n, const uint8_t **out, size_t *got, cs_error *err)
{
    size_t have = r->mem_len - r->mem_pos;
    *got = 0;
    if (have >= n) {
        *out = r->mem + r->mem_pos;
        r->mem_pos += n;
        return 1;
    }
    pull_buf_reserve(r, n, 0);
    size_t len = 0;
    for (;;) {
        if (have) memcpy(r->buf + len, r->mem + r->mem_pos, have);
        len += have;
        r->mem_pos += have;
        if (len == n) break;
        if (r->pull_end) {
            *got = len;
            return 0;
        }
        int rc = pull_part(r, err);
        if (rc < 0) return rc;
        have = n - len < r->mem_len ? n - len : r->mem_len;
    }
    *out = r->buf;
    return 1;
}

/* pull mode: the next whole block's header and payload at *h (borrowed from the current part,
 * or assembled in buf, which grows with the bytes that arrive, not with what a header claims).
 * 1, 0 = clean end, <0 error. */
static int pull_block(recio_reader *r, const uint8_t **h, size_t *total, cs_error *err)
{
    const uint8_t *p;
    size_t got;
    /* skip empty parts without copying */
    while (r->mem_pos == r->mem_len && !r->pull_end) {
        int rc = pull_part(r, err);
        if (rc < 0) return rc;
    }
    if (r->mem_pos == r->mem_len) return 0;
    int rc = pull_take(r, RECIO_HEADER_LEN, &p, &got, err);
    if (rc < 0) return rc;
    if (rc == 0) return cs_error_set(err, CS_EPROTO, "truncated block header");
    uint8_t hdr[RECIO_HEADER_LEN];
    memcpy(hdr, p, RECIO_HEADER_LEN);
    size_t stored = get_u32le(hdr + 4);
    if (get_u32le(hdr) > RECIO_MAX_BLOCK || stored > RECIO_MAX_BLOCK + (RECIO_MAX_BLOCK >> 6))
        return cs_error_set(err, CS_EPROTO, "block too large (%u bytes)", get_u32le(hdr));
    if (r->mem_pos >= RECIO_HEADER_LEN && r->mem + r->mem_pos - RECIO_HEADER_LEN == p &&
        r->mem_len - r->mem_pos >= stored) {
        /* the whole block is in the current part */
        *h = p;
        r->mem_pos += stored;
        *total = RECIO_HEADER_LEN + stored;
        return 1;
    }
    /* straddles parts: header + payload assembled in buf */
    pull_buf_reserve(r, RECIO_HEADER_LEN, 0);
    memcpy(r->buf, hdr, RECIO_HEADER_LEN);
    size_t len = RECIO_HEADER_LEN;
    while (len < RECIO_HEADER_LEN + stored) {
        size_t have = r->mem_len - r->mem_pos, need = RECIO_HEADER_LEN + stored - len;
        size_t k = have < need ? have : need;
        pull_buf_reserve(r, len + k, len);
        if (k) memcpy(r->buf + len, r->mem + r->mem_pos, k);
        len += k;
        r->mem_pos += k;
        if (len == RECIO_HEADER_LEN + stored) break;
        if (r->pull_end) return cs_error_set(err, CS_EPROTO, "truncated block");
        rc = pull_part(r, err);
        if (rc < 0) return rc;
    }
    *h = r->buf;
    *total = len;
    return 1;
}

/* Checks a block header's lengths, codec and checksum algorithm; *stored gets the payload
 * length. 0 or CS_EPROTO. */
static int check_header(const recio_reader *r, const uint8_t *h, uint32_t *stored, cs_error *err)
{
    uint32_t raw_len = get_u32le(h), st = get_u32le(h + 4);
    unsigned codec = h[8] & 0x0f, algo = h[8] >> 4;
    const char *why = NULL;
    if (raw_len > RECIO_MAX_BLOCK)
        return cs_error_set(err, CS_EPROTO, "block too large (%u bytes) at byte %llu", raw_len,
                            (unsigned long long)r->pos);
    if (raw_len == 0)
        why = "empty block";
    else if (algo != CS_CHECKSUM_NONE && !cs_checksum_known(algo))
        why = "unknown block checksum algorithm";
    else if (codec == RECIO_CODEC_NONE && st != raw_len)
        why = "stored block length mismatch";
    /* LZ4 expands at most ~255x: larger claims are corrupt (and would make a tiny input
     * allocate a large buffer) */
    else if (codec == RECIO_CODEC_LZ4 &&
             (st == 0 || st > (uint32_t)LZ4_compressBound((int)raw_len) ||
              (uint64_t)raw_len > (uint64_t)st * 255 + 64))
        why = "bad lz4 block lengths";
    else if (codec != RECIO_CODEC_NONE && codec != RECIO_CODEC_LZ4)
        why = "unknown block codec";
    if (why)
        return cs_error_set(err, CS_EPROTO, "%s (header byte %u) at byte %llu", why, h[8],
                            (unsigned long long)r->pos);
    *stored = st;
    return 0;
}

/* The next encoded block, whole and contiguous at *blk (total bytes, borrowed as the source's
 * bytes are), its header and checksum verified. 1, 0 end of input, <0 error. */
static int next_encoded(recio_reader *r, const uint8_t **blk, size_t *total_out, cs_error *err)
{
    const uint8_t *h = NULL;
    size_t avail = 0;
    int rc;
    if (r->pull) {
        rc = pull_block(r, &h, &avail, err);
        if (rc <= 0) return rc;
    } else if (r->fd < 0) {
        avail = r->mem_len - r->mem_pos;
        if (avail == 0) return 0;
        if (avail < RECIO_HEADER_LEN) return cs_error_set(err, CS_EPROTO, "truncated block header");
        h = r->mem + r->mem_pos;
    } else {
        rc = fd_fill(r, RECIO_HEADER_LEN, &avail, err);
        if (rc < 0) return rc;
        if (rc == 0) {
            if (avail == 0) return 0;
            return cs_error_set(err, CS_EPROTO, "truncated block header");
        }
        h = r->buf + r->buf_pos;
    }
    uint32_t stored = 0;
    rc = check_header(r, h, &stored, err);
    if (rc < 0) return rc;
    size_t total = RECIO_HEADER_LEN + (size_t)stored;
    if (r->pull) {
        if (avail != total) return cs_error_set(err, CS_EPROTO, "truncated block");
    } else if (r->fd < 0) {
        if (avail < total) return cs_error_set(err, CS_EPROTO, "truncated block");
        r->mem_pos += total;
    } else {
        rc = fd_fill(r, total, &avail, err);
        if (rc < 0) return rc;
        if (rc == 0) return cs_error_set(err, CS_EPROTO, "truncated block");
        h = r->buf + r->buf_pos; /* the buffer may have moved */
        r->buf_pos += total;
    }
    cs_checksum_algo algo = (cs_checksum_algo)(h[8] >> 4);
    if (algo != CS_CHECKSUM_NONE) {
        uint32_t want = get_u32le(h + 9),
                 got = block_checksum(algo, h, h + RECIO_HEADER_LEN, stored);
        if (got != want)
            return cs_error_set(err, CS_EPROTO,
                                "checksum mismatch in the block at byte %llu (%s: stored %08x, "
                                "computed %08x)",
                                (unsigned long long)r->pos, cs_checksum_name(algo), want, got);
    }
    r->pos += total;
    *blk = h;
    *total_out = total;
    return 1;
}

/* Loads the next block into blk (decoded). 1 loaded, 0 end of input, <0 error. */
static int load_block(recio_reader *r, cs_error *err)
{
    const uint8_t *h;
    size_t total;
    int rc = next_encoded(r, &h, &total, err);
    if (rc <= 0) return rc;
    uint32_t raw_len = get_u32le(h), stored = (uint32_t)(total - RECIO_HEADER_LEN);
    const uint8_t *payload = h + RECIO_HEADER_LEN;
    if ((h[8] & 0x0f) == RECIO_CODEC_NONE) {
        r->blk = payload;
    } else {
        if (r->dec_cap < raw_len) {
            free(r->dec);
            r->dec = cs_xrealloc(NULL, raw_len);
            r->dec_cap = raw_len;
        }
        int k =
            LZ4_decompress_safe((const char *)payload, (char *)r->dec, (int)stored, (int)raw_len);
        if (k != (int)raw_len) return cs_error_set(err, CS_EPROTO, "corrupt lz4 block");
        r->blk = r->dec;
    }
    r->blk_len = raw_len;
    r->blk_pos = 0;
    return 1;
}

int cs_recio_reader_next_raw(recio_reader *r, const uint8_t **block, size_t *len, cs_error *err)
{
    if (r->failed) return cs_error_set(err, r->failed, "record stream already failed");
    if (r->blk_pos < r->blk_len)
        return cs_error_set(err, CS_EINVAL, "next_raw inside a block (records not read)");
    int rc = next_encoded(r, block, len, err);
    if (rc < 0) r->failed = rc;
    return rc;
}

static inline int get_varint(const uint8_t *p, size_t avail, uint32_t *out)
{
    if (avail > 0 && p[0] < 0x80) {
        *out = p[0];
        return 1;
    }
    uint64_t v = 0;
    for (int i = 0; i < 5; i++) {
        if ((size_t)i >= avail) return -1;
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            if (v > UINT32_MAX) return -1;
            *out = (uint32_t)v;
            return i + 1;
        }
    }
    return -1;
}

/* Parses one record at blk_pos (a block is loaded and not exhausted). */
static inline int parse_record(recio_reader *r, cspark_record *rec, cs_error *err)
{
    const uint8_t *p = r->blk + r->blk_pos;
    size_t avail = r->blk_len - r->blk_pos;
    uint32_t kl, vl;
    int a = get_varint(p, avail, &kl);
    if (a < 0) return cs_error_set(err, CS_EPROTO, "corrupt record header");
    int b = get_varint(p + a, avail - (size_t)a, &vl);
    if (b < 0) return cs_error_set(err, CS_EPROTO, "corrupt record header");
    size_t hl = (size_t)a + (size_t)b;
    if ((uint64_t)kl + vl > avail - hl)
        return cs_error_set(err, CS_EPROTO, "record overruns block");
    rec->key.ptr = p + hl;
    rec->key.len = kl;
    rec->value.ptr = p + hl + kl;
    rec->value.len = vl;
    r->blk_pos += hl + kl + vl;
    return 1;
}

/* 1 when the current block has records left (loading the next one if needed), 0 at the end of
 * the stream, <0 on an error (the reader stays failed). */
static inline int have_block(recio_reader *r, cs_error *err)
{
    if (r->failed) return cs_error_set(err, r->failed, "record stream already failed");
    if (r->blk_pos < r->blk_len) return 1;
    int rc = load_block(r, err);
    if (rc < 0) r->failed = rc;
    return rc;
}

/* The next record of the current block: 1, 0 at its end, <0 on corrupt input (the reader stays
 * failed). */
static inline int next_in_block(recio_reader *r, cspark_record *rec, cs_error *err)
{
    if (r->blk_pos >= r->blk_len) return 0;
    int rc = parse_record(r, rec, err);
    if (rc < 0) r->failed = rc;
    return rc;
}

int cs_recio_reader_next(recio_reader *r, cspark_record *rec, cs_error *err)
{
    int ready = have_block(r, err);
    if (ready <= 0) return ready;
    return next_in_block(r, rec, err);
}

int cs_recio_reader_next_block(recio_reader *r, cs_batch *out, cs_error *err)
{
    int ready = have_block(r, err);
    if (ready <= 0) return ready;
    cspark_record rec = {{0}};
    int rc;
    while ((rc = next_in_block(r, &rec, err)) > 0)
        recio_batch_put(out, rec.key.ptr, rec.key.len, rec.value.ptr, rec.value.len);
    return rc < 0 ? rc : 1;
}

int cs_recio_reader_view_block(recio_reader *r, cs_batch *view, cs_error *err)
{
    int ready = have_block(r, err);
    if (ready <= 0) return ready;
    const uint8_t *base = r->blk + r->blk_pos;
    size_t start = r->blk_pos;
    view->n = 0;
    cspark_record rec = {{0}};
    int rc;
    while ((rc = next_in_block(r, &rec, err)) > 0) {
        if (view->n == view->rcap) {
            size_t c = view->rcap ? view->rcap * 2 : 1024;
            view->recs = cs_xrealloc(view->recs, c * sizeof *view->recs);
            view->rcap = c;
        }
        cs_rec *o = &view->recs[view->n++];
        o->off = (uint64_t)(rec.key.ptr - base);
        o->klen = rec.key.len;
        o->vlen = rec.value.len;
    }
    if (rc < 0) return rc;
    view->data = (uint8_t *)base;
    view->len = r->blk_len - start;
    view->cap = 0;
    return 1;
}

int cs_recio_verify(const uint8_t *data, size_t len, cs_error *err)
{
    recio_reader *r = cs_recio_reader_mem(data, len);
    const uint8_t *b;
    size_t n;
    int rc;
    while ((rc = cs_recio_reader_next_raw(r, &b, &n, err)) > 0) {
    }
    cs_recio_reader_free(r);
    return rc;
}

int cs_recio_decode_all(const uint8_t *data, size_t len, cs_batch *out, cs_error *err)
{
    recio_reader *r = cs_recio_reader_mem(data, len);
    int rc;
    while ((rc = cs_recio_reader_next_block(r, out, err)) > 0) {
    }
    cs_recio_reader_free(r);
    return rc;
}
