/*
 * connect_tombstones.c — the capped set of closed Spark Connect sessions' keys
 * (connect_tombstones.h): a ring in arrival order for dropping the oldest, a string hash map for
 * lookup. Called by connect_sessions.c under the service's lock.
 */
#include "connect/connect_tombstones.h"

#include <stdlib.h>

#include "common/err.h"

void cs_connect_tombstones_init(cs_connect_tombstones *t, size_t cap)
{
    t->ring = cap ? cs_xcalloc(cap, sizeof *t->ring) : NULL;
    t->cap = cap;
    t->count = 0;
    t->oldest = 0;
    cs_hmap_init_strings(&t->set);
}

void cs_connect_tombstones_add(cs_connect_tombstones *t, const char *key)
{
    if (t->cap == 0 || cs_hmap_sget(&t->set, key, NULL)) return;
    if (t->count == t->cap) { /* full: the oldest goes */
        char *old = t->ring[t->oldest];
        cs_hmap_sdel(&t->set, old);
        free(old);
        t->ring[t->oldest] = NULL;
        t->oldest = (t->oldest + 1) % t->cap;
        t->count--;
    }
    t->ring[(t->oldest + t->count) % t->cap] = cs_xstrdup(key);
    t->count++;
    cs_hmap_sput(&t->set, key, 1);
}

bool cs_connect_tombstones_has(const cs_connect_tombstones *t, const char *key)
{
    return cs_hmap_sget(&t->set, key, NULL);
}

void cs_connect_tombstones_free(cs_connect_tombstones *t)
{
    for (size_t i = 0; i < t->count; i++)
        free(t->ring[(t->oldest + i) % t->cap]);
    free(t->ring);
    t->ring = NULL;
    t->count = t->cap = t->oldest = 0;
    cs_hmap_free(&t->set);
}
