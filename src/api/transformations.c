/*
 * transformations.c — the narrow and wide transformations of cspark.h. Narrow ones add a node
 * that the task runner pipelines with its parent; wide ones add a shuffle dependency (the map
 * side: partitioner and optional map-side combine) and a shuffled node (the reduce side:
 * aggregation, sort, cogroup or plain read). Joins are a cogroup followed by a built-in
 * flattening; distinct packs each record into a key and reduces. sort_by_key runs a sampling job
 * at once to choose its range bounds, as Spark's sortByKey does.
 *
 * Partitioners (plan/rdd.h) are Spark's: shuffled outputs are placed by their partitioner,
 * filter and the per-key operations keep their parent's, and the by-key operations choose theirs
 * as Spark's Partitioner.defaultPartitioner does (an explicit count is a hash partitioner, else a
 * parent's partitioner is reused). A parent already placed by the chosen partitioner is read
 * narrowly, without a shuffle: a cached partition_by side of an iterative join is shuffled once.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "records/recio.h"
#include "common/log.h"
#include "sched/scheduler.h"
#include "shuffle/external_sort.h"

/* A NULL RDD given to `op`: recorded as the context's error (see cs_context_null_argument). */
static cspark_rdd *null_rdd(const char *op)
{
    cs_context_null_argument(op, "RDD");
    return NULL;
}

static cspark_rdd *narrow(cspark_rdd *parent, rdd_kind kind, const char *op, void *fn,
                          const void *closure, size_t len, const void *caller)
{
    if (!parent) return null_rdd(op);
    cspark_context *sc = cs_rdd_context(parent);
    cs_error err;
    fn_ref ref;
    if (cs_fn_ref_init(&ref, fn, closure, len, op, &err) < 0) return cs_rdd_refuse(sc, &err);
    char name[512];
    cs_api_call_site(op, caller, name, sizeof name);
    cspark_rdd *r = cs_rdd_narrow_new(parent->graph, kind, parent, name);
    r->fn = ref;
    return r;
}

static cspark_rdd *narrow_builtin(cspark_rdd *parent, rdd_kind kind, const char *op,
                                  const char *name, void *fn, const void *caller)
{
    if (!parent) return null_rdd(op);
    char rdd_name[512];
    cs_api_call_site(op, caller, rdd_name, sizeof rdd_name);
    cspark_rdd *r = cs_rdd_narrow_new(parent->graph, kind, parent, rdd_name);
    cs_fn_ref_builtin(&r->fn, name, fn);
    return r;
}

cspark_rdd *cspark_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure, size_t len)
{
    return narrow(rdd, RDD_MAP, "map", (void *)fn, closure, len, CALLER());
}

cspark_rdd *cspark_flat_map(cspark_rdd *rdd, cspark_map_fn fn, const void *closure, size_t len)
{
    return narrow(rdd, RDD_FLAT_MAP, "flat_map", (void *)fn, closure, len, CALLER());
}

cspark_rdd *cspark_filter(cspark_rdd *rdd, cspark_filter_fn fn, const void *closure, size_t len)
{
    return cs_api_keep_partitioner(
        narrow(rdd, RDD_FILTER, "filter", (void *)fn, closure, len, CALLER()), rdd);
}

cspark_rdd *cs_api_keep_partitioner(cspark_rdd *r, const cspark_rdd *parent)
{
    if (r && parent) r->partitioner = parent->partitioner;
    return r;
}

cspark_rdd *cspark_map_partitions(cspark_rdd *rdd, cspark_partition_fn fn, const void *closure,
                                  size_t len)
{
    return narrow(rdd, RDD_MAP_PARTITIONS, "map_partitions", (void *)fn, closure, len, CALLER());
}

static bool same_context(cspark_rdd *a, cspark_rdd *b, const char *op)
{
    if (cs_rdd_context(a) == cs_rdd_context(b)) return true;
    cs_error e;
    cs_error_set(&e, CS_EINVAL, "%s: the two RDDs belong to different contexts", op);
    cs_context_fail(cs_rdd_context(a), &e);
    return false;
}

