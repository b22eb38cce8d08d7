/*
 * aggmerge.c — heap merge of (hash, key)-sorted aggregation runs (see aggmerge.h). Called by
 * external_agg.c and shuffle_writer.c.
 */
#include "shuffle/aggmerge.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct agg_cursor {
    recio_reader *rd; /* NULL: in-memory entries */
    aggmap_entry *const *ents;
    const uint32_t *idx;
    size_t pos, n;
    uint64_t hash;
    cspark_slice key, val;
} agg_cursor;

struct agg_merger {
    const cs_aggregator *agg;
    agg_cursor *cur;
    int ncur, cap;
    int *heap;
    int nheap;
    bool started;
    cspark_value acc; /* malloc-owned */
    uint8_t *keybuf;
    size_t keycap;
};

agg_merger *cs_agg_merger_new(const cs_aggregator *agg)
{
    agg_merger *m = cs_xcalloc(1, sizeof *m);
    m->agg = agg;
    return m;
}

static agg_cursor *add_cursor(agg_merger *m)
{
    if (m->ncur == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->cur = cs_xrealloc(m->cur, (size_t)m->cap * sizeof *m->cur);
    }
    agg_cursor *c = &m->cur[m->ncur++];
    memset(c, 0, sizeof *c);
    return c;
}

void cs_agg_merger_add_run(agg_merger *m, recio_reader *rd)
{
    add_cursor(m)->rd = rd;
}

void cs_agg_merger_add_mem(agg_merger *m, aggmap_entry *const *ents, const uint32_t *idx, size_t n)
{
    agg_cursor *c = add_cursor(m);
    c->ents = ents;
    c->idx = idx;
    c->n = n;
}

static int advance(agg_cursor *c, cs_error *err)
{
    if (!c->rd) {
        if (c->pos >= c->n) return 0;
        size_t i = c->idx ? c->idx[c->pos] : c->pos;
        c->pos++;
        const aggmap_entry *e = c->ents[i];
        c->hash = e->hash;
        c->key.ptr = aggmap_key(e);
        c->key.len = e->klen;
        c->val.ptr = e->vptr;
        c->val.len = e->vlen;
        return 1;
    }
    cspark_record rec;
    int rc = cs_recio_reader_next(c->rd, &rec, err);
    if (rc <= 0) return rc;
    c->key = rec.key;
    c->val = rec.value;
    c->hash = shuffle_key_hash(rec.key);
    return 1;
}

static inline int less(const agg_cursor *x, const agg_cursor *y)
{
    return aggmap_cmp(x->hash, x->key.ptr, x->key.len, y->hash, y->key.ptr, y->key.len) < 0;
}

static void sift_down(agg_merger *m, int i)
{
    int n = m->nheap;
    for (;;) {
        int l = 2 * i + 1, b = i;
        if (l < n && less(&m->cur[m->heap[l]], &m->cur[m->heap[b]])) b = l;
        if (l + 1 < n && less(&m->cur[m->heap[l + 1]], &m->cur[m->heap[b]])) b = l + 1;
        if (b == i) return;
        int t = m->heap[i];
        m->heap[i] = m->heap[b];
        m->heap[b] = t;
        i = b;
    }
}

static int pop_advance(agg_merger *m, cs_error *err)
{
    int rc = advance(&m->cur[m->heap[0]], err);
    if (rc < 0) return rc;
    if (rc == 0) m->heap[0] = m->heap[--m->nheap];
    if (m->nheap > 0) sift_down(m, 0);
    return 0;
}

int cs_agg_merger_next(agg_merger *m, cspark_slice *key, cspark_slice *value, cs_error *err)
{
    if (!m->started) {
        m->started = true;
        m->heap = cs_xmalloc(((size_t)m->ncur + 1) * sizeof *m->heap);
        for (int i = 0; i < m->ncur; i++) {
            int rc = advance(&m->cur[i], err);
            if (rc < 0) return rc;
            if (rc > 0) m->heap[m->nheap++] = i;
        }
        for (int i = m->nheap / 2 - 1; i >= 0; i--)
            sift_down(m, i);
    }
    if (m->nheap == 0) return 0;
    agg_cursor *top = &m->cur[m->heap[0]];
    uint64_t h = top->hash;
    uint32_t kl = top->key.len;
    if (kl > m->keycap) {
        free(m->keybuf);
        m->keycap = (size_t)kl * 2;
        m->keybuf = cs_xmalloc(m->keycap);
    }
    if (kl) memcpy(m->keybuf, top->key.ptr, kl);
    m->acc.owner = NULL;
    m->acc.len = 0;
    cspark_value_set(&m->acc, top->val.ptr, top->val.len);
    int rc = pop_advance(m, err);
    while (rc == 0 && m->nheap > 0) {
        top = &m->cur[m->heap[0]];
        if (top->hash != h || top->key.len != kl || (kl && memcmp(top->key.ptr, m->keybuf, kl)))
            break;
        m->agg->merge_combiners(&m->acc, top->val, m->agg->tc);
        rc = pop_advance(m, err);
    }
    if (rc < 0) return rc;
    key->ptr = m->keybuf;
    key->len = kl;
    value->ptr = m->acc.ptr;
    value->len = m->acc.len;
    return 1;
}

void cs_agg_merger_free(agg_merger *m)
{
    if (!m) return;
    for (int i = 0; i < m->ncur; i++)
        cs_recio_reader_free(m->cur[i].rd);
    free(m->cur);
    free(m->heap);
    free(m->acc.ptr);
    free(m->keybuf);
    free(m);
}
