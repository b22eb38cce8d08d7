/*
 * kernels_time_window.c — window(time, window_us, start_us), the tumbling time window of Spark's
 * TimeWindow after the analyzer read its durations (sql/function_registry_time_window.c): the
 * struct<start, end> of the window holding each time, start = time - ((time - start_us) mod
 * window_us) (the modulo taken non-negative) and end = start + window_us, in microseconds of the
 * time's own type. A null time gives a null struct. window_time(window) is Spark's WindowTime:
 * the window's end less one microsecond, null for a null window. One loop per batch. Called
 * through cs_px_time_window_lookup (kernels_datetime_more.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static int time_window_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, st = cs_px_stride(a[0], n), sw = cs_px_stride(a[1], n),
            ss = cs_px_stride(a[2], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    uint8_t *valid = cs_xmalloc((size_t)(n ? n : 1));
    int64_t *start = cs_xmalloc(sizeof *start * (size_t)(n ? n : 1));
    int64_t *end = cs_xmalloc(sizeof *end * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        valid[i] = cs_column_is_valid(a[0], i * st) && cs_column_is_valid(a[1], i * sw) &&
                   cs_column_is_valid(a[2], i * ss);
        start[i] = end[i] = 0;
        if (!valid[i]) continue;
        int64_t t = ((const int64_t *)(const void *)a[0]->values)[i * st];
        int64_t w = ((const int64_t *)(const void *)a[1]->values)[i * sw];
        int64_t s0 = ((const int64_t *)(const void *)a[2]->values)[i * ss];
        int64_t r = (t - s0) % w;
        if (r < 0) r += w;
        start[i] = t - r;
        end[i] = start[i] + w;
    }
    cs_col_builder_append_structs(b, n, valid);
    cs_col_builder_append_values(cs_col_builder_child(b, 0), start, n, valid);
    cs_col_builder_append_values(cs_col_builder_child(b, 1), end, n, valid);
    free(valid);
    free(start);
    free(end);
    return cs_px_builder_result(b, CS_OK, out);
}

static int window_time_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sw = cs_px_stride(a[0], n);
    const cs_column *end = a[0]->children[1];
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    uint8_t *valid = cs_xmalloc((size_t)(n ? n : 1));
    int64_t *t = cs_xmalloc(sizeof *t * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        valid[i] = cs_column_is_valid(a[0], i * sw) && cs_column_is_valid(end, i * sw);
        t[i] = valid[i] ? ((const int64_t *)(const void *)end->values)[i * sw] - 1 : 0;
    }
    cs_col_builder_append_values(b, t, n, valid);
    free(valid);
    free(t);
    return cs_px_builder_result(b, CS_OK, out);
}

cs_px_kernel cs_px_time_window_lookup(const char *fn, const cs_col_type *const *t, int n,
                                      const cs_col_type *result)
{
    if (strcmp(fn, "window") == 0 && n == 3 &&
        (t[0]->id == CS_TYPE_TIMESTAMP || t[0]->id == CS_TYPE_TIMESTAMP_NTZ) &&
        t[1]->id == CS_TYPE_LONG && t[2]->id == CS_TYPE_LONG && result->id == CS_TYPE_STRUCT)
        return time_window_kernel;
    if (strcmp(fn, "window_time") == 0 && n == 1 && t[0]->id == CS_TYPE_STRUCT &&
        t[0]->n_fields == 2 && t[0]->fields[1].type->id == result->id &&
        (result->id == CS_TYPE_TIMESTAMP || result->id == CS_TYPE_TIMESTAMP_NTZ))
        return window_time_kernel;
    return NULL;
}
