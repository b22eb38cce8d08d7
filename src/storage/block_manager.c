/*
 * block_manager.c — the cached partitions of one process: entries in a hash table by block id, a
 * least-recently-used list of those in memory, storage accounting in the unified memory pool,
 * eviction (to disk or dropped), pinning for readers, write locks for blocks being computed,
 * and the queue of block changes reported to the driver (see block_manager.h). Called by the
 * task runner's cache iterator (src/exec), the executor (RemoveRdd, block server) and the local
 * backend.
 *
 * Write locks (Spark's BlockInfoManager.lockNewBlockForWriting): `writing` maps a block being
 * computed to the task computing it; `waiting` lists the tasks blocked on such a block, so that
 * a task whose wait would close a cycle (the writer it would wait for waits, directly or through
 * other writers, for a block this task writes) computes without storing instead of waiting. Every
 * release (commit or abort of the writer, whatever the task's fate: its iterators are freed
 * when it fails or is cancelled) broadcasts `written`. Everything under `lock`.
 */
#define _GNU_SOURCE
#include "storage/block_manager.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_entries.h"
#include "common/hmap.h"
#include "common/log.h"
#include "common/sync.h"
#include "cspark.h"
#include "storage/disk_store.h"
#include "storage/memory_store.h"

typedef struct entry {
    struct entry *prev, *next; /* LRU list of blocks in memory: head = least recently used */
    int rdd_id, partition, level;
    cs_block_data mem;
    bool in_memory, on_disk;
    int64_t disk_size;
    int pins;  /* readers */
    bool dead; /* removed while pinned: freed by the last reader */
} entry;

struct block_manager {
    pthread_mutex_t lock;
    cs_hmap blocks; /* block key -> entry * */
    entry *lru_head, *lru_tail;
    cs_memory_pool pool;
    char *dir;
    bool compress;
    cs_checksum_algo checksum;
    int64_t disk_used;
    cs_block_status *updates;
    int num_updates, cap_updates;
    cs_hmap writing;        /* block key -> task id holding its write lock */
    pthread_cond_t written; /* a write lock was released */
    struct block_waiter {
        int64_t task_id;
        uint64_t key;
    } * waiting; /* tasks blocked in cs_block_manager_claim */
    int num_waiting, cap_waiting;
};

static uint64_t block_key(int rdd_id, int partition)
{
    return ((uint64_t)(uint32_t)rdd_id << 32) | (uint32_t)partition;
}

static const char *COMP = "block-manager";

/* ---- options ------------------------------------------------------------------------------- */

int cs_block_manager_options_read(const cs_conf *conf, block_manager_options *o, cs_error *err)
{
    if (cs_conf_entry_double(conf, "spark.memory.fraction", &o->memory_fraction, err) < 0 ||
        cs_conf_get_double(conf, "spark.memory.storageFraction", "0.5", &o->storage_fraction, err) <
            0 ||
        cs_conf_get_bool(conf, "spark.rdd.compress", "false", &o->compress, err) < 0)
        return err->code;
    if (!(o->memory_fraction > 0 && o->memory_fraction <= 1))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.memory.fraction: '%s' (expected a number in "
                            "(0, 1])",
                            cs_conf_get(conf, "spark.memory.fraction"));
    if (!(o->storage_fraction >= 0 && o->storage_fraction < 1))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.memory.storageFraction: '%s' (expected a "
                            "number in [0, 1))",
                            cs_conf_get(conf, "spark.memory.storageFraction"));
    return 0;
}

/* ---- the LRU list and updates (lock held) ---------------------------------------------------- */

