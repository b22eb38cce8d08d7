/*
 * kernels_math_more.c — Spark's math functions beyond kernels_math.c's rounding and logarithms:
 * the double functions of one argument (signum, cbrt, trigonometry, degrees, radians), atan2,
 * hypot, width_bucket, bit_count,
 * the constants e() and pi(), isnan and nanvl, try_divide of doubles (null for a zero divisor),
 * bin (Long.toBinaryString), the shifts of ints and bigints (Java's: the count taken mod the
 * width) and greatest / least over any comparable type (nulls skipped; null when every argument
 * is null). One loop per batch over the column vectors. Called through cs_px_math_more_lookup
 * (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

typedef double (*dfn)(double);

static double signum(double x)
{
    return isnan(x) ? x : x > 0 ? 1.0 : x < 0 ? -1.0 : x;
}
static double degrees(double x)
{
    return x * (180.0 / M_PI);
}
static double radians(double x)
{
    return x / 180.0 * M_PI;
}

/* Spark's formulas (Acosh, Asinh, Atanh, Sec, Csc, Cot in mathExpressions.scala), not libm's
 * acosh/asinh/atanh, so that results match Spark's to the last bit */
static double spark_acosh(double x)
{
    return log(x + sqrt(x * x - 1.0));
}

static double spark_asinh(double x)
{
    return x == -INFINITY ? -INFINITY : log(x + sqrt(x * x + 1.0));
}

static double spark_atanh(double x)
{
    return 0.5 * log((1.0 + x) / (1.0 - x));
}

static double sec(double x)
{
    return 1.0 / cos(x);
}

static double csc(double x)
{
    return 1.0 / sin(x);
}

static double cot(double x)
{
    return 1.0 / tan(x);
}

static const struct {
    const char *name;
    dfn f;
} UNARY[] = {
    {"acosh", spark_acosh}, {"asinh", spark_asinh}, {"atanh", spark_atanh}, {"sec", sec},
    {"csc", csc},           {"cot", cot},           {"signum", signum},     {"cbrt", cbrt},
    {"sin", sin},           {"cos", cos},           {"tan", tan},           {"asin", asin},
    {"acos", acos},         {"atan", atan},         {"sinh", sinh},         {"cosh", cosh},
    {"tanh", tanh},         {"degrees", degrees},   {"radians", radians},   {"expm1", expm1},
    {"log1p", log1p},       {"rint", rint}};

static dfn unary_of(const char *fn)
{
    for (size_t i = 0; i < sizeof UNARY / sizeof UNARY[0]; i++)
        if (strcmp(UNARY[i].name, fn) == 0) return UNARY[i].f;
    return NULL;
}

static int unary_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    dfn f = unary_of(k->e->fn);
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    const double *x = (const double *)(const void *)a[0]->values;
    double *z = (double *)(void *)r->values;
    for (int64_t i = 0; i < n; i++)
        z[i] = f(x[i * s]);
    *out = r;
    return CS_OK;
}

static int constant_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)a;
    (void)na;
    double v = strcmp(k->e->fn, "pi") == 0 ? M_PI : M_E;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, k->n);
    for (int64_t i = 0; i < k->n; i++)
        ((double *)(void *)r->values)[i] = v;
    *out = r;
    return CS_OK;
}

typedef enum { B_ATAN2, B_NANVL, B_TRY_DIVIDE, B_HYPOT } binop;

static int binary_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    binop op = strcmp(k->e->fn, "atan2") == 0   ? B_ATAN2
               : strcmp(k->e->fn, "nanvl") == 0 ? B_NANVL
               : strcmp(k->e->fn, "hypot") == 0 ? B_HYPOT
                                                : B_TRY_DIVIDE;
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = cs_px_stride(a[1], n);
    const double *x = (const double *)(const void *)a[0]->values;
    const double *y = (const double *)(const void *)a[1]->values;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    double *z = (double *)(void *)r->values;
    if (op != B_NANVL) cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        bool vx = cs_column_is_valid(a[0], i * sx), vy = cs_column_is_valid(a[1], i * sy);
        double p = x[i * sx], q = y[i * sy];
        switch (op) {
        case B_ATAN2:
            z[i] = atan2(p + 0.0, q + 0.0);
            break;
        case B_HYPOT:
            z[i] = hypot(p, q);
            break;
        case B_NANVL: /* nanvl(x, y): x unless it is NaN; null when the chosen side is null */
            if (vx && !isnan(p)) {
                z[i] = p;
            } else if (vx && vy) {
                z[i] = q;
            } else {
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
            }
            break;
        case B_TRY_DIVIDE:
            if (vx && vy && q == 0) {
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
            } else {
                z[i] = p / q;
            }
            break;
        }
    }
    *out = r;
    return CS_OK;
}

