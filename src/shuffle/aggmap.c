/*
 * aggmap.c — open-addressing aggregation table (see aggmap.h). Called by shuffle_writer.c
 * (map-side combine) and external_agg.c. No allocation per record: entries (with their keys and
 * first values) go to the arena; only the entry-pointer array and the slot array grow, by
 * doubling.
 */
#include "shuffle/aggmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

#define AGGMAP_MIN_SLOTS 1024
#define PTR_MASK 0x0000ffffffffffffULL

static void charge(aggmap *m, int64_t delta)
{
    m->table_bytes += delta;
    if (!m->mem) return;
    if (delta > 0)
        cs_task_memory_acquire(m->mem, delta);
    else
        cs_task_memory_release(m->mem, -delta);
}

static void alloc_slots(aggmap *m, size_t nslots)
{
    m->slots = cs_shuffle_big_alloc(nslots * sizeof *m->slots, true);
    m->nslots = nslots;
    int bits = 0;
    while (((size_t)1 << bits) < nslots)
        bits++;
    m->shift = 64 - bits;
}

void cs_aggmap_init(aggmap *m, const cs_aggregator *agg, cs_task_memory *mem)
{
    memset(m, 0, sizeof *m);
    m->agg = agg;
    m->mem = mem;
    cs_arena_init(&m->arena, mem);
    alloc_slots(m, AGGMAP_MIN_SLOTS);
    charge(m, (int64_t)(AGGMAP_MIN_SLOTS * sizeof(uint64_t)));
}

/* Hash bits 16..31 as the slot's top 16 bits. */
static inline uint64_t tag_of(uint64_t h)
{
    return (h << 32) & ~PTR_MASK;
}

static inline uint64_t make_slot(uint64_t h, const aggmap_entry *e)
{
    uint64_t p = (uint64_t)(uintptr_t)e;
    if (p & ~PTR_MASK) abort(); /* user-space addresses fit in 48 bits */
    return tag_of(h) | p;
}

static inline aggmap_entry *slot_entry(uint64_t sl)
{
    return (aggmap_entry *)(uintptr_t)(sl & PTR_MASK);
}

static void grow_slots(aggmap *m)
{
    size_t old_n = m->nslots;
    cs_shuffle_big_free(m->slots, old_n * sizeof *m->slots);
    alloc_slots(m, old_n * 2);
    charge(m, (int64_t)(old_n * sizeof(uint64_t)));
    size_t mask = m->nslots - 1;
    for (size_t i = 0; i < m->n; i++) {
        const aggmap_entry *e = m->ents[i];
        size_t s = (size_t)(e->hash >> m->shift);
        while (m->slots[s])
            s = (s + 1) & mask;
        m->slots[s] = make_slot(e->hash, e);
    }
}

static inline void call_fn(aggmap *m, cspark_reduce_fn fn, aggmap_entry *e, cspark_slice v)
{
    /* the built-in sum, inline: no call and no value struct per record (the common case of
     * reduce_by_key counting); same result as cspark_sum_i64 */
    if (fn == cspark_sum_i64 && e->vlen == 8 && v.len == 8) {
        cspark_i64_encode(cspark_i64_decode(e->vptr) + cspark_i64_decode(v.ptr), e->vptr);
        return;
    }
    cspark_value acc = {e->vptr, e->vlen, e->vcap, &m->arena};
    fn(&acc, v, m->agg->tc);
    e->vptr = acc.ptr;
    e->vlen = acc.len;
    e->vcap = acc.cap;
}

static void new_entry(aggmap *m, size_t s, const uint8_t *key, uint32_t klen, uint64_t hash,
                      uint32_t part, const uint8_t *val, uint32_t vlen, bool combiner)
{
    const cs_aggregator *agg = m->agg;
    const uint8_t *init = NULL;
    uint32_t ilen = 0;
    bool created = false;
    if (combiner) {
        init = val;
        ilen = vlen;
    } else if (agg->has_zero) {
        init = agg->zero;
        ilen = agg->zero_len;
    } else if (agg->create) {
        created = true;
    } else {
        init = val;
        ilen = vlen;
    }
    size_t koff = sizeof(aggmap_entry);
    size_t voff = (koff + klen + 7) & ~(size_t)7;
    aggmap_entry *e = arena_alloc8(&m->arena, voff + ilen);
    e->hash = hash;
    e->klen = klen;
    e->part = part;
    if (klen) memcpy((uint8_t *)e + koff, key, klen);
    e->vptr = (uint8_t *)e + voff;
    e->vlen = e->vcap = ilen;
    if (ilen) memcpy(e->vptr, init, ilen);
    if (m->n == m->ecap) {
        size_t nc = m->ecap ? m->ecap * 2 : 1024;
        m->ents = cs_xrealloc(m->ents, nc * sizeof *m->ents);
        charge(m, (int64_t)((nc - m->ecap) * sizeof *m->ents));
        m->ecap = nc;
    }
    m->ents[m->n++] = e;
    m->slots[s] = make_slot(hash, e);
    cspark_slice v = {val, vlen};
    if (!combiner) {
        if (agg->has_zero)
            call_fn(m, agg->merge_value, e, v);
        else if (created)
            call_fn(m, agg->create, e, v);
    }
    if (m->n * 2 > m->nslots) grow_slots(m);
}

