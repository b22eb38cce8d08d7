/*
 * kernels_math.c — math kernels: round (HALF_UP) and bround (HALF_EVEN) on double, float,
 * decimal and integral values with a literal scale (negative too), floor and ceil (double and
 * integral -> bigint, decimal -> decimal(p-s+1, 0); ceil / floor(decimal, d) to d digits), sqrt,
 * exp, ln/log (null for x <= 0, as Spark's Logarithm), log10, log2, log(base, x), pow/power. A
 * double rounds as Spark's RoundBase does, through Scala's BigDecimal(double) — the digits of
 * Java's Double.toString — so round(1.005, 2) is 1.01 as in Spark, not 1.0. Called through
 * cs_px_math_lookup.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

/* x rounded at `scale` decimal places from its Java digits, HALF_UP or HALF_EVEN */
static double round_double(double x, int scale, bool half_even, bool is_float)
{
    if (isnan(x) || isinf(x) || x == 0) return x;
    char t[48];
    cs_px_java_double_text(x, is_float, t);
    /* digits D and exponent E with x = 0.D * 10^E */
    char dg[24];
    int nd = 0, point = -1, exp10 = 0;
    bool neg = t[0] == '-';
    for (const char *p = t + neg; *p; p++) {
        if (*p == '.') {
            point = nd;
        } else if (*p == 'E') {
            exp10 = atoi(p + 1);
            break;
        } else if (nd < 23) {
            dg[nd++] = *p;
        }
    }
    if (point < 0) point = nd;
    int lead = 0;
    while (lead < nd - 1 && dg[lead] == '0')
        lead++;
    int e = point + exp10 - lead; /* position of the first significant digit */
    memmove(dg, dg + lead, (size_t)(nd - lead));
    nd -= lead;
    while (nd > 1 && dg[nd - 1] == '0')
        nd--;
    int keep = e + scale;
    if (keep >= nd) return x;
    if (keep < 0) return 0.0;
    unsigned long long kept = 0;
    for (int i = 0; i < keep; i++)
        kept = kept * 10 + (unsigned long long)(dg[i] - '0');
    int first = dg[keep] - '0';
    bool rest = false;
    for (int i = keep + 1; i < nd; i++)
        rest = rest || dg[i] != '0';
    bool up = half_even ? (first > 5 || (first == 5 && (rest || (kept & 1)))) : first >= 5;
    if (up) kept++;
    char out[64];
    snprintf(out, sizeof out, "%s%lluE%d", neg ? "-" : "", kept, -scale);
    double r = strtod(out, NULL);
    return r == 0 ? 0.0 : r;
}

/* the literal scale argument (int), 0 when absent */
static int scale_arg(cs_column *const *a, int na)
{
    if (na < 2) return 0;
    return ((const int32_t *)(const void *)a[1]->values)[0];
}

