/*
 * kernels_compare.c — comparison kernels: = <=> < <= > >= over every primitive type (boolean,
 * integral, float/double, decimal, string and binary bytewise as Spark's UTF8String compares,
 * date, timestamps, intervals), and IN over a list of literals. Floats order as Spark's
 * SQLOrderingUtil: NaN equals NaN and is greater than every other value, -0.0 equals 0.0.
 * Null in, null out, except <=> (null-safe: null <=> null is true) and IN (true when a literal
 * matches, else null when the value or a literal is null). Strings of a collation other than
 * UTF8_BINARY compare by their collation keys (collation_keys.h), built for the batch first.
 * One loop per (type, operator), the
 * comparison computed as -1/0/1 and tested by the operator's mask; results are bitmaps. A
 * dictionary-encoded string column against a literal (comparison or IN) compares each dictionary
 * entry once (kernels_dict.c); string = and <> compare lengths before bytes. Called
 * through cs_px_compare_lookup / cs_px_in_lookup at compile time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "columnar/col_collation.h"
#include "sqlexec/collation_keys.h"
#include "sqlexec/pexpr_internal.h"

/* Which comparison results make the operator true: bit 0 for <, bit 1 for =, bit 2 for >. */
enum { LT = 1, EQ = 2, GT = 4 };

static int op_mask(const char *fn)
{
    if (strcmp(fn, "=") == 0 || strcmp(fn, "==") == 0 || strcmp(fn, "<=>") == 0) return EQ;
    if (strcmp(fn, "<") == 0) return LT;
    if (strcmp(fn, "<=") == 0) return LT | EQ;
    if (strcmp(fn, ">") == 0) return GT;
    if (strcmp(fn, ">=") == 0) return GT | EQ;
    if (strcmp(fn, "!=") == 0 || strcmp(fn, "<>") == 0) return LT | GT;
    return 0;
}

static inline int cmp_f64(double a, double b)
{
    if (isnan(a)) return isnan(b) ? 0 : 1;
    if (isnan(b)) return -1;
    return (a > b) - (a < b);
}

static inline int cmp_bytes(const uint8_t *a, int32_t la, const uint8_t *b, int32_t lb)
{
    int c = memcmp(a, b, (size_t)(la < lb ? la : lb));
    if (c) return c < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
}

/* the result bit of row i from comparison c */
#define PUT(i, c) cs_bit_set(r->values, (i), (mask >> ((c) + 1)) & 1)

/* fills r (a boolean column) from the comparison of rows; null-safe makes nulls comparable */
#define CMP_BODY(CMPEXPR)                                                                          \
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);                      \
    (void)na;                                                                                      \
    int mask = op_mask(k->e->fn);                                                                  \
    bool null_safe = strcmp(k->e->fn, "<=>") == 0;                                                 \
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);                                       \
    if (!null_safe) cs_px_and_validity(r, a, 2, n);                                                \
    bool nulls = a[0]->null_count > 0 || a[1]->null_count > 0;                                     \
    if (!null_safe || !nulls) {                                                                    \
        /* eight rows per result byte, no per-row bit read-modify-write */                         \
        for (int64_t base = 0; base < n; base += 8) {                                              \
            unsigned byte = 0;                                                                     \
            int lim = n - base < 8 ? (int)(n - base) : 8;                                          \
            for (int j = 0; j < lim; j++) {                                                        \
                int64_t ia = (base + j) * sa, ib = (base + j) * sb;                                \
                int c = (CMPEXPR);                                                                 \
                byte |= (unsigned)((mask >> (c + 1)) & 1) << j;                                    \
            }                                                                                      \
            r->values[base >> 3] = (uint8_t)byte;                                                  \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }                                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                              \
        int64_t ia = i * sa, ib = i * sb;                                                          \
        bool va = cs_column_is_valid(a[0], ia), vb = cs_column_is_valid(a[1], ib);                 \
        if (!va || !vb) {                                                                          \
            cs_bit_set(r->values, i, va == vb);                                                    \
            continue;                                                                              \
        }                                                                                          \
        int c = (CMPEXPR);                                                                         \
        PUT(i, c);                                                                                 \
    }                                                                                              \
    *out = r;                                                                                      \
    return CS_OK

#define CMP_FIXED(NAME, T, CMPF)                                                                   \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        const T *x = (const T *)(const void *)a[0]->values;                                        \
        const T *y = (const T *)(const void *)a[1]->values;                                        \
        CMP_BODY(CMPF(x[ia], y[ib]));                                                              \
    }
#define CMP_PLAIN(p, q) (((p) > (q)) - ((p) < (q)))
CMP_FIXED(cmp_i8, int8_t, CMP_PLAIN)
CMP_FIXED(cmp_i16, int16_t, CMP_PLAIN)
CMP_FIXED(cmp_i32, int32_t, CMP_PLAIN)
CMP_FIXED(cmp_i64, int64_t, CMP_PLAIN)
CMP_FIXED(cmp_f32, float, cmp_f64)
CMP_FIXED(cmp_f64x, double, cmp_f64)