static void lru_unlink(block_manager *bm, entry *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else if (bm->lru_head == e)
        bm->lru_head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else if (bm->lru_tail == e)
        bm->lru_tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_append(block_manager *bm, entry *e)
{
    e->prev = bm->lru_tail;
    e->next = NULL;
    if (bm->lru_tail)
        bm->lru_tail->next = e;
    else
        bm->lru_head = e;
    bm->lru_tail = e;
}

static void queue_update(block_manager *bm, const entry *e)
{
    if (bm->num_updates == bm->cap_updates) {
        bm->cap_updates = bm->cap_updates ? bm->cap_updates * 2 : 16;
        bm->updates = cs_xrealloc(bm->updates, (size_t)bm->cap_updates * sizeof *bm->updates);
    }
    bool held = e->in_memory || e->on_disk;
    bm->updates[bm->num_updates++] =
        (cs_block_status){e->rdd_id, e->partition, held ? e->level : CSPARK_STORAGE_NONE,
                          e->in_memory ? e->mem.bytes : 0, e->on_disk ? e->disk_size : 0};
}

static void path_of(const block_manager *bm, const entry *e, char *out, size_t cap)
{
    cs_disk_store_path(bm->dir, e->rdd_id, e->partition, out, cap);
}

/* Frees e's memory copy (storage accounting included). */
static void drop_memory(block_manager *bm, entry *e)
{
    if (!e->in_memory) return;
    lru_unlink(bm, e);
    atomic_fetch_sub(&bm->pool.storage_used, e->mem.bytes);
    cs_block_data_free(&e->mem);
    e->in_memory = false;
}

static void drop_disk(block_manager *bm, entry *e)
{
    if (!e->on_disk) return;
    char path[4096];
    path_of(bm, e, path, sizeof path);
    unlink(path);
    bm->disk_used -= e->disk_size;
    e->on_disk = false;
    e->disk_size = 0;
}

static void entry_free(block_manager *bm, entry *e)
{
    drop_memory(bm, e);
    drop_disk(bm, e);
    free(e);
}

/* e is gone from the table; freed now or by its last reader. */
static void entry_remove(block_manager *bm, entry *e)
{
    cs_hmap_del(&bm->blocks, block_key(e->rdd_id, e->partition));
    if (e->pins > 0) {
        e->dead = true;
        lru_unlink(bm, e); /* not evictable any more; memory freed by the last reader */
        return;
    }
    entry_free(bm, e);
}

/* Writes a MEMORY_AND_DISK block's records to its file before its memory goes. */
static bool spill_to_disk(block_manager *bm, entry *e)
{
    char path[4096];
    path_of(bm, e, path, sizeof path);
    cs_error err;
    cs_error_clear(&err);
    disk_writer *w = cs_disk_writer_open(path, bm->compress, bm->checksum, &err);
    int rc = w ? 0 : err.code;
    for (int i = 0; w && rc == 0 && i < e->mem.n; i++)
        rc = cs_disk_writer_add(w, &e->mem.batches[i], &err);
    int64_t size = 0;
    if (w && rc == 0)
        rc = cs_disk_writer_close(w, &size, &err);
    else if (w)
        cs_disk_writer_abort(w);
    if (rc < 0) {
        CS_WARN(COMP, "event=evict_to_disk_failed block=rdd_%d_%d reason=%s", e->rdd_id,
                e->partition, cs_log_quote(err.msg));
        return false;
    }
    e->on_disk = true;
    e->disk_size = size;
    bm->disk_used += size;
    return true;
}

/* Evicts least recently used unpinned blocks of RDDs other than keep_rdd (-1: any) until `need`
 * bytes are freed or nothing more can go. Returns the bytes freed. */
static int64_t evict(block_manager *bm, int64_t need, int keep_rdd)
{
    int64_t freed = 0;
    entry *e = bm->lru_head;
    while (e && freed < need) {
        entry *next = e->next;
        if (e->pins == 0 && e->rdd_id != keep_rdd) {
            int64_t bytes = e->mem.bytes;
            bool to_disk = e->level == CSPARK_MEMORY_AND_DISK && !e->on_disk;
            if (to_disk) to_disk = spill_to_disk(bm, e);
            drop_memory(bm, e);
            freed += bytes;
            CS_INFO(COMP, "event=block_evicted block=rdd_%d_%d bytes=%lld to=%s", e->rdd_id,
                    e->partition, (long long)bytes, e->on_disk ? "disk" : "dropped");
            queue_update(bm, e);
            if (!e->on_disk) entry_remove(bm, e);
        }
        e = next;
    }
    return freed;
}

/* Reserves n bytes of storage memory, evicting blocks of other RDDs when needed. */
static bool reserve_storage(block_manager *bm, int64_t n, int rdd_id)
{
    pthread_mutex_lock(&bm->lock);
    int64_t short_by = cs_memory_pool_storage_shortfall(&bm->pool, n);
    if (short_by > 0) evict(bm, short_by, rdd_id);
    bool ok = cs_memory_pool_storage_shortfall(&bm->pool, n) == 0;
    if (ok) atomic_fetch_add(&bm->pool.storage_used, n);
    pthread_mutex_unlock(&bm->lock);
    return ok;
}

static void release_storage(block_manager *bm, int64_t n)
{
    atomic_fetch_sub(&bm->pool.storage_used, n);
}

/* Execution grew past the pool: storage above its region gives memory back. */
static void reclaim_for_execution(void *arg, int64_t bytes)
{
    block_manager *bm = arg;
    pthread_mutex_lock(&bm->lock);
    int64_t excess = cs_memory_pool_execution_excess(&bm->pool);
    if (excess > bytes) excess = bytes;
    if (excess > 0) evict(bm, excess, -1);
    pthread_mutex_unlock(&bm->lock);
}

/* ---- lifecycle ------------------------------------------------------------------------------ */

block_manager *cs_block_manager_new(const block_manager_options *o)
{
    block_manager *bm = cs_xcalloc(1, sizeof *bm);
    pthread_mutex_init(&bm->lock, NULL);
    cs_cond_init_monotonic(&bm->written);
    bm->dir = cs_xstrdup(o->local_dir ? o->local_dir : ".");
    bm->compress = o->compress;
    bm->checksum = o->checksum;
    bm->pool.max = (int64_t)((double)o->executor_memory * o->memory_fraction);
    bm->pool.storage_region = (int64_t)((double)bm->pool.max * o->storage_fraction);
    bm->pool.slots = o->slots > 0 ? o->slots : 1;
    atomic_init(&bm->pool.execution_used, 0);
    atomic_init(&bm->pool.storage_used, 0);
    bm->pool.reclaim = reclaim_for_execution;
    bm->pool.reclaim_arg = bm;
    return bm;
}

void cs_block_manager_free(block_manager *bm)
{
    if (!bm) return;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&bm->blocks, &pos, NULL, &v))
        entry_free(bm, (entry *)(uintptr_t)v);
    cs_hmap_free(&bm->blocks);
    cs_hmap_free(&bm->writing);
    free(bm->waiting);
    pthread_cond_destroy(&bm->written);
    free(bm->updates);
    free(bm->dir);
    pthread_mutex_destroy(&bm->lock);
    free(bm);
}

