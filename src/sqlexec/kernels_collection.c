/*
 * kernels_collection.c — kernels over Spark's arrays and maps (Arrow lists: int32 offsets plus
 * an element child; maps: key and value children): size/cardinality, array_sort (ascending,
 * nulls last), array_distinct (first occurrences), array_position (1-based, 0 when absent),
 * slice, reverse of arrays, array_max / array_min, map_keys and map_values.
 *
 * The kernels that pick elements compute one int32 index list over the element child for the
 * whole batch and gather it once (cs_px_take), then lay the new offsets over it: no allocation
 * per row. Elements compare as Spark's ordering of the element type (numbers by value, NaN the
 * largest double; strings and binaries by unsigned bytes; dates and timestamps as numbers).
 * Errors are Spark's: slice's INVALID_PARAMETER_VALUE.START / .LENGTH. Called through
 * cs_px_collection_lookup (pexpr.c's chain).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static bool comparable(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
    case CS_TYPE_DECIMAL:
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
    case CS_TYPE_DATE:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_YM:
    case CS_TYPE_INTERVAL_DT:
    case CS_TYPE_NULL:
        return true;
    default:
        return false;
    }
}

static int cmp_double(double x, double y)
{
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

/* Spark's ordering of a[i] and b[j] (both valid, same type). */
int cs_px_elem_cmp(const cs_column *a, int64_t i, const cs_column *b, int64_t j)
{
    switch (a->type->id) {
    case CS_TYPE_BOOLEAN:
        return (int)cs_bit_get(a->values, i) - (int)cs_bit_get(b->values, j);
    case CS_TYPE_BYTE: {
        int8_t x = ((const int8_t *)a->values)[i], y = ((const int8_t *)b->values)[j];
        return (x > y) - (x < y);
    }
    case CS_TYPE_SHORT: {
        int16_t x = ((const int16_t *)(const void *)a->values)[i],
                y = ((const int16_t *)(const void *)b->values)[j];
        return (x > y) - (x < y);
    }
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM: {
        int32_t x = ((const int32_t *)(const void *)a->values)[i],
                y = ((const int32_t *)(const void *)b->values)[j];
        return (x > y) - (x < y);
    }
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT: {
        int64_t x = ((const int64_t *)(const void *)a->values)[i],
                y = ((const int64_t *)(const void *)b->values)[j];
        return (x > y) - (x < y);
    }
    case CS_TYPE_FLOAT:
        return cmp_double(((const float *)(const void *)a->values)[i],
                          ((const float *)(const void *)b->values)[j]);
    case CS_TYPE_DOUBLE:
        return cmp_double(((const double *)(const void *)a->values)[i],
                          ((const double *)(const void *)b->values)[j]);
    case CS_TYPE_DECIMAL: {
        __int128 x = cs_px_dec_get(a, i), y = cs_px_dec_get(b, j);
        return (x > y) - (x < y);
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t lx, ly;
        const uint8_t *x = cs_column_bytes(a, i, &lx), *y = cs_column_bytes(b, j, &ly);
        int c = memcmp(x, y, (size_t)(lx < ly ? lx : ly));
        return c ? c : (lx > ly) - (lx < ly);
    }
    default:
        return 0;
    }
}

/* ascending, nulls last; stable merge sort of idx[0..n) with scratch tmp[0..n) */
static bool before(const cs_column *c, int32_t x, int32_t y)
{
    bool vx = cs_column_is_valid(c, x), vy = cs_column_is_valid(c, y);
    if (!vx || !vy) return vx && !vy;
    return cs_px_elem_cmp(c, x, c, y) < 0;
}

static void merge_sort(const cs_column *c, int32_t *idx, int32_t *tmp, int64_t n)
{
    if (n < 2) return;
    int64_t h = n / 2;
    merge_sort(c, idx, tmp, h);
    merge_sort(c, idx + h, tmp, n - h);
    int64_t i = 0, j = h, o = 0;
    while (i < h && j < n)
        tmp[o++] = before(c, idx[j], idx[i]) ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, sizeof *idx * (size_t)n);
}

/* A list column of type over taken elements: row i has lens[i] of them (0 for a null row);
 * validity copied from src (a one-row literal is repeated). Takes over child. */
