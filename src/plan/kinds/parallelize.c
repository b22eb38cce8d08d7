/*
 * parallelize.c — the kind RDD_PARALLELIZE, Spark's ParallelCollectionRDD: records held by the
 * node (built on the driver by cspark_parallelize, carried to executors in the stage plan as one
 * uncompressed recio buffer) and sliced into partitions at par_offsets. An entry of the table of
 * kinds (plan/rdd_kind.h); its iterator copies the slice's records batch by batch.
 *
 * Ownership: the node owns its records and offsets (freed with its graph); the iterator borrows
 * them and owns its output batch. The iterator lives on one task thread.
 */
#include <stdlib.h>
#include <string.h>

#include "records/recio.h"
#include "exec/part_iter.h"
#include "plan/pb_helpers.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_parallelize_new(lineage_graph *g, cs_batch *records, const size_t *offsets,
                                   int num_slices, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_PARALLELIZE, num_slices, name);
    cs_batch_free(&r->par_data);
    r->par_data = *records;
    cs_batch_init(records);
    r->par_offsets = cs_xmalloc(((size_t)num_slices + 1) * sizeof *r->par_offsets);
    memcpy(r->par_offsets, offsets, ((size_t)num_slices + 1) * sizeof *r->par_offsets);
    return r;
}

static int parallelize_encode(const cspark_rdd *r, Cspark__RddNode *p, cs_error *err)
{
    int np = r->num_partitions;
    if (!r->par_offsets)
        return cs_error_set(err, CS_EINVAL, "parallelize node %d: no slices", r->id);
    p->par_data = cs_pb_records(&r->par_data);
    p->par_offsets = cs_xmalloc(((size_t)np + 1) * sizeof *p->par_offsets);
    for (int i = 0; i <= np; i++)
        p->par_offsets[i] = r->par_offsets[i];
    p->n_par_offsets = (size_t)np + 1;
    return 0;
}

static int parallelize_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    size_t unp = (size_t)r->num_partitions;
    if (pb->n_par_offsets != unp + 1)
        return cs_rdd_kind_proto_error(err, idx, "%zu slice offsets for %d partitions",
                                       pb->n_par_offsets, r->num_partitions);
    if (pb->par_data.len) {
        if (!pb->par_data.data) return cs_rdd_kind_proto_error(err, idx, "no data");
        if (cs_recio_decode_all(pb->par_data.data, pb->par_data.len, &r->par_data, err) < 0)
            return cs_rdd_kind_proto_error(err, idx, "corrupt parallelize data");
    }
    r->par_offsets = cs_xmalloc((unp + 1) * sizeof *r->par_offsets);
    for (size_t i = 0; i <= unp; i++) {
        if (pb->par_offsets[i] > r->par_data.n ||
            (i && pb->par_offsets[i] < pb->par_offsets[i - 1]))
            return cs_rdd_kind_proto_error(err, idx, "bad slice offset %llu",
                                           (unsigned long long)pb->par_offsets[i]);
        r->par_offsets[i] = (size_t)pb->par_offsets[i];
    }
    return 0;
}

typedef struct par_iter {
    part_iter base;
    const cs_batch *src;
    size_t i, end;
    cs_batch out;
} par_iter;

static int par_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    (void)err;
    par_iter *p = (par_iter *)it;
    if (p->i >= p->end) return 0;
    cs_batch_reset(&p->out);
    while (p->i < p->end && !batch_full(&p->out)) {
        cspark_record r = batch_get(p->src, p->i++);
        cs_batch_append_record(&p->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    }
    *out = &p->out;
    return 1;
}

static void par_free(part_iter *it)
{
    par_iter *p = (par_iter *)it;
    cs_batch_free(&p->out);
    free(p);
}

static part_iter *parallelize_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                      cs_error *err)
{
    (void)tc;
    (void)err;
    par_iter *p = cs_xcalloc(1, sizeof *p);
    p->base.next = par_next;
    p->base.free = par_free;
    p->src = &rdd->par_data;
    p->i = rdd->par_offsets[partition];
    p->end = rdd->par_offsets[partition + 1];
    return &p->base;
}

const cs_rdd_kind cs_rdd_kind_parallelize = {
    .kind = RDD_PARALLELIZE,
    .spark_class = "ParallelCollectionRDD",
    .num_parents = 0,
    .encode = parallelize_encode,
    .decode = parallelize_decode,
    .compute = parallelize_compute,
};