cspark_rdd *cspark_union(cspark_rdd *a, cspark_rdd *b)
{
    if (!a || !b) return null_rdd("union");
    if (!same_context(a, b, "union")) return NULL;
    char name[512];
    cs_api_call_site("union", CALLER(), name, sizeof name);
    return cs_rdd_union_new(a->graph, a, b, name);
}

static cspark_rdd *refuse_partitions(cspark_rdd *rdd, const char *op, int n)
{
    cs_error e;
    cs_error_set(&e, CS_EINVAL, "%s: number of partitions must be between 1 and %d, got %d", op,
                 CS_MAX_PARTITIONS, n);
    return cs_rdd_refuse(cs_rdd_context(rdd), &e);
}

cspark_rdd *cspark_coalesce(cspark_rdd *rdd, int num_partitions)
{
    if (!rdd) return null_rdd("coalesce");
    if (num_partitions < 1) return refuse_partitions(rdd, "coalesce", num_partitions);
    int n = num_partitions < rdd->num_partitions ? num_partitions : rdd->num_partitions;
    if (n < 1) n = 1;
    char name[512];
    cs_api_call_site("coalesce", CALLER(), name, sizeof name);
    return cs_rdd_coalesce_new(rdd->graph, rdd, NULL, n, name);
}

/* ---- shuffles ---------------------------------------------------------------------------- */

static int shuffle_partitions(cspark_context *sc, int requested, int parent_a, int parent_b,
                              const char *op, cs_error *err)
{
    if (requested < 0 || requested > CS_MAX_PARTITIONS)
        return cs_error_set(err, CS_EINVAL,
                            "%s: number of partitions must be between 1 and %d, got %d", op,
                            CS_MAX_PARTITIONS, requested);
    if (requested > 0) return requested;
    if (cs_conf_contains(sc->conf, "spark.default.parallelism")) return sc->default_parallelism;
    int n = parent_a > parent_b ? parent_a : parent_b;
    return n > 0 ? n : 1;
}

static shuffle_dep *dep_new(cspark_rdd *parent, cs_partitioner_kind kind, int n)
{
    shuffle_dep *d = cs_shuffle_dep_new(parent->graph, parent);
    d->partitioner.kind = kind;
    d->partitioner.num_partitions = n;
    d->partitioner.ascending = true;
    return d;
}

/* A shuffled node reading dep, placed by the dependency's partitioner. */
static cspark_rdd *shuffled(cspark_rdd *parent, shuffle_dep *dep, int n, shuffle_read_mode mode,
                            const char *op, const void *caller)
{
    char name[512];
    cs_api_call_site(op, caller, name, sizeof name);
    cspark_rdd *r = cs_rdd_shuffled_new(parent->graph, dep, mode, n, name);
    r->partitioner = cs_rdd_partitioner_of_dep(dep);
    return r;
}

/* ---- partitioners ------------------------------------------------------------------------ */

static rdd_partitioner hash_partitioner(int n)
{
    return (rdd_partitioner){.kind = RDD_PARTITIONER_HASH, .num_partitions = n};
}

/* Spark's Partitioner.defaultPartitioner for an operation on a (and b, or NULL) asked for
 * `requested` partitions: a hash partitioner of `requested` when it is not 0; else the partitioner
 * of the parent with the most partitions among those that have one, when it is eligible (the
 * largest parent has fewer than 10x its partitions) or spark.default.parallelism would not give
 * more; else a hash partitioner of spark.default.parallelism when set, else of the largest
 * parent's partitions. */
