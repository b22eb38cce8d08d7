/*
 * pair_ops.c — the key/value operations of cspark.h that are compositions of the lineage's
 * nodes: map_values / flat_map_values / key_by (per-record nodes whose emitter knows the input
 * record, exec/part_iter.c), keys and values (built-in maps), sort_by (key_by, sort_by_key, then
 * the records unpacked, as Spark's sortBy), the outer joins, subtract_by_key, subtract and
 * intersection (a cogroup followed by a built-in flattening, plan/builtins.c, as Spark's
 * CoGroupedRDD-based versions), map_partitions_with_index and cartesian (one node, computed by
 * exec/cartesian_iter.c). map_values, flat_map_values and the cogroup-based joins keep their
 * parent's partitioner, as Spark's mapValues / flatMapValues. Called by jobs through cspark.h.
 */
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"

cspark_rdd *cspark_map_values(cspark_rdd *rdd, cspark_map_fn fn, const void *closure, size_t len)
{
    return cs_api_keep_partitioner(
        cs_api_narrow(rdd, RDD_MAP_VALUES, "map_values", (void *)fn, closure, len, CALLER()), rdd);
}

cspark_rdd *cspark_flat_map_values(cspark_rdd *rdd, cspark_map_fn fn, const void *closure,
                                   size_t len)
{
    return cs_api_keep_partitioner(cs_api_narrow(rdd, RDD_FLAT_MAP_VALUES, "flat_map_values",
                                                 (void *)fn, closure, len, CALLER()),
                                   rdd);
}

cspark_rdd *cspark_key_by(cspark_rdd *rdd, cspark_map_fn fn, const void *closure, size_t len)
{
    return cs_api_narrow(rdd, RDD_KEY_BY, "key_by", (void *)fn, closure, len, CALLER());
}

cspark_rdd *cspark_map_partitions_with_index(cspark_rdd *rdd, cspark_partition_index_fn fn,
                                             const void *closure, size_t len)
{
    return cs_api_narrow(rdd, RDD_MAP_PARTITIONS_WITH_INDEX, "map_partitions_with_index",
                         (void *)fn, closure, len, CALLER());
}

cspark_rdd *cspark_keys(cspark_rdd *rdd)
{
    return cs_api_narrow_builtin(rdd, RDD_MAP, "keys", "cs_builtin_keys", (void *)cs_builtin_keys,
                                 CALLER());
}

cspark_rdd *cspark_values(cspark_rdd *rdd)
{
    return cs_api_narrow_builtin(rdd, RDD_MAP, "values", "cs_builtin_values",
                                 (void *)cs_builtin_values, CALLER());
}

cspark_rdd *cspark_sort_by(cspark_rdd *rdd, cspark_map_fn key_fn, const void *closure, size_t len,
                           bool ascending, int num_partitions)
{
    const void *caller = CALLER();
    cspark_rdd *keyed =
        cs_api_narrow(rdd, RDD_KEY_BY, "sort_by", (void *)key_fn, closure, len, caller);
    cspark_rdd *sorted = cs_api_sort_by_key(keyed, ascending, num_partitions, "sort_by", caller);
    return cs_api_narrow_builtin(sorted, RDD_MAP, "sort_by", "cs_builtin_unpack_value",
                                 (void *)cs_builtin_unpack_value, caller);
}

/* A cogroup of a and b flattened by the built-in `name`. */
static cspark_rdd *cogroup_then(cspark_rdd *a, cspark_rdd *b, int num_partitions, const char *op,
                                const char *name, void *fn, const void *caller)
{
    cspark_rdd *cg = cs_api_cogroup(a, b, num_partitions, op, caller);
    return cs_api_keep_partitioner(cs_api_narrow_builtin(cg, RDD_FLAT_MAP, op, name, fn, caller),
                                   cg);
}

cspark_rdd *cspark_right_outer_join(cspark_rdd *left, cspark_rdd *right, int num_partitions)
{
    return cogroup_then(left, right, num_partitions, "right_outer_join",
                        "cs_builtin_right_outer_join_flatten",
                        (void *)cs_builtin_right_outer_join_flatten, CALLER());
}

cspark_rdd *cspark_full_outer_join(cspark_rdd *left, cspark_rdd *right, int num_partitions)
{
    return cogroup_then(left, right, num_partitions, "full_outer_join",
                        "cs_builtin_full_outer_join_flatten",
                        (void *)cs_builtin_full_outer_join_flatten, CALLER());
}

cspark_rdd *cspark_subtract_by_key(cspark_rdd *a, cspark_rdd *b, int num_partitions)
{
    return cogroup_then(a, b, num_partitions, "subtract_by_key", "cs_builtin_subtract_flatten",
                        (void *)cs_builtin_subtract_flatten, CALLER());
}

/* Whole records as keys (distinct's packing), an operation on keys, then unpacked. */
static cspark_rdd *on_packed(cspark_rdd *a, cspark_rdd *b, int num_partitions, const char *op,
                             const char *name, void *fn, const void *caller)
{
    cspark_rdd *pa = cs_api_narrow_builtin(a, RDD_MAP, op, "cs_builtin_distinct_pack",
                                           (void *)cs_builtin_distinct_pack, caller);
    cspark_rdd *pb = cs_api_narrow_builtin(b, RDD_MAP, op, "cs_builtin_distinct_pack",
                                           (void *)cs_builtin_distinct_pack, caller);
    if (!pa || !pb) return NULL;
    cspark_rdd *r = cogroup_then(pa, pb, num_partitions, op, name, fn, caller);
    return cs_api_narrow_builtin(r, RDD_MAP, op, "cs_builtin_distinct_unpack",
                                 (void *)cs_builtin_distinct_unpack, caller);
}

cspark_rdd *cspark_subtract(cspark_rdd *a, cspark_rdd *b, int num_partitions)
{
    return on_packed(a, b, num_partitions, "subtract", "cs_builtin_subtract_flatten",
                     (void *)cs_builtin_subtract_flatten, CALLER());
}

cspark_rdd *cspark_intersection(cspark_rdd *a, cspark_rdd *b, int num_partitions)
{
    return on_packed(a, b, num_partitions, "intersection", "cs_builtin_intersect_flatten",
                     (void *)cs_builtin_intersect_flatten, CALLER());
}

cspark_rdd *cspark_cartesian(cspark_rdd *a, cspark_rdd *b)
{
    if (!a || !b) return NULL;
    cspark_context *sc = cs_rdd_context(a);
    cs_error e;
    if (cs_rdd_context(b) != sc) {
        cs_error_set(&e, CS_EINVAL, "cartesian: the two RDDs belong to different contexts");
        return cs_rdd_refuse(sc, &e);
    }
    int64_t n = (int64_t)a->num_partitions * b->num_partitions;
    if (n > 1000000) {
        cs_error_set(&e, CS_EINVAL,
                     "cartesian: %d x %d partitions is more than 1000000 tasks; coalesce first",
                     a->num_partitions, b->num_partitions);
        return cs_rdd_refuse(sc, &e);
    }
    char name[512];
    cs_api_call_site("cartesian", CALLER(), name, sizeof name);
    return cs_rdd_cartesian_new(a->graph, a, b, name);
}