static cs_column *list_of(const cs_px_kctx *k, const cs_column *src, int64_t ss,
                          const int32_t *lens, cs_column *child)
{
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref(k->e->type), n);
    r->values_size = (size_t)(n + 1) * 4;
    r->values = cs_col_buffer_alloc(r->alloc, r->values_size);
    int32_t *off = (int32_t *)(void *)r->values;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++)
        off[i + 1] = off[i] + lens[i];
    if (src->null_count) {
        cs_px_ensure_validity(r);
        for (int64_t i = 0; i < n; i++)
            if (!cs_column_is_valid(src, i * ss)) cs_px_set_null(r, i);
    }
    r->n_children = 1;
    r->children = cs_xcalloc(1, sizeof *r->children);
    r->children[0] = child;
    return r;
}

typedef enum { OP_SORT, OP_DISTINCT, OP_REVERSE, OP_SLICE } pick_op;

static int slice_error(const cs_px_kctx *k, bool start, int32_t v)
{
    return cs_sql_error_set(
        k->err, CS_ETASK,
        start ? "INVALID_PARAMETER_VALUE.START" : "INVALID_PARAMETER_VALUE.LENGTH", "22023",
        start ? "The value of parameter(s) `start` in `slice` is invalid: "
                "Expects a positive or a negative value for `start`, but got "
                "0."
              : "The value of parameter(s) `length` in `slice` is invalid: "
                "Expects `length` greater than or equal to 0, but got %d.",
        v);
}

/* array_sort, array_distinct, reverse, slice: element indices per row, gathered once */
static int pick_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const char *fn = k->e->fn;
    pick_op op = strcmp(fn, "array_sort") == 0       ? OP_SORT
                 : strcmp(fn, "array_distinct") == 0 ? OP_DISTINCT
                 : strcmp(fn, "reverse") == 0        ? OP_REVERSE
                                                     : OP_SLICE;
    int64_t n = k->n, ss = cs_px_stride(a[0], n);
    const cs_column *arr = a[0], *el = arr->children[0];
    const int32_t *off = cs_column_offsets(arr);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        if (cs_column_is_valid(arr, i * ss)) total += off[i * ss + 1] - off[i * ss];
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int32_t *tmp = op == OP_SORT ? cs_xmalloc(sizeof *tmp * (size_t)(total + 1)) : NULL;
    int64_t m = 0;
    int rc = CS_OK;
    for (int64_t i = 0; i < n; i++) {
        int64_t r = i * ss;
        bool valid = cs_column_is_valid(arr, r);
        for (int j = 1; j < na && valid; j++)
            valid = cs_column_is_valid(a[j], i * cs_px_stride(a[j], n));
        if (!valid) continue;
        int32_t lo = off[r], hi = off[r + 1], len = hi - lo;
        int32_t *row = idx + m;
        int32_t got = 0;
        switch (op) {
        case OP_SORT:
            for (int32_t e = lo; e < hi; e++)
                row[got++] = e;
            merge_sort(el, row, tmp, got);
            break;
        case OP_REVERSE:
            for (int32_t e = hi - 1; e >= lo; e--)
                row[got++] = e;
            break;
        case OP_DISTINCT:
            for (int32_t e = lo; e < hi; e++) {
                bool seen = false, ve = cs_column_is_valid(el, e);
                for (int32_t q = 0; q < got && !seen; q++) {
                    bool vq = cs_column_is_valid(el, row[q]);
                    seen = ve == vq && (!ve || cs_px_elem_cmp(el, e, el, row[q]) == 0);
                }
                if (!seen) row[got++] = e;
            }
            break;
        case OP_SLICE: {
            int32_t start =
                ((const int32_t *)(const void *)a[1]->values)[i * cs_px_stride(a[1], n)];
            int32_t count =
                ((const int32_t *)(const void *)a[2]->values)[i * cs_px_stride(a[2], n)];
            if (start == 0 || count < 0) {
                rc = slice_error(k, start == 0, count);
                goto done;
            }
            int64_t from = start > 0 ? (int64_t)start - 1 : (int64_t)len + start;
            if (from < 0 || from >= len) break;
            int64_t to = from + count < len ? from + count : len;
            for (int64_t e = from; e < to; e++)
                row[got++] = lo + (int32_t)e;
            break;
        }
        }
        lens[i] = got;
        m += got;
    }
    cs_column *child = cs_px_take(el, idx, m, k->alloc);
    cs_column *r = list_of(k, arr, ss, lens, child);
    if (na > 1) { /* slice: null start or length is a null row */
        for (int j = 1; j < na; j++)
            for (int64_t i = 0; i < n; i++)
                if (!cs_column_is_valid(a[j], i * cs_px_stride(a[j], n))) {
                    cs_px_ensure_validity(r);
                    cs_px_set_null(r, i);
                }
    }
    *out = r;
done:
    free(lens);
    free(idx);
    free(tmp);
    return rc;
}