cs_memory_pool *cs_block_manager_pool(block_manager *bm)
{
    return &bm->pool;
}

/* ---- reading -------------------------------------------------------------------------------- */

struct block_reader {
    block_manager *bm;
    entry *e;
    int next;          /* memory: the next batch */
    disk_reader *disk; /* disk: the file */
    cs_batch buf;
};

static entry *find(block_manager *bm, int rdd_id, int partition)
{
    uint64_t v;
    return cs_hmap_get(&bm->blocks, block_key(rdd_id, partition), &v) ? (entry *)(uintptr_t)v
                                                                      : NULL;
}

static void unpin(block_manager *bm, entry *e)
{
    pthread_mutex_lock(&bm->lock);
    if (--e->pins == 0 && e->dead) entry_free(bm, e);
    pthread_mutex_unlock(&bm->lock);
}

block_reader *cs_block_manager_get(block_manager *bm, int rdd_id, int partition)
{
    pthread_mutex_lock(&bm->lock);
    entry *e = find(bm, rdd_id, partition);
    if (!e || (!e->in_memory && !e->on_disk)) {
        pthread_mutex_unlock(&bm->lock);
        return NULL;
    }
    e->pins++;
    if (e->in_memory) { /* most recently used */
        lru_unlink(bm, e);
        lru_append(bm, e);
    }
    block_reader *r = cs_xcalloc(1, sizeof *r);
    r->bm = bm;
    r->e = e;
    char path[4096];
    bool from_disk = !e->in_memory;
    if (from_disk) path_of(bm, e, path, sizeof path);
    pthread_mutex_unlock(&bm->lock);
    if (from_disk) {
        cs_error err;
        cs_error_clear(&err);
        r->disk = cs_disk_reader_open(path, &err);
        if (!r->disk) {
            CS_WARN(COMP, "event=block_unreadable block=rdd_%d_%d reason=%s", rdd_id, partition,
                    cs_log_quote(err.msg));
            unpin(bm, e);
            free(r);
            return NULL;
        }
    }
    cs_batch_init(&r->buf);
    return r;
}