static int cmp_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    /* both sides share a scale (the analyzer casts them to one decimal type) */
    CMP_BODY(CMP_PLAIN(cs_px_dec_get(a[0], ia), cs_px_dec_get(a[1], ib)));
}

static int cmp_bool(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    CMP_BODY(CMP_PLAIN((int)cs_bit_get(a[0]->values, ia), (int)cs_bit_get(a[1]->values, ib)));
}

static inline int cmp_str_rows(const cs_column *x, int64_t i, const cs_column *y, int64_t j)
{
    int32_t lx, ly;
    const uint8_t *px = cs_column_bytes(x, i, &lx), *py = cs_column_bytes(y, j, &ly);
    return cmp_bytes(px, lx, py, ly);
}

/* 0 when rows i of x and j of y hold the same bytes, else 1: = and <> need no order */
static inline int ne_str_rows(const cs_column *x, int64_t i, const cs_column *y, int64_t j)
{
    int32_t lx, ly;
    const uint8_t *px = cs_column_bytes(x, i, &lx), *py = cs_column_bytes(y, j, &ly);
    return !(lx == ly && (lx == 0 || (px[0] == py[0] && memcmp(px, py, (size_t)lx) == 0)));
}

static int eq_str(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    CMP_BODY(ne_str_rows(a[0], ia, a[1], ib));
}

/* A dictionary-encoded column against a literal (either side): each dictionary entry compared
 * once, the rows given their entry's result (kernels_dict.c). False when it does not apply. */
static bool cmp_str_dict(const cs_px_kctx *k, cs_column *const *a, cs_column **out)
{
    int64_t n = k->n;
    int d = cs_px_stride(a[1], n) == 0 ? 0 : cs_px_stride(a[0], n) == 0 ? 1 : -1;
    if (d < 0 || !cs_px_dict_pays(a[d], n) || strcmp(k->e->fn, "<=>") == 0) return false;
    int mask = op_mask(k->e->fn);
    const cs_column *x = a[d], *lit = a[1 - d], *dict = x->dictionary;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    if (cs_column_is_valid(lit, 0)) {
        uint8_t *entry = cs_xmalloc((size_t)(dict->length > 0 ? dict->length : 1));
        for (int64_t e = 0; e < dict->length; e++) {
            int c = cmp_str_rows(dict, e, lit, 0);
            entry[e] = (uint8_t)((mask >> ((d ? -c : c) + 1)) & 1);
        }
        cs_px_dict_spread(r, x, entry, n);
        free(entry);
    }
    *out = r;
    return true;
}

static int cmp_str(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    if (cmp_str_dict(k, a, out)) return CS_OK;
    int m = op_mask(k->e->fn);
    if (m == EQ || m == (LT | GT)) return eq_str(k, a, na, out);
    CMP_BODY(cmp_str_rows(a[0], ia, a[1], ib));
}

/* Collated strings: both sides' collation keys (the analyzer gives them one collation), then the
 * bytewise comparison of the keys. */
static int cmp_collated(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int coll = a[0]->type->collation;
    cs_column *keys[2] = {cs_collation_key_column(a[0], coll, k->alloc),
                          cs_collation_key_column(a[1], coll, k->alloc)};
    int rc = cmp_str(k, keys, na, out);
    cs_column_unref(keys[0]);
    cs_column_unref(keys[1]);
    return rc;
}

static cs_px_kernel kernel_for(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
        return cmp_bool;
    case CS_TYPE_BYTE:
        return cmp_i8;
    case CS_TYPE_SHORT:
        return cmp_i16;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
    case CS_TYPE_INTERVAL_YM:
        return cmp_i32;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
    case CS_TYPE_INTERVAL_DT:
        return cmp_i64;
    case CS_TYPE_FLOAT:
        return cmp_f32;
    case CS_TYPE_DOUBLE:
        return cmp_f64x;
    case CS_TYPE_DECIMAL:
        return cmp_dec;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        return cmp_str;
    default:
        return NULL;
    }
}

/* ---- IN ---- */

/* 1 when row i of x equals row j of lit, by x's type */
static inline bool in_eq(const cs_column *x, int64_t i, const cs_column *lit, cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
        return cs_bit_get(x->values, i) == cs_bit_get(lit->values, 0);
    case CS_TYPE_FLOAT:
        return cmp_f64(((const float *)(const void *)x->values)[i],
                       ((const float *)(const void *)lit->values)[0]) == 0;
    case CS_TYPE_DOUBLE:
        return cmp_f64(((const double *)(const void *)x->values)[i],
                       ((const double *)(const void *)lit->values)[0]) == 0;
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY:
        return cmp_str_rows(x, i, lit, 0) == 0;
    default: {
        int w = cs_col_type_width(id);
        return memcmp(x->values + i * w, lit->values, (size_t)w) == 0;
    }
    }
}