static int round_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    bool half_even = strcmp(k->e->fn, "bround") == 0;
    int d = scale_arg(a, na);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    if (na > 1 && !cs_column_is_valid(a[1], 0)) {
        cs_column_unref(r);
        *out = cs_px_all_null(k->alloc, k->e->type, n);
        return CS_OK;
    }
    cs_type_id id = a[0]->type->id;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = i * sa;
        switch (id) {
        case CS_TYPE_DOUBLE:
            ((double *)(void *)r->values)[i] =
                round_double(((const double *)(const void *)a[0]->values)[ia], d, half_even, false);
            break;
        case CS_TYPE_FLOAT:
            ((float *)(void *)r->values)[i] = (float)round_double(
                ((const float *)(const void *)a[0]->values)[ia], d, half_even, true);
            break;
        case CS_TYPE_DECIMAL: {
            __int128 v = cs_px_dec_get(a[0], ia);
            int s = a[0]->type->scale, rs = k->e->type->scale;
            if (d < s) {
                /* drop s - d digits with the rounding mode */
                int drop = s - d;
                __int128 p10 = drop > 38 ? 0 : cs_px_pow10(drop);
                if (p10 == 0) {
                    v = 0;
                } else {
                    __int128 q = v / p10, rem = v % p10;
                    __int128 arem = rem < 0 ? -rem : rem, half = p10 / 2;
                    bool up = half_even ? (arem > half || (arem == half && (q & 1))) : arem >= half;
                    if (up) q += v < 0 ? -1 : 1;
                    v = q;
                }
                /* v is now at scale d; bring it to the result's scale */
                if (d < rs)
                    v *= cs_px_pow10(rs - d);
                else if (d > rs)
                    v /= cs_px_pow10(d - rs);
            } else {
                cs_px_dec_rescale(v, s, rs, &v);
            }
            cs_px_dec_put(r, i, v);
            break;
        }
        default: {
            int w = cs_col_type_width(id);
            int64_t v = w == 1   ? ((const int8_t *)a[0]->values)[ia]
                        : w == 2 ? ((const int16_t *)(const void *)a[0]->values)[ia]
                        : w == 4 ? ((const int32_t *)(const void *)a[0]->values)[ia]
                                 : ((const int64_t *)(const void *)a[0]->values)[ia];
            if (d < 0) {
                int64_t p10 = 1;
                for (int j = 0; j < -d && j < 19; j++)
                    p10 *= 10;
                int64_t q = v / p10, rem = v % p10, arem = rem < 0 ? -rem : rem;
                bool up =
                    half_even ? (arem * 2 > p10 || (arem * 2 == p10 && (q & 1))) : arem * 2 >= p10;
                if (up) q += v < 0 ? -1 : 1;
                v = -d >= 19 ? 0 : q * p10;
            }
            if (w == 1) ((int8_t *)r->values)[i] = (int8_t)v;
            if (w == 2) ((int16_t *)(void *)r->values)[i] = (int16_t)v;
            if (w == 4) ((int32_t *)(void *)r->values)[i] = (int32_t)v;
            if (w == 8) ((int64_t *)(void *)r->values)[i] = v;
        }
        }
    }
    *out = r;
    return CS_OK;
}

static int floor_ceil(const cs_px_kctx *k, cs_column *const *a, cs_column **out)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    bool is_ceil = strcmp(k->e->fn, "ceil") == 0 || strcmp(k->e->fn, "ceiling") == 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    cs_type_id id = a[0]->type->id;
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = i * sa;
        if (id == CS_TYPE_DECIMAL) {
            __int128 v = cs_px_dec_get(a[0], ia), p10 = cs_px_pow10(a[0]->type->scale);
            __int128 q = v / p10, rem = v % p10;
            if (rem != 0 && (is_ceil ? v > 0 : v < 0)) q += is_ceil ? 1 : -1;
            cs_px_dec_put(r, i, q);
        } else if (id == CS_TYPE_DOUBLE || id == CS_TYPE_FLOAT) {
            double v = id == CS_TYPE_DOUBLE ? ((const double *)(const void *)a[0]->values)[ia]
                                            : ((const float *)(const void *)a[0]->values)[ia];
            v = is_ceil ? ceil(v) : floor(v);
            /* Java's (long) conversion: saturating, NaN 0 */
            int64_t l = isnan(v)                      ? 0
                        : v >= 9223372036854775807.0  ? INT64_MAX
                        : v <= -9223372036854775808.0 ? INT64_MIN
                                                      : (int64_t)v;
            ((int64_t *)(void *)r->values)[i] = l;
        } else {
            int w = cs_col_type_width(id);
            ((int64_t *)(void *)r->values)[i] =
                w == 1   ? ((const int8_t *)a[0]->values)[ia]
                : w == 2 ? ((const int16_t *)(const void *)a[0]->values)[ia]
                : w == 4 ? ((const int32_t *)(const void *)a[0]->values)[ia]
                         : ((const int64_t *)(const void *)a[0]->values)[ia];
        }
    }
    *out = r;
    return CS_OK;
}

static int floor_ceil_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return floor_ceil(k, a, out);
}

/* ceil(decimal, d) / floor(decimal, d): rounded up / down to d fraction digits (d < 0: to
 * 10^-d), as Spark's RoundCeil / RoundFloor; the result's precision is the analyzer's */