int cs_block_reader_next(block_reader *r, const cs_batch **out, cs_error *err)
{
    if (!r->disk) {
        if (r->next >= r->e->mem.n) return 0;
        *out = &r->e->mem.batches[r->next++];
        return 1;
    }
    int rc = cs_disk_reader_next(r->disk, &r->buf, err);
    if (rc > 0) *out = &r->buf;
    return rc;
}

void cs_block_reader_free(block_reader *r)
{
    if (!r) return;
    cs_disk_reader_free(r->disk);
    cs_batch_free(&r->buf);
    unpin(r->bm, r->e);
    free(r);
}

int cs_block_manager_get_bytes(block_manager *bm, int rdd_id, int partition, uint8_t **data,
                               size_t *len, cs_error *err)
{
    block_reader *r = cs_block_manager_get(bm, rdd_id, partition);
    if (!r)
        return cs_error_set(err, CS_ENOTFOUND, "block rdd_%d_%d is not held here", rdd_id,
                            partition);
    int rc = 0;
    if (!r->disk) {
        *data = cs_block_data_encode(&r->e->mem, bm->checksum, len);
    } else {
        char path[4096];
        path_of(bm, r->e, path, sizeof path);
        rc = cs_disk_store_read_all(path, data, len, err);
    }
    cs_block_reader_free(r);
    return rc;
}

/* ---- writing -------------------------------------------------------------------------------- */

struct block_writer {
    block_manager *bm;
    int rdd_id, partition, level;
    cs_block_data mem; /* its bytes are reserved in the pool */
    disk_writer *disk;
    bool given_up;
    bool locked; /* holds the block's write lock (cs_block_manager_claim) */
};

/* Releases w's write lock, if it holds one, and wakes the tasks waiting for a block. */
static void release_write_lock_locked(block_writer *w)
{
    if (!w->locked) return;
    cs_hmap_del(&w->bm->writing, block_key(w->rdd_id, w->partition));
    w->locked = false;
    pthread_cond_broadcast(&w->bm->written);
}

static void release_write_lock(block_writer *w)
{
    if (!w->locked) return;
    pthread_mutex_lock(&w->bm->lock);
    release_write_lock_locked(w);
    pthread_mutex_unlock(&w->bm->lock);
}

block_writer *cs_block_manager_writer(block_manager *bm, int rdd_id, int partition, int level)
{
    block_writer *w = cs_xcalloc(1, sizeof *w);
    w->bm = bm;
    w->rdd_id = rdd_id;
    w->partition = partition;
    w->level = level;
    return w;
}

static void writer_give_up(block_writer *w, const char *why)
{
    CS_INFO(COMP, "event=block_not_stored block=rdd_%d_%d level=%d reason=%s", w->rdd_id,
            w->partition, w->level, cs_log_quote(why));
    release_storage(w->bm, w->mem.bytes);
    cs_block_data_free(&w->mem);
    cs_disk_writer_abort(w->disk);
    w->disk = NULL;
    w->given_up = true;
}

static bool writer_open_disk(block_writer *w)
{
    char path[4096];
    cs_disk_store_path(w->bm->dir, w->rdd_id, w->partition, path, sizeof path);
    /* a task's own temporary name: another task may store the same block meanwhile */
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%p.tmp", path, (void *)w);
    cs_error err;
    cs_error_clear(&err);
    w->disk = cs_disk_writer_open(tmp, w->bm->compress, w->bm->checksum, &err);
    if (!w->disk) {
        writer_give_up(w, err.msg);
        return false;
    }
    for (int i = 0; i < w->mem.n; i++)
        if (cs_disk_writer_add(w->disk, &w->mem.batches[i], &err) < 0) {
            writer_give_up(w, err.msg);
            return false;
        }
    release_storage(w->bm, w->mem.bytes);
    cs_block_data_free(&w->mem);
    return true;
}

void cs_block_writer_add(block_writer *w, const cs_batch *b)
{
    if (w->given_up || !b->n) return;
    if (!w->disk && w->level == CSPARK_DISK_ONLY && !writer_open_disk(w)) return;
    if (!w->disk) {
        int64_t need = cs_block_data_copy_size(b);
        if (reserve_storage(w->bm, need, w->rdd_id)) {
            cs_block_data_add(&w->mem, b);
            return;
        }
        if (w->level != CSPARK_MEMORY_AND_DISK) {
            writer_give_up(w, "not enough storage memory (spark.memory.fraction, "
                              "spark.memory.storageFraction); recomputed when needed");
            return;
        }
        if (!writer_open_disk(w)) return; /* memory is full: the rest goes to disk */
    }
    cs_error err;
    cs_error_clear(&err);
    if (cs_disk_writer_add(w->disk, b, &err) < 0) writer_give_up(w, err.msg);
}