static int default_partitioner(cspark_context *sc, int requested, const cspark_rdd *a,
                               const cspark_rdd *b, const char *op, rdd_partitioner *out,
                               cs_error *err)
{
    if (requested < 0 || requested > CS_MAX_PARTITIONS)
        return cs_error_set(err, CS_EINVAL,
                            "%s: number of partitions must be between 1 and %d, got %d", op,
                            CS_MAX_PARTITIONS, requested);
    if (requested > 0) {
        *out = hash_partitioner(requested);
        return 0;
    }
    const cspark_rdd *rdds[2] = {a, b}, *has_max = NULL;
    int max_partitions = 1;
    for (int i = 0; i < 2; i++) {
        const cspark_rdd *r = rdds[i];
        if (!r) continue;
        if (r->num_partitions > max_partitions) max_partitions = r->num_partitions;
        if (r->partitioner.kind != RDD_PARTITIONER_NONE && r->partitioner.num_partitions > 0 &&
            (!has_max || r->num_partitions > has_max->num_partitions))
            has_max = r;
    }
    int default_num = cs_conf_contains(sc->conf, "spark.default.parallelism")
                          ? sc->default_parallelism
                          : max_partitions;
    if (has_max && ((int64_t)max_partitions < 10 * (int64_t)has_max->partitioner.num_partitions ||
                    default_num <= has_max->partitioner.num_partitions)) {
        *out = has_max->partitioner;
        return 0;
    }
    *out = hash_partitioner(default_num);
    return 0;
}

static cspark_rdd *partition_by_ref(cspark_rdd *rdd, fn_ref ref, int n, const char *op,
                                    const void *caller);

/* Whether *rdd can be read narrowly by a node placed by p: when it is placed so already, or, for
 * a partition function, once repartitioned by it (partition_by's shuffle; *rdd becomes that);
 * false when it must be shuffled into p's partitions (a hash or range partitioner). */
static bool read_narrowly(cspark_rdd **rdd, const rdd_partitioner *p, const char *op,
                          const void *caller)
{
    if (cs_rdd_partitioner_equal(&(*rdd)->partitioner, p) &&
        (*rdd)->num_partitions == p->num_partitions)
        return true;
    if (p->kind != RDD_PARTITIONER_FUNCTION) return false;
    fn_ref ref;
    cs_fn_ref_builtin(&ref, p->fn->name, p->fn->ptr);
    cs_fn_ref_copy_closure(&ref, p->fn->closure, p->fn->closure_len);
    *rdd = partition_by_ref(*rdd, ref, p->num_partitions, op, caller);
    return true;
}

/* Adds in as an input of the shuffled node r (placed by r->partitioner): read narrowly, or
 * through a new shuffle dependency into r's partitions, which it returns. */
static shuffle_dep *add_input(cspark_rdd *r, cspark_rdd *in, bool narrowly)
{
    if (narrowly) {
        r->parents[r->num_parents++] = in;
        return NULL;
    }
    shuffle_dep *d;
    if (r->partitioner.kind == RDD_PARTITIONER_RANGE) {
        d = cs_shuffle_dep_new(in->graph, in);
        d->partitioner = *r->partitioner.range; /* bounds borrowed from the sort's dependency */
    } else {
        d = dep_new(in, PART_HASH, r->num_partitions);
    }
    r->deps[r->num_deps++] = d;
    return d;
}

/* A by-key aggregation's node over rdd placed by p (no input yet): SHUFFLE_READ_AGGREGATE. */
static cspark_rdd *aggregated(cspark_rdd *rdd, const rdd_partitioner *p, const char *op,
                              const void *caller)
{
    char name[512];
    cs_api_call_site(op, caller, name, sizeof name);
    cspark_rdd *r =
        cs_rdd_shuffled_new(rdd->graph, NULL, SHUFFLE_READ_AGGREGATE, p->num_partitions, name);
    r->partitioner = *p;
    return r;
}

static void copy_zero(plan_aggregator *a, const void *zero, size_t len)
{
    a->has_zero = true;
    a->zero_len = (uint32_t)len;
    a->zero = cs_xmalloc(len ? len : 1);
    if (len) memcpy(a->zero, zero, len);
}

