/*
 * batch.c — growable record batches (see batch.h). Growth doubles both arrays, so appending n
 * records costs O(n) amortised and O(log n) reallocations; memory is reused across resets.
 */
#include "records/batch.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

static void *batch_grow(void *p, size_t need, size_t *cap, size_t elem)
{
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = cs_xrealloc(p, c * elem);
    *cap = c;
    return q;
}

void cs_batch_init(cs_batch *b)
{
    memset(b, 0, sizeof *b);
}

void cs_batch_free(cs_batch *b)
{
    free(b->data);
    free(b->recs);
    memset(b, 0, sizeof *b);
}

void cs_batch_reset(cs_batch *b)
{
    b->len = 0;
    b->n = 0;
}

uint8_t *cs_batch_append_slow(cs_batch *b, uint32_t klen, uint32_t vlen)
{
    size_t need = b->len + (size_t)klen + vlen;
    if (need > b->cap || !b->data) b->data = batch_grow(b->data, need, &b->cap, 1);
    if (b->n + 1 > b->rcap) b->recs = batch_grow(b->recs, b->n + 1, &b->rcap, sizeof(cs_rec));
    return batch_append(b, klen, vlen); /* the fast path now fits */
}

void cs_batch_append_record(cs_batch *b, const void *key, uint32_t klen, const void *val,
                            uint32_t vlen)
{
    uint8_t *p = batch_append(b, klen, vlen);
    if (klen) memcpy(p, key, klen);
    if (vlen) memcpy(p + klen, val, vlen);
}

void cs_batch_append_batch(cs_batch *b, const cs_batch *src)
{
    if (!src->n) return;
    size_t need = b->len + src->len;
    if (need > b->cap) b->data = batch_grow(b->data, need, &b->cap, 1);
    if (b->n + src->n > b->rcap)
        b->recs = batch_grow(b->recs, b->n + src->n, &b->rcap, sizeof(cs_rec));
    memcpy(b->data + b->len, src->data, src->len);
    for (size_t i = 0; i < src->n; i++) {
        b->recs[b->n + i] = src->recs[i];
        b->recs[b->n + i].off += b->len;
    }
    b->n += src->n;
    b->len = need;
}

size_t cs_batch_memory(const cs_batch *b)
{
    return b->cap + b->rcap * sizeof(cs_rec);
}
