/*
 * range.c — the kind RDD_RANGE (cspark_range; Spark's SparkContext.range): the i64 values start,
 * start + step, ... before end, split evenly over the partitions, generated in the task. An entry
 * of the table of kinds (plan/rdd_kind.h).
 *
 * Ownership: the iterator owns its output batch; one task thread.
 */
#include <stdlib.h>

#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_range_new(lineage_graph *g, int64_t start, int64_t end, int64_t step,
                             int num_slices, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_RANGE, num_slices, name);
    r->range_start = start;
    r->range_end = end;
    r->range_step = step;
    return r;
}

static int range_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (r->range_step == 0) return cs_rdd_kind_proto_error(err, idx, "range step 0");
    return 0;
}

typedef struct range_iter {
    part_iter base;
    int64_t next_value, step;
    uint64_t remaining;
    cs_batch out;
} range_iter;

static int range_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    (void)err;
    range_iter *r = (range_iter *)it;
    if (!r->remaining) return 0;
    cs_batch_reset(&r->out);
    uint64_t n = r->remaining < CS_BATCH_TARGET_RECORDS ? r->remaining : CS_BATCH_TARGET_RECORDS;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *k = batch_append(&r->out, 8, 0);
        cspark_i64_encode(r->next_value, k);
        r->next_value += r->step;
    }
    r->remaining -= n;
    *out = &r->out;
    return 1;
}

static void range_free(part_iter *it)
{
    range_iter *r = (range_iter *)it;
    cs_batch_free(&r->out);
    free(r);
}

static part_iter *range_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    (void)tc;
    (void)err;
    range_iter *r = cs_xcalloc(1, sizeof *r);
    r->base.next = range_next;
    r->base.free = range_free;
    __int128 span = (__int128)rdd->range_end - rdd->range_start;
    __int128 step = rdd->range_step;
    if (step < 0) {
        span = -span;
        step = -step;
    }
    __int128 total = span <= 0 ? 0 : (span + step - 1) / step;
    __int128 lo = total * partition / rdd->num_partitions;
    __int128 hi = total * (partition + 1) / rdd->num_partitions;
    r->remaining = (uint64_t)(hi - lo);
    r->next_value = (int64_t)(rdd->range_start + lo * rdd->range_step);
    r->step = rdd->range_step;
    return &r->base;
}

const cs_rdd_kind cs_rdd_kind_range = {
    .kind = RDD_RANGE,
    .spark_class = "RangeRDD",
    .num_parents = 0,
    .decode = range_decode,
    .compute = range_compute,
};
