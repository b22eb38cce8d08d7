/*
 * recio.h — the record stream encoding of shuffle files, spill files and (later) network results.
 *
 * A record is `varint klen, varint vlen, key, value` (LEB128 varints, at most 5 bytes each).
 * Records are grouped into blocks of at most ~RECIO_BLOCK_TARGET raw bytes (a single larger
 * record makes a block of its own):
 *
 *     [u32 raw_len LE][u32 stored_len LE][u8 kind][u32 checksum LE][stored_len payload bytes]
 *
 * kind: low 4 bits the codec (0 = none, 1 = lz4), high 4 bits the checksum algorithm
 * (common/checksum.h; 0 = none). With lz4 the payload is one LZ4 block (LZ4_compress_default,
 * no frame); when compression does not shrink a block it is stored with codec 0. The checksum
 * covers the header's first 9 bytes and the stored payload, so every bit of a block is
 * protected, and it is checked before anything is decoded: a block whose bytes changed on disk
 * or on the wire is CS_EPROTO ("checksum mismatch"), never records. A block is never empty
 * (raw_len 0 is corrupt: a zeroed region is not a run of empty blocks). Blocks are
 * self-contained, so a stream may be cut and concatenated at block boundaries without decoding
 * (the shuffle writer concatenates per-partition segments of spill files this way), and a
 * block keeps its checksum wherever it is copied.
 *
 * The writer appends records into a raw block buffer, encodes full blocks into its own large
 * write buffer (>= 1 MB by default) and writes that buffer to the fd with few large write(2)s;
 * it counts every byte it has produced, so callers learn segment boundaries with
 * cs_recio_writer_offset(). It can also write to memory only (fd < 0): then the encoded bytes stay
 * in the writer and are taken with cs_recio_writer_take().
 *
 * The readers decode blocks from a memory range (borrowed), from an fd range (offset, length;
 * pread, so the fd offset is not used and several readers may share one fd), or from a stream
 * pulled part by part (network fetches). Any malformed
 * input (bad lengths, unknown codec or checksum algorithm, a checksum mismatch, short data,
 * failed decompression, varints running past the block) is rejected with CS_EPROTO and never
 * read out of bounds. cs_recio_reader_next_raw hands out whole encoded blocks, verified, for
 * copying without decoding; cs_recio_verify checks a whole range that way.
 *
 * Called by src/shuffle (writer, reader, external sort/aggregation) and later by the block server.
 * Ownership: writers and readers are malloc'd by *_new and freed by *_free; the fd is borrowed
 * (never closed). Record slices returned by cs_recio_reader_next are borrowed until the next call
 * on that reader (or its free).
 */
#ifndef CSPARK_COMMON_RECIO_H
#define CSPARK_COMMON_RECIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "cspark.h"
#include "records/batch.h"
#include "records/checksum.h"
#include "common/err.h"

#define RECIO_BLOCK_TARGET (64 * 1024) /* raw bytes per block */
#define RECIO_HEADER_LEN 13            /* u32 raw_len, u32 stored_len, u8 kind, u32 checksum */
/* Larger raw_len is corrupt input. A block holds at least one record of CSPARK_MAX_RECORD_BYTES
 * key + value bytes and its varint header. */
#define RECIO_MAX_BLOCK ((uint32_t)CSPARK_MAX_RECORD_BYTES + 64u)
#define RECIO_WRITE_BUF (1u << 20) /* default write/read buffer */
enum { RECIO_CODEC_NONE = 0, RECIO_CODEC_LZ4 = 1 };

/* ---- writer ------------------------------------------------------------------------------- */

typedef struct recio_writer recio_writer;

/* fd: where blocks are written (borrowed; writes go at the fd's current offset), or -1 to keep
 * the encoded bytes in memory. buf_size: write buffer (0 = RECIO_WRITE_BUF). Blocks carry
 * CS_CHECKSUM_DEFAULT until cs_recio_writer_set_checksum says otherwise. Never NULL. */
recio_writer *cs_recio_writer_new(int fd, bool compress, size_t buf_size);
/* The checksum of the blocks encoded from now on (CS_CHECKSUM_NONE: none). */
void cs_recio_writer_set_checksum(recio_writer *w, cs_checksum_algo algo);
/* Raw bytes per block (default RECIO_BLOCK_TARGET; clamped to [1 KB, 1 MB]). */
void cs_recio_writer_set_block_target(recio_writer *w, size_t bytes);
/* Appends one record; encodes a block when the raw block is full (and writes when the write
 * buffer is full). CS_EIO on a write failure. */
