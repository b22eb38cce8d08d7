/*
 * memory_store.c — compact in-memory copies of a partition's batches and their wire encoding (see
 * memory_store.h). Called by the block manager when a task stores a block and when the block
 * server serves one, and by a task that fetched a block from another executor.
 */
#include "storage/memory_store.h"

#include <stdlib.h>
#include <string.h>

#include "records/recio.h"

int64_t cs_block_data_copy_size(const cs_batch *b)
{
    return (int64_t)b->len + (int64_t)(b->n * sizeof(cs_rec));
}

void cs_block_data_add(cs_block_data *d, const cs_batch *b)
{
    if (!b->n) return;
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->batches = cs_xrealloc(d->batches, (size_t)d->cap * sizeof *d->batches);
    }
    cs_batch *c = &d->batches[d->n++];
    cs_batch_init(c);
    c->data = cs_xmalloc(b->len ? b->len : 1);
    memcpy(c->data, b->data, b->len);
    c->len = c->cap = b->len;
    c->recs = cs_xmalloc(b->n * sizeof *c->recs);
    memcpy(c->recs, b->recs, b->n * sizeof *c->recs);
    c->n = c->rcap = b->n;
    d->bytes += cs_block_data_copy_size(b);
    d->records += (int64_t)b->n;
}

void cs_block_data_free(cs_block_data *d)
{
    for (int i = 0; i < d->n; i++)
        cs_batch_free(&d->batches[i]);
    free(d->batches);
    memset(d, 0, sizeof *d);
}

uint8_t *cs_block_data_encode(const cs_block_data *d, cs_checksum_algo algo, size_t *len)
{
    size_t total = 0;
    for (int i = 0; i < d->n; i++)
        total += cs_recio_encode_batch(&d->batches[i], algo, NULL);
    uint8_t *out = cs_xmalloc(total ? total : 1);
    size_t off = 0;
    for (int i = 0; i < d->n; i++)
        off += cs_recio_encode_batch(&d->batches[i], algo, out + off);
    *len = off;
    return out;
}

int cs_block_data_decode(const uint8_t *data, size_t len, cs_block_data *out, cs_error *err)
{
    recio_reader *r = cs_recio_reader_mem(data, len);
    cs_batch b;
    cs_batch_init(&b);
    int rc;
    for (;;) {
        rc = cs_recio_reader_next_block(r, &b, err);
        if (rc < 0) break;
        if (rc == 0 || batch_full(&b)) {
            cs_block_data_add(out, &b);
            cs_batch_reset(&b);
            if (rc == 0) break;
        }
    }
    cs_batch_free(&b);
    cs_recio_reader_free(r);
    if (rc < 0) {
        cs_block_data_free(out);
        return rc;
    }
    return 0;
}
