/*
 * kernels_interval_make.c — the constructors of Spark's ANSI intervals: make_ym_interval(years,
 * months) (int32 months) and make_dt_interval(days, hours, mins, secs) (int64 microseconds; secs
 * a decimal(18,6), so its unscaled value is microseconds). The analyzer gives every argument
 * (missing ones are Spark's defaults, 0). A null argument gives null; a result beyond the type's
 * range is Spark's ARITHMETIC_OVERFLOW. One loop per batch. Called through
 * cs_px_interval_make_lookup (kernels_interval.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static int64_t int_at(const cs_column *c, int64_t i)
{
    return ((const int32_t *)(const void *)c->values)[i];
}

static int make_interval_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s[4];
    for (int j = 0; j < na; j++)
        s[j] = cs_px_stride(a[j], n);
    bool ym = k->e->type->id == CS_TYPE_INTERVAL_YM;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        if (ym) {
            int64_t m = int_at(a[0], i * s[0]) * 12 + int_at(a[1], i * s[1]);
            if (m < INT32_MIN || m > INT32_MAX) {
                cs_column_unref(r);
                return cs_px_err_overflow(k->err, "integer", NULL);
            }
            ((int32_t *)(void *)r->values)[i] = (int32_t)m;
            continue;
        }
        __int128 us = (__int128)int_at(a[0], i * s[0]) * 86400000000LL +
                      (__int128)int_at(a[1], i * s[1]) * 3600000000LL +
                      (__int128)int_at(a[2], i * s[2]) * 60000000LL + cs_px_dec_get(a[3], i * s[3]);
        if (us < INT64_MIN || us > INT64_MAX) {
            cs_column_unref(r);
            return cs_px_err_overflow(k->err, "long", NULL);
        }
        ((int64_t *)(void *)r->values)[i] = (int64_t)us;
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_interval_make_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result)
{
    if (strcmp(fn, "make_ym_interval") == 0 && n == 2 && t[0]->id == CS_TYPE_INT &&
        t[1]->id == CS_TYPE_INT && result->id == CS_TYPE_INTERVAL_YM)
        return make_interval_kernel;
    if (strcmp(fn, "make_dt_interval") == 0 && n == 4 && t[0]->id == CS_TYPE_INT &&
        t[1]->id == CS_TYPE_INT && t[2]->id == CS_TYPE_INT && t[3]->id == CS_TYPE_DECIMAL &&
        t[3]->scale == 6 && result->id == CS_TYPE_INTERVAL_DT)
        return make_interval_kernel;
    return cs_px_calendar_make_lookup(fn, t, n, result);
}