static int isnan_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    const double *x = (const double *)(const void *)a[0]->values;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    for (int64_t i = 0; i < n; i++)
        if (cs_column_is_valid(a[0], i * s) && isnan(x[i * s])) cs_bit_set(r->values, i, true);
    *out = r;
    return CS_OK;
}

/* bin(bigint): Java's Long.toBinaryString (two's complement for negatives) */
static int bin_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    const int64_t *x = (const int64_t *)(const void *)a[0]->values;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        uint64_t v = (uint64_t)x[i * s];
        char buf[65];
        int len = 0;
        for (int bit = 63; bit >= 0; bit--)
            if (len || (v >> bit) & 1 || bit == 0) buf[len++] = (char)('0' + ((v >> bit) & 1));
        cs_col_builder_append_string(b, buf, (size_t)len);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

static int shift_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int dir = strcmp(k->e->fn, "shiftleft") == 0 ? 0 : strcmp(k->e->fn, "shiftright") == 0 ? 1 : 2;
    bool wide = a[0]->type->id == CS_TYPE_LONG;
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = cs_px_stride(a[1], n);
    const int32_t *y = (const int32_t *)(const void *)a[1]->values;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        if (wide) {
            uint64_t v = ((const uint64_t *)(const void *)a[0]->values)[i * sx];
            int c = y[i * sy] & 63;
            uint64_t res = dir == 0 ? v << c : dir == 2 ? v >> c : (uint64_t)((int64_t)v >> c);
            ((uint64_t *)(void *)r->values)[i] = res;
        } else {
            uint32_t v = ((const uint32_t *)(const void *)a[0]->values)[i * sx];
            int c = y[i * sy] & 31;
            uint32_t res = dir == 0 ? v << c : dir == 2 ? v >> c : (uint32_t)((int32_t)v >> c);
            ((uint32_t *)(void *)r->values)[i] = res;
        }
    }
    *out = r;
    return CS_OK;
}

/* greatest / least: the row's largest / smallest non-null argument, gathered with one merge */
static int extreme_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    bool greatest = strcmp(k->e->fn, "greatest") == 0;
    int64_t n = k->n;
    size_t sz = sizeof(int32_t) * (size_t)(n ? n : 1);
    int32_t *which = cs_xmalloc(sz), *row = cs_xmalloc(sz);
    for (int64_t i = 0; i < n; i++) {
        which[i] = -1;
        row[i] = 0;
        for (int j = 0; j < na; j++) {
            int64_t r = i * cs_px_stride(a[j], n);
            if (!cs_column_is_valid(a[j], r)) continue;
            int c = which[i] < 0 ? 0 : cs_px_elem_cmp(a[j], r, a[which[i]], row[i]);
            if (which[i] < 0 || (greatest ? c > 0 : c < 0)) {
                which[i] = j;
                row[i] = (int32_t)r;
            }
        }
    }
    *out = cs_px_merge(k->alloc, k->e->type, a, na, which, row, n);
    free(which);
    free(row);
    return CS_OK;
}

