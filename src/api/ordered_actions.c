/*
 * ordered_actions.c — the actions of cspark.h that order or count on the driver: first, top and
 * take_ordered (each task keeps a bounded heap of n records, exec/top_heap.h, and the driver
 * merges the tasks' heaps in another, as Spark's takeOrdered: no sort of the data), count_by_key
 * and count_by_value (a reduce_by_key of ones, collected: Spark's countByKey), collect_as_map
 * (collected, the last record of each key kept), and cspark_records_find over their sorted
 * results. Called by jobs through cspark.h.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "exec/top_heap.h"
#include "sched/scheduler.h"
#include "shuffle/external_sort.h"

/* top / take_ordered keep n records per task and on the driver (heap indexes are 32-bit) */
#define ORDERED_MAX (1 << 28)

static void on_top_result(void *arg, int partition, task_result *r)
{
    (void)partition;
    cs_top_heap_add_batch(arg, &r->data);
}

static int ordered(cspark_rdd *rdd, size_t n, bool largest, cspark_records **out,
                   const void *caller)
{
    if (!rdd || !out) return CS_EINVAL;
    *out = NULL;
    cspark_context *sc = cs_rdd_context(rdd);
    if (sc->failed) return CS_ECANCELLED;
    if (n > ORDERED_MAX) {
        cs_error e;
        cs_error_set(&e, CS_EINVAL,
                     "%s: n must be at most %d (every task keeps n records in memory), got %zu; "
                     "use sort_by_key and save_as_text_file for more",
                     largest ? "top" : "take_ordered", ORDERED_MAX, n);
        return cs_context_fail(sc, &e);
    }
    cs_top_heap merged;
    cs_top_heap_init(&merged, n, largest);
    int rc = 0;
    if (n > 0) {
        task_sink sink = {.kind = largest ? SINK_TOP : SINK_TAKE_ORDERED, .take_n = n};
        cs_error err;
        cs_error_clear(&err);
        if (cs_api_run_job(sc, rdd, NULL, 0, &sink, on_top_result, &merged,
                           largest ? "top" : "take_ordered", caller, &err) < 0)
            rc = cs_api_action_failed(sc, &err);
    }
    if (rc == 0) {
        cspark_records *r = cs_xcalloc(1, sizeof *r);
        cs_batch_init(&r->b);
        cs_top_heap_result(&merged, &r->b);
        *out = r;
    }
    cs_top_heap_free(&merged);
    return rc;
}

int cspark_top(cspark_rdd *rdd, size_t n, cspark_records **out)
{
    return ordered(rdd, n, true, out, CALLER());
}

int cspark_take_ordered(cspark_rdd *rdd, size_t n, cspark_records **out)
{
    return ordered(rdd, n, false, out, CALLER());
}

int cspark_first(cspark_rdd *rdd, cspark_records **out)
{
    if (!rdd || !out) return CS_EINVAL;
    bool scope = cs_api_scope_enter("first", CALLER()); /* its job is first's, not take's */
    int rc = cspark_take(rdd, 1, out);
    cs_api_scope_leave(scope);
    if (rc < 0) return rc;
    if (cspark_records_count(*out) == 0) {
        cspark_records_free(*out);
        *out = NULL;
        cs_error e;
        cs_error_set(&e, CS_EINVAL, "first of an empty collection");
        return cs_context_fail(cs_rdd_context(rdd), &e);
    }
    return 0;
}

/* ---- results sorted by key --------------------------------------------------------------- */

static int cmp_key_then_index(const void *x, const void *y, void *arg)
{
    const cs_batch *b = arg;
    size_t i = *(const size_t *)x, j = *(const size_t *)y;
    cspark_record a = batch_get(b, i), c = batch_get(b, j);
    int k = cs_ext_key_compare(a.key.ptr, a.key.len, c.key.ptr, c.key.len);
    return k ? k : (i < j ? -1 : i > j);
}

/* The records of `in` sorted by key, keeping for each key its last record (in input order). */
static cspark_records *sorted_unique(const cs_batch *in)
{
    cspark_records *r = cs_xcalloc(1, sizeof *r);
    cs_batch_init(&r->b);
    size_t n = in->n;
    size_t *idx = cs_xmalloc((n ? n : 1) * sizeof *idx);
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    qsort_r(idx, n, sizeof *idx, cmp_key_then_index, (void *)in);
    for (size_t i = 0; i < n; i++) {
        cspark_record a = batch_get(in, idx[i]);
        if (i + 1 < n) {
            cspark_record next = batch_get(in, idx[i + 1]);
            if (cs_ext_key_compare(a.key.ptr, a.key.len, next.key.ptr, next.key.len) == 0)
                continue; /* a later record has this key */
        }
        cs_batch_append_record(&r->b, a.key.ptr, a.key.len, a.value.ptr, a.value.len);
    }
    free(idx);
    return r;
}

int cspark_collect_as_map(cspark_rdd *rdd, cspark_records **out)
{
    if (!rdd || !out) return CS_EINVAL;
    *out = NULL;
    cspark_records *all;
    bool scope = cs_api_scope_enter("collect_as_map", CALLER());
    int rc = cspark_collect(rdd, &all);
    cs_api_scope_leave(scope);
    if (rc < 0) return rc;
    *out = sorted_unique(&all->b);
    cspark_records_free(all);
    return 0;
}

static int count_by(cspark_rdd *rdd, const char *op, const char *name, void *fn, const void *caller,
                    cspark_records **out)
{
    if (!rdd || !out) return CS_EINVAL;
    *out = NULL;
    bool scope = cs_api_scope_enter(op, caller); /* its shuffle and job carry op's name */
    cspark_rdd *ones = cs_api_narrow_builtin(rdd, RDD_MAP, op, name, fn, caller);
    cspark_rdd *counts = cspark_reduce_by_key(ones, cspark_sum_i64, NULL, 0, 0);
    int rc = counts ? cspark_collect_as_map(counts, out) : CS_EINVAL;
    cs_api_scope_leave(scope);
    return rc;
}

int cspark_count_by_key(cspark_rdd *rdd, cspark_records **out)
{
    return count_by(rdd, "count_by_key", "cs_builtin_count_key", (void *)cs_builtin_count_key,
                    CALLER(), out);
}

int cspark_count_by_value(cspark_rdd *rdd, cspark_records **out)
{
    return count_by(rdd, "count_by_value", "cs_builtin_count_record",
                    (void *)cs_builtin_count_record, CALLER(), out);
}

bool cspark_records_find(const cspark_records *r, const void *key, size_t key_len,
                         cspark_slice *value)
{
    if (!r || key_len > UINT32_MAX) return false;
    size_t lo = 0, hi = r->b.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        cspark_record m = batch_get(&r->b, mid);
        int c = cs_ext_key_compare(m.key.ptr, m.key.len, key, (uint32_t)key_len);
        if (c == 0) {
            if (value) *value = m.value;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}
