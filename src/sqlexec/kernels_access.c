/*
 * kernels_access.c — reading inside complex values and testing their elements: arr[i]
 * (get_array_item, 0-based), element_at / try_element_at (1-based, negative from the end, or a
 * map's key), map[k] (get_map_value), s.f (get_struct_field), array_contains, array_remove and
 * sort_array (ascending with nulls first, descending with nulls last, as Spark). Every kernel
 * finds one element index per row for the whole batch and gathers them once (cs_px_take): no
 * allocation per row. Errors are Spark's ANSI ones: INVALID_ARRAY_INDEX,
 * INVALID_ARRAY_INDEX_IN_ELEMENT_AT, INVALID_INDEX_OF_ZERO; a missing map key is null. Called
 * through cs_px_access_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

/* rows of src picked by idx (-1: null) as the result column */
static cs_column *pick(const cs_px_kctx *k, const cs_column *src, int32_t *idx)
{
    int64_t n = k->n;
    bool any_null = false;
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0) any_null = true;
    int32_t *safe = idx;
    if (any_null) {
        safe = cs_xmalloc(sizeof *safe * (size_t)(n ? n : 1));
        for (int64_t i = 0; i < n; i++)
            safe[i] = idx[i] < 0 ? 0 : idx[i];
    }
    cs_column *r;
    if (src->length == 0) {
        r = cs_px_all_null(k->alloc, k->e->type, n);
    } else {
        r = cs_px_take(src, safe, n, k->alloc);
        for (int64_t i = 0; i < n && any_null; i++)
            if (idx[i] < 0) {
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
            }
    }
    if (safe != idx) free(safe);
    return r;
}

typedef enum { AT_GET, AT_ELEMENT, AT_TRY } at_kind;

static int array_at_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    at_kind kind = strcmp(k->e->fn, "get_array_item") == 0 ? AT_GET
                   : strcmp(k->e->fn, "element_at") == 0   ? AT_ELEMENT
                                                           : AT_TRY;
    bool ansi = k->ctx->ansi;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), si = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n ? n : 1));
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        idx[i] = -1;
        if (!cs_column_is_valid(a[0], i * sa) || !cs_column_is_valid(a[1], i * si)) continue;
        int64_t len = off[i * sa + 1] - off[i * sa], at = cs_sql_long_at(a[1], i * si), pos;
        if (kind == AT_GET) {
            pos = at;
        } else if (at == 0) {
            if (kind == AT_TRY) continue;
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_INDEX_OF_ZERO", "22003",
                                  "The index 0 is invalid. An index shall be either < 0 or > 0 "
                                  "(the first element has index 1).");
            break;
        } else {
            pos = at > 0 ? at - 1 : len + at;
        }
        if (pos >= 0 && pos < len) {
            idx[i] = off[i * sa] + (int32_t)pos;
            continue;
        }
        if (!ansi || kind == AT_TRY) continue;
        if (kind == AT_GET)
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_ARRAY_INDEX", "22003",
                                  "The index %lld is out of bounds. The array has %lld elements. "
                                  "Use the SQL function `get()` to tolerate accessing element at "
                                  "invalid index and return NULL instead.",
                                  (long long)at, (long long)len);
        else
            rc = cs_sql_error_set(k->err, CS_ETASK, "INVALID_ARRAY_INDEX_IN_ELEMENT_AT", "22003",
                                  "The index %lld is out of bounds. The array has %lld elements. "
                                  "Use `try_element_at` to tolerate accessing element at invalid "
                                  "index and return NULL instead.",
                                  (long long)at, (long long)len);
    }
    if (rc == CS_OK) *out = pick(k, a[0]->children[0], idx);
    free(idx);
    return rc;
}

/* map[key], element_at(map, key): the value of the first equal key, null when none */
static int map_at_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sk = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    const cs_column *keys = a[0]->children[0];
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        idx[i] = -1;
        if (!cs_column_is_valid(a[0], i * sa) || !cs_column_is_valid(a[1], i * sk)) continue;
        for (int32_t e = off[i * sa]; e < off[i * sa + 1] && idx[i] < 0; e++)
            if (cs_column_is_valid(keys, e) && cs_px_elem_cmp(keys, e, a[1], i * sk) == 0)
                idx[i] = e;
    }
    *out = pick(k, a[0]->children[1], idx);
    free(idx);
    return CS_OK;
}

static int struct_field_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int32_t len = 0;
    const uint8_t *name = cs_column_bytes(a[1], 0, &len);
    const cs_col_type *st = a[0]->type;
    int f = -1;
    for (int i = 0; i < st->n_fields && f < 0; i++)
        if (strlen(st->fields[i].name) == (size_t)len &&
            strncasecmp(st->fields[i].name, (const char *)name, (size_t)len) == 0)
            f = i;
    if (f < 0) return cs_error_set(k->err, CS_EINVAL, "no struct field %.*s", (int)len, name);
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        idx[i] = cs_column_is_valid(a[0], i * sa) ? (int32_t)(i * sa) : -1;
    *out = pick(k, a[0]->children[f], idx);
    free(idx);
    return CS_OK;
}