/* width_bucket(v, min, max, n): Spark's WidthBucket (null for n <= 0, min = max, NaN) */
static int width_bucket_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        double v = ((const double *)(const void *)a[0]->values)[i * cs_px_stride(a[0], n)];
        double lo = ((const double *)(const void *)a[1]->values)[i * cs_px_stride(a[1], n)];
        double hi = ((const double *)(const void *)a[2]->values)[i * cs_px_stride(a[2], n)];
        int64_t nb = ((const int64_t *)(const void *)a[3]->values)[i * cs_px_stride(a[3], n)];
        if (nb <= 0 || nb == INT64_MAX || lo == hi || isnan(v) || isnan(lo) || isnan(hi) ||
            isinf(lo) || isinf(hi)) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
            continue;
        }
        int64_t b;
        if (lo < hi)
            b = v < lo ? 0 : v >= hi ? nb + 1 : (int64_t)(nb * (v - lo) / (hi - lo)) + 1;
        else
            b = v > lo ? 0 : v <= hi ? nb + 1 : (int64_t)(nb * (lo - v) / (lo - hi)) + 1;
        ((int64_t *)(void *)r->values)[i] = b;
    }
    *out = r;
    return CS_OK;
}

/* bit_count: the set bits of the two's complement value (Integer/Long.bitCount) */
static int bit_count_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    int w = a[0]->type->id == CS_TYPE_BOOLEAN ? 0 : cs_col_type_width(a[0]->type->id);
    for (int64_t i = 0; i < n; i++) {
        uint64_t v = w == 0   ? cs_bit_get(a[0]->values, i * s)
                     : w == 1 ? (uint8_t)a[0]->values[i * s]
                     : w == 2 ? ((const uint16_t *)(const void *)a[0]->values)[i * s]
                     : w == 4 ? ((const uint32_t *)(const void *)a[0]->values)[i * s]
                              : ((const uint64_t *)(const void *)a[0]->values)[i * s];
        /* a negative byte / short counts as the int it widens to, as Java's */
        if (w == 1 && (v & 0x80)) v |= 0xFFFFFF00u;
        if (w == 2 && (v & 0x8000)) v |= 0xFFFF0000u;
        ((int32_t *)(void *)r->values)[i] = __builtin_popcountll(v);
    }
    *out = r;
    return CS_OK;
}

static bool comparable(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_ARRAY:
    case CS_TYPE_MAP:
    case CS_TYPE_STRUCT:
        return false;
    default:
        return true;
    }
}

cs_px_kernel cs_px_math_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    if (n == 0) return strcmp(fn, "pi") == 0 || strcmp(fn, "e") == 0 ? constant_kernel : NULL;
    if (strcmp(fn, "greatest") == 0 || strcmp(fn, "least") == 0) {
        for (int i = 0; i < n; i++)
            if (!cs_px_type_same(t[i], result) || !comparable(t[i])) return NULL;
        return extreme_kernel;
    }
    if (n == 2 && (strcmp(fn, "shiftleft") == 0 || strcmp(fn, "shiftright") == 0 ||
                   strcmp(fn, "shiftrightunsigned") == 0))
        return (t[0]->id == CS_TYPE_INT || t[0]->id == CS_TYPE_LONG) && t[1]->id == CS_TYPE_INT
                   ? shift_kernel
                   : NULL;
    if (n == 1 && strcmp(fn, "bin") == 0) return t[0]->id == CS_TYPE_LONG ? bin_kernel : NULL;
    if (n == 1 && strcmp(fn, "bit_count") == 0)
        return t[0]->id == CS_TYPE_BOOLEAN || t[0]->id == CS_TYPE_BYTE ||
                       t[0]->id == CS_TYPE_SHORT || t[0]->id == CS_TYPE_INT ||
                       t[0]->id == CS_TYPE_LONG
                   ? bit_count_kernel
                   : NULL;
    if (n == 4 && strcmp(fn, "width_bucket") == 0)
        return t[0]->id == CS_TYPE_DOUBLE && t[1]->id == CS_TYPE_DOUBLE &&
                       t[2]->id == CS_TYPE_DOUBLE && t[3]->id == CS_TYPE_LONG
                   ? width_bucket_kernel
                   : NULL;
    for (int i = 0; i < n; i++)
        if (t[i]->id != CS_TYPE_DOUBLE) return NULL;
    if (n == 1 && strcmp(fn, "isnan") == 0) return isnan_kernel;
    if (n == 1 && unary_of(fn)) return unary_kernel;
    if (n == 2 && (strcmp(fn, "atan2") == 0 || strcmp(fn, "nanvl") == 0 ||
                   strcmp(fn, "try_divide") == 0 || strcmp(fn, "hypot") == 0))
        return binary_kernel;
    return NULL;
}
