/*
 * coalesce.c — the kind RDD_COALESCE, Spark's CoalescedRDD (coalesce without a shuffle): output
 * partition i reads parent partitions group_start[i]..group_start[i+1]-1 one after the other.
 * An entry of the table of kinds (plan/rdd_kind.h).
 *
 * Ownership: the node owns group_start (freed with its graph); the iterator owns the iterator of
 * the parent partition it is reading. One task thread.
 */
#include <stdlib.h>

#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_coalesce_new(lineage_graph *g, cspark_rdd *parent, const int *group_start,
                                int num_partitions, const char *name)
{
    int n = num_partitions;
    cspark_rdd *r = cs_rdd_new(g, RDD_COALESCE, n, name);
    r->parents[0] = parent;
    r->num_parents = 1;
    r->group_start = cs_xcalloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i <= n; i++)
        r->group_start[i] =
            group_start ? group_start[i] : (int)((int64_t)parent->num_partitions * i / n);
    return r;
}

static int coalesce_encode(const cspark_rdd *r, Cspark__RddNode *p, cs_error *err)
{
    if (!r->group_start) return cs_error_set(err, CS_EINVAL, "coalesce node %d: no groups", r->id);
    p->group_start = cs_rdd_kind_ints_to_pb(r->group_start, (size_t)r->num_partitions + 1);
    p->n_group_start = (size_t)r->num_partitions + 1;
    return 0;
}

static int coalesce_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    size_t np = (size_t)r->num_partitions;
    if (pb->n_group_start != np + 1)
        return cs_rdd_kind_proto_error(err, idx, "%zu group starts for %d partitions",
                                       pb->n_group_start, r->num_partitions);
    r->group_start = cs_rdd_kind_ints_from_pb(pb->group_start, np + 1);
    return 0;
}

static int coalesce_check_parents(const cspark_rdd *r, int idx, cs_error *err)
{
    for (int i = 0; i <= r->num_partitions; i++) {
        int g = r->group_start[i];
        if (g < 0 || g > r->parents[0]->num_partitions || (i && g < r->group_start[i - 1]))
            return cs_rdd_kind_proto_error(err, idx, "bad coalesce group start %d", g);
    }
    return 0;
}

static int coalesce_parent_partitions(const cspark_rdd *r, int partition,
                                      cs_rdd_parent_partition *out, int max)
{
    int n = 0;
    for (int p = r->group_start[partition]; p < r->group_start[partition + 1]; p++, n++)
        if (n < max) out[n] = (cs_rdd_parent_partition){r->parents[0], p};
    return n;
}

typedef struct coalesce_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int next_part, end_part;
    part_iter *cur;
} coalesce_iter;

static int coalesce_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    coalesce_iter *c = (coalesce_iter *)it;
    for (;;) {
        if (!c->cur) {
            if (c->next_part >= c->end_part) return 0;
            c->cur = cs_part_iter_open(c->tc, c->rdd->parents[0], c->next_part++, err);
            if (!c->cur) return err->code ? err->code : CS_EINVAL;
        }
        int rc = c->cur->next(c->cur, out, err);
        if (rc != 0) return rc;
        cs_part_iter_free(c->cur);
        c->cur = NULL;
    }
}

static void coalesce_free(part_iter *it)
{
    coalesce_iter *c = (coalesce_iter *)it;
    cs_part_iter_free(c->cur);
    free(c);
}

static part_iter *coalesce_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                   cs_error *err)
{
    (void)err;
    coalesce_iter *c = cs_xcalloc(1, sizeof *c);
    c->base.next = coalesce_next;
    c->base.free = coalesce_free;
    c->tc = tc;
    c->rdd = rdd;
    c->next_part = rdd->group_start[partition];
    c->end_part = rdd->group_start[partition + 1];
    return &c->base;
}

const cs_rdd_kind cs_rdd_kind_coalesce = {
    .kind = RDD_COALESCE,
    .spark_class = "CoalescedRDD",
    .num_parents = 1,
    .encode = coalesce_encode,
    .decode = coalesce_decode,
    .check_parents = coalesce_check_parents,
    .parent_partitions = coalesce_parent_partitions,
    .compute = coalesce_compute,
};
