/*
 * hmap.c — see hmap.h. A slot is empty, a tombstone or live; it keeps its key's hash, so growth
 * and probing compare hashes before keys. Lookups probe until an empty slot; growth rehashes the
 * live keys only.
 */
#include "common/hmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

enum { EMPTY = 0, TOMBSTONE = 1, LIVE = 2 };

typedef struct cs_hmap_slot {
    uint64_t hash, key, val;
    uint8_t state;
} cs_hmap_slot;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

static bool same(const cs_hmap *m, const cs_hmap_slot *s, uint64_t h, uint64_t key)
{
    if (s->hash != h) return false;
    return m->strings ? strcmp((const char *)(uintptr_t)s->key, (const char *)(uintptr_t)key) == 0
                      : s->key == key;
}

/* The live slot holding key, or NULL. */
static cs_hmap_slot *find(const cs_hmap *m, uint64_t key, uint64_t h)
{
    if (!m->cap) return NULL;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        cs_hmap_slot *s = &m->slots[i];
        if (s->state == EMPTY) return NULL;
        if (s->state == LIVE && same(m, s, h, key)) return s;
    }
}

static void grow(cs_hmap *m)
{
    cs_hmap old = *m;
    m->cap = old.cap ? (old.live * 4 > old.cap ? old.cap * 2 : old.cap) : 16;
    m->used = m->live = 0;
    m->slots = cs_xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old.cap; i++) {
        const cs_hmap_slot *s = &old.slots[i];
        if (s->state != LIVE) continue;
        size_t j = s->hash & (m->cap - 1);
        while (m->slots[j].state != EMPTY)
            j = (j + 1) & (m->cap - 1);
        m->slots[j] = *s;
        m->used++;
        m->live++;
    }
    free(old.slots);
}

/* Inserts key, absent from the map (a string key is the map's own copy). */
static void insert(cs_hmap *m, uint64_t key, uint64_t h, uint64_t val)
{
    if (2 * (m->used + 1) > m->cap) grow(m);
    size_t i = h & (m->cap - 1);
    while (m->slots[i].state == LIVE)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].state == EMPTY) m->used++; /* a reused tombstone was counted already */
    m->slots[i] = (cs_hmap_slot){h, key, val, LIVE};
    m->live++;
}

static bool del(cs_hmap *m, uint64_t key, uint64_t h)
{
    cs_hmap_slot *s = find(m, key, h);
    if (!s) return false;
    if (m->strings) free((void *)(uintptr_t)s->key);
    s->state = TOMBSTONE;
    m->live--;
    /* a tombstone that ends its probe run (the next slot is empty) ends no probe: it and the
     * tombstones just before it become empty again, so that a map whose keys come and go (the
     * running tasks) is not rehashed every few insertions */
    size_t mask = m->cap - 1, i = (size_t)(s - m->slots);
    if (m->slots[(i + 1) & mask].state == EMPTY) {
        while (m->slots[i].state == TOMBSTONE) {
            m->slots[i].state = EMPTY;
            m->used--;
            i = (i - 1) & mask;
        }
    }
    return true;
}

void cs_hmap_init_strings(cs_hmap *m)
{
    memset(m, 0, sizeof *m);
    m->strings = true;
}

bool cs_hmap_get(const cs_hmap *m, uint64_t key, uint64_t *val)
{
    const cs_hmap_slot *s = find(m, key, cs_hash_mix64(key));
    if (s && val) *val = s->val;
    return s != NULL;
}

void cs_hmap_put(cs_hmap *m, uint64_t key, uint64_t val)
{
    uint64_t h = cs_hash_mix64(key);
    cs_hmap_slot *s = find(m, key, h);
    if (s)
        s->val = val;
    else
        insert(m, key, h, val);
}

bool cs_hmap_del(cs_hmap *m, uint64_t key)
{
    return del(m, key, cs_hash_mix64(key));
}

bool cs_hmap_sget(const cs_hmap *m, const char *key, uint64_t *val)
{
    const cs_hmap_slot *s = find(m, (uint64_t)(uintptr_t)key, hash_str(key));
    if (s && val) *val = s->val;
    return s != NULL;
}

void cs_hmap_sput(cs_hmap *m, const char *key, uint64_t val)
{
    uint64_t h = hash_str(key);
    cs_hmap_slot *s = find(m, (uint64_t)(uintptr_t)key, h);
    if (s) {
        s->val = val;
        return;
    }
    insert(m, (uint64_t)(uintptr_t)cs_xstrdup(key), h, val);
}

bool cs_hmap_sdel(cs_hmap *m, const char *key)
{
    return del(m, (uint64_t)(uintptr_t)key, hash_str(key));
}

bool cs_hmap_next(const cs_hmap *m, size_t *pos, uint64_t *key, uint64_t *val)
{
    for (; *pos < m->cap; (*pos)++) {
        const cs_hmap_slot *s = &m->slots[*pos];
        if (s->state != LIVE) continue;
        if (key) *key = s->key;
        if (val) *val = s->val;
        (*pos)++;
        return true;
    }
    return false;
}

size_t cs_hmap_size(const cs_hmap *m)
{
    return m->live;
}

void cs_hmap_free(cs_hmap *m)
{
    bool strings = m->strings;
    if (strings)
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].state == LIVE) free((void *)(uintptr_t)m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
    m->strings = strings;
}