/* size(array | map | NULL): null for a null input (ANSI), -1 otherwise (legacy sizeOfNull) */
static int size_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, ss = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    int32_t *v = (int32_t *)(void *)r->values;
    bool typed = a[0]->type->id != CS_TYPE_NULL;
    const int32_t *off = typed ? cs_column_offsets(a[0]) : NULL;
    for (int64_t i = 0; i < n; i++) {
        if (typed && cs_column_is_valid(a[0], i * ss)) {
            v[i] = off[i * ss + 1] - off[i * ss];
        } else if (k->ctx->ansi) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        } else {
            v[i] = -1;
        }
    }
    *out = r;
    return CS_OK;
}

/* array_position(array, value): the first 1-based index of value, 0 when absent */
static int position_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sv = cs_px_stride(a[1], n);
    const cs_column *el = a[0]->children[0];
    const int32_t *off = cs_column_offsets(a[0]);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    int64_t *v = (int64_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        int32_t lo = off[i * sa], hi = off[i * sa + 1];
        for (int32_t e = lo; e < hi; e++)
            if (cs_column_is_valid(el, e) && cs_px_elem_cmp(el, e, a[1], i * sv) == 0) {
                v[i] = e - lo + 1;
                break;
            }
    }
    *out = r;
    return CS_OK;
}

/* array_max / array_min: the largest / smallest non-null element, null when none */
static int extreme_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool max = strcmp(k->e->fn, "array_max") == 0;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    const cs_column *el = a[0]->children[0];
    const int32_t *off = cs_column_offsets(a[0]);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n + 1));
    uint8_t *found = cs_xcalloc((size_t)n + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        idx[i] = 0;
        if (!cs_column_is_valid(a[0], i * sa)) continue;
        for (int32_t e = off[i * sa]; e < off[i * sa + 1]; e++) {
            if (!cs_column_is_valid(el, e)) continue;
            int c = found[i] ? cs_px_elem_cmp(el, e, el, idx[i]) : 0;
            if (!found[i] || (max ? c > 0 : c < 0)) idx[i] = e;
            found[i] = 1;
        }
    }
    cs_column *r = cs_px_take(el, idx, n, k->alloc);
    for (int64_t i = 0; i < n; i++)
        if (!found[i]) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        }
    free(idx);
    free(found);
    *out = r;
    return CS_OK;
}

/* map_keys / map_values: the map's offsets over its key or value child */
static int map_part_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool keys = strcmp(k->e->fn, "map_keys") == 0;
    int64_t n = k->n, ss = cs_px_stride(a[0], n);
    const int32_t *off = cs_column_offsets(a[0]);
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        if (cs_column_is_valid(a[0], i * ss)) total += lens[i] = off[i * ss + 1] - off[i * ss];
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        for (int32_t e = 0; e < lens[i]; e++)
            idx[m++] = off[i * ss] + e;
    cs_column *child = cs_px_take(a[0]->children[keys ? 0 : 1], idx, m, k->alloc);
    *out = list_of(k, a[0], ss, lens, child);
    free(lens);
    free(idx);
    return CS_OK;
}

cs_px_kernel cs_px_collection_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result)
{
    (void)result;
    if (n < 1) return NULL;
    bool array = t[0]->id == CS_TYPE_ARRAY;
    const cs_col_type *elem = array ? t[0]->fields[0].type : NULL;
    if (strcmp(fn, "size") == 0 && n == 1 &&
        (array || t[0]->id == CS_TYPE_MAP || t[0]->id == CS_TYPE_NULL))
        return size_kernel;
    if (!array) {
        if ((strcmp(fn, "map_keys") == 0 || strcmp(fn, "map_values") == 0) && n == 1 &&
            t[0]->id == CS_TYPE_MAP)
            return map_part_kernel;
        return NULL;
    }
    if (strcmp(fn, "reverse") == 0 && n == 1) return pick_kernel;
    if (strcmp(fn, "slice") == 0 && n == 3 && t[1]->id == CS_TYPE_INT && t[2]->id == CS_TYPE_INT)
        return pick_kernel;
    if (!comparable(elem)) return NULL;
    if ((strcmp(fn, "array_sort") == 0 || strcmp(fn, "array_distinct") == 0) && n == 1)
        return pick_kernel;
    if ((strcmp(fn, "array_max") == 0 || strcmp(fn, "array_min") == 0) && n == 1)
        return extreme_kernel;
    if (strcmp(fn, "array_position") == 0 && n == 2 && cs_col_type_equal(elem, t[1]))
        return position_kernel;
    return NULL;
}
