/*
 * shuffled.c — the kind RDD_SHUFFLED, the reduce side of a shuffle: Spark's ShuffledRDD (plain
 * read, aggregation, sort), CoGroupedRDD (two inputs tagged and grouped), and the narrow combine
 * Spark runs as a MapPartitionsRDD when its input is already partitioned as it (no shuffle
 * dependency, one parent read narrowly). Its inputs are its shuffle dependencies deps[] and its
 * parents read narrowly (partition i of each is its partition i). An entry of the table of kinds
 * (plan/rdd_kind.h); its iterator is exec's shuffled read (exec/shuffled_read.c).
 */
#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_shuffled_new(lineage_graph *g, shuffle_dep *dep, int read_mode,
                                int num_partitions, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, RDD_SHUFFLED, num_partitions, name);
    if (dep) r->deps[r->num_deps++] = dep;
    r->read_mode = (shuffle_read_mode)read_mode;
    return r;
}

static const char *shuffled_name(const cspark_rdd *r)
{
    if (r->read_mode == SHUFFLE_READ_COGROUP) return "CoGroupedRDD";
    return r->num_deps ? "ShuffledRDD" : "MapPartitionsRDD"; /* Spark's narrow combine */
}

static int shuffled_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    if (pb->read_mode < SHUFFLE_READ_PLAIN || pb->read_mode > SHUFFLE_READ_COGROUP)
        return cs_rdd_kind_proto_error(err, idx, "unknown read mode %d", pb->read_mode);
    /* plain and sorted reads have one shuffle; an aggregation one input and a cogroup two,
     * each a shuffle or a parent read narrowly */
    size_t inputs = pb->n_deps + pb->n_parents;
    bool one_shuffle = pb->read_mode == SHUFFLE_READ_PLAIN || pb->read_mode == SHUFFLE_READ_SORT;
    if (one_shuffle ? pb->n_deps != 1 || pb->n_parents != 0
                    : inputs != (pb->read_mode == SHUFFLE_READ_COGROUP ? 2u : 1u))
        return cs_rdd_kind_proto_error(err, idx,
                                       "%zu dependencies and %zu parents for read mode %d",
                                       pb->n_deps, pb->n_parents, pb->read_mode);
    if ((r->read_mode == SHUFFLE_READ_AGGREGATE || r->read_mode == SHUFFLE_READ_COGROUP) &&
        (!r->agg.merge_value.ptr || !r->agg.merge_combiners.ptr))
        return cs_rdd_kind_proto_error(err, idx, "aggregation without merge functions");
    return 0;
}

static int shuffled_check_parents(const cspark_rdd *r, int idx, cs_error *err)
{
    for (int i = 0; i < r->num_parents; i++) /* read narrowly: partition i is theirs */
        if (r->parents[i]->num_partitions != r->num_partitions)
            return cs_rdd_kind_proto_error(err, idx, "%d partitions but its parent %d has %d",
                                           r->num_partitions, i, r->parents[i]->num_partitions);
    return 0;
}

static int shuffled_parent_partitions(const cspark_rdd *r, int partition,
                                      cs_rdd_parent_partition *out, int max)
{
    for (int p = 0; p < r->num_parents && p < max; p++)
        out[p] = (cs_rdd_parent_partition){r->parents[p], partition};
    return r->num_parents;
}

const cs_rdd_kind cs_rdd_kind_shuffled = {
    .kind = RDD_SHUFFLED,
    .spark_class = "ShuffledRDD",
    .spark_name = shuffled_name,
    .num_parents = CS_RDD_PARENTS_WITH_SHUFFLES,
    .decode = shuffled_decode,
    .check_parents = shuffled_check_parents,
    .parent_partitions = shuffled_parent_partitions,
    .compute = cs_shuffled_iter_open,
};