cspark_rdd *cspark_reduce_by_key(cspark_rdd *rdd, cspark_reduce_fn fn, const void *closure,
                                 size_t len, int num_partitions)
{
    if (!rdd) return null_rdd("reduce_by_key");
    cspark_context *sc = cs_rdd_context(rdd);
    const void *caller = CALLER();
    cs_error err;
    fn_ref ref;
    rdd_partitioner p;
    if (default_partitioner(sc, num_partitions, rdd, NULL, "reduce_by_key", &p, &err) < 0 ||
        cs_fn_ref_init(&ref, (void *)fn, closure, len, "reduce_by_key", &err) < 0)
        return cs_rdd_refuse(sc, &err);
    bool narrowly = read_narrowly(&rdd, &p, "reduce_by_key", caller);
    cspark_rdd *r = aggregated(rdd, &p, "reduce_by_key", caller);
    shuffle_dep *d = add_input(r, rdd, narrowly);
    if (d) { /* combined on the map side: the reduce side merges combiners */
        d->map_side_combine = true;
        cs_fn_ref_builtin(&d->agg.merge_value, ref.name, ref.ptr);
        cs_fn_ref_copy_closure(&d->agg.merge_value, closure, len);
        cs_fn_ref_builtin(&d->agg.merge_combiners, ref.name, ref.ptr);
    }
    r->agg.merge_value = ref;
    cs_fn_ref_builtin(&r->agg.merge_combiners, ref.name, ref.ptr);
    r->values_are_combiners = d != NULL;
    return r;
}

/* Spark's combineByKeyWithClassTag: map-side combine with create (or the zero), merge_value and
 * merge_combiners; the reduce side merges combiners. The closure travels with merge_value. */
static cspark_rdd *combine(cspark_rdd *rdd, const void *zero, size_t zero_len, bool has_zero,
                           cspark_reduce_fn create, cspark_reduce_fn seq, cspark_reduce_fn comb,
                           const void *closure, size_t len, int num_partitions, const char *op,
                           const void *caller)
{
    if (!rdd) return null_rdd("aggregate_by_key");
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error err;
    fn_ref seq_ref, comb_ref, create_ref = {0};
    char what[64];
    snprintf(what, sizeof what, "%s zero value", op);
    rdd_partitioner p;
    if (default_partitioner(sc, num_partitions, rdd, NULL, op, &p, &err) < 0 ||
        (has_zero && cs_recio_check_record(0, zero_len, what, &err) < 0) ||
        cs_fn_ref_init(&seq_ref, (void *)seq, closure, len, op, &err) < 0)
        return cs_rdd_refuse(sc, &err);
    if (cs_fn_ref_init(&comb_ref, (void *)comb, closure, len, op, &err) < 0 ||
        (create && cs_fn_ref_init(&create_ref, (void *)create, NULL, 0, op, &err) < 0)) {
        cs_fn_ref_free(&seq_ref);
        cs_fn_ref_free(&comb_ref);
        return cs_rdd_refuse(sc, &err);
    }
    bool narrowly = read_narrowly(&rdd, &p, op, caller);
    cspark_rdd *r = aggregated(rdd, &p, op, caller);
    shuffle_dep *d = add_input(r, rdd, narrowly);
    /* the map side (or, read narrowly, this node itself) combines values: create or the zero,
     * then seq; the closure travels with merge_value */
    plan_aggregator *a = d ? &d->agg : &r->agg;
    if (d) d->map_side_combine = true;
    cs_fn_ref_builtin(&a->merge_value, seq_ref.name, seq_ref.ptr);
    cs_fn_ref_copy_closure(&a->merge_value, closure, len);
    cs_fn_ref_builtin(&a->merge_combiners, comb_ref.name, comb_ref.ptr);
    if (create) cs_fn_ref_builtin(&a->create, create_ref.name, create_ref.ptr);
    if (has_zero) copy_zero(a, zero, zero_len);
    if (d) { /* the reduce side only merges combiners */
        r->agg.merge_value = comb_ref;
        cs_fn_ref_builtin(&r->agg.merge_combiners, comb_ref.name, comb_ref.ptr);
    } else {
        cs_fn_ref_free(&comb_ref);
    }
    r->values_are_combiners = d != NULL;
    cs_fn_ref_free(&seq_ref);
    cs_fn_ref_free(&create_ref);
    return r;
}

cspark_rdd *cspark_aggregate_by_key(cspark_rdd *rdd, const void *zero, size_t zero_len,
                                    cspark_reduce_fn seq, cspark_reduce_fn comb,
                                    const void *closure, size_t len, int num_partitions)
{
    return combine(rdd, zero, zero_len, true, NULL, seq, comb, closure, len, num_partitions,
                   "aggregate_by_key", CALLER());
}