int cs_recio_writer_add(recio_writer *w, const void *key, uint32_t klen, const void *val,
                        uint32_t vlen, cs_error *err);
int cs_recio_writer_add_batch(recio_writer *w, const cs_batch *b, cs_error *err);
/* Encodes the pending raw block (if any), so the next record starts a new block; the bytes it
 * produced are counted by cs_recio_writer_offset (but may still be buffered). */
int cs_recio_writer_end_block(recio_writer *w, cs_error *err);
/* end_block, then writes the whole write buffer to the fd (no-op for memory writers). */
int cs_recio_writer_flush(recio_writer *w, cs_error *err);
/* Appends already-encoded whole blocks (e.g. a segment of a spill file) after ending the open
 * block; the bytes are copied as they are. */
int cs_recio_writer_add_raw(recio_writer *w, const uint8_t *blocks, size_t len, cs_error *err);
/* add_raw for blocks in several places (iov[0..n), each whole encoded blocks): written with
 * writev straight from them when they come to RECIO_BLOCK_TARGET bytes or more and the writer
 * has an fd (no copy through the write buffer), else copied as add_raw does. iov is modified. */
int cs_recio_writer_add_raw_iov(recio_writer *w, struct iovec *iov, int n, cs_error *err);
/* Total encoded bytes produced so far (written or buffered), excluding the open raw block. */
uint64_t cs_recio_writer_offset(const recio_writer *w);
/* The raw (decoded) lengths of the blocks produced so far, copied ones (add_raw) included,
 * excluding the open raw block: what cs_recio_writer_offset counts before stream compression
 * and without block headers. */
uint64_t cs_recio_writer_raw_bytes(const recio_writer *w);
/* Records added so far. */
uint64_t cs_recio_writer_records(const recio_writer *w);
/* Bytes of memory held by the writer (buffers), for memory accounting. */
size_t cs_recio_writer_memory(const recio_writer *w);
/* Memory writers: ends the block and hands over the encoded bytes (malloc'd, caller frees);
 * the writer is then empty and reusable. */
uint8_t *cs_recio_writer_take(recio_writer *w, size_t *len, cs_error *err);
void cs_recio_writer_free(recio_writer *w);

/* Encodes one block (raw_len > 0) from raw record bytes into out (which must have room for
 * cs_recio_block_bound(raw_len)), with checksum algo; returns the encoded length (header
 * included). */
size_t cs_recio_encode_block(const uint8_t *raw, uint32_t raw_len, bool compress,
                             cs_checksum_algo algo, uint8_t *out);
size_t cs_recio_block_bound(uint32_t raw_len);
/* Completes an uncompressed block whose raw_len payload bytes the caller has already written at
 * block + RECIO_HEADER_LEN: fills in the header and the checksum (algo). Returns the encoded
 * length. For encoders that serialize records in place (task results). */
size_t cs_recio_seal_stored_block(uint8_t *block, uint32_t raw_len, cs_checksum_algo algo);
/* Encodes b's records as uncompressed blocks (checksum algo) cut as the writer cuts them,
 * straight into out (an exact-size buffer: no intermediate copy); out == NULL only measures.
 * Returns the length. For record payloads in messages (parallelize data, task results). */
size_t cs_recio_encode_batch(const cs_batch *b, cs_checksum_algo algo, uint8_t *out);
/* 0 when a record of klen key and vlen value bytes is within CSPARK_MAX_RECORD_BYTES; else
 * CS_EINVAL with "<what>: a record of K key + V value bytes is over the record limit of N bytes
 * (CSPARK_MAX_RECORD_BYTES, 256 MiB)". Every public entry point that takes a key, value or
 * accumulator length as size_t checks it so before narrowing it to the uint32_t of a slice. */
int cs_recio_check_record(size_t klen, size_t vlen, const char *what, cs_error *err);

/* Serializes a record header (varints) into out (>= 10 bytes); returns its length. */
static inline size_t recio_put_header(uint8_t *out, uint32_t klen, uint32_t vlen)
{
    size_t n = 0;
    while (klen >= 0x80) {
        out[n++] = (uint8_t)(klen | 0x80);
        klen >>= 7;
    }
    out[n++] = (uint8_t)klen;
    while (vlen >= 0x80) {
        out[n++] = (uint8_t)(vlen | 0x80);
        vlen >>= 7;
    }
    out[n++] = (uint8_t)vlen;
    return n;
}
static inline size_t recio_record_size(uint32_t klen, uint32_t vlen)
{
    size_t n = 2;
    for (uint32_t k = klen; k >= 0x80; k >>= 7)
        n++;
    for (uint32_t v = vlen; v >= 0x80; v >>= 7)
        n++;
    return n + klen + vlen;
}

