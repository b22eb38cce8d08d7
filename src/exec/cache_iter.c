/*
 * cache_iter.c — the partitions of persisted RDDs inside a task (Spark's RDD.getOrCompute): the
 * block held by this process is read from its block manager; else a block held by another
 * executor (the task's block locations, from the driver's block registry) is fetched from that
 * executor's block server; else the task claims the block (cs_block_manager_claim): the first
 * task computes the partition from its lineage and stores it as its batches pass on to the
 * consumer (a tee: nothing is computed or materialised twice), becoming a block once the
 * partition has been read to its end; a task of another stage needing the same partition
 * meanwhile (two sides of a join over one cached RDD) waits for that writer and reads its block,
 * or computes it itself when the writer gave up. A block that cannot be fetched or read is
 * computed instead, so a lost or evicted block costs time, never a wrong answer. Called from
 * cs_part_iter_open (part_iter.c) for nodes with a storage level.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "blocktransfer/block_fetcher.h"
#include "exec/part_iter.h"
#include "storage/block_manager.h"
#include "storage/memory_store.h"

static const char *COMP = "cache";

/* ---- a block held here --------------------------------------------------------------------- */

typedef struct local_iter {
    part_iter base;
    block_reader *r;
    block_manager *bm;
    int rdd_id, partition;
} local_iter;

/* A block file found corrupt fails this attempt and is removed, so the retry recomputes it. */
static int local_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    local_iter *l = (local_iter *)it;
    int rc = cs_block_reader_next(l->r, out, err);
    if (rc < 0) {
        CS_WARN(COMP, "event=block_corrupt block=rdd_%d_%d reason=%s", l->rdd_id, l->partition,
                cs_log_quote(err->msg));
        cs_block_manager_remove(l->bm, l->rdd_id, l->partition);
    }
    return rc;
}

static void local_free(part_iter *it)
{
    cs_block_reader_free(((local_iter *)it)->r);
    free(it);
}

/* ---- a block fetched from another executor ------------------------------------------------- */

typedef struct fetched_iter {
    part_iter base;
    cs_block_data data;
    int next;
} fetched_iter;

static int fetched_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    fetched_iter *f = (fetched_iter *)it;
    (void)err;
    if (f->next >= f->data.n) return 0;
    *out = &f->data.batches[f->next++];
    return 1;
}

static void fetched_free(part_iter *it)
{
    cs_block_data_free(&((fetched_iter *)it)->data);
    free(it);
}

static part_iter *fetch_remote(cspark_task_context *tc, const cspark_rdd *rdd, int partition)
{
    const task_desc *t = tc->task;
    if (!tc->env->fetcher) return NULL;
    for (int i = 0; i < t->num_block_locs; i++) {
        const cs_block_location *loc = &t->block_locs[i];
        if (loc->rdd_id != rdd->id || loc->partition != partition || !loc->host[0] ||
            loc->port <= 0 || strcmp(loc->executor_id, tc->env->executor_id) == 0)
            continue;
        uint8_t *bytes = NULL;
        size_t len = 0;
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_block_fetcher_fetch_rdd_block(tc->env->fetcher, loc->host, loc->port,
                                                  loc->executor_id, rdd->id, partition, &bytes,
                                                  &len, &err);
        fetched_iter *f = NULL;
        if (rc == 0) {
            f = cs_xcalloc(1, sizeof *f);
            rc = cs_block_data_decode(bytes, len, &f->data, &err);
        }
        free(bytes);
        if (rc == 0) {
            f->base.next = fetched_next;
            f->base.free = fetched_free;
            return &f->base;
        }
        free(f);
        CS_WARN(COMP, "task=%lld event=remote_block_unavailable block=rdd_%d_%d reason=%s",
                (long long)t->task_id, rdd->id, partition, cs_log_quote(err.msg));
    }
    return NULL;
}

/* ---- computed and stored as it passes ------------------------------------------------------ */

typedef struct tee_iter {
    part_iter base;
    part_iter *src;
    block_writer *w;
} tee_iter;

static int tee_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    tee_iter *t = (tee_iter *)it;
    int rc = t->src->next(t->src, out, err);
    if (rc > 0 && t->w) cs_block_writer_add(t->w, *out);
    if (rc == 0 && t->w) {
        cs_block_writer_commit(t->w, NULL); /* the status reaches the driver with the result */
        t->w = NULL;
    }
    if (rc < 0 && t->w) {
        cs_block_writer_abort(t->w);
        t->w = NULL;
    }
    return rc;
}

static void tee_free(part_iter *it)
{
    tee_iter *t = (tee_iter *)it;
    cs_block_writer_abort(t->w); /* not read to its end (take): nothing stored */
    cs_part_iter_free(t->src);
    free(t);
}

static part_iter *local_open(block_manager *bm, block_reader *r, int rdd_id, int partition)
{
    local_iter *l = cs_xcalloc(1, sizeof *l);
    l->base.next = local_next;
    l->base.free = local_free;
    l->r = r;
    l->bm = bm;
    l->rdd_id = rdd_id;
    l->partition = partition;
    return &l->base;
}

part_iter *cs_cache_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                              cs_error *err)
{
    block_manager *bm = tc->env->block_manager;
    block_reader *r = cs_block_manager_get(bm, rdd->id, partition);
    if (r) return local_open(bm, r, rdd->id, partition);
    part_iter *remote = fetch_remote(tc, rdd, partition);
    if (remote) return remote;
    block_writer *w = NULL;
    cs_block_claim claim = cs_block_manager_claim(bm, rdd->id, partition, rdd->storage_level,
                                                  tc->task->task_id, tc->task->cancelled, &w, &r);
    if (claim == CS_BLOCK_CLAIM_READ) return local_open(bm, r, rdd->id, partition);
    part_iter *src = cs_part_iter_compute(tc, rdd, partition, err);
    if (!src) {
        cs_block_writer_abort(w); /* releases the block for the tasks waiting on it */
        return NULL;
    }
    tee_iter *t = cs_xcalloc(1, sizeof *t);
    t->base.next = tee_next;
    t->base.free = tee_free;
    t->src = src;
    t->w = w; /* NULL (CS_BLOCK_CLAIM_COMPUTE): computed, not stored */
    return &t->base;
}
