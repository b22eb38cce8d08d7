/*
 * kernels_array_set.c — Spark's set operations on arrays and the array builders: array_union,
 * array_intersect, array_except (distinct elements in first-occurrence order; one null kept as
 * Spark's SQLOpenHashSet keeps it; NaN equals NaN), arrays_overlap (null when nothing is shared
 * but a non-empty side holds a null), flatten (null when any inner array is null), array_repeat
 * (a negative count is the empty array), array_join (null elements skipped, or written as the
 * replacement) and sequence over integral bounds (step 1 or -1 by default).
 *
 * Every kernel computes one (source, row) list for the whole batch and gathers it once
 * (cs_px_merge over the two arrays' element children, cs_px_take for one), then lays the
 * offsets over it: no allocation per row. Membership is a scan of the row's elements (arrays
 * in SQL rows are short; no hash table per row). Called through cs_px_array_set_lookup
 * (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

/* Whether element x of cx equals element y of cy (null equals null). */
static bool same(const cs_column *cx, int32_t x, const cs_column *cy, int32_t y)
{
    bool vx = cs_column_is_valid(cx, x), vy = cs_column_is_valid(cy, y);
    if (!vx || !vy) return vx == vy;
    return cs_px_elem_cmp(cx, x, cy, y) == 0;
}

/* Whether element x of c is in [lo, hi) of col. */
static bool member(const cs_column *c, int32_t x, const cs_column *col, int32_t lo, int32_t hi)
{
    for (int32_t e = lo; e < hi; e++)
        if (same(c, x, col, e)) return true;
    return false;
}

typedef enum { S_UNION, S_INTERSECT, S_EXCEPT } set_op;

/* Appends element e of side s to the row unless the row has it already. */
static void add_distinct(const cs_column *const *el, int s, int32_t e, int32_t *which, int32_t *row,
                         int64_t start, int64_t *m)
{
    for (int64_t q = start; q < *m; q++)
        if (same(el[which[q]], row[q], el[s], e)) return;
    which[*m] = s;
    row[*m] = e;
    (*m)++;
}

static int set_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    set_op op = strcmp(k->e->fn, "array_union") == 0       ? S_UNION
                : strcmp(k->e->fn, "array_intersect") == 0 ? S_INTERSECT
                                                           : S_EXCEPT;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n);
    const cs_column *el[2] = {a[0]->children[0], a[1]->children[0]};
    const int32_t *o0 = cs_column_offsets(a[0]), *o1 = cs_column_offsets(a[1]);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += (o0[i * s0 + 1] - o0[i * s0]) + (o1[i * s1 + 1] - o1[i * s1]);
    int32_t *which = cs_xmalloc(sizeof *which * (size_t)(total + 1));
    int32_t *row = cs_xmalloc(sizeof *row * (size_t)(total + 1));
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s0) || !cs_column_is_valid(a[1], i * s1)) {
            null[i] = 1;
            continue;
        }
        int32_t lo0 = o0[i * s0], hi0 = o0[i * s0 + 1], lo1 = o1[i * s1], hi1 = o1[i * s1 + 1];
        int64_t start = m;
        for (int32_t e = lo0; e < hi0; e++) {
            bool in1 = op == S_UNION || member(el[0], e, el[1], lo1, hi1);
            if (op == S_EXCEPT ? !in1 : in1) add_distinct(el, 0, e, which, row, start, &m);
        }
        if (op == S_UNION)
            for (int32_t e = lo1; e < hi1; e++)
                add_distinct(el, 1, e, which, row, start, &m);
        lens[i] = (int32_t)(m - start);
    }
    cs_column *child =
        cs_px_merge(k->alloc, k->e->type->fields[0].type, (cs_column *const *)el, 2, which, row, m);
    *out = cs_px_list_column(k, k->e->type, lens, null, &child, 1);
    free(which);
    free(row);
    free(lens);
    free(null);
    return CS_OK;
}

