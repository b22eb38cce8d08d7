/*
 * part_iter.c — opens the iterator of one partition of an RDD inside a task (see part_iter.h):
 * its cached block when the RDD is persisted (cache_iter.c), else the iterator its kind's entry
 * in the table of kinds computes it with (plan/rdd_kind.h: sources, narrow iterators in
 * narrow_iter.c, the shuffled read in shuffled_read.c, ...).
 */
#include "exec/part_iter.h"

#include "common/err.h"
#include "plan/rdd_kind.h"

part_iter *cs_part_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition, cs_error *err)
{
    if (rdd->storage_level != CSPARK_STORAGE_NONE && tc->env->block_manager)
        return cs_cache_iter_open(tc, rdd, partition, err);
    return cs_part_iter_compute(tc, rdd, partition, err);
}

part_iter *cs_part_iter_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    const cs_rdd_kind *k = cs_rdd_kind_of(rdd->kind);
    if (!k || !k->compute) {
        cs_error_set(err, CS_EINVAL, "internal: unknown RDD kind %d", (int)rdd->kind);
        return NULL;
    }
    return k->compute(tc, rdd, partition, err);
}

void cs_part_iter_free(part_iter *it)
{
    if (it) it->free(it);
}