cspark_rdd *cspark_fold_by_key(cspark_rdd *rdd, const void *zero, size_t zero_len,
                               cspark_reduce_fn fn, const void *closure, size_t len,
                               int num_partitions)
{
    return combine(rdd, zero, zero_len, true, NULL, fn, fn, closure, len, num_partitions,
                   "fold_by_key", CALLER());
}

cspark_rdd *cspark_combine_by_key(cspark_rdd *rdd, cspark_reduce_fn create,
                                  cspark_reduce_fn merge_value, cspark_reduce_fn merge_combiners,
                                  const void *closure, size_t len, int num_partitions)
{
    return combine(rdd, NULL, 0, false, create, merge_value, merge_combiners, closure, len,
                   num_partitions, "combine_by_key", CALLER());
}

static void list_aggregator(cspark_rdd *r)
{
    cs_fn_ref_builtin(&r->agg.create, "cs_list_wrap", (void *)cs_list_wrap);
    cs_fn_ref_builtin(&r->agg.merge_value, "cs_list_append", (void *)cs_list_append);
    cs_fn_ref_builtin(&r->agg.merge_combiners, "cs_list_concat", (void *)cs_list_concat);
    r->values_are_combiners = false;
}

cspark_rdd *cspark_group_by_key(cspark_rdd *rdd, int num_partitions)
{
    if (!rdd) return null_rdd("group_by_key");
    const void *caller = CALLER();
    cs_error err;
    rdd_partitioner p;
    if (default_partitioner(cs_rdd_context(rdd), num_partitions, rdd, NULL, "group_by_key", &p,
                            &err) < 0)
        return cs_rdd_refuse(cs_rdd_context(rdd), &err);
    /* as Spark: no map-side combine for groupByKey (it would not shrink the data) */
    bool narrowly = read_narrowly(&rdd, &p, "group_by_key", caller);
    cspark_rdd *r = aggregated(rdd, &p, "group_by_key", caller);
    add_input(r, rdd, narrowly);
    list_aggregator(r);
    return r;
}

static cspark_rdd *cogroup_node(cspark_rdd *left, cspark_rdd *right, int num_partitions,
                                const char *op, const void *caller)
{
    if (!left || !right) return null_rdd(op);
    if (!same_context(left, right, op)) return NULL;
    cs_error err;
    rdd_partitioner p;
    if (default_partitioner(cs_rdd_context(left), num_partitions, left, right, op, &p, &err) < 0)
        return cs_rdd_refuse(cs_rdd_context(left), &err);
    /* Spark's CoGroupedRDD: a side placed by the result's partitioner is a one-to-one parent */
    bool left_narrowly = read_narrowly(&left, &p, op, caller);
    bool right_narrowly = read_narrowly(&right, &p, op, caller);
    /* the tagging maps end the map stages: they carry the user's operation's name (a join's
     * stages are "join at ...", as Spark names them) */
    cspark_rdd *tl = narrow_builtin(left, RDD_MAP, op, "cs_builtin_tag_left",
                                    (void *)cs_builtin_tag_left, caller);
    cspark_rdd *tr = narrow_builtin(right, RDD_MAP, op, "cs_builtin_tag_right",
                                    (void *)cs_builtin_tag_right, caller);
    char name[512];
    cs_api_call_site(op, caller, name, sizeof name);
    cspark_rdd *r =
        cs_rdd_shuffled_new(left->graph, NULL, SHUFFLE_READ_COGROUP, p.num_partitions, name);
    r->partitioner = p;
    add_input(r, tl, left_narrowly);
    add_input(r, tr, right_narrowly);
    list_aggregator(r);
    return r;
}

cspark_rdd *cs_api_cogroup(cspark_rdd *left, cspark_rdd *right, int num_partitions, const char *op,
                           const void *caller)
{
    return cogroup_node(left, right, num_partitions, op, caller);
}