/* array_contains: true when found; else null when the array holds a null; else false */
static int contains_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sv = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    const cs_column *el = a[0]->children[0];
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        bool found = false, null_seen = false;
        for (int32_t e = off[i * sa]; e < off[i * sa + 1] && !found; e++) {
            if (!cs_column_is_valid(el, e))
                null_seen = true;
            else if (cs_px_elem_cmp(el, e, a[1], i * sv) == 0)
                found = true;
        }
        if (found) {
            cs_bit_set(r->values, i, true);
        } else if (null_seen) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        }
    }
    *out = r;
    return CS_OK;
}

/* A list column of the elements idx[0..m) of el, lens[i] per row, null rows where null[i]. */
static cs_column *lists(const cs_px_kctx *k, const cs_column *el, const int32_t *idx, int64_t m,
                        const int32_t *lens, const uint8_t *null)
{
    cs_column *child = cs_px_take(el, idx, m, k->alloc);
    return cs_px_list_column(k, k->e->type, lens, null, &child, 1);
}

/* array_remove(array, v): the elements not equal to v (nulls kept); null when v is null */
static int remove_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sv = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    const cs_column *el = a[0]->children[0];
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += off[i * sa + 1] - off[i * sa];
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sa) || !cs_column_is_valid(a[1], i * sv)) {
            null[i] = 1;
            continue;
        }
        for (int32_t e = off[i * sa]; e < off[i * sa + 1]; e++)
            if (!cs_column_is_valid(el, e) || cs_px_elem_cmp(el, e, a[1], i * sv) != 0) {
                idx[m++] = e;
                lens[i]++;
            }
    }
    *out = lists(k, el, idx, m, lens, null);
    free(idx);
    free(lens);
    free(null);
    return CS_OK;
}

/* insertion order of a row's elements: ascending nulls first, or descending nulls last */
static bool sorts_before(const cs_column *el, int32_t x, int32_t y, bool asc)
{
    bool vx = cs_column_is_valid(el, x), vy = cs_column_is_valid(el, y);
    if (!vx || !vy) return asc ? !vx && vy : vx && !vy;
    int c = cs_px_value_cmp(el, x, el, y);
    return asc ? c < 0 : c > 0;
}

static int sort_array_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), so = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    const cs_column *el = a[0]->children[0];
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++)
        total += off[i * sa + 1] - off[i * sa];
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(total + 1));
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sa) || !cs_column_is_valid(a[1], i * so)) {
            null[i] = 1;
            continue;
        }
        bool asc = cs_bit_get(a[1]->values, i * so);
        int32_t *row = idx + m;
        int32_t got = 0;
        for (int32_t e = off[i * sa]; e < off[i * sa + 1]; e++) {
            int32_t j = got++;
            while (j > 0 && sorts_before(el, e, row[j - 1], asc)) {
                row[j] = row[j - 1];
                j--;
            }
            row[j] = e;
        }
        lens[i] = got;
        m += got;
    }
    *out = lists(k, el, idx, m, lens, null);
    free(idx);
    free(lens);
    free(null);
    return CS_OK;
}

static bool integral(const cs_col_type *t)
{
    return t->id == CS_TYPE_BYTE || t->id == CS_TYPE_SHORT || t->id == CS_TYPE_INT ||
           t->id == CS_TYPE_LONG;
}

cs_px_kernel cs_px_access_lookup(const char *fn, const cs_col_type *const *t, int n,
                                 const cs_col_type *result)
{
    (void)result;
    if (n != 2) return NULL;
    bool array = t[0]->id == CS_TYPE_ARRAY, map = t[0]->id == CS_TYPE_MAP;
    bool at = strcmp(fn, "element_at") == 0 || strcmp(fn, "try_element_at") == 0;
    if (array && (at || strcmp(fn, "get_array_item") == 0) && integral(t[1]))
        return array_at_kernel;
    if (map && (at || strcmp(fn, "get_map_value") == 0) &&
        cs_px_type_same(t[0]->fields[0].type, t[1]))
        return map_at_kernel;
    if (t[0]->id == CS_TYPE_STRUCT && strcmp(fn, "get_struct_field") == 0 &&
        t[1]->id == CS_TYPE_STRING)
        return struct_field_kernel;
    if (!array) return NULL;
    const cs_col_type *el = t[0]->fields[0].type;
    if (strcmp(fn, "array_contains") == 0 && cs_px_type_same(el, t[1])) return contains_kernel;
    if (strcmp(fn, "array_remove") == 0 && cs_px_type_same(el, t[1])) return remove_kernel;
    if (strcmp(fn, "sort_array") == 0 && t[1]->id == CS_TYPE_BOOLEAN) return sort_array_kernel;
    return NULL;
}
