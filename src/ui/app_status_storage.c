/* app_status_storage.c — the status store's cached RDDs (the Storage page, storage/rdd) and each
 * executor's share of them (rddBlocks, memoryUsed, diskUsed), from listener events, as Spark's
 * AppStatusListener keeps its LiveRDDs (see app_status.h, app_status_internal.h).
 *
 * A stage's RDD infos announce the persisted RDDs (name, partitions, storage level). Executors
 * report blocks in task ends (Updated Blocks) and block updates: each report sets what one copy
 * of rdd_<id>_<partition> on one executor takes (or drops it), and the RDD's and executor's totals
 * move by the difference, so a report seen twice — the live bus carries a task's blocks in its
 * task end and in a block update, and a replayed log may hold both — counts once (Spark adds
 * deltas per event, which double-counts such repeats). Unpersisting forgets the RDD and takes its
 * copies off their executors; a removed executor's copies leave the RDDs (its own figures stay, as
 * Spark's dead executors show them).
 *
 * Called by app_status.c's listener with the store's lock held.
 */
#include <stdlib.h>
#include <string.h>

#include "cspark.h"
#include "ui/app_status_internal.h"

const char *cs_ui_storage_level_name(int level)
{
    switch (level) { /* Spark's StorageLevel.description */
    case CSPARK_MEMORY_ONLY:
        return "Memory Deserialized 1x Replicated";
    case CSPARK_MEMORY_AND_DISK:
        return "Disk Memory Deserialized 1x Replicated";
    case CSPARK_DISK_ONLY:
        return "Disk Serialized 1x Replicated";
    default:
        return "None";
    }
}

/* Position of rdd_id in the sorted array (where it is or would go). */
static size_t rdd_pos(const ui_store *st, int rdd_id, bool *found)
{
    size_t lo = 0, hi = st->nrdds;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->rdds[mid]->id < rdd_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < st->nrdds && st->rdds[lo]->id == rdd_id;
    return lo;
}

const ui_rdd *cs_ui_store_rdd(const ui_store *st, int rdd_id)
{
    bool found;
    size_t i = rdd_pos(st, rdd_id, &found);
    return found ? st->rdds[i] : NULL;
}

static ui_rdd *rdd_get(ui_store *st, int rdd_id)
{
    bool found;
    size_t i = rdd_pos(st, rdd_id, &found);
    if (found) return st->rdds[i];
    if (st->nrdds == st->caprdds) {
        st->caprdds = st->caprdds ? 2 * st->caprdds : 8;
        st->rdds = cs_xrealloc(st->rdds, st->caprdds * sizeof *st->rdds);
    }
    memmove(st->rdds + i + 1, st->rdds + i, (st->nrdds - i) * sizeof *st->rdds);
    ui_rdd *r = cs_xcalloc(1, sizeof *r);
    r->id = rdd_id;
    r->storage_level = cs_ui_storage_level_name(CSPARK_STORAGE_NONE);
    st->rdds[i] = r;
    st->nrdds++;
    return r;
}

static void rdd_free(ui_rdd *r)
{
    for (int i = 0; i < r->num_parts; i++)
        free(r->parts[i].copies);
    free(r->parts);
    cs_hmap_free(&r->part_index);
    free(r->name);
    free(r);
}

void cs_ui_storage_stage_rdds(ui_store *st, const cs_rdd_info *infos, int n)
{
    for (int i = 0; i < n; i++) {
        const cs_rdd_info *info = &infos[i];
        if (info->storage_level == CSPARK_STORAGE_NONE) continue;
        ui_rdd *r = rdd_get(st, info->id);
        if (info->name && (!r->name || strcmp(r->name, info->name) != 0)) {
            free(r->name);
            r->name = cs_xstrdup(info->name);
        }
        r->num_partitions = info->num_partitions;
        r->level = info->storage_level;
        r->storage_level = cs_ui_storage_level_name(info->storage_level);
    }
}

/* The executor's and the RDD's totals move by what one copy changed (old -> new; a missing copy
 * takes nothing). */
static void account(ui_store *st, ui_rdd *r, const char *executor_id, const ui_block_copy *old,
                    const ui_block_copy *now)
{
    int64_t dmem = (now ? now->memory_size : 0) - (old ? old->memory_size : 0);
    int64_t ddisk = (now ? now->disk_size : 0) - (old ? old->disk_size : 0);
    r->memory_used += dmem;
    r->disk_used += ddisk;
    ui_executor *e = cs_ui_find_exec(st, executor_id);
    if (!e) return;
    e->memory_used += dmem;
    e->disk_used += ddisk;
    e->rdd_blocks += (now != NULL) - (old != NULL);
    if (e->memory_used < 0) e->memory_used = 0;
    if (e->disk_used < 0) e->disk_used = 0;
    if (e->rdd_blocks < 0) e->rdd_blocks = 0;
}

/* Removes parts[i] (the last one takes its place). */
static void part_remove(ui_rdd *r, int i)
{
    ui_rdd_partition *p = &r->parts[i];
    cs_hmap_del(&r->part_index, (uint64_t)(uint32_t)p->partition);
    free(p->copies);
    if (i != r->num_parts - 1) {
        *p = r->parts[r->num_parts - 1];
        cs_hmap_put(&r->part_index, (uint64_t)(uint32_t)p->partition, (uint64_t)i);
    }
    r->num_parts--;
    r->num_cached_partitions = r->num_parts;
}