cspark_rdd *cs_api_narrow(cspark_rdd *parent, rdd_kind kind, const char *op, void *fn,
                          const void *closure, size_t len, const void *caller)
{
    return narrow(parent, kind, op, fn, closure, len, caller);
}

cspark_rdd *cs_api_narrow_builtin(cspark_rdd *parent, rdd_kind kind, const char *op,
                                  const char *name, void *fn, const void *caller)
{
    return narrow_builtin(parent, kind, op, name, fn, caller);
}

cspark_rdd *cspark_cogroup(cspark_rdd *left, cspark_rdd *right, int num_partitions)
{
    return cogroup_node(left, right, num_partitions, "cogroup", CALLER());
}

cspark_rdd *cspark_join(cspark_rdd *left, cspark_rdd *right, int num_partitions)
{
    const void *caller = CALLER();
    cspark_rdd *cg = cogroup_node(left, right, num_partitions, "join", caller);
    return cs_api_keep_partitioner(narrow_builtin(cg, RDD_FLAT_MAP, "join",
                                                  "cs_builtin_join_flatten",
                                                  (void *)cs_builtin_join_flatten, caller),
                                   cg);
}

cspark_rdd *cspark_left_outer_join(cspark_rdd *left, cspark_rdd *right, int num_partitions)
{
    const void *caller = CALLER();
    cspark_rdd *cg = cogroup_node(left, right, num_partitions, "left_outer_join", caller);
    return cs_api_keep_partitioner(
        narrow_builtin(cg, RDD_FLAT_MAP, "left_outer_join", "cs_builtin_left_outer_join_flatten",
                       (void *)cs_builtin_left_outer_join_flatten, caller),
        cg);
}

cspark_rdd *cspark_distinct(cspark_rdd *rdd, int num_partitions)
{
    if (!rdd) return null_rdd("distinct");
    const void *caller = CALLER();
    cs_error err;
    int n = shuffle_partitions(cs_rdd_context(rdd), num_partitions, rdd->num_partitions, 0,
                               "distinct", &err);
    if (n < 0) return cs_rdd_refuse(cs_rdd_context(rdd), &err);
    cspark_rdd *packed = narrow_builtin(rdd, RDD_MAP, "distinct", "cs_builtin_distinct_pack",
                                        (void *)cs_builtin_distinct_pack, caller);
    shuffle_dep *d = dep_new(packed, PART_HASH, n);
    d->map_side_combine = true;
    cs_fn_ref_builtin(&d->agg.merge_value, "cs_builtin_keep_first", (void *)cs_builtin_keep_first);
    cs_fn_ref_builtin(&d->agg.merge_combiners, "cs_builtin_keep_first",
                      (void *)cs_builtin_keep_first);
    cspark_rdd *reduced = shuffled(packed, d, n, SHUFFLE_READ_AGGREGATE, "distinct", caller);
    cs_fn_ref_builtin(&reduced->agg.merge_value, "cs_builtin_keep_first",
                      (void *)cs_builtin_keep_first);
    cs_fn_ref_builtin(&reduced->agg.merge_combiners, "cs_builtin_keep_first",
                      (void *)cs_builtin_keep_first);
    reduced->values_are_combiners = true;
    return narrow_builtin(reduced, RDD_MAP, "distinct", "cs_builtin_distinct_unpack",
                          (void *)cs_builtin_distinct_unpack, caller);
}

cspark_rdd *cspark_repartition(cspark_rdd *rdd, int num_partitions)
{
    if (!rdd) return null_rdd("repartition");
    if (num_partitions < 1 || num_partitions > CS_MAX_PARTITIONS)
        return refuse_partitions(rdd, "repartition", num_partitions);
    shuffle_dep *d = dep_new(rdd, PART_ROUND_ROBIN, num_partitions);
    return shuffled(rdd, d, num_partitions, SHUFFLE_READ_PLAIN, "repartition", CALLER());
}

/* partition_by: records keyed by [be32 partition][key] (RDD_PARTITION_TAG calls the function of
 * ref, which the tagging node takes over), range-partitioned at the bounds be32(1) .. be32(n-1) (a
 * tagged key lies above the bound of its tag and below the next), then untagged after a plain
 * read; the untagged records are placed by the function (RDD_PARTITIONER_FUNCTION). */