static int overlap_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n);
    const cs_column *e0 = a[0]->children[0], *e1 = a[1]->children[0];
    const int32_t *o0 = cs_column_offsets(a[0]), *o1 = cs_column_offsets(a[1]);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_ensure_validity(r);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s0) || !cs_column_is_valid(a[1], i * s1)) {
            cs_px_set_null(r, i);
            continue;
        }
        int32_t lo0 = o0[i * s0], hi0 = o0[i * s0 + 1], lo1 = o1[i * s1], hi1 = o1[i * s1 + 1];
        bool found = false, has_null = false;
        for (int32_t x = lo0; x < hi0 && !found; x++) {
            if (!cs_column_is_valid(e0, x)) {
                has_null = true;
                continue;
            }
            for (int32_t y = lo1; y < hi1 && !found; y++)
                found = cs_column_is_valid(e1, y) && cs_px_elem_cmp(e0, x, e1, y) == 0;
        }
        for (int32_t y = lo1; y < hi1; y++)
            has_null = has_null || !cs_column_is_valid(e1, y);
        if (found)
            cs_bit_set(r->values, i, true);
        else if (has_null && hi0 > lo0 && hi1 > lo1)
            cs_px_set_null(r, i);
    }
    *out = r;
    return CS_OK;
}

/* flatten(array<array<T>>) and array_repeat(x, count): element indices, gathered once */
static int gather_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool repeat = strcmp(k->e->fn, "array_repeat") == 0;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n);
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int64_t total = 0;
    const cs_column *inner = repeat ? NULL : a[0]->children[0];
    const int32_t *oo = repeat ? NULL : cs_column_offsets(a[0]);
    const int32_t *io = repeat ? NULL : cs_column_offsets(inner);
    for (int64_t i = 0; i < n; i++) {
        if (repeat) {
            int64_t sc = cs_px_stride(a[1], n);
            if (!cs_column_is_valid(a[1], i * sc)) {
                null[i] = 1;
                continue;
            }
            int32_t c = ((const int32_t *)(const void *)a[1]->values)[i * sc];
            lens[i] = c > 0 ? c : 0;
        } else {
            if (!cs_column_is_valid(a[0], i * s0)) {
                null[i] = 1;
                continue;
            }
            for (int32_t e = oo[i * s0]; e < oo[i * s0 + 1] && !null[i]; e++) {
                if (!cs_column_is_valid(inner, e))
                    null[i] = 1;
                else
                    lens[i] += io[e + 1] - io[e];
            }
            if (null[i]) lens[i] = 0;
        }
        total += lens[i];
    }
    if (total > 2147483632LL) {
        free(lens);
        free(null);
        return cs_sql_error_set(k->err, CS_ETASK, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                                "54000",
                                "Can't create array with %lld elements which exceeding the "
                                "array size limit 2147483632.",
                                (long long)total);
    }
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (null[i]) continue;
        if (repeat) {
            for (int32_t j = 0; j < lens[i]; j++)
                idx[m++] = (int32_t)(i * s0);
            continue;
        }
        for (int32_t e = oo[i * s0]; e < oo[i * s0 + 1]; e++)
            for (int32_t x = io[e]; x < io[e + 1]; x++)
                idx[m++] = x;
    }
    cs_column *child = cs_px_take(repeat ? a[0] : inner->children[0], idx, m, k->alloc);
    *out = cs_px_list_column(k, k->e->type, lens, null, &child, 1);
    free(idx);
    free(lens);
    free(null);
    return CS_OK;
}

/* array_join(array<string>, sep[, null_replacement]) */
static int join_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n);
    int64_t s2 = na > 2 ? cs_px_stride(a[2], n) : 0;
    const cs_column *el = a[0]->children[0];
    bool typed = el->type->id == CS_TYPE_STRING;
    const int32_t *off = cs_column_offsets(a[0]);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s0) || !cs_column_is_valid(a[1], i * s1) ||
            (na > 2 && !cs_column_is_valid(a[2], i * s2))) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t sl, rl = 0;
        const uint8_t *sep = cs_px_bytes(a[1], i, s1, &sl);
        const uint8_t *rep = na > 2 ? cs_px_bytes(a[2], i, s2, &rl) : NULL;
        sb.len = 0;
        bool first = true;
        for (int32_t e = off[i * s0]; e < off[i * s0 + 1]; e++) {
            int32_t l;
            const uint8_t *v;
            if (typed && cs_column_is_valid(el, e))
                v = cs_column_bytes(el, e, &l);
            else if (rep)
                v = rep, l = rl;
            else
                continue;
            if (!first) cs_sbuf_append(&sb, sep, (size_t)sl);
            cs_sbuf_append(&sb, v, (size_t)l);
            first = false;
        }
        cs_col_builder_append_string(b, cs_sbuf_str(&sb), sb.len);
    }
    cs_sbuf_free(&sb);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* sequence(start, stop[, step]) over integral bounds */