/* Drops copy c of parts[i], accounting for it; the partition goes with its last copy. */
static void copy_remove(ui_store *st, ui_rdd *r, int i, int c)
{
    ui_rdd_partition *p = &r->parts[i];
    ui_block_copy old = p->copies[c];
    account(st, r, old.executor_id, &old, NULL);
    p->copies[c] = p->copies[--p->num_copies];
    if (p->num_copies == 0) part_remove(r, i);
}

static void block_update(ui_store *st, const char *executor_id, const cs_block_status *b)
{
    ui_rdd *r = rdd_get(st, b->rdd_id);
    r->reported = true;
    uint64_t v;
    int i = cs_hmap_get(&r->part_index, (uint64_t)(uint32_t)b->partition, &v) ? (int)v : -1;
    int c = -1;
    for (int k = 0; i >= 0 && k < r->parts[i].num_copies; k++)
        if (r->parts[i].copies[k].executor_id == executor_id) c = k; /* interned: same pointer */
    if (b->level == CSPARK_STORAGE_NONE) {
        if (c >= 0) copy_remove(st, r, i, c);
        return;
    }
    if (i < 0) {
        if (r->num_parts == r->cap_parts) {
            r->cap_parts = r->cap_parts ? 2 * r->cap_parts : 8;
            r->parts = cs_xrealloc(r->parts, (size_t)r->cap_parts * sizeof *r->parts);
        }
        i = r->num_parts++;
        r->parts[i] = (ui_rdd_partition){.partition = b->partition};
        cs_hmap_put(&r->part_index, (uint64_t)(uint32_t)b->partition, (uint64_t)i);
        r->num_cached_partitions = r->num_parts;
    }
    ui_rdd_partition *p = &r->parts[i];
    ui_block_copy now = {executor_id, b->level, b->memory_size, b->disk_size};
    if (c >= 0) {
        ui_block_copy old = p->copies[c];
        p->copies[c] = now;
        account(st, r, executor_id, &old, &now);
        return;
    }
    if (p->num_copies == p->cap_copies) {
        p->cap_copies = p->cap_copies ? 2 * p->cap_copies : 1;
        p->copies = cs_xrealloc(p->copies, (size_t)p->cap_copies * sizeof *p->copies);
    }
    p->copies[p->num_copies++] = now;
    account(st, r, executor_id, NULL, &now);
}

void cs_ui_storage_blocks(ui_store *st, const char *executor_id, const cs_block_status *blocks,
                          int n)
{
    if (!blocks || n <= 0) return;
    const char *exec = cs_ui_intern(st, executor_id ? executor_id : "driver");
    for (int k = 0; k < n; k++)
        block_update(st, exec, &blocks[k]);
}

void cs_ui_storage_unpersist(ui_store *st, int rdd_id)
{
    bool found;
    size_t pos = rdd_pos(st, rdd_id, &found);
    if (!found) return;
    ui_rdd *r = st->rdds[pos];
    while (r->num_parts > 0) /* each copy leaves its executor's totals */
        copy_remove(st, r, r->num_parts - 1, r->parts[r->num_parts - 1].num_copies - 1);
    rdd_free(r);
    memmove(st->rdds + pos, st->rdds + pos + 1, (st->nrdds - pos - 1) * sizeof *st->rdds);
    st->nrdds--;
}

void cs_ui_storage_executor_removed(ui_store *st, const char *executor_id)
{
    const char *exec = cs_ui_intern(st, executor_id ? executor_id : "");
    ui_executor *e = cs_ui_find_exec(st, exec);
    ui_executor kept = e ? *e : (ui_executor){0};
    for (size_t k = 0; k < st->nrdds; k++) {
        ui_rdd *r = st->rdds[k];
        for (int i = r->num_parts; i-- > 0;) {
            ui_rdd_partition *p = &r->parts[i];
            for (int c = p->num_copies; c-- > 0;)
                if (p->copies[c].executor_id == exec) {
                    copy_remove(st, r, i, c); /* may move parts[last] to i: already visited */
                    break;
                }
        }
    }
    if (e) { /* a dead executor shows what it held when it went, as Spark's */
        e->rdd_blocks = kept.rdd_blocks;
        e->memory_used = kept.memory_used;
        e->disk_used = kept.disk_used;
    }
}

bool cs_ui_rdd_share(const ui_rdd *r, const char *executor_id, int64_t *memory, int64_t *disk)
{
    bool holds = false;
    *memory = *disk = 0;
    for (int p = 0; p < r->num_parts; p++)
        for (int c = 0; c < r->parts[p].num_copies; c++)
            if (r->parts[p].copies[c].executor_id == executor_id) {
                holds = true;
                *memory += r->parts[p].copies[c].memory_size;
                *disk += r->parts[p].copies[c].disk_size;
            }
    return holds;
}

static int part_cmp(const void *a, const void *b)
{
    int x = (*(const ui_rdd_partition *const *)a)->partition;
    int y = (*(const ui_rdd_partition *const *)b)->partition;
    return (x > y) - (x < y);
}

const ui_rdd_partition **cs_ui_rdd_parts_sorted(const ui_rdd *r)
{
    const ui_rdd_partition **sorted = cs_xmalloc(((size_t)r->num_parts + 1) * sizeof *sorted);
    for (int p = 0; p < r->num_parts; p++)
        sorted[p] = &r->parts[p];
    qsort(sorted, (size_t)r->num_parts, sizeof *sorted, part_cmp);
    return sorted;
}

void cs_ui_storage_free(ui_store *st)
{
    for (size_t i = 0; i < st->nrdds; i++)
        rdd_free(st->rdds[i]);
    free(st->rdds);
    st->rdds = NULL;
    st->nrdds = st->caprdds = 0;
}