static cspark_rdd *partition_by_ref(cspark_rdd *rdd, fn_ref ref, int n, const char *op,
                                    const void *caller)
{
    cspark_rdd *tagged =
        cs_api_rdd_new(cs_rdd_context(rdd), RDD_PARTITION_TAG, rdd->num_partitions, op, caller);
    tagged->parents[0] = rdd;
    tagged->num_parents = 1;
    tagged->fn = ref;
    tagged->range_start = n;
    shuffle_dep *d = dep_new(tagged, PART_RANGE, n);
    d->range_bound_data = cs_xmalloc((size_t)4 * (n > 1 ? n - 1 : 1));
    d->range_bounds = cs_xcalloc((size_t)(n > 1 ? n - 1 : 1), sizeof *d->range_bounds);
    for (int i = 0; i < n - 1; i++) {
        uint8_t *b = d->range_bound_data + 4 * i;
        uint32_t tag = (uint32_t)i + 1;
        b[0] = (uint8_t)(tag >> 24);
        b[1] = (uint8_t)(tag >> 16);
        b[2] = (uint8_t)(tag >> 8);
        b[3] = (uint8_t)tag;
        d->range_bounds[i] = (cspark_slice){b, 4};
    }
    d->partitioner.bounds = d->range_bounds;
    d->partitioner.num_bounds = n - 1;
    cspark_rdd *r = shuffled(tagged, d, n, SHUFFLE_READ_PLAIN, op, caller);
    r->partitioner.kind = RDD_PARTITIONER_NONE; /* its keys are still tagged */
    cspark_rdd *out =
        narrow_builtin(r, RDD_MAP, op, "cs_builtin_untag", (void *)cs_builtin_untag, caller);
    out->partitioner =
        (rdd_partitioner){.kind = RDD_PARTITIONER_FUNCTION, .num_partitions = n, .fn = &tagged->fn};
    return out;
}

/* Spark's partitionBy: the RDD itself when it is placed by this partitioner already. */
cspark_rdd *cspark_partition_by(cspark_rdd *rdd, cspark_partitioner_fn fn, const void *closure,
                                size_t len, int num_partitions)
{
    if (!rdd) {
        cs_context_null_argument("partition_by", "RDD");
        return NULL;
    }
    const void *caller = CALLER();
    if (num_partitions < 1) return refuse_partitions(rdd, "partition_by", num_partitions);
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error err;
    fn_ref ref;
    if (cs_fn_ref_init(&ref, (void *)fn, closure, len, "partition_by", &err) < 0)
        return cs_rdd_refuse(sc, &err);
    rdd_partitioner p = {
        .kind = RDD_PARTITIONER_FUNCTION, .num_partitions = num_partitions, .fn = &ref};
    if (cs_rdd_partitioner_equal(&rdd->partitioner, &p) && rdd->num_partitions == num_partitions) {
        cs_fn_ref_free(&ref);
        return rdd;
    }
    return partition_by_ref(rdd, ref, num_partitions, "partition_by", caller);
}

/* ---- sort_by_key: range bounds from a sample --------------------------------------------- */

typedef struct sample_acc {
    cs_batch keys;
    double *weights; /* per key: records of its partition / keys sampled there */
    size_t cap;
} sample_acc;

static void on_sample(void *arg, int partition, task_result *r)
{
    sample_acc *a = arg;
    double w = r->data.n ? (double)r->count / (double)r->data.n : 0;
    size_t base = a->keys.n;
    cs_batch_append_batch(&a->keys, &r->data);
    if (a->keys.n > a->cap) {
        a->cap = a->keys.n * 2;
        a->weights = cs_xrealloc(a->weights, a->cap * sizeof *a->weights);
    }
    for (size_t i = base; i < a->keys.n; i++)
        a->weights[i] = w;
}

static int cmp_sample(const void *x, const void *y, void *keys)
{
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    cspark_record a = batch_get(keys, i), b = batch_get(keys, j);
    return cs_ext_key_compare(a.key.ptr, a.key.len, b.key.ptr, b.key.len);
}