/* Key equality without a libc call for short keys (words, ids): overlapping 8/4-byte loads. */
static inline bool key_eq(const uint8_t *a, const uint8_t *b, uint32_t n)
{
    if (n >= 8 && n <= 16) {
        uint64_t a0, b0, a1, b1;
        memcpy(&a0, a, 8);
        memcpy(&b0, b, 8);
        memcpy(&a1, a + n - 8, 8);
        memcpy(&b1, b + n - 8, 8);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n >= 4 && n < 8) {
        uint32_t a0, b0, a1, b1;
        memcpy(&a0, a, 4);
        memcpy(&b0, b, 4);
        memcpy(&a1, a + n - 4, 4);
        memcpy(&b1, b + n - 4, 4);
        return ((a0 ^ b0) | (a1 ^ b1)) == 0;
    }
    if (n < 4) {
        for (uint32_t i = 0; i < n; i++)
            if (a[i] != b[i]) return false;
        return true;
    }
    return memcmp(a, b, n) == 0;
}

static inline __attribute__((always_inline)) void insert_one(aggmap *m, const uint8_t *key,
                                                             uint32_t klen, uint64_t hash,
                                                             uint32_t part, const uint8_t *val,
                                                             uint32_t vlen, bool combiner)
{
    size_t mask = m->nslots - 1;
    size_t s = (size_t)(hash >> m->shift);
    uint64_t tag = tag_of(hash);
    for (;;) {
        uint64_t sl = m->slots[s];
        if (!sl) break;
        if ((sl & ~PTR_MASK) == tag) {
            aggmap_entry *e = slot_entry(sl);
            if (e->hash == hash && e->klen == klen && key_eq(aggmap_key(e), key, klen)) {
                cspark_slice v = {val, vlen};
                call_fn(m, combiner ? m->agg->merge_combiners : m->agg->merge_value, e, v);
                return;
            }
        }
        s = (s + 1) & mask;
    }
    new_entry(m, s, key, klen, hash, part, val, vlen, combiner);
}

void cs_aggmap_insert(aggmap *m, const uint8_t *key, uint32_t klen, uint64_t hash, uint32_t part,
                      const uint8_t *val, uint32_t vlen, bool combiner)
{
    insert_one(m, key, klen, hash, part, val, vlen, combiner);
}

#define PF_SLOT 64
#define PF_ENTRY 24
#define PF_GROUP 16

