/*
 * union.c — the kind RDD_UNION, Spark's UnionRDD: a's partitions, then b's; partition i is
 * partition union_index[i] of parent union_parent[i], read as that parent's (no copy). An entry
 * of the table of kinds (plan/rdd_kind.h).
 *
 * Ownership: the node owns its partition table (freed with its graph).
 */
#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_union_new(lineage_graph *g, cspark_rdd *a, cspark_rdd *b, const char *name)
{
    int na = a->num_partitions, n = na + b->num_partitions;
    cspark_rdd *r = cs_rdd_new(g, RDD_UNION, n, name);
    r->parents[0] = a;
    r->parents[1] = b;
    r->num_parents = 2;
    r->union_parent = cs_xcalloc((size_t)n + 1, sizeof(int));
    r->union_index = cs_xcalloc((size_t)n + 1, sizeof(int));
    for (int i = 0; i < n; i++) {
        r->union_parent[i] = i < na ? 0 : 1;
        r->union_index[i] = i < na ? i : i - na;
    }
    return r;
}

static int union_encode(const cspark_rdd *r, Cspark__RddNode *p, cs_error *err)
{
    size_t np = (size_t)r->num_partitions;
    if (np > 0 && (!r->union_parent || !r->union_index))
        return cs_error_set(err, CS_EINVAL, "union node %d: no partition table", r->id);
    if (np > 0) {
        p->union_parent = cs_rdd_kind_ints_to_pb(r->union_parent, np);
        p->n_union_parent = np;
        p->union_index = cs_rdd_kind_ints_to_pb(r->union_index, np);
        p->n_union_index = np;
    }
    return 0;
}

static int union_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    size_t np = (size_t)r->num_partitions;
    if (pb->n_union_parent != np || pb->n_union_index != np)
        return cs_rdd_kind_proto_error(err, idx, "union table size does not match %d partitions",
                                       r->num_partitions);
    r->union_parent = cs_rdd_kind_ints_from_pb(pb->union_parent, np);
    r->union_index = cs_rdd_kind_ints_from_pb(pb->union_index, np);
    return 0;
}

static int union_check_parents(const cspark_rdd *r, int idx, cs_error *err)
{
    for (int i = 0; i < r->num_partitions; i++) {
        int up = r->union_parent[i], ui = r->union_index[i];
        if (up < 0 || up > 1 || ui < 0 || ui >= r->parents[up]->num_partitions)
            return cs_rdd_kind_proto_error(err, idx, "union partition %d maps to (%d, %d)", i, up,
                                           ui);
    }
    return 0;
}

static int union_parent_partitions(const cspark_rdd *r, int partition, cs_rdd_parent_partition *out,
                                   int max)
{
    if (max > 0)
        out[0] = (cs_rdd_parent_partition){r->parents[r->union_parent[partition]],
                                           r->union_index[partition]};
    return 1;
}

static part_iter *union_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    return cs_part_iter_open(tc, rdd->parents[rdd->union_parent[partition]],
                             rdd->union_index[partition], err);
}

const cs_rdd_kind cs_rdd_kind_union = {
    .kind = RDD_UNION,
    .spark_class = "UnionRDD",
    .num_parents = 2,
    .encode = union_encode,
    .decode = union_decode,
    .check_parents = union_check_parents,
    .parent_partitions = union_parent_partitions,
    .compute = union_compute,
};