/* Appends a record to a batch like cs_batch_append_record, but inline when the batch has room (the
 * common case once its arrays have grown), so hot decode/merge loops avoid a call per record. */
static inline void recio_batch_put(cs_batch *b, const void *key, uint32_t klen, const void *val,
                                   uint32_t vlen)
{
    size_t need = b->len + (size_t)klen + vlen;
    if (b->data && need <= b->cap && b->n < b->rcap) {
        cs_rec *r = &b->recs[b->n++];
        r->off = b->len;
        r->klen = klen;
        r->vlen = vlen;
        uint8_t *p = b->data + b->len;
        if (klen) memcpy(p, key, klen);
        if (vlen) memcpy(p + klen, val, vlen);
        b->len = need;
        return;
    }
    cs_batch_append_record(b, key, klen, val, vlen);
}

/* ---- reader ------------------------------------------------------------------------------- */

typedef struct recio_reader recio_reader;

/* Reads the blocks in data[0, len) (borrowed until free). Never NULL. */
recio_reader *cs_recio_reader_mem(const uint8_t *data, size_t len);
/* Reads the blocks in the fd range [off, off + len) with pread through a buffer of buf_size
 * bytes (0 = RECIO_WRITE_BUF; grown when one block is larger). Never NULL. */
recio_reader *cs_recio_reader_fd(int fd, uint64_t off, uint64_t len, size_t buf_size);
/* A source of consecutive parts of one stream (e.g. the pieces of a block fetched over the
 * network): 1 = the next part is at *data, *len bytes (borrowed until the next call or the reader's
 * free), 0 = the stream ended, <0 = error (err set). Parts may cut the stream anywhere. */
typedef int (*recio_pull_fn)(void *arg, const uint8_t **data, size_t *len, cs_error *err);
/* Reads the stream that pull delivers in parts. A block inside one part is decoded where it is
 * (no copy); a block straddling parts is assembled in a buffer. Never NULL. */
recio_reader *cs_recio_reader_pull(recio_pull_fn pull, void *arg);
/* The next record: 1 and *rec filled (borrowed until the next call), 0 at the end, <0 on
 * corrupt input (CS_EPROTO) or a read error (CS_EIO). */
int cs_recio_reader_next(recio_reader *r, cspark_record *rec, cs_error *err);
/* Appends the records of the rest of the current block, or of the next block, to out:
 * 1 = records appended, 0 = end, <0 error. */
int cs_recio_reader_next_block(recio_reader *r, cs_batch *out, cs_error *err);
/* Like next_block without copying the records: view->data points at the rest of the current
 * (or the next) block inside the reader (borrowed until the next call on r or its free; record
 * varint headers lie between the records), view->recs are the records' offsets from there.
 * view->recs is the caller's array, grown here (free it with free() or cs_batch_free after
 * clearing view->data); view->cap is 0, so nothing may be appended to a view. 1 = records in
 * the view, 0 = end, <0 error. */
int cs_recio_reader_view_block(recio_reader *r, cs_batch *view, cs_error *err);
/* The next whole encoded block (header and payload, *len bytes at *block, borrowed until the next
 * call on r or its free), its lengths and checksum verified but not decoded: for copying blocks
 * from one stream to another. Only at a block boundary (before any record of the block was
 * read). 1 = a block, 0 = end, <0 error. */
int cs_recio_reader_next_raw(recio_reader *r, const uint8_t **block, size_t *len, cs_error *err);
/* Bytes of the stream consumed so far (the end of the block last loaded). */
uint64_t cs_recio_reader_offset(const recio_reader *r);
/* Bytes of memory held (buffers). */
size_t cs_recio_reader_memory(const recio_reader *r);
void cs_recio_reader_free(recio_reader *r);

/* Decodes a whole memory range into out (appends). 0 or <0 (CS_EPROTO). */
int cs_recio_decode_all(const uint8_t *data, size_t len, cs_batch *out, cs_error *err);
/* Checks that data[0, len) is a sequence of whole blocks with valid lengths and matching
 * checksums, without decompressing. 0 or CS_EPROTO (err says which block and why). */
int cs_recio_verify(const uint8_t *data, size_t len, cs_error *err);

#endif /* CSPARK_COMMON_RECIO_H */