static int sequence_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int64_t total = 0;
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        bool valid = true;
        for (int j = 0; j < na; j++)
            valid = valid && cs_column_is_valid(a[j], i * cs_px_stride(a[j], n));
        if (!valid) {
            null[i] = 1;
            continue;
        }
        int64_t lo = cs_sql_long_at(a[0], i * cs_px_stride(a[0], n));
        int64_t hi = cs_sql_long_at(a[1], i * cs_px_stride(a[1], n));
        int64_t step =
            na > 2 ? cs_sql_long_at(a[2], i * cs_px_stride(a[2], n)) : (lo <= hi ? 1 : -1);
        if ((step > 0 && lo > hi) || (step < 0 && lo < hi) || (step == 0 && lo != hi)) {
            rc = cs_error_set(k->err, CS_ETASK, "Illegal sequence boundaries: %lld to %lld by %lld",
                              (long long)lo, (long long)hi, (long long)step);
            break;
        }
        __int128 len = step == 0 ? 1 : ((__int128)hi - lo) / step + 1;
        if (len + total > 2147483632LL) {
            rc = cs_sql_error_set(k->err, CS_ETASK, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER",
                                  "54000",
                                  "Can't create array with %lld elements which exceeding the "
                                  "array size limit 2147483632.",
                                  (long long)len);
            break;
        }
        lens[i] = (int32_t)len;
        total += lens[i];
    }
    if (rc == CS_OK) {
        const cs_col_type *et = k->e->type->fields[0].type;
        cs_column *child = cs_px_new_fixed(k->alloc, et, total);
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++) {
            if (null[i]) continue;
            int64_t lo = cs_sql_long_at(a[0], i * cs_px_stride(a[0], n));
            int64_t step = na > 2 ? cs_sql_long_at(a[2], i * cs_px_stride(a[2], n)) : 0;
            if (na <= 2) step = lo <= cs_sql_long_at(a[1], i * cs_px_stride(a[1], n)) ? 1 : -1;
            for (int32_t j = 0; j < lens[i]; j++)
                cs_px_int_put(child, m++, lo + step * j);
        }
        *out = cs_px_list_column(k, k->e->type, lens, null, &child, 1);
    }
    free(lens);
    free(null);
    return rc;
}

static bool integral(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG;
}

cs_px_kernel cs_px_array_set_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    if (n < 1) return NULL;
    bool arr0 = t[0]->id == CS_TYPE_ARRAY, arr1 = n > 1 && t[1]->id == CS_TYPE_ARRAY;
    if ((strcmp(fn, "array_union") == 0 || strcmp(fn, "array_intersect") == 0 ||
         strcmp(fn, "array_except") == 0) &&
        n == 2 && arr0 && arr1 && result->id == CS_TYPE_ARRAY &&
        cs_px_type_same(t[0]->fields[0].type, result->fields[0].type) &&
        cs_px_type_same(t[1]->fields[0].type, result->fields[0].type))
        return set_kernel;
    if (strcmp(fn, "arrays_overlap") == 0 && n == 2 && arr0 && arr1 &&
        cs_px_type_same(t[0]->fields[0].type, t[1]->fields[0].type))
        return overlap_kernel;
    if (strcmp(fn, "flatten") == 0 && n == 1 && arr0 && t[0]->fields[0].type->id == CS_TYPE_ARRAY)
        return gather_kernel;
    if (strcmp(fn, "array_repeat") == 0 && n == 2 && t[1]->id == CS_TYPE_INT &&
        result->id == CS_TYPE_ARRAY && cs_px_type_same(t[0], result->fields[0].type))
        return gather_kernel;
    if (strcmp(fn, "array_join") == 0 && (n == 2 || n == 3) && arr0 && result->id == CS_TYPE_STRING)
        return join_kernel;
    if (strcmp(fn, "sequence") == 0 && (n == 2 || n == 3) && result->id == CS_TYPE_ARRAY &&
        integral(result->fields[0].type->id)) {
        for (int i = 0; i < n; i++)
            if (!integral(t[i]->id)) return NULL;
        return sequence_kernel;
    }
    return NULL;
}
