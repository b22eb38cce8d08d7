/*
 * kernels_map.c — Spark's map functions over map columns (Arrow's layout: int32 offsets over a
 * key child and a value child): map_entries (the same offsets over one struct<key, value>
 * child), map_from_entries, map_from_arrays, map_concat (maps one after the other, in argument
 * order) and map_contains_key. The maps they build follow Spark's default
 * spark.sql.mapKeyDedupPolicy=EXCEPTION: a null key is NULL_MAP_KEY and a key seen twice in a
 * row is DUPLICATED_MAP_KEY; map_from_arrays of arrays of different lengths is Spark's
 * _LEGACY_ERROR_TEMP_2128; map_from_entries of an array holding a null entry is null.
 *
 * Each kernel computes one (source, row) list per batch and gathers every child once
 * (cs_px_take / cs_px_merge): no allocation per row. Called through cs_px_map_lookup
 * (pexpr.c's chain). Arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

/* Spark's key checks of a built map: no null key, no key twice in a row. */
static int check_keys(const cs_px_kctx *k, const cs_column *map)
{
    const int32_t *off = cs_column_offsets(map);
    const cs_column *keys = map->children[0];
    for (int64_t i = 0; i < map->length; i++)
        for (int32_t x = off[i]; x < off[i + 1]; x++) {
            if (!cs_column_is_valid(keys, x)) return cs_px_err_map_key(k, keys, x, true);
            for (int32_t y = off[i]; y < x; y++)
                if (cs_px_elem_cmp(keys, x, keys, y) == 0)
                    return cs_px_err_map_key(k, keys, x, false);
        }
    return CS_OK;
}

/* Rows of a[0] whose elements are gathered through idx (length total) into the children. */
typedef struct {
    int32_t *lens, *idx;
    uint8_t *null;
    int64_t total;
} picks;

static void picks_free(picks *p)
{
    free(p->lens);
    free(p->idx);
    free(p->null);
}

/* The element indices of every valid row of list column c (stride s); the rows of other
 * (when not NULL) that are null are taken as null too. */
static void pick_rows(const cs_px_kctx *k, const cs_column *c, const cs_column *other, picks *p)
{
    int64_t n = k->n, s = cs_px_stride(c, n), so = other ? cs_px_stride(other, n) : 0;
    const int32_t *off = cs_column_offsets(c);
    p->lens = cs_xcalloc((size_t)n + 1, sizeof *p->lens);
    p->null = cs_xcalloc((size_t)n + 1, 1);
    p->total = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(c, i * s) || (other && !cs_column_is_valid(other, i * so))) {
            p->null[i] = 1;
            continue;
        }
        p->lens[i] = off[i * s + 1] - off[i * s];
        p->total += p->lens[i];
    }
    p->idx = cs_xmalloc(sizeof *p->idx * (size_t)(p->total + 1));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        for (int32_t e = 0; e < p->lens[i]; e++)
            p->idx[m++] = off[i * s] + e;
}

/* map_entries(map): array<struct<key, value>> over the map's entries */
static int entries_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    picks p;
    pick_rows(k, a[0], NULL, &p);
    const cs_col_type *st = k->e->type->fields[0].type;
    cs_column *entry = cs_column_new_raw(k->alloc, cs_col_type_ref((cs_col_type *)st), p.total);
    entry->n_children = 2;
    entry->children = cs_xcalloc(2, sizeof *entry->children);
    for (int c = 0; c < 2; c++)
        entry->children[c] = cs_px_take(a[0]->children[c], p.idx, p.total, k->alloc);
    *out = cs_px_list_column(k, k->e->type, p.lens, p.null, &entry, 1);
    picks_free(&p);
    return CS_OK;
}

/* map_from_entries(array<struct<k, v>>): null when an entry is null */
static int from_entries_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    picks p;
    pick_rows(k, a[0], NULL, &p);
    const cs_column *entries = a[0]->children[0];
    int64_t m = 0;
    for (int64_t i = 0; i < k->n; i++) {
        bool any_null = false;
        for (int32_t e = 0; e < p.lens[i]; e++)
            any_null = any_null || !cs_column_is_valid(entries, p.idx[m + e]);
        if (any_null) { /* drop the row's entries */
            memmove(p.idx + m, p.idx + m + p.lens[i],
                    sizeof *p.idx * (size_t)(p.total - m - p.lens[i]));
            p.total -= p.lens[i];
            p.lens[i] = 0;
            p.null[i] = 1;
        }
        m += p.lens[i];
    }
    cs_column *ch[2];
    for (int c = 0; c < 2; c++)
        ch[c] = cs_px_take(entries->children[c], p.idx, p.total, k->alloc);
    cs_column *r = cs_px_list_column(k, k->e->type, p.lens, p.null, ch, 2);
    picks_free(&p);
    int rc = check_keys(k, r);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* map_from_arrays(keys, values): null when either array is null */
