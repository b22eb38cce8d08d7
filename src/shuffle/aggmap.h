/*
 * aggmap.h — the open-addressing hash table behind map-side combine (shuffle writer) and
 * ext_agg. Keys and values live in an arena; entries are a flat array of fixed-size structs in
 * insertion order; slots hold (hash tag, entry index) so a probe rarely touches an entry that
 * does not match. The slot is chosen from the hash's HIGH bits, because reduce partitions are
 * hash % n and all keys of one reduce task share the low bits. Linear probing, load <= 1/2.
 * Internal to src/shuffle. The aggmap struct is the caller's; aggmap_free releases its memory.
 */
#ifndef CSPARK_SHUFFLE_AGGMAP_H
#define CSPARK_SHUFFLE_AGGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "shuffle/arena.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

typedef struct aggmap_entry {
    uint64_t hash;
    const uint8_t *key;
    uint32_t klen;
    uint32_t part;
    cspark_value val; /* owner = &map->arena */
} aggmap_entry;

typedef struct aggmap {
    const cs_aggregator *agg;
    cs_task_memory *mem;
    cs_arena arena;
    aggmap_entry *entries;
    size_t n, ecap;
    uint64_t *slots; /* 0 = empty, else (tag << 32) | (index + 1) */
    size_t nslots;
    int shift;           /* slot = hash >> shift */
    int64_t table_bytes; /* entries + slots, as charged to mem */
} aggmap;

void aggmap_init(aggmap *m, const cs_aggregator *agg, cs_task_memory *mem);
/* Combines (key, val) into the table: merge_combiners when combiner, else create/merge_value.
 * The key is copied on first sight. */
void aggmap_insert(aggmap *m, const uint8_t *key, uint32_t klen, uint64_t hash, uint32_t part,
                   const uint8_t *val, uint32_t vlen, bool combiner);
static inline int64_t aggmap_memory(const aggmap *m)
{
    return m->arena.bytes + m->table_bytes;
}
/* Sorts the entries by (hash, key); the table is unusable until aggmap_clear. */
void aggmap_sort_by_hash(aggmap *m);
/* Entry indices grouped by partition: order[starts[p] .. starts[p+1]) (both malloc'd by the
 * callee, caller frees). */
void aggmap_group_by_part(const aggmap *m, int nparts, uint32_t **order, size_t **starts);
/* Drops every entry and releases the arena and table memory. */
void aggmap_clear(aggmap *m);
void aggmap_free(aggmap *m);
/* (hash, key) order used by spills and merges. */
static inline int aggmap_cmp(uint64_t ha, const uint8_t *ka, uint32_t la, uint64_t hb,
                             const uint8_t *kb, uint32_t lb)
{
    if (ha != hb) return ha < hb ? -1 : 1;
    uint32_t n = la < lb ? la : lb;
    int c = n ? memcmp(ka, kb, n) : 0;
    if (c) return c;
    return la < lb ? -1 : la > lb;
}

#endif /* CSPARK_SHUFFLE_AGGMAP_H */
