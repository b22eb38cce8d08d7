/*
 * aggmap.c — open-addressing aggregation table (see aggmap.h). Called by shuffle_writer.c
 * (map-side combine) and external_agg.c. No allocation per record: keys and values go to the
 * arena, entries to one flat array grown by doubling.
 */
#include "shuffle/aggmap.h"

#include <stdlib.h>
#include <string.h>

#define AGGMAP_MIN_SLOTS 1024

static void *am_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) abort();
    return q;
}

static void charge(aggmap *m, int64_t delta)
{
    m->table_bytes += delta;
    if (!m->mem) return;
    if (delta > 0)
        task_memory_acquire(m->mem, delta);
    else
        task_memory_release(m->mem, -delta);
}

static void alloc_slots(aggmap *m, size_t nslots)
{
    m->slots = calloc(nslots, sizeof *m->slots);
    if (!m->slots) abort();
    m->nslots = nslots;
    int bits = 0;
    while (((size_t)1 << bits) < nslots) bits++;
    m->shift = 64 - bits;
}

void aggmap_init(aggmap *m, const cs_aggregator *agg, cs_task_memory *mem)
{
    memset(m, 0, sizeof *m);
    m->agg = agg;
    m->mem = mem;
    arena_init(&m->arena, mem);
    alloc_slots(m, AGGMAP_MIN_SLOTS);
    charge(m, (int64_t)(AGGMAP_MIN_SLOTS * sizeof(uint64_t)));
}

static inline uint64_t slot_of(const aggmap *m, uint64_t h)
{
    return h >> m->shift;
}

static void grow_slots(aggmap *m)
{
    size_t old_n = m->nslots;
    free(m->slots);
    alloc_slots(m, old_n * 2);
    charge(m, (int64_t)(old_n * sizeof(uint64_t)));
    size_t mask = m->nslots - 1;
    for (size_t i = 0; i < m->n; i++) {
        uint64_t h = m->entries[i].hash;
        size_t s = slot_of(m, h);
        while (m->slots[s]) s = (s + 1) & mask;
        m->slots[s] = ((uint64_t)(uint32_t)(h >> 8) << 32) | (uint64_t)(i + 1);
    }
}

static inline void value_copy(aggmap *m, cspark_value *v, const uint8_t *p, uint32_t len)
{
    v->owner = &m->arena;
    v->ptr = arena_alloc8(&m->arena, len);
    if (len) memcpy(v->ptr, p, len);
    v->len = len;
    v->cap = len;
}

void aggmap_insert(aggmap *m, const uint8_t *key, uint32_t klen, uint64_t hash, uint32_t part,
                   const uint8_t *val, uint32_t vlen, bool combiner)
{
    const cs_aggregator *agg = m->agg;
    size_t mask = m->nslots - 1;
    size_t s = slot_of(m, hash);
    uint64_t tag = (uint64_t)(uint32_t)(hash >> 8) << 32;
    cspark_slice v = {val, vlen};
    for (;;) {
        uint64_t sl = m->slots[s];
        if (!sl) break;
        if ((sl & 0xffffffff00000000ULL) == tag) {
            aggmap_entry *e = &m->entries[(uint32_t)sl - 1];
            if (e->hash == hash && e->klen == klen && (klen == 0 || memcmp(e->key, key, klen) == 0)) {
                if (combiner)
                    agg->merge_combiners(&e->val, v, agg->tc);
                else
                    agg->merge_value(&e->val, v, agg->tc);
                return;
            }
        }
        s = (s + 1) & mask;
    }
    /* new key */
    if (m->n == m->ecap) {
        size_t nc = m->ecap ? m->ecap * 2 : 256;
        m->entries = am_realloc(m->entries, nc * sizeof *m->entries);
        charge(m, (int64_t)((nc - m->ecap) * sizeof *m->entries));
        m->ecap = nc;
    }
    size_t idx = m->n++;
    aggmap_entry *e = &m->entries[idx];
    e->hash = hash;
    e->klen = klen;
    e->part = part;
    uint8_t *k = arena_alloc(&m->arena, klen);
    if (klen) memcpy(k, key, klen);
    e->key = k;
    m->slots[s] = tag | (uint64_t)(idx + 1);
    if (combiner) {
        value_copy(m, &e->val, val, vlen);
    } else if (agg->has_zero) {
        value_copy(m, &e->val, agg->zero, agg->zero_len);
        agg->merge_value(&e->val, v, agg->tc);
    } else if (agg->create) {
        e->val.owner = &m->arena;
        e->val.ptr = NULL;
        e->val.len = e->val.cap = 0;
        agg->create(&e->val, v, agg->tc);
    } else {
        value_copy(m, &e->val, val, vlen);
    }
    if (m->n * 2 > m->nslots) grow_slots(m);
}

static int cmp_entry(const void *a, const void *b)
{
    const aggmap_entry *x = a, *y = b;
    return aggmap_cmp(x->hash, x->key, x->klen, y->hash, y->key, y->klen);
}

void aggmap_sort_by_hash(aggmap *m)
{
    if (m->n > 1) qsort(m->entries, m->n, sizeof *m->entries, cmp_entry);
}

void aggmap_group_by_part(const aggmap *m, int nparts, uint32_t **order, size_t **starts)
{
    size_t *st = calloc((size_t)nparts + 1, sizeof *st);
    uint32_t *ord = malloc((m->n ? m->n : 1) * sizeof *ord);
    if (!st || !ord) abort();
    for (size_t i = 0; i < m->n; i++) st[m->entries[i].part + 1]++;
    for (int p = 0; p < nparts; p++) st[p + 1] += st[p];
    size_t *pos = malloc(((size_t)nparts + 1) * sizeof *pos);
    if (!pos) abort();
    memcpy(pos, st, ((size_t)nparts + 1) * sizeof *pos);
    for (size_t i = 0; i < m->n; i++) ord[pos[m->entries[i].part]++] = (uint32_t)i;
    free(pos);
    *order = ord;
    *starts = st;
}

void aggmap_clear(aggmap *m)
{
    arena_reset(&m->arena);
    free(m->entries);
    m->entries = NULL;
    m->n = m->ecap = 0;
    free(m->slots);
    charge(m, -m->table_bytes);
    alloc_slots(m, AGGMAP_MIN_SLOTS);
    charge(m, (int64_t)(AGGMAP_MIN_SLOTS * sizeof(uint64_t)));
}

void aggmap_free(aggmap *m)
{
    arena_free(&m->arena);
    free(m->entries);
    free(m->slots);
    charge(m, -m->table_bytes);
    m->entries = NULL;
    m->slots = NULL;
    m->n = m->ecap = m->nslots = 0;
}
