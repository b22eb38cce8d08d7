/*
 * block_registry.c — block locations on the driver (see block_registry.h): a hash table from
 * block id to the small list of executors holding it. Called by the DAG scheduler.
 */
#include "sched/block_registry.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/hmap.h"
#include "cspark.h"
#include "common/clock.h"
#include "common/log.h"
#include "plan/rdd_kind.h"

typedef struct holder {
    char executor_id[64];
    cs_block_status st;
} holder;

typedef struct block_entry {
    holder *holders;
    int n, cap;
} block_entry;

struct block_registry {
    pthread_mutex_t lock;
    cs_hmap blocks; /* (rdd_id << 32 | partition) -> block_entry * */
};

static uint64_t key_of(int rdd_id, int partition)
{
    return ((uint64_t)(uint32_t)rdd_id << 32) | (uint32_t)partition;
}

block_registry *cs_block_registry_new(void)
{
    block_registry *r = cs_xcalloc(1, sizeof *r);
    pthread_mutex_init(&r->lock, NULL);
    return r;
}

static void entry_free(block_entry *e)
{
    free(e->holders);
    free(e);
}

void cs_block_registry_free(block_registry *r)
{
    if (!r) return;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&r->blocks, &pos, NULL, &v))
        entry_free((block_entry *)(uintptr_t)v);
    cs_hmap_free(&r->blocks);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

static block_entry *find(block_registry *r, uint64_t key)
{
    uint64_t v;
    return cs_hmap_get(&r->blocks, key, &v) ? (block_entry *)(uintptr_t)v : NULL;
}

/* Removes holder i of the entry at key (the entry goes with its last holder). Lock held. */
static void drop_holder(block_registry *r, uint64_t key, block_entry *e, int i)
{
    e->holders[i] = e->holders[--e->n];
    if (e->n == 0) {
        cs_hmap_del(&r->blocks, key);
        entry_free(e);
    }
}

void cs_block_registry_update(block_registry *r, const char *executor_id, const cs_block_status *st)
{
    uint64_t key = key_of(st->rdd_id, st->partition);
    pthread_mutex_lock(&r->lock);
    block_entry *e = find(r, key);
    int i = 0;
    while (e && i < e->n && strcmp(e->holders[i].executor_id, executor_id) != 0)
        i++;
    if (st->level == CSPARK_STORAGE_NONE) {
        if (e && i < e->n) drop_holder(r, key, e, i);
        pthread_mutex_unlock(&r->lock);
        return;
    }
    if (!e) {
        e = cs_xcalloc(1, sizeof *e);
        cs_hmap_put(&r->blocks, key, (uint64_t)(uintptr_t)e);
    }
    if (i == e->n) {
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 2;
            e->holders = cs_xrealloc(e->holders, (size_t)e->cap * sizeof *e->holders);
        }
        snprintf(e->holders[e->n++].executor_id, sizeof e->holders[0].executor_id, "%s",
                 executor_id);
    }
    e->holders[i].st = *st;
    pthread_mutex_unlock(&r->lock);
}

void cs_block_registry_task_done(block_registry *r, struct listener_bus *bus,
                                 const char *executor_id, const char *host, const task_result *res)
{
    int n = res->num_updated_blocks;
    for (int i = 0; i < n; i++)
        cs_block_registry_update(r, executor_id, &res->updated_blocks[i]);
    if (!bus || n <= 0) return;
    cs_event ev = {.kind = CS_EV_BLOCK_UPDATED,
                   .time_ms = cs_now_ms(),
                   .executor_id = executor_id,
                   .host = host && *host ? host : "localhost",
                   .block_port = res->block_port,
                   .updated_blocks = res->updated_blocks,
                   .num_updated_blocks = n};
    cs_listener_bus_post(bus, &ev);
}

int cs_block_registry_executor_lost(block_registry *r, const char *executor_id)
{
    int dropped = 0;
    pthread_mutex_lock(&r->lock);
    size_t pos = 0;
    uint64_t key, v;
    while (cs_hmap_next(&r->blocks, &pos, &key, &v)) {
        block_entry *e = (block_entry *)(uintptr_t)v;
        for (int i = 0; i < e->n; i++)
            if (strcmp(e->holders[i].executor_id, executor_id) == 0) {
                dropped++;
                drop_holder(r, key, e, i); /* may free e: nothing more of it is read */
                break;
            }
    }
    pthread_mutex_unlock(&r->lock);
    if (dropped)
        CS_WARN("scheduler", "event=cached_blocks_lost executor=%s blocks=%d", executor_id,
                dropped);
    return dropped;
}