void cs_block_writer_abort(block_writer *w)
{
    if (!w) return;
    release_write_lock(w);
    release_storage(w->bm, w->mem.bytes);
    cs_block_data_free(&w->mem);
    cs_disk_writer_abort(w->disk);
    free(w);
}

bool cs_block_writer_commit(block_writer *w, cs_block_status *st)
{
    block_manager *bm = w->bm;
    if (w->given_up) {
        release_write_lock(w);
        free(w);
        return false;
    }
    char path[4096], tmp[4200];
    cs_disk_store_path(bm->dir, w->rdd_id, w->partition, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%p.tmp", path, (void *)w);
    bool used_disk = w->disk != NULL;
    int64_t disk_size = 0;
    if (used_disk) {
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_disk_writer_close(w->disk, &disk_size, &err);
        w->disk = NULL;
        if (rc < 0) { /* the writer removed its file */
            writer_give_up(w, err.msg);
            release_write_lock(w);
            free(w);
            return false;
        }
    }
    pthread_mutex_lock(&bm->lock);
    bool stored = !find(bm, w->rdd_id, w->partition); /* else another attempt stored it first */
    if (stored && used_disk && rename(tmp, path) != 0) stored = false;
    if (!stored) {
        pthread_mutex_unlock(&bm->lock);
        if (used_disk) unlink(tmp);
        cs_block_writer_abort(w);
        return false;
    }
    entry *e = cs_xcalloc(1, sizeof *e);
    e->rdd_id = w->rdd_id;
    e->partition = w->partition;
    e->level = w->level;
    if (used_disk) {
        e->on_disk = true;
        e->disk_size = disk_size;
        bm->disk_used += disk_size;
    } else {             /* an empty DISK_ONLY partition too: nothing to write */
        e->mem = w->mem; /* its reservation moves with it */
        memset(&w->mem, 0, sizeof w->mem);
        e->in_memory = true;
        lru_append(bm, e);
    }
    cs_hmap_put(&bm->blocks, block_key(e->rdd_id, e->partition), (uint64_t)(uintptr_t)e);
    queue_update(bm, e);
    if (st) *st = bm->updates[bm->num_updates - 1];
    release_write_lock_locked(w); /* waiters wake to a stored block */
    pthread_mutex_unlock(&bm->lock);
    free(w);
    return true;
}

/* ---- write locks ---------------------------------------------------------------------------- */

/* Under lock: whether `task_id` waiting for a block written by `owner` would close a cycle of
 * waits (owner waits for a block whose writer waits ... for a block task_id writes). */
static bool wait_would_deadlock(const block_manager *bm, int64_t owner, int64_t task_id)
{
    for (int hops = 0; hops <= bm->num_waiting; hops++) {
        if (owner == task_id) return true;
        const struct block_waiter *wt = NULL;
        for (int i = 0; i < bm->num_waiting && !wt; i++)
            if (bm->waiting[i].task_id == owner) wt = &bm->waiting[i];
        uint64_t next;
        if (!wt || !cs_hmap_get(&bm->writing, wt->key, &next)) return false;
        owner = (int64_t)next;
    }
    return false;
}

static void waiting_add(block_manager *bm, int64_t task_id, uint64_t key)
{
    if (bm->num_waiting == bm->cap_waiting) {
        bm->cap_waiting = bm->cap_waiting ? bm->cap_waiting * 2 : 8;
        bm->waiting = cs_xrealloc(bm->waiting, (size_t)bm->cap_waiting * sizeof *bm->waiting);
    }
    bm->waiting[bm->num_waiting++] = (struct block_waiter){task_id, key};
}

static void waiting_remove(block_manager *bm, int64_t task_id)
{
    for (int i = 0; i < bm->num_waiting; i++)
        if (bm->waiting[i].task_id == task_id) {
            bm->waiting[i] = bm->waiting[--bm->num_waiting];
            return;
        }
}

cs_block_claim cs_block_manager_claim(block_manager *bm, int rdd_id, int partition, int level,
                                      int64_t task_id, const atomic_int *cancelled,
                                      block_writer **w, block_reader **r)
{
    uint64_t key = block_key(rdd_id, partition);
    *w = NULL;
    *r = NULL;
    bool waited = false, try_read = true;
    pthread_mutex_lock(&bm->lock);
    for (;;) {
        entry *e = find(bm, rdd_id, partition);
        if (try_read && e && (e->in_memory || e->on_disk)) {
            pthread_mutex_unlock(&bm->lock);
            *r = cs_block_manager_get(bm, rdd_id, partition);
            if (*r) {
                if (waited)
                    CS_INFO(COMP, "task=%lld event=block_read_after_wait block=rdd_%d_%d",
                            (long long)task_id, rdd_id, partition);
                return CS_BLOCK_CLAIM_READ;
            }
            pthread_mutex_lock(&bm->lock); /* gone meanwhile, or its file unreadable */
            try_read = false;
            continue;
        }
        uint64_t owner;
        if (!cs_hmap_get(&bm->writing, key, &owner)) {
            cs_hmap_put(&bm->writing, key, (uint64_t)task_id);
            pthread_mutex_unlock(&bm->lock);
            *w = cs_block_manager_writer(bm, rdd_id, partition, level);
            (*w)->locked = true;
            return CS_BLOCK_CLAIM_WRITE;
        }
        bool deadlock = wait_would_deadlock(bm, (int64_t)owner, task_id);
        if (deadlock || (cancelled && *cancelled)) {
            pthread_mutex_unlock(&bm->lock);
            CS_INFO(COMP,
                    "task=%lld event=block_computed_unstored block=rdd_%d_%d writer=%lld "
                    "reason=%s",
                    (long long)task_id, rdd_id, partition, (long long)owner,
                    deadlock ? "waiting_would_deadlock" : "cancelled");
            return CS_BLOCK_CLAIM_COMPUTE;
        }
        if (!waited)
            CS_INFO(COMP, "task=%lld event=block_wait block=rdd_%d_%d writer=%lld",
                    (long long)task_id, rdd_id, partition, (long long)owner);
        waited = true;
        waiting_add(bm, task_id, key);
        /* woken by the writer's commit or abort; the period only rechecks `cancelled` */
        cs_cond_wait_ms(&bm->written, &bm->lock, 500);
        waiting_remove(bm, task_id);
        try_read = true;
    }
}

/* ---- management ----------------------------------------------------------------------------- */

void cs_block_manager_remove_rdd(block_manager *bm, int rdd_id)
{
    pthread_mutex_lock(&bm->lock);
    size_t pos = 0;
    uint64_t key, v;
    int removed = 0;
    while (cs_hmap_next(&bm->blocks, &pos, &key, &v)) {
        entry *e = (entry *)(uintptr_t)v;
        if (e->rdd_id != rdd_id) continue;
        entry_remove(bm, e);
        removed++;
    }
    pthread_mutex_unlock(&bm->lock);
    if (removed) CS_INFO(COMP, "event=rdd_removed rdd=%d blocks=%d", rdd_id, removed);
}

void cs_block_manager_remove(block_manager *bm, int rdd_id, int partition)
{
    pthread_mutex_lock(&bm->lock);
    entry *e = find(bm, rdd_id, partition);
    if (e) {
        entry_remove(bm, e);
        entry gone = {.rdd_id = rdd_id, .partition = partition};
        queue_update(bm, &gone);
    }
    pthread_mutex_unlock(&bm->lock);
}

int cs_block_manager_drain_updates(block_manager *bm, cs_block_status **out)
{
    pthread_mutex_lock(&bm->lock);
    int n = bm->num_updates;
    *out = n ? bm->updates : NULL;
    if (n) {
        bm->updates = NULL;
        bm->num_updates = bm->cap_updates = 0;
    }
    pthread_mutex_unlock(&bm->lock);
    return n;
}

void cs_block_manager_usage(block_manager *bm, block_manager_usage *u)
{
    memset(u, 0, sizeof *u);
    pthread_mutex_lock(&bm->lock);
    u->memory_used = atomic_load(&bm->pool.storage_used);
    u->disk_used = bm->disk_used;
    u->storage_max = bm->pool.max;
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&bm->blocks, &pos, NULL, &v)) {
        const entry *e = (const entry *)(uintptr_t)v;
        u->blocks_in_memory += e->in_memory;
        u->blocks_on_disk += e->on_disk;
    }
    pthread_mutex_unlock(&bm->lock);
}