void cs_aggmap_insert_batch(aggmap *m, const cs_batch *b, size_t from, size_t to, size_t ahead,
                            const uint64_t *hashes, const uint32_t *parts, bool combiner)
{
    if (ahead < to) ahead = to;
    /* The table's fields in locals (the compiler cannot keep them across the stores into
     * values), reloaded when an entry is created (the slots may have grown). */
    const uint64_t *slots = m->slots;
    int shift = m->shift;
    size_t mask = m->nslots - 1;
    cspark_reduce_fn fn = combiner ? m->agg->merge_combiners : m->agg->merge_value;
    const bool sum = fn == cspark_sum_i64;
    /* likewise the batch's arrays: the value stores (through uint8_t *) may alias anything */
    const uint8_t *const data = b->data;
    const cs_rec *const recs = b->recs;
    /* Records before from were inserted by the previous call over the same hashes (which
     * prefetched up to here); a fresh pipeline warms up its first slots. */
    if (from == 0)
        for (size_t i = 0; i < ahead && i < PF_SLOT; i++)
            __builtin_prefetch(&slots[hashes[i] >> shift]);
    /* Groups of PF_GROUP records: prefetch the slots PF_SLOT ahead and the entries PF_ENTRY
     * ahead of the group, then insert it; short loops keep their variables in registers. */
    for (size_t g = from; g < to; g += PF_GROUP) {
        size_t ge = g + PF_GROUP < to ? g + PF_GROUP : to;
        size_t pe = ge + PF_SLOT < ahead ? ge + PF_SLOT : ahead;
        for (size_t j = g + PF_SLOT; j < pe; j++)
            __builtin_prefetch(&slots[hashes[j] >> shift]);
        pe = ge + PF_ENTRY < ahead ? ge + PF_ENTRY : ahead;
        for (size_t j = g + PF_ENTRY; j < pe; j++) {
            /* the entry of the first slot of the probe run whose tag matches: the one the
             * insert will most likely compare with (its header and, usually, key and value) */
            uint64_t h = hashes[j], tag = tag_of(h);
            for (size_t s = (size_t)(h >> shift);; s = (s + 1) & mask) {
                uint64_t sl = slots[s];
                if (!sl) break;
                if ((sl & ~PTR_MASK) == tag) {
                    const char *e = (const char *)slot_entry(sl);
                    __builtin_prefetch(e);
                    __builtin_prefetch(e + 56);
                    break;
                }
            }
        }
        for (size_t i = g; i < ge; i++) {
            const cs_rec *r = &recs[i];
            const uint8_t *k = data + r->off, *val = k + r->klen;
            uint32_t klen = r->klen, vlen = r->vlen;
            uint64_t h = hashes[i], tag = tag_of(h);
            for (size_t s = (size_t)(h >> shift);; s = (s + 1) & mask) {
                uint64_t sl = slots[s];
                if (!sl) {
                    uint32_t part = parts             ? parts[i]
                                    : m->part_of_hash ? (uint32_t)shuffle_mod(m->part_of_hash, h)
                                                      : 0;
                    new_entry(m, s, k, klen, h, part, val, vlen, combiner);
                    slots = m->slots;
                    shift = m->shift;
                    mask = m->nslots - 1;
                    break;
                }
                if ((sl & ~PTR_MASK) != tag) continue;
                aggmap_entry *e = slot_entry(sl);
                if (e->hash != h || e->klen != klen || !key_eq(aggmap_key(e), k, klen)) continue;
                if (sum && e->vlen == 8 && vlen == 8) /* reduce_by_key counting, inline */
                    cspark_i64_encode(cspark_i64_decode(e->vptr) + cspark_i64_decode(val), e->vptr);
                else
                    call_fn(m, fn, e, (cspark_slice){val, vlen});
                break;
            }
        }
    }
}

typedef struct hsort {
    uint64_t hash;
    aggmap_entry *e;
} hsort;

static int cmp_hsort(const void *a, const void *b)
{
    const hsort *x = a, *y = b;
    if (x->hash != y->hash) return x->hash < y->hash ? -1 : 1;
    return aggmap_cmp(0, aggmap_key(x->e), x->e->klen, 0, aggmap_key(y->e), y->e->klen);
}

void cs_aggmap_sort_by_hash(aggmap *m)
{
    if (m->n < 2) return;
    hsort *t = cs_xmalloc(m->n * sizeof *t);
    for (size_t i = 0; i < m->n; i++) {
        t[i].hash = m->ents[i]->hash;
        t[i].e = m->ents[i];
    }
    qsort(t, m->n, sizeof *t, cmp_hsort);
    for (size_t i = 0; i < m->n; i++)
        m->ents[i] = t[i].e;
    free(t);
}

void cs_aggmap_group_by_part(const aggmap *m, int nparts, uint32_t **order, size_t **starts)
{
    size_t *st = cs_xcalloc((size_t)nparts + 1, sizeof *st);
    uint32_t *ord = cs_xmalloc((m->n ? m->n : 1) * sizeof *ord);
    size_t *pos = cs_xmalloc(((size_t)nparts + 1) * sizeof *pos);
    for (size_t i = 0; i < m->n; i++)
        st[m->ents[i]->part + 1]++;
    for (int p = 0; p < nparts; p++)
        st[p + 1] += st[p];
    memcpy(pos, st, ((size_t)nparts + 1) * sizeof *pos);
    for (size_t i = 0; i < m->n; i++)
        ord[pos[m->ents[i]->part]++] = (uint32_t)i;
    free(pos);
    *order = ord;
    *starts = st;
}

void cs_aggmap_clear(aggmap *m)
{
    cs_arena_reset(&m->arena);
    free(m->ents);
    m->ents = NULL;
    m->n = m->ecap = 0;
    cs_shuffle_big_free(m->slots, m->nslots * sizeof *m->slots);
    charge(m, -m->table_bytes);
    alloc_slots(m, AGGMAP_MIN_SLOTS);
    charge(m, (int64_t)(AGGMAP_MIN_SLOTS * sizeof(uint64_t)));
}

void cs_aggmap_free(aggmap *m)
{
    cs_arena_free(&m->arena);
    free(m->ents);
    cs_shuffle_big_free(m->slots, m->nslots * sizeof *m->slots);
    charge(m, -m->table_bytes);
    m->ents = NULL;
    m->slots = NULL;
    m->n = m->ecap = m->nslots = 0;
}
