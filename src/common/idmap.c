/* idmap.c — see idmap.h. A slot is empty (key NULL, value -1), a tombstone (key NULL, value -2)
 * or live; lookups probe until an empty slot; growth rehashes the live keys only. */
#include "common/idmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct cs_idmap_slot {
    char *key;
    int value;
} cs_idmap_slot;

#define EMPTY (-1)
#define TOMBSTONE (-2)

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

/* The slot holding key, or NULL. */
static cs_idmap_slot *find(const cs_idmap *m, const char *key)
{
    if (!m->cap) return NULL;
    for (size_t i = hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        cs_idmap_slot *s = &m->slots[i];
        if (!s->key && s->value == EMPTY) return NULL;
        if (s->key && strcmp(s->key, key) == 0) return s;
    }
}

static void grow(cs_idmap *m)
{
    cs_idmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 16;
    m->used = 0;
    m->slots = cs_xmalloc(m->cap * sizeof *m->slots);
    for (size_t i = 0; i < m->cap; i++)
        m->slots[i] = (cs_idmap_slot){NULL, EMPTY};
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.slots[i].key) continue;
        size_t j = hash(old.slots[i].key) & (m->cap - 1);
        while (m->slots[j].key)
            j = (j + 1) & (m->cap - 1);
        m->slots[j] = old.slots[i];
        m->used++;
    }
    free(old.slots);
}

void cs_idmap_put(cs_idmap *m, const char *key, int value)
{
    cs_idmap_slot *s = find(m, key);
    if (s) {
        s->value = value;
        return;
    }
    if (2 * (m->used + 1) > m->cap) grow(m);
    size_t i = hash(key) & (m->cap - 1);
    while (m->slots[i].key)
        i = (i + 1) & (m->cap - 1);
    if (m->slots[i].value == EMPTY) m->used++; /* a reused tombstone was counted already */
    m->slots[i] = (cs_idmap_slot){cs_xstrdup(key), value};
}

int cs_idmap_get(const cs_idmap *m, const char *key)
{
    const cs_idmap_slot *s = find(m, key);
    return s ? s->value : -1;
}

void cs_idmap_del(cs_idmap *m, const char *key)
{
    cs_idmap_slot *s = find(m, key);
    if (!s) return;
    free(s->key);
    *s = (cs_idmap_slot){NULL, TOMBSTONE};
}

void cs_idmap_free(cs_idmap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}