static int in_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_type_id id = a[0]->type->id;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    bool list_null = false;
    for (int j = 1; j < na; j++)
        list_null = list_null || !cs_column_is_valid(a[j], 0);
    if (list_null || a[0]->null_count > 0) cs_px_ensure_validity(r);
    if ((id == CS_TYPE_STRING || id == CS_TYPE_BINARY) && cs_px_dict_pays(a[0], n)) {
        /* each dictionary entry looked up once (kernels_dict.c) */
        const cs_column *dict = a[0]->dictionary;
        const int32_t *ix = (const int32_t *)(const void *)a[0]->values;
        uint8_t *entry = cs_xmalloc((size_t)(dict->length > 0 ? dict->length : 1));
        for (int64_t e = 0; e < dict->length; e++) {
            bool hit = false;
            for (int j = 1; j < na && !hit; j++)
                hit = cs_column_is_valid(a[j], 0) && in_eq(dict, e, a[j], id);
            entry[e] = hit;
        }
        cs_px_dict_spread(r, a[0], entry, n);
        for (int64_t i = 0; r->validity && i < n; i++)
            if (!cs_column_is_valid(a[0], i) || (list_null && !entry[ix[i]])) cs_px_set_null(r, i);
        free(entry);
        *out = r;
        return CS_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = i * sa;
        if (!cs_column_is_valid(a[0], ia)) {
            cs_px_set_null(r, i);
            continue;
        }
        bool hit = false;
        /* the type switch sits in in_eq, inlined: the compiler hoists it out of the loop */
        for (int j = 1; j < na && !hit; j++)
            hit = cs_column_is_valid(a[j], 0) && in_eq(a[0], ia, a[j], id);
        if (hit)
            cs_bit_set(r->values, i, true);
        else if (list_null)
            cs_px_set_null(r, i);
    }
    *out = r;
    return CS_OK;
}

/* IN over collated strings: the value's and the literals' keys, compared as bytes. */
static int in_collated(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int coll = a[0]->type->collation;
    cs_column **keys = cs_xcalloc((size_t)na, sizeof *keys);
    for (int j = 0; j < na; j++)
        keys[j] = cs_collation_key_column(a[j], coll, k->alloc);
    int rc = in_kernel(k, keys, na, out);
    for (int j = 0; j < na; j++)
        cs_column_unref(keys[j]);
    free(keys);
    return rc;
}

cs_px_kernel cs_px_in_lookup(const cs_col_type *t)
{
    if (cs_col_type_is_collated(t)) return in_collated;
    return kernel_for(t->id) ? in_kernel : NULL;
}

/* collate(x, name): x's strings under the result's collation (the bytes are the same). */
static int collate_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sa)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t len;
        const uint8_t *p = cs_column_bytes(a[0], i * sa, &len);
        cs_col_builder_append_string(b, p, (size_t)len);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* collation(x): SYSTEM.BUILTIN.<x's collation> on every row. */
static int collation_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)a;
    (void)na;
    char name[64];
    int len = snprintf(name, sizeof name, "SYSTEM.BUILTIN.%s",
                       cs_collation_name(k->e->args[0]->type->collation));
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    for (int64_t i = 0; i < k->n; i++)
        cs_col_builder_append_string(b, name, (size_t)len);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

/* collationkey(x): the binary collation key of each string (collation_keys.h): what grouping,
 * join and sort keys of collated strings are made of. */
static int collation_key_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int coll = k->e->args[0]->type->collation;
    if (a[0]->length == k->n) {
        *out = cs_collation_key_column(a[0], coll, k->alloc);
        return CS_OK;
    }
    cs_column *one = cs_collation_key_column(a[0], coll, k->alloc); /* a literal: one row */
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    int32_t len = 0;
    const uint8_t *p = cs_column_is_valid(one, 0) ? cs_column_bytes(one, 0, &len) : NULL;
    for (int64_t i = 0; i < k->n; i++) {
        if (p)
            cs_col_builder_append_string(b, p, (size_t)len);
        else
            cs_col_builder_append_nulls(b, 1);
    }
    cs_column_unref(one);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

cs_px_kernel cs_px_collation_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    (void)result;
    if (n == 2 && strcmp(fn, "collate") == 0 && t[0]->id == CS_TYPE_STRING) return collate_kernel;
    if (n != 1 || t[0]->id != CS_TYPE_STRING) return NULL;
    if (strcmp(fn, "collation") == 0) return collation_kernel;
    if (strcmp(fn, "collationkey") == 0) return collation_key_kernel;
    return NULL;
}

cs_px_kernel cs_px_compare_lookup(const char *fn, const cs_col_type *const *t, int n,
                                  const cs_col_type *result)
{
    (void)result;
    if (n != 2 || !op_mask(fn)) return NULL;
    if (t[0]->id != t[1]->id) return NULL;
    if (t[0]->id == CS_TYPE_DECIMAL && t[0]->scale != t[1]->scale) return NULL;
    if (cs_col_type_is_collated(t[0]) || cs_col_type_is_collated(t[1]))
        return t[0]->collation == t[1]->collation ? cmp_collated : NULL;
    return kernel_for(t[0]->id);
}
