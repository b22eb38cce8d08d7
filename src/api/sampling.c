/*
 * sampling.c — sample, random_split and zip_with_index of cspark.h. A sample is a narrow node
 * (RDD_SAMPLE) whose parameters travel in its closure and whose draws depend only on the seed,
 * the partition index and the record's position (exec/part_iter.c), so a retried task keeps the
 * same records; random_split is Spark's: one sample per part over the cumulative normalized
 * weights, [lo, hi) of the same draws, so the parts are disjoint and cover the RDD.
 * zip_with_index counts the records of every partition but the last in a job run at once (as
 * Spark's ZippedWithIndexRDD) and gives the node each partition's first index.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "sched/scheduler.h"

static cspark_rdd *sample_node(cspark_rdd *rdd, const sample_params *sp, const char *op,
                               const void *caller)
{
    cspark_rdd *r =
        cs_api_rdd_new(cs_rdd_context(rdd), RDD_SAMPLE, rdd->num_partitions, op, caller);
    r->parents[0] = rdd;
    r->num_parents = 1;
    cs_fn_ref_builtin(&r->fn, "cs_builtin_sample", (void *)cs_builtin_sample);
    cs_fn_ref_copy_closure(&r->fn, sp, sizeof *sp);
    return cs_api_keep_partitioner(r, rdd); /* Spark's sample preserves partitioning */
}

static cspark_rdd *refuse(cspark_rdd *rdd, const char *fmt, double v)
{
    cs_error e;
    cs_error_set(&e, CS_EINVAL, fmt, v);
    return cs_rdd_refuse(cs_rdd_context(rdd), &e);
}

cspark_rdd *cspark_sample(cspark_rdd *rdd, bool with_replacement, double fraction, uint64_t seed)
{
    if (!rdd) {
        cs_context_null_argument("sample", "RDD");
        return NULL;
    }
    if (!(fraction >= 0) || !isfinite(fraction))
        return refuse(rdd, "sample: fraction must be a number >= 0, got %g", fraction);
    if (!with_replacement && fraction > 1)
        return refuse(rdd, "sample: fraction must be in [0, 1] without replacement, got %g",
                      fraction);
    if (with_replacement && fraction > 100)
        return refuse(rdd, "sample: fraction must be at most 100 with replacement, got %g",
                      fraction);
    sample_params sp;
    memset(&sp, 0, sizeof sp); /* the padding travels too */
    sp.lo = 0;
    sp.hi = fraction;
    sp.fraction = fraction;
    sp.seed = seed;
    sp.with_replacement = with_replacement;
    return sample_node(rdd, &sp, "sample", CALLER());
}

int cspark_random_split(cspark_rdd *rdd, const double *weights, int n, uint64_t seed,
                        cspark_rdd **out)
{
    if (!rdd) return CS_EINVAL;
    const void *caller = CALLER();
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error e;
    double total = 0;
    if (n < 1 || !weights || !out) {
        cs_error_set(&e, CS_EINVAL, "random_split: needs at least one weight, got %d", n);
        return cs_context_fail(sc, &e);
    }
    for (int i = 0; i < n; i++) {
        out[i] = NULL;
        if (!(weights[i] >= 0) || !isfinite(weights[i])) {
            cs_error_set(&e, CS_EINVAL, "random_split: weight %d must be a number >= 0, got %g", i,
                         weights[i]);
            return cs_context_fail(sc, &e);
        }
        total += weights[i];
    }
    if (!(total > 0)) {
        cs_error_set(&e, CS_EINVAL, "random_split: the weights sum to %g; they must sum to > 0",
                     total);
        return cs_context_fail(sc, &e);
    }
    double lo = 0;
    for (int i = 0; i < n; i++) {
        sample_params sp;
        memset(&sp, 0, sizeof sp);
        sp.lo = lo;
        sp.hi = i == n - 1 ? 1.0 : lo + weights[i] / total;
        sp.fraction = sp.hi - sp.lo;
        sp.seed = seed;
        out[i] = sample_node(rdd, &sp, "random_split", caller);
        lo = sp.hi;
    }
    return 0;
}

typedef struct counts {
    int64_t *per_partition;
} counts;

static void on_count(void *arg, int partition, task_result *r)
{
    ((counts *)arg)->per_partition[partition] = r->count;
}

cspark_rdd *cspark_zip_with_index(cspark_rdd *rdd)
{
    if (!rdd) {
        cs_context_null_argument("zip_with_index", "RDD");
        return NULL;
    }
    cspark_context *sc = cs_rdd_context(rdd);
    const void *caller = CALLER();
    if (sc->failed) return NULL;
    int np = rdd->num_partitions;
    counts c = {cs_xcalloc((size_t)np + 1, sizeof(int64_t))};
    if (np > 1) { /* the last partition's count is not needed */
        int *parts = cs_xmalloc((size_t)np * sizeof *parts);
        for (int i = 0; i < np - 1; i++)
            parts[i] = i;
        task_sink sink = {.kind = SINK_COUNT};
        cs_error err;
        cs_error_clear(&err);
        int rc = cs_api_run_job(sc, rdd, parts, np - 1, &sink, on_count, &c, "zip_with_index",
                                caller, &err);
        free(parts);
        if (rc < 0) {
            free(c.per_partition);
            return cs_rdd_refuse(sc, &err);
        }
    }
    int64_t *starts = cs_xcalloc((size_t)np + 1, sizeof *starts), at = 0;
    for (int i = 0; i < np; i++) {
        starts[i] = at;
        at += c.per_partition[i];
    }
    free(c.per_partition);
    cspark_rdd *r = cs_api_rdd_new(sc, RDD_ZIP_WITH_INDEX, np, "zip_with_index", caller);
    r->parents[0] = rdd;
    r->num_parents = 1;
    cs_fn_ref_builtin(&r->fn, "cs_builtin_zip_with_index", (void *)cs_builtin_zip_with_index);
    cs_fn_ref_copy_closure(&r->fn, starts, (size_t)np * sizeof *starts);
    free(starts);
    return r;
}
