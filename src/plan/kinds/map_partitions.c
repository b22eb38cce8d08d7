/*
 * map_partitions.c — the kinds computed from the same partition of one parent, Spark's
 * MapPartitionsRDD and its kin: map, flat_map, filter, map_values, flat_map_values, key_by,
 * map_partitions(_with_index), partition_tag (partition_by's tagging) and fold_partition
 * (tree_aggregate's first level) are MapPartitionsRDDs in Spark; sample is a
 * PartitionwiseSampledRDD and zip_with_index a ZippedWithIndexRDD. Entries of the table of kinds
 * (plan/rdd_kind.h); their iterators are exec's narrow iterators (exec/narrow_iter.c). Each node
 * carries its function (fn: symbol name and closure); the decoder checks here that the function
 * and the parameters its kind needs are present.
 */
#include <limits.h>

#include "exec/part_iter.h"
#include "plan/rdd_kind.h"

cspark_rdd *cs_rdd_narrow_new(lineage_graph *g, int kind, cspark_rdd *parent, const char *name)
{
    cspark_rdd *r = cs_rdd_new(g, (rdd_kind)kind, parent->num_partitions, name);
    r->parents[0] = parent;
    r->num_parents = 1;
    return r;
}

static int needs_fn(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (!r->fn.ptr) return cs_rdd_kind_proto_error(err, idx, "no function");
    return 0;
}

static int fold_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (!r->fn.ptr || !r->agg.has_zero)
        return cs_rdd_kind_proto_error(err, idx, "fold without a function or zero");
    return 0;
}

static int partition_tag_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (!r->fn.ptr) return cs_rdd_kind_proto_error(err, idx, "no function");
    if (r->range_start < 1 || r->range_start > INT_MAX)
        return cs_rdd_kind_proto_error(err, idx, "bad partition count %lld",
                                       (long long)r->range_start);
    return 0;
}

static int sample_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (r->fn.closure_len != sizeof(sample_params))
        return cs_rdd_kind_proto_error(err, idx, "bad sample parameters");
    return 0;
}

static int zip_with_index_decode(const Cspark__RddNode *pb, int idx, cspark_rdd *r, cs_error *err)
{
    (void)pb;
    if (r->fn.closure_len != (size_t)r->num_partitions * sizeof(int64_t))
        return cs_rdd_kind_proto_error(err, idx, "%zu bytes of start indexes for %d partitions",
                                       r->fn.closure_len, r->num_partitions);
    return 0;
}

/* An entry of this family: one parent, partition i from its partition i. */
#define NARROW_KIND(entry, KIND, class, check, iter)                                               \
    const cs_rdd_kind cs_rdd_kind_##entry = {                                                      \
        .kind = KIND,                                                                              \
        .spark_class = class,                                                                      \
        .num_parents = 1,                                                                          \
        .one_to_one = true,                                                                        \
        .decode = check,                                                                           \
        .compute = iter,                                                                           \
    };

NARROW_KIND(map, RDD_MAP, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(flat_map, RDD_FLAT_MAP, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(filter, RDD_FILTER, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(map_values, RDD_MAP_VALUES, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(flat_map_values, RDD_FLAT_MAP_VALUES, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(key_by, RDD_KEY_BY, "MapPartitionsRDD", needs_fn, cs_narrow_iter_open)
NARROW_KIND(partition_tag, RDD_PARTITION_TAG, "MapPartitionsRDD", partition_tag_decode,
            cs_narrow_iter_open)
NARROW_KIND(sample, RDD_SAMPLE, "PartitionwiseSampledRDD", sample_decode, cs_narrow_iter_open)
NARROW_KIND(zip_with_index, RDD_ZIP_WITH_INDEX, "ZippedWithIndexRDD", zip_with_index_decode,
            cs_narrow_iter_open)
NARROW_KIND(map_partitions, RDD_MAP_PARTITIONS, "MapPartitionsRDD", needs_fn,
            cs_map_partitions_iter_open)
NARROW_KIND(map_partitions_with_index, RDD_MAP_PARTITIONS_WITH_INDEX, "MapPartitionsRDD", needs_fn,
            cs_map_partitions_iter_open)
NARROW_KIND(fold_partition, RDD_FOLD_PARTITION, "MapPartitionsRDD", fold_decode, cs_fold_iter_open)