int cs_block_registry_blocks_of(block_registry *r, const char *executor_id, cs_block_status **out)
{
    int n = 0, cap = 0;
    *out = NULL;
    pthread_mutex_lock(&r->lock);
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&r->blocks, &pos, NULL, &v)) {
        const block_entry *e = (const block_entry *)(uintptr_t)v;
        for (int i = 0; i < e->n; i++) {
            if (strcmp(e->holders[i].executor_id, executor_id) != 0) continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                *out = cs_xrealloc(*out, (size_t)cap * sizeof **out);
            }
            (*out)[n++] = e->holders[i].st;
        }
    }
    pthread_mutex_unlock(&r->lock);
    return n;
}

void cs_block_registry_remove_rdd(block_registry *r, int rdd_id)
{
    pthread_mutex_lock(&r->lock);
    size_t pos = 0;
    uint64_t key, v;
    while (cs_hmap_next(&r->blocks, &pos, &key, &v))
        if ((int)(uint32_t)(key >> 32) == rdd_id) {
            cs_hmap_del(&r->blocks, key);
            entry_free((block_entry *)(uintptr_t)v);
        }
    pthread_mutex_unlock(&r->lock);
}

int cs_block_registry_locations(block_registry *r, int rdd_id, int partition, char (*out)[64],
                                int max)
{
    int n = 0;
    pthread_mutex_lock(&r->lock);
    block_entry *e = find(r, key_of(rdd_id, partition));
    for (int pass = 0; e && pass < 2; pass++) /* in memory first, then on disk only */
        for (int i = 0; i < e->n && n < max; i++)
            if ((e->holders[i].st.memory_size > 0 || e->holders[i].st.disk_size == 0) ==
                (pass == 0))
                snprintf(out[n++], 64, "%s", e->holders[i].executor_id);
    pthread_mutex_unlock(&r->lock);
    return n;
}

void cs_block_registry_rdd_totals(block_registry *r, int rdd_id, int *cached_partitions,
                                  int64_t *memory_size, int64_t *disk_size)
{
    *cached_partitions = 0;
    *memory_size = *disk_size = 0;
    pthread_mutex_lock(&r->lock);
    size_t pos = 0;
    uint64_t key, v;
    while (cs_hmap_next(&r->blocks, &pos, &key, &v)) {
        if ((int)(uint32_t)(key >> 32) != rdd_id) continue;
        const block_entry *e = (const block_entry *)(uintptr_t)v;
        (*cached_partitions)++;
        for (int i = 0; i < e->n; i++) {
            *memory_size += e->holders[i].st.memory_size;
            *disk_size += e->holders[i].st.disk_size;
        }
    }
    pthread_mutex_unlock(&r->lock);
}

static int lineage_locations(block_registry *r, const cspark_rdd *rdd, int partition,
                             cs_block_location *out, int n, int max)
{
    if (n >= max || partition < 0 || partition >= rdd->num_partitions) return n;
    if (rdd->storage_level != CSPARK_STORAGE_NONE) {
        char ids[4][64];
        int k = cs_block_registry_locations(r, rdd->id, partition, ids, 4);
        for (int i = 0; i < k && n < max; i++) {
            out[n] = (cs_block_location){.rdd_id = rdd->id, .partition = partition};
            memcpy(out[n++].executor_id, ids[i], sizeof ids[i]);
        }
        if (k > 0) return n;
    }
    /* else where the parent partitions it reads narrowly are cached (Spark's
     * getPreferredLocations through narrow dependencies) */
    cs_rdd_parent_partition few[4], *parents = few;
    int np = cs_rdd_parent_partitions(rdd, partition, few, 4);
    if (np > 4) { /* a coalesce's group */
        parents = cs_xmalloc((size_t)np * sizeof *parents);
        cs_rdd_parent_partitions(rdd, partition, parents, np);
    }
    for (int i = 0; i < np && n < max; i++)
        n = lineage_locations(r, parents[i].parent, parents[i].partition, out, n, max);
    if (parents != few) free(parents);
    return n;
}

int cs_block_registry_task_locations(block_registry *r, const cspark_rdd *rdd, int partition,
                                     cs_block_location *out, int max)
{
    return lineage_locations(r, rdd, partition, out, 0, max);
}

void cs_block_registry_fill_rdd_infos(block_registry *r, cs_rdd_info *infos, int n)
{
    for (int i = 0; i < n; i++)
        if (infos[i].storage_level != CSPARK_STORAGE_NONE)
            cs_block_registry_rdd_totals(r, infos[i].id, &infos[i].cached_partitions,
                                         &infos[i].memory_size, &infos[i].disk_size);
}