/* Spark's RangePartitioner.determineBounds: weighted quantiles of the sorted sample, skipping
 * duplicates, so there may be fewer than n-1 bounds. */
static int choose_bounds(shuffle_dep *d, sample_acc *a, int n)
{
    size_t m = a->keys.n;
    if (m == 0 || n <= 1) return 0;
    size_t *idx = cs_xmalloc(m * sizeof *idx);
    for (size_t i = 0; i < m; i++)
        idx[i] = i;
    qsort_r(idx, m, sizeof *idx, cmp_sample, &a->keys);
    double total = 0;
    for (size_t i = 0; i < m; i++)
        total += a->weights[i];
    double step = total / n, cum = 0, target = step;
    cspark_slice *bounds = cs_xcalloc((size_t)n, sizeof *bounds);
    size_t nb = 0, bytes = 0;
    size_t *chosen = cs_xcalloc((size_t)n, sizeof *chosen);
    for (size_t i = 0; i < m && nb < (size_t)n - 1; i++) {
        cum += a->weights[idx[i]];
        if (cum >= target) {
            if (nb == 0 || cmp_sample(&idx[i], &chosen[nb - 1], &a->keys) > 0) {
                chosen[nb++] = idx[i];
                bytes += a->keys.recs[idx[i]].klen;
                target += step;
            }
        }
    }
    d->range_bound_data = cs_xmalloc(bytes ? bytes : 1);
    size_t off = 0;
    for (size_t i = 0; i < nb; i++) {
        cspark_record r = batch_get(&a->keys, chosen[i]);
        memcpy(d->range_bound_data + off, r.key.ptr, r.key.len);
        bounds[i].ptr = d->range_bound_data + off;
        bounds[i].len = r.key.len;
        off += r.key.len;
    }
    d->range_bounds = bounds;
    d->partitioner.bounds = bounds;
    d->partitioner.num_bounds = (int)nb;
    free(idx);
    free(chosen);
    return (int)nb;
}

cspark_rdd *cspark_sort_by_key(cspark_rdd *rdd, bool ascending, int num_partitions)
{
    if (!rdd) return null_rdd("sort_by_key");
    return cs_api_sort_by_key(rdd, ascending, num_partitions, "sort_by_key", CALLER());
}

cspark_rdd *cs_api_sort_by_key(cspark_rdd *rdd, bool ascending, int num_partitions, const char *op,
                               const void *caller)
{
    if (!rdd) return NULL;
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error err;
    cs_error_clear(&err);
    int n = shuffle_partitions(sc, num_partitions, rdd->num_partitions, 0, op, &err);
    if (n < 0) return cs_rdd_refuse(sc, &err);
    if (sc->failed) return NULL;

    /* as Spark: sample ~20 keys per output partition, at most 1e6, oversampled 3x per input */
    int parts = rdd->num_partitions > 0 ? rdd->num_partitions : 1;
    double sample_size = 20.0 * n;
    if (sample_size > 1e6) sample_size = 1e6;
    task_sink sink = {.kind = SINK_SAMPLE, .sample_size = (int)(3.0 * sample_size / parts + 1)};
    sample_acc acc;
    memset(&acc, 0, sizeof acc);
    cs_batch_init(&acc.keys);
    int nb = 0;
    if (n > 1 && rdd->num_partitions > 0) {
        if (cs_api_run_job(sc, rdd, NULL, 0, &sink, on_sample, &acc, op, caller, &err) < 0) {
            cs_batch_free(&acc.keys);
            free(acc.weights);
            return cs_rdd_refuse(sc, &err);
        }
    }
    shuffle_dep *d = dep_new(rdd, PART_RANGE, n);
    nb = choose_bounds(d, &acc, n);
    cs_batch_free(&acc.keys);
    free(acc.weights);
    d->partitioner.num_partitions = nb + 1;
    d->partitioner.ascending = ascending;
    cspark_rdd *r = shuffled(rdd, d, nb + 1, SHUFFLE_READ_SORT, op, caller);
    r->ascending = ascending;
    return r;
}
