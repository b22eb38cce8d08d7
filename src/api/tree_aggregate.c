/*
 * tree_aggregate.c — tree_aggregate of cspark.h (Spark's treeAggregate): each partition folds its
 * values with seq from the zero into one record (RDD_FOLD_PARTITION, exec/fold_iter.c); while
 * there are more partial results than scale + results / scale (scale = max(ceil(partitions ^
 * (1/depth)), 2)), they are re-keyed by their index modulo a partition count divided by scale
 * and merged with comb by reduce_by_key, so the driver merges a few results instead of one per
 * partition; the driver's fold with comb merges the last level.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"

/* The levels of tree_aggregate, inside its scope. */
static int tree_levels(cspark_rdd *rdd, const void *zero, size_t zero_len, cspark_reduce_fn seq,
                       cspark_reduce_fn comb, const void *closure, size_t len, int depth,
                       void **out, size_t *out_len, const void *caller)
{
    cspark_rdd *cur =
        cs_api_narrow(rdd, RDD_FOLD_PARTITION, "tree_aggregate", (void *)seq, closure, len, caller);
    if (!cur) return CS_EINVAL;
    cur->agg.has_zero = true;
    cur->agg.zero_len = (uint32_t)zero_len;
    cur->agg.zero = cs_xmalloc(zero_len ? zero_len : 1);
    if (zero_len) memcpy(cur->agg.zero, zero, zero_len);
    int64_t n = rdd->num_partitions;
    int64_t scale = (int64_t)ceil(pow((double)n, 1.0 / depth));
    if (scale < 2) scale = 2;
    while (n > scale + (n + scale - 1) / scale) {
        n = (n + scale - 1) / scale;
        uint8_t mod[8];
        cspark_i64_encode(n, mod);
        cspark_rdd *rekeyed =
            cs_api_narrow_builtin(cur, RDD_MAP, "tree_aggregate", "cs_builtin_rekey_mod",
                                  (void *)cs_builtin_rekey_mod, caller);
        if (!rekeyed) return CS_EINVAL;
        cs_fn_ref_copy_closure(&rekeyed->fn, mod, sizeof mod);
        cur = cspark_reduce_by_key(rekeyed, comb, closure, len, (int)n);
        if (!cur) return CS_EINVAL;
    }
    return cspark_fold(cur, zero, zero_len, comb, closure, len, out, out_len);
}

int cspark_tree_aggregate(cspark_rdd *rdd, const void *zero, size_t zero_len, cspark_reduce_fn seq,
                          cspark_reduce_fn comb, const void *closure, size_t len, int depth,
                          void **out, size_t *out_len)
{
    if (!rdd || !out) return CS_EINVAL;
    *out = NULL;
    const void *caller = CALLER();
    cspark_context *sc = cs_rdd_context(rdd);
    cs_error e;
    if (depth < 1) {
        cs_error_set(&e, CS_EINVAL, "tree_aggregate: depth must be at least 1, got %d", depth);
        return cs_context_fail(sc, &e);
    }
    /* the reduce_by_key levels and the final fold carry tree_aggregate's name */
    bool scope = cs_api_scope_enter("tree_aggregate", caller);
    int rc = tree_levels(rdd, zero, zero_len, seq, comb, closure, len, depth, out, out_len, caller);
    cs_api_scope_leave(scope);
    return rc;
}
