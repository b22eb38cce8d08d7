/*
 * aggmap.h — the open-addressing hash table behind map-side combine (shuffle writer) and
 * ext_agg.
 *
 * Layout, chosen for cache misses (the cost of a big aggregation): each entry is one arena
 * record {hash, value ptr/len/cap, klen, part, key bytes, initial value bytes}, so a hit touches
 * the slot and one entry line; slots are 8-byte tagged pointers (16 hash bits above the 48-bit
 * entry address), so a probe rarely dereferences a non-matching entry. The slot is chosen from
 * the hash's HIGH bits, because reduce partitions are hash % n and all keys of one reduce task
 * share the low bits. Linear probing, load <= 1/2. Batch insertion computes all hashes first
 * and prefetches slots and entries a few records ahead, overlapping the misses. Large slot
 * arrays and arena chunks ask for transparent huge pages to avoid TLB misses. An array of
 * entry pointers (insertion order) serves iteration, sorting and grouping by partition.
 * Internal to src/shuffle. The aggmap struct is the caller's; cs_aggmap_free releases its memory.
 */
#ifndef CSPARK_SHUFFLE_AGGMAP_H
#define CSPARK_SHUFFLE_AGGMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "records/batch.h"
#include "shuffle/arena.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

typedef struct aggmap_entry {
    uint64_t hash;
    uint8_t *vptr; /* value (owner = &map->arena) */
    uint32_t vlen, vcap;
    uint32_t klen, part;
    /* key bytes follow */
} aggmap_entry;

static inline const uint8_t *aggmap_key(const aggmap_entry *e)
{
    return (const uint8_t *)(e + 1);
}

typedef struct aggmap {
    const cs_aggregator *agg;
    cs_task_memory *mem;
    cs_arena arena;
    aggmap_entry **ents; /* insertion order (or sorted, after cs_aggmap_sort_by_hash) */
    size_t n, ecap;
    uint64_t *slots; /* 0 = empty, else (tag << 48) | entry address */
    size_t nslots;
    int shift;           /* slot = hash >> shift */
    int64_t table_bytes; /* ents + slots, as charged to mem */
    /* Hash partitioning (set by the caller after init, borrowed): an entry's partition is its
     * hash modulo this, computed once when the entry is created, so batch inserts need no
     * per-record partitions. */
    const shuffle_divisor *part_of_hash;
} aggmap;

void cs_aggmap_init(aggmap *m, const cs_aggregator *agg, cs_task_memory *mem);
/* Combines (key, val) into the table: merge_combiners when combiner, else create/merge_value.
 * The key is copied on first sight. */
void cs_aggmap_insert(aggmap *m, const uint8_t *key, uint32_t klen, uint64_t hash, uint32_t part,
                      const uint8_t *val, uint32_t vlen, bool combiner);
/* Inserts records [from, to) of b. hashes[i] and parts[i] (parts NULL = part_of_hash, or 0)
 * belong to record
 * i of b and are known for i in [from, ahead) (ahead >= to): slots and entries are prefetched
 * up to `ahead`, so consecutive calls over one batch (from = the previous to) keep the prefetch
 * pipeline full across calls. */
void cs_aggmap_insert_batch(aggmap *m, const cs_batch *b, size_t from, size_t to, size_t ahead,
                            const uint64_t *hashes, const uint32_t *parts, bool combiner);
static inline int64_t aggmap_memory(const aggmap *m)
{
    return m->arena.bytes + m->table_bytes;
}
/* Sorts ents by (hash, key); the table is unusable for inserts until cs_aggmap_clear. */
void cs_aggmap_sort_by_hash(aggmap *m);
/* Entry indices grouped by partition: order[starts[p] .. starts[p+1]) (both malloc'd by the
 * callee, caller frees). */
void cs_aggmap_group_by_part(const aggmap *m, int nparts, uint32_t **order, size_t **starts);
/* Drops every entry and releases the arena and table memory. */
void cs_aggmap_clear(aggmap *m);
void cs_aggmap_free(aggmap *m);
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
