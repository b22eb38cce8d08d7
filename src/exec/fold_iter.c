/*
 * fold_iter.c — the iterator of RDD_FOLD_PARTITION (tree_aggregate's first level, Spark's
 * mapPartitions(it => Iterator(it.aggregate(zero)(seqOp, combOp)))): the values of the parent's
 * partition folded with the node's function from its zero into one record, key = the partition
 * index (cspark_i64), value = the accumulator. Called by part_iter.c.
 *
 * Ownership: the iterator owns its parent's iterator, the accumulator and its output batch. One
 * task thread.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "exec/part_iter.h"

typedef struct fold_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    part_iter *parent;
    bool done;
    cspark_value acc;
    cs_batch out;
} fold_iter;

static int fold_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    fold_iter *f = (fold_iter *)it;
    if (f->done) return 0;
    f->done = true;
    cspark_reduce_fn fn = (cspark_reduce_fn)f->rdd->fn.ptr;
    cs_task_context_enter(f->tc, &f->rdd->fn);
    cspark_value_set(&f->acc, f->rdd->agg.zero, f->rdd->agg.zero_len);
    cs_task_context_enter(f->tc, NULL);
    const cs_batch *b;
    int rc;
    while ((rc = f->parent->next(f->parent, &b, err)) > 0) {
        cs_task_context_enter(f->tc, &f->rdd->fn);
        for (size_t i = 0; i < b->n; i++)
            fn(&f->acc, batch_get(b, i).value, f->tc);
        cs_task_context_enter(f->tc, NULL);
    }
    if (rc < 0) return rc;
    uint8_t *k = batch_append(&f->out, 8, f->acc.len);
    cspark_i64_encode(f->partition, k);
    memcpy(k + 8, f->acc.ptr, f->acc.len);
    *out = &f->out;
    return 1;
}

static void fold_free(part_iter *it)
{
    fold_iter *f = (fold_iter *)it;
    cs_part_iter_free(f->parent);
    free(f->acc.ptr);
    cs_batch_free(&f->out);
    free(f);
}

part_iter *cs_fold_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition, cs_error *err)
{
    part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
    if (!parent) return NULL;
    fold_iter *f = cs_xcalloc(1, sizeof *f);
    f->base.next = fold_next;
    f->base.free = fold_free;
    f->tc = tc;
    f->rdd = rdd;
    f->partition = partition;
    f->parent = parent;
    cs_batch_init(&f->out);
    return &f->base;
}
