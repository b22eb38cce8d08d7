/*
 * batch.h — record batches: the unit in which records move through a task.
 *
 * A batch is one growable byte buffer holding records back to back (key bytes, then value bytes)
 * plus an array of record descriptors (offset, key length, value length). Appending a record
 * copies it into the buffer; nothing is allocated per record. Offsets (not pointers) are stored,
 * so the buffer may grow while records are appended; pointers obtained with batch_get are valid
 * until the next append or reset. Used by the task runner (operators emit into batches), the
 * shuffle writer/reader, the external sorter and aggregator, and results.
 *
 * Ownership: a cs_batch owns its two arrays; cs_batch_free releases them (the struct itself is the
 * caller's). cs_batch_reset keeps the memory for reuse.
 */
#ifndef CSPARK_COMMON_BATCH_H
#define CSPARK_COMMON_BATCH_H

#include <stddef.h>
#include <stdint.h>
#include "cspark.h"

typedef struct cs_rec {
    uint64_t off; /* key starts at data + off, value at data + off + klen */
    uint32_t klen;
    uint32_t vlen;
} cs_rec;

typedef struct cs_batch {
    uint8_t *data;
    size_t len, cap;
    cs_rec *recs;
    size_t n, rcap;
} cs_batch;

/* A batch is "full" (time to hand it on) at this many payload bytes or records. */
#define CS_BATCH_TARGET_BYTES (256 * 1024)
#define CS_BATCH_TARGET_RECORDS 8192

void cs_batch_init(cs_batch *b);
void cs_batch_free(cs_batch *b);
void cs_batch_reset(cs_batch *b);
/* Grows the arrays for one more record of `bytes` bytes, then appends as batch_append. */
uint8_t *cs_batch_append_slow(cs_batch *b, uint32_t klen, uint32_t vlen);

/* Reserves space for one record and returns where its key goes (value follows at +klen).
 * Inline: it runs once per record; only growth leaves the fast path. */
static inline uint8_t *batch_append(cs_batch *b, uint32_t klen, uint32_t vlen)
{
    size_t need = b->len + (size_t)klen + vlen;
    if (__builtin_expect(need > b->cap || b->n >= b->rcap || !b->data, 0))
        return cs_batch_append_slow(b, klen, vlen);
    cs_rec *r = &b->recs[b->n++];
    r->off = b->len;
    r->klen = klen;
    r->vlen = vlen;
    uint8_t *p = b->data + b->len;
    b->len = need;
    return p;
}
void cs_batch_append_record(cs_batch *b, const void *key, uint32_t klen, const void *val,
                            uint32_t vlen);
/* Appends all records of src. */
void cs_batch_append_batch(cs_batch *b, const cs_batch *src);
/* Bytes of memory held (capacity of both arrays), for memory accounting. */
size_t cs_batch_memory(const cs_batch *b);

static inline int batch_full(const cs_batch *b)
{
    return b->len >= CS_BATCH_TARGET_BYTES || b->n >= CS_BATCH_TARGET_RECORDS;
}

static inline cspark_record batch_get(const cs_batch *b, size_t i)
{
    const cs_rec *r = &b->recs[i];
    cspark_record out;
    out.key.ptr = b->data + r->off;
    out.key.len = r->klen;
    out.value.ptr = b->data + r->off + r->klen;
    out.value.len = r->vlen;
    return out;
}

#endif