static int from_arrays_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    picks pk, pv;
    pick_rows(k, a[0], a[1], &pk);
    pick_rows(k, a[1], a[0], &pv);
    int rc = CS_OK;
    for (int64_t i = 0; i < k->n && rc == CS_OK; i++)
        if (pk.lens[i] != pv.lens[i])
            rc = cs_sql_error_set(k->err, CS_ETASK, "_LEGACY_ERROR_TEMP_2128", "",
                                  "The key array and value array of MapData must have the same "
                                  "length.");
    if (rc == CS_OK) {
        cs_column *ch[2] = {cs_px_take(a[0]->children[0], pk.idx, pk.total, k->alloc),
                            cs_px_take(a[1]->children[0], pv.idx, pv.total, k->alloc)};
        cs_column *r = cs_px_list_column(k, k->e->type, pk.lens, pk.null, ch, 2);
        if ((rc = check_keys(k, r)) != CS_OK)
            cs_column_unref(r);
        else
            *out = r;
    }
    picks_free(&pk);
    picks_free(&pv);
    return rc;
}

/* map_concat(m1, m2, ...): null when any map is null */
static int concat_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, total = 0;
    int32_t *lens = cs_xcalloc((size_t)n + 1, sizeof *lens);
    uint8_t *null = cs_xcalloc((size_t)n + 1, 1);
    for (int64_t i = 0; i < n; i++) {
        for (int j = 0; j < na && !null[i]; j++) {
            int64_t r = i * cs_px_stride(a[j], n);
            if (!cs_column_is_valid(a[j], r)) null[i] = 1;
        }
        for (int j = 0; j < na && !null[i]; j++) {
            const int32_t *off = cs_column_offsets(a[j]);
            int64_t r = i * cs_px_stride(a[j], n);
            lens[i] += off[r + 1] - off[r];
        }
        total += lens[i];
    }
    int32_t *which = cs_xmalloc(sizeof *which * (size_t)(total + 1));
    int32_t *row = cs_xmalloc(sizeof *row * (size_t)(total + 1));
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++) {
        if (null[i]) continue;
        for (int j = 0; j < na; j++) {
            const int32_t *off = cs_column_offsets(a[j]);
            int64_t r = i * cs_px_stride(a[j], n);
            for (int32_t e = off[r]; e < off[r + 1]; e++)
                which[m] = j, row[m++] = e;
        }
    }
    cs_column *ch[2];
    cs_column **src = cs_xcalloc((size_t)na + 1, sizeof *src);
    for (int c = 0; c < 2; c++) {
        for (int j = 0; j < na; j++)
            src[j] = a[j]->children[c];
        ch[c] = cs_px_merge(k->alloc, k->e->type->fields[c].type, src, na, which, row, total);
    }
    free(src);
    free(which);
    free(row);
    cs_column *r = cs_px_list_column(k, k->e->type, lens, null, ch, 2);
    free(lens);
    free(null);
    int rc = check_keys(k, r);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* map_contains_key(map, key) */
static int contains_key_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sm = cs_px_stride(a[0], n), sk = cs_px_stride(a[1], n);
    const int32_t *off = cs_column_offsets(a[0]);
    const cs_column *keys = a[0]->children[0];
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        bool hit = false;
        for (int32_t e = off[i * sm]; e < off[i * sm + 1] && !hit; e++)
            hit = cs_column_is_valid(keys, e) && cs_px_elem_cmp(keys, e, a[1], i * sk) == 0;
        cs_bit_set(r->values, i, hit);
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_map_lookup(const char *fn, const cs_col_type *const *t, int n,
                              const cs_col_type *result)
{
    if (n < 1) return NULL;
    if (strcmp(fn, "map_entries") == 0 && n == 1 && t[0]->id == CS_TYPE_MAP) return entries_kernel;
    if (strcmp(fn, "map_contains_key") == 0 && n == 2 && t[0]->id == CS_TYPE_MAP &&
        cs_px_type_same(t[0]->fields[0].type, t[1]))
        return contains_key_kernel;
    if (result->id != CS_TYPE_MAP) return NULL;
    if (strcmp(fn, "map_from_entries") == 0 && n == 1 && t[0]->id == CS_TYPE_ARRAY &&
        t[0]->fields[0].type->id == CS_TYPE_STRUCT)
        return from_entries_kernel;
    if (strcmp(fn, "map_from_arrays") == 0 && n == 2 && t[0]->id == CS_TYPE_ARRAY &&
        t[1]->id == CS_TYPE_ARRAY &&
        cs_px_type_same(t[0]->fields[0].type, result->fields[0].type) &&
        cs_px_type_same(t[1]->fields[0].type, result->fields[1].type))
        return from_arrays_kernel;
    if (strcmp(fn, "map_concat") == 0 && n >= 1) {
        for (int i = 0; i < n; i++)
            if (!cs_px_type_same(t[i], result)) return NULL;
        return concat_kernel;
    }
    return NULL;
}