static int floor_ceil_scale_kernel(const cs_px_kctx *k, cs_column *const *a, int na,
                                   cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sd = cs_px_stride(a[1], n);
    bool is_ceil = strcmp(k->e->fn, "ceil") == 0 || strcmp(k->e->fn, "ceiling") == 0;
    int in_scale = a[0]->type->scale, rs = k->e->type->scale;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        __int128 v = cs_px_dec_get(a[0], i * sa);
        int d = ((const int32_t *)(const void *)a[1]->values)[i * sd];
        if (d > 38) d = 38;
        if (d < -38) d = -38;
        if (d < in_scale) { /* drop digits, rounding toward +inf or -inf */
            __int128 p10 = cs_px_pow10(in_scale - d), q = v / p10, rem = v % p10;
            if (rem != 0 && (is_ceil ? v > 0 : v < 0)) q += is_ceil ? 1 : -1;
            v = q;
        } else {
            v *= cs_px_pow10(d - in_scale);
        }
        /* v is at scale d; the result is at scale rs (d < 0: rs = 0) */
        v = d < rs ? v * cs_px_pow10(rs - d) : v / cs_px_pow10(d - rs);
        cs_px_dec_put(r, i, v);
    }
    *out = r;
    return CS_OK;
}

typedef enum { M_SQRT, M_EXP, M_LN, M_LOG10, M_LOG2, M_LOGB, M_POW } mfn;

static int math_double(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out, mfn f)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = na > 1 ? cs_px_stride(a[1], n) : 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    const double *x = (const double *)(const void *)a[0]->values;
    const double *y = na > 1 ? (const double *)(const void *)a[1]->values : x;
    double *z = (double *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        double p = x[i * sa], q = y[i * sb], v = 0;
        bool null = false;
        switch (f) {
        case M_SQRT:
            v = sqrt(p);
            break;
        case M_EXP:
            v = exp(p);
            break;
        case M_LN:
            null = p <= 0;
            v = log(p);
            break;
        case M_LOG10:
            null = p <= 0;
            v = log10(p);
            break;
        case M_LOG2:
            null = p <= 0;
            v = log2(p);
            break;
        case M_LOGB:
            null = p <= 0 || q <= 0;
            v = log(q) / log(p);
            break;
        case M_POW:
            v = pow(p, q);
            break;
        }
        z[i] = v;
        if (null && (!r->validity || cs_bit_get(r->validity, i))) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        }
    }
    *out = r;
    return CS_OK;
}

#define MATH(NAME, F)                                                                              \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        return math_double(k, a, na, out, F);                                                      \
    }
MATH(sqrt_kernel, M_SQRT)
MATH(exp_kernel, M_EXP)
MATH(ln_kernel, M_LN)
MATH(log10_kernel, M_LOG10)
MATH(log2_kernel, M_LOG2)
MATH(logb_kernel, M_LOGB)
MATH(pow_kernel, M_POW)

static bool numeric(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG ||
           id == CS_TYPE_FLOAT || id == CS_TYPE_DOUBLE || id == CS_TYPE_DECIMAL;
}

cs_px_kernel cs_px_math_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    if (strcmp(fn, "round") == 0 || strcmp(fn, "bround") == 0) {
        if (n < 1 || n > 2 || !numeric(t[0]->id)) return NULL;
        if (n == 2 && t[1]->id != CS_TYPE_INT) return NULL;
        return round_kernel;
    }
    if (strcmp(fn, "floor") == 0 || strcmp(fn, "ceil") == 0 || strcmp(fn, "ceiling") == 0) {
        if (n == 2 && t[0]->id == CS_TYPE_DECIMAL && t[1]->id == CS_TYPE_INT && result &&
            result->id == CS_TYPE_DECIMAL)
            return floor_ceil_scale_kernel;
        return n == 1 && numeric(t[0]->id) ? floor_ceil_kernel : NULL;
    }
    for (int i = 0; i < n; i++)
        if (t[i]->id != CS_TYPE_DOUBLE) return NULL;
    if (n == 1) {
        if (strcmp(fn, "sqrt") == 0) return sqrt_kernel;
        if (strcmp(fn, "exp") == 0) return exp_kernel;
        if (strcmp(fn, "ln") == 0 || strcmp(fn, "log") == 0) return ln_kernel;
        if (strcmp(fn, "log10") == 0) return log10_kernel;
        if (strcmp(fn, "log2") == 0) return log2_kernel;
    }
    if (n == 2) {
        if (strcmp(fn, "log") == 0) return logb_kernel;
        if (strcmp(fn, "pow") == 0 || strcmp(fn, "power") == 0) return pow_kernel;
    }
    return NULL;
}
