/*
 * kernels_arith.c — arithmetic kernels: + - * / % div pmod negative abs over tinyint,
 * smallint, int, bigint, float, double and decimal, with Spark 4's ANSI semantics:
 *   - integral + - * negative abs: ARITHMETIC_OVERFLOW ("integer overflow", "long overflow",
 *     ...); wrap-around as Java when ctx->ansi is false;
 *   - / % div pmod by zero: DIVIDE_BY_ZERO under ANSI, null otherwise (doubles too, as Spark's
 *     Divide and Remainder); `/` over integers never reaches here (the analyzer casts to double);
 *     `div` gives bigint;
 *   - decimal: exact 128-bit unscaled values computed at the operands' common scale and brought
 *     to the result type's precision and scale (fixed by the analyzer) with HALF_UP rounding;
 *     products and quotients go through 256 bits so 38-digit operands are exact; a value that
 *     does not fit the result precision is NUMERIC_VALUE_OUT_OF_RANGE under ANSI, null
 *     otherwise.
 * Each kernel is a tight loop over whole columns (a literal operand read with stride 0); the
 * overflow test is one predictable branch per row. Also the decimal helpers of
 * pexpr_internal.h. Called through cs_px_arith_lookup at compile time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

/* ---- errors ---- */

static const char ANSI_HINT[] =
    "If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.";

int cs_px_err_overflow(cs_error *err, const char *what, const char *try_fn)
{
    if (try_fn)
        return cs_sql_error_set(err, CS_ETASK, "ARITHMETIC_OVERFLOW", "22003",
                                "%s overflow. Use '%s' to tolerate overflow and return NULL "
                                "instead. %s",
                                what, try_fn, ANSI_HINT);
    return cs_sql_error_set(err, CS_ETASK, "ARITHMETIC_OVERFLOW", "22003", "%s overflow. %s", what,
                            ANSI_HINT);
}

int cs_px_err_divide_by_zero(cs_error *err)
{
    return cs_sql_error_set(err, CS_ETASK, "DIVIDE_BY_ZERO", "22012",
                            "Division by zero. Use `try_divide` to tolerate divisor being 0 and "
                            "return NULL instead. %s",
                            ANSI_HINT);
}

int cs_px_err_numeric_out_of_range(cs_error *err, __int128 v, int scale, int precision, int rscale)
{
    char buf[128];
    int len = cs_px_dec_format(v, scale > 0 ? scale : 0, buf);
    for (int z = scale; z < 0 && len < (int)sizeof buf - 1; z++) /* a negative scale: zeros */
        buf[len++] = '0';
    buf[len] = '\0';
    return cs_sql_error_set(err, CS_ETASK, "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
                            " %s cannot be represented as Decimal(%d, %d). If necessary set "
                            "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error, and "
                            "return NULL instead.",
                            buf, precision, rscale);
}

/* tinyint and smallint overflow is Spark's BINARY_ARITHMETIC_OVERFLOW naming the operands (as
 * shorts: "127S + 1S"); int and bigint are ARITHMETIC_OVERFLOW */
static int int_overflow(cs_error *err, const char *what, const char *try_fn, int64_t x, int64_t y)
{
    if (strcmp(what, "tinyint") && strcmp(what, "smallint"))
        return cs_px_err_overflow(err, what, try_fn);
    const char *op = strcmp(try_fn, "try_add") == 0        ? "+"
                     : strcmp(try_fn, "try_subtract") == 0 ? "-"
                                                           : "*";
    return cs_sql_error_set(err, CS_ETASK, "BINARY_ARITHMETIC_OVERFLOW", "22003",
                            "%lldS %s %lldS caused overflow. Use `%s` to ignore overflow problem "
                            "and return NULL.",
                            (long long)x, op, (long long)y, try_fn);
}

/* ---- decimal helpers ---- */

/* 10^0 .. 10^38, filled before main() runs (tasks read it from several threads). */
static __int128 POW10[39];

__attribute__((constructor)) static void pow10_init(void)
{
    POW10[0] = 1;
    for (int i = 1; i <= 38; i++)
        POW10[i] = POW10[i - 1] * 10;
}

__int128 cs_px_pow10(int k)
{
    if (k >= 0 && k <= 38) return POW10[k];
    __int128 p = 1; /* past 38 digits: what the multiplication gives, as callers expect */
    for (int i = 0; i < k; i++)
        p *= 10;
    return p;
}

static unsigned __int128 max_unscaled(int precision)
{
    return (unsigned __int128)POW10[precision] - 1;
}

static inline unsigned __int128 uabs128(__int128 v)
{
    return v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
}

bool cs_px_dec_fits(__int128 v, int precision)
{
    return uabs128(v) <= max_unscaled(precision);
}

bool cs_px_dec_rescale(__int128 v, int from, int to, __int128 *out)
{
    if (to >= from) {
        if (to - from > 38) return v == 0 ? (*out = 0, true) : false;
        __int128 r;
        if (__builtin_mul_overflow(v, POW10[to - from], &r)) return false;
        *out = r;
        return true;
    }
    int k = from - to;
    if (k > 38) {
        *out = 0;
        return true;
    }
    unsigned __int128 m = uabs128(v), d = (unsigned __int128)POW10[k];
    unsigned __int128 q = m / d, rem = m % d;
    if (rem * 2 >= d) q++; /* HALF_UP: away from zero at .5 */
    *out = v < 0 ? -(__int128)q : (__int128)q;
    return true;
}

int cs_px_dec_format(__int128 v, int scale, char *buf)
{
    char digits[48];
    int nd = 0;
    unsigned __int128 m = uabs128(v);
    do {
        digits[nd++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    while (nd <= scale)
        digits[nd++] = '0';
    int n = 0;
    if (v < 0) buf[n++] = '-';
    for (int i = nd - 1; i >= 0; i--) {
        buf[n++] = digits[i];
        if (i == scale && scale > 0) buf[n++] = '.';
    }
    buf[n] = '\0';
    return n;
}

/* 256-bit unsigned values: w[0] least significant 64 bits. */
typedef struct u256 {
    uint64_t w[4];
} u256;

static u256 mul_128(unsigned __int128 a, unsigned __int128 b)
{
    uint64_t x[2] = {(uint64_t)a, (uint64_t)(a >> 64)}, y[2] = {(uint64_t)b, (uint64_t)(b >> 64)};
    u256 r = {{0, 0, 0, 0}};
    for (int i = 0; i < 2; i++) {
        unsigned __int128 carry = 0;
        for (int j = 0; j < 2; j++) {
            unsigned __int128 t = (unsigned __int128)x[i] * y[j] + r.w[i + j] + carry;
            r.w[i + j] = (uint64_t)t;
            carry = t >> 64;
        }
        r.w[i + 2] = (uint64_t)carry;
    }
    return r;
}

static uint64_t div_u64(u256 *a, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (int i = 3; i >= 0; i--) {
        unsigned __int128 cur = (rem << 64) | a->w[i];
        a->w[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

static bool fits_128(const u256 *a)
{
    return a->w[2] == 0 && a->w[3] == 0 && !(a->w[1] >> 63);
}

/* a / 10^k rounded HALF_UP (HALF_UP needs only the first dropped digit). */
static void div_pow10_half_up(u256 *a, int k)
{
    if (k <= 0) return;
    int rest = k - 1;
    while (rest > 0) {
        int step = rest > 19 ? 19 : rest;
        div_u64(a, (uint64_t)POW10[step]);
        rest -= step;
    }
    uint64_t digit = div_u64(a, 10);
    if (digit >= 5) {
        for (int i = 0; i < 4 && ++a->w[i] == 0; i++) {
        }
    }
}

/* a / d (d != 0), rounded HALF_UP. */
static u256 div_128_half_up(u256 a, unsigned __int128 d)
{
    u256 q = {{0, 0, 0, 0}};
    unsigned __int128 rem = 0;
    if (fits_128(&a)) {
        unsigned __int128 n = ((unsigned __int128)a.w[1] << 64) | a.w[0];
        unsigned __int128 qq = n / d;
        rem = n % d;
        q.w[0] = (uint64_t)qq;
        q.w[1] = (uint64_t)(qq >> 64);
    } else {
        for (int bit = 255; bit >= 0; bit--) {
            bool carry = rem >> 127;
            rem = (rem << 1) | ((a.w[bit / 64] >> (bit % 64)) & 1);
            if (carry || rem >= d) {
                rem -= d;
                q.w[bit / 64] |= (uint64_t)1 << (bit % 64);
            }
        }
    }
    /* HALF_UP: 2 * rem >= d, without overflowing */
    if (rem >= d - rem) {
        for (int i = 0; i < 4 && ++q.w[i] == 0; i++) {
        }
    }
    return q;
}

static u256 mul_pow10(unsigned __int128 a, int k, bool *ok)
{
    u256 r = {{(uint64_t)a, (uint64_t)(a >> 64), 0, 0}};
    *ok = true;
    while (k > 0) {
        int step = k > 19 ? 19 : k;
        uint64_t m = (uint64_t)POW10[step];
        unsigned __int128 carry = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 t = (unsigned __int128)r.w[i] * m + carry;
            r.w[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry) *ok = false;
        k -= step;
    }
    return r;
}

/* ---- kernel shape ---- */

#define BEGIN_BINARY(TA, TB, TR)                                                                   \
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);                      \
    (void)na;                                                                                      \
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);                                       \
    cs_px_and_validity(r, a, 2, n);                                                                \
    const TA *x = (const TA *)(const void *)a[0]->values;                                          \
    const TB *y = (const TB *)(const void *)a[1]->values;                                          \
    TR *z = (TR *)(void *)r->values;                                                               \
    (void)x;                                                                                       \
    (void)y;                                                                                       \
    (void)z

#define ROW_VALID(i) (!r->validity || cs_bit_get(r->validity, (i)))

/* fails the kernel (freeing r) with an error */
#define FAIL(call)                                                                                 \
    do {                                                                                           \
        cs_column_unref(r);                                                                        \
        return (call);                                                                             \
    } while (0)

/* a row that is null in legacy mode, an error under ANSI */
#define NULL_OR_FAIL(i, call)                                                                      \
    do {                                                                                           \
        if (k->ctx->ansi) FAIL(call);                                                              \
        cs_px_ensure_validity(r);                                                                  \
        cs_px_set_null(r, (i));                                                                    \
    } while (0)

/* + - * on integral types: the builtin gives the wrapped value and whether it overflowed */
#define INT_OP(NAME, T, BUILTIN, WHAT, TRY)                                                        \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        BEGIN_BINARY(T, T, T);                                                                     \
        bool any = false;                                                                          \
        if (sa == 1 && sb == 0) { /* column op literal: a loop compilers vectorize */              \
            const T c = y[0];                                                                      \
            for (int64_t i = 0; i < n; i++)                                                        \
                any |= BUILTIN(x[i], c, &z[i]);                                                    \
        } else if (sa == 1 && sb == 1) {                                                           \
            for (int64_t i = 0; i < n; i++)                                                        \
                any |= BUILTIN(x[i], y[i], &z[i]);                                                 \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                any |= BUILTIN(x[i * sa], y[i * sb], &z[i]);                                       \
        }                                                                                          \
        if (any && k->ctx->ansi) {                                                                 \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T t;                                                                               \
                if (ROW_VALID(i) && BUILTIN(x[i * sa], y[i * sb], &t))                             \
                    FAIL(int_overflow(k->err, WHAT, TRY, (int64_t)x[i * sa], (int64_t)y[i * sb])); \
            }                                                                                      \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }

#define INT_FAMILY(SUF, T, WHAT)                                                                   \
    INT_OP(add_##SUF, T, __builtin_add_overflow, WHAT, "try_add")                                  \
    INT_OP(sub_##SUF, T, __builtin_sub_overflow, WHAT, "try_subtract")                             \
    INT_OP(mul_##SUF, T, __builtin_mul_overflow, WHAT, "try_multiply")

INT_FAMILY(i8, int8_t, "tinyint")
INT_FAMILY(i16, int16_t, "smallint")
INT_FAMILY(i32, int32_t, "integer")
INT_FAMILY(i64, int64_t, "long")

/* % and pmod on integral types; MIN % -1 is 0 (no C overflow trap) */
#define INT_REM(NAME, T, PMOD)                                                                     \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        BEGIN_BINARY(T, T, T);                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T d = y[i * sb];                                                                       \
            if (d == 0 || d == -1) {                                                               \
                z[i] = 0;                                                                          \
                if (d == 0 && ROW_VALID(i)) NULL_OR_FAIL(i, cs_px_err_divide_by_zero(k->err));     \
                continue;                                                                          \
            }                                                                                      \
            T m = (T)(x[i * sa] % d);                                                              \
            if (PMOD && m < 0) m = (T)((m + d) % d);                                               \
            z[i] = m;                                                                              \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
INT_REM(rem_i8, int8_t, 0)
INT_REM(rem_i16, int16_t, 0)
INT_REM(rem_i32, int32_t, 0)
INT_REM(rem_i64, int64_t, 0)
INT_REM(pmod_i8, int8_t, 1)
INT_REM(pmod_i16, int16_t, 1)
INT_REM(pmod_i32, int32_t, 1)
INT_REM(pmod_i64, int64_t, 1)

/* bigint div bigint (Spark's IntegralDivide): truncates; MIN div -1 overflows */
static int div_i64(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    BEGIN_BINARY(int64_t, int64_t, int64_t);
    for (int64_t i = 0; i < n; i++) {
        int64_t d = y[i * sb], v = x[i * sa];
        if (d == 0) {
            z[i] = 0;
            if (ROW_VALID(i)) NULL_OR_FAIL(i, cs_px_err_divide_by_zero(k->err));
            continue;
        }
        if (d == -1 && v == INT64_MIN) {
            z[i] = INT64_MIN;
            if (ROW_VALID(i) && k->ctx->ansi)
                FAIL(cs_px_err_overflow(k->err, "long", "try_divide"));
            continue;
        }
        z[i] = v / d;
    }
    *out = r;
    return CS_OK;
}

#define FLOAT_OP(NAME, T, EXPR)                                                                    \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        BEGIN_BINARY(T, T, T);                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T p = x[i * sa], q = y[i * sb];                                                        \
            z[i] = (EXPR);                                                                         \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
FLOAT_OP(add_f32, float, p + q)
FLOAT_OP(sub_f32, float, p - q)
FLOAT_OP(mul_f32, float, p *q)
FLOAT_OP(add_f64, double, p + q)
FLOAT_OP(sub_f64, double, p - q)
FLOAT_OP(mul_f64, double, p *q)

/* / % pmod on float/double: a zero divisor is an error (ANSI) or null, as Spark */
#define FLOAT_DIV(NAME, T, EXPR)                                                                   \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        BEGIN_BINARY(T, T, T);                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T p = x[i * sa], q = y[i * sb];                                                        \
            if (q == 0) {                                                                          \
                z[i] = 0;                                                                          \
                if (ROW_VALID(i)) NULL_OR_FAIL(i, cs_px_err_divide_by_zero(k->err));               \
                continue;                                                                          \
            }                                                                                      \
            z[i] = (EXPR);                                                                         \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
FLOAT_DIV(div_f32, float, p / q)
FLOAT_DIV(div_f64, double, p / q)
FLOAT_DIV(rem_f32, float, fmodf(p, q))
FLOAT_DIV(rem_f64, double, fmod(p, q))
FLOAT_DIV(pmod_f32, float, fmodf(p, q) < 0 ? fmodf(fmodf(p, q) + q, q) : fmodf(p, q))
FLOAT_DIV(pmod_f64, double, fmod(p, q) < 0 ? fmod(fmod(p, q) + q, q) : fmod(p, q))

/* negative / abs */
#define INT_UNARY(NAME, T, MINV, WHAT, EXPR_OVF, OPEXPR)                                           \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        (void)na;                                                                                  \
        int64_t n = k->n, sa = cs_px_stride(a[0], n);                                              \
        cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);                                   \
        cs_px_and_validity(r, a, 1, n);                                                            \
        const T *x = (const T *)(const void *)a[0]->values;                                        \
        T *z = (T *)(void *)r->values;                                                             \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T v = x[i * sa];                                                                       \
            if (v == MINV) {                                                                       \
                z[i] = v;                                                                          \
                if (EXPR_OVF && ROW_VALID(i) && k->ctx->ansi)                                      \
                    FAIL(cs_px_err_overflow(k->err, WHAT, NULL));                                  \
                continue;                                                                          \
            }                                                                                      \
            z[i] = (T)(OPEXPR);                                                                    \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
INT_UNARY(neg_i8, int8_t, INT8_MIN, "tinyint", 1, -v)
INT_UNARY(neg_i16, int16_t, INT16_MIN, "smallint", 1, -v)
INT_UNARY(neg_i32, int32_t, INT32_MIN, "integer", 1, -v)
INT_UNARY(neg_i64, int64_t, INT64_MIN, "long", 1, -v)
INT_UNARY(abs_i8, int8_t, INT8_MIN, "tinyint", 1, v < 0 ? -v : v)
INT_UNARY(abs_i16, int16_t, INT16_MIN, "smallint", 1, v < 0 ? -v : v)
INT_UNARY(abs_i32, int32_t, INT32_MIN, "integer", 1, v < 0 ? -v : v)
INT_UNARY(abs_i64, int64_t, INT64_MIN, "long", 1, v < 0 ? -v : v)

#define FLOAT_UNARY(NAME, T, EXPR)                                                                 \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        (void)na;                                                                                  \
        int64_t n = k->n, sa = cs_px_stride(a[0], n);                                              \
        cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);                                   \
        cs_px_and_validity(r, a, 1, n);                                                            \
        const T *x = (const T *)(const void *)a[0]->values;                                        \
        T *z = (T *)(void *)r->values;                                                             \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T v = x[i * sa];                                                                       \
            z[i] = (EXPR);                                                                         \
        }                                                                                          \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
FLOAT_UNARY(neg_f32, float, -v)
FLOAT_UNARY(neg_f64, double, -v)
FLOAT_UNARY(abs_f32, float, fabsf(v))
FLOAT_UNARY(abs_f64, double, fabs(v))

/* ---- decimal ---- */

enum dec_op { DEC_ADD, DEC_SUB, DEC_MUL, DEC_DIV, DEC_REM, DEC_PMOD };

/* One decimal row: the exact result at the result type's scale (HALF_UP), or why not. */
typedef enum { DR_OK, DR_OVERFLOW, DR_DIV0 } dec_rc;

static dec_rc dec_row(enum dec_op op, __int128 p, int s1, __int128 q, int s2, int rs, int rp,
                      __int128 *res, __int128 *raw, int *raw_scale, char *raw_text)
{
    int s = s1 > s2 ? s1 : s2;
    __int128 v = 0;
    *raw_scale = rs;
    switch (op) {
    case DEC_ADD:
    case DEC_SUB:
    case DEC_REM:
    case DEC_PMOD: {
        __int128 x, y;
        if (!cs_px_dec_rescale(p, s1, s, &x) || !cs_px_dec_rescale(q, s2, s, &y))
            return DR_OVERFLOW;
        if (op == DEC_ADD || op == DEC_SUB) {
            if (op == DEC_ADD ? __builtin_add_overflow(x, y, &v) : __builtin_sub_overflow(x, y, &v))
                return DR_OVERFLOW;
        } else {
            if (y == 0) return DR_DIV0;
            v = x % y;
            if (op == DEC_PMOD && v < 0) v = (v + y) % y;
        }
        *raw = v;
        *raw_scale = s;
        if (!cs_px_dec_rescale(v, s, rs, &v)) return DR_OVERFLOW;
        break;
    }
    case DEC_MUL: {
        int ps0 = s1 + s2;
        __int128 prod;
        /* fast path: the exact product fits 128 bits (operands up to ~19 digits each) */
        if (!__builtin_mul_overflow(p, q, &prod)) {
            *raw = prod;
            *raw_scale = ps0;
            if (!cs_px_dec_rescale(prod, ps0, rs, &v)) return DR_OVERFLOW;
            break;
        }
        u256 m = mul_128(uabs128(p), uabs128(q));
        int ps = s1 + s2;
        u256 exact = m;
        if (ps > rs) div_pow10_half_up(&m, ps - rs);
        if (!fits_128(&m)) {
            /* Spark's message shows the product cut to 39 significant digits (the
             * MathContext(39, DOWN) of Decimal's multiply), at the scale that leaves */
            u256 t = exact;
            int digits = 0;
            while (t.w[0] | t.w[1] | t.w[2] | t.w[3]) {
                div_u64(&t, 10);
                digits++;
            }
            for (int drop = digits - 39; drop > 0; drop -= 19)
                div_u64(&exact, (uint64_t)POW10[drop > 19 ? 19 : drop]);
            /* 39 digits may pass 128 bits: printed from the 256-bit value */
            char rev[96];
            int nd = 0;
            while (exact.w[0] | exact.w[1] | exact.w[2] | exact.w[3])
                rev[nd++] = (char)('0' + div_u64(&exact, 10));
            int o = 0, zeros = digits > 39 ? digits - 39 - ps : 0;
            if ((p < 0) != (q < 0)) raw_text[o++] = '-';
            int point = ps - (digits > 39 ? digits - 39 : 0); /* digits after the point */
            for (int i = nd - 1; i >= 0; i--) {
                raw_text[o++] = rev[i];
                if (i == point && point > 0) raw_text[o++] = '.';
            }
            for (int z = 0; z < zeros; z++)
                raw_text[o++] = '0';
            raw_text[o] = '\0';
            return DR_OVERFLOW;
        }
        v = (__int128)(((unsigned __int128)m.w[1] << 64) | m.w[0]);
        if (ps < rs) {
            if (!cs_px_dec_rescale(v, ps, rs, &v)) return DR_OVERFLOW;
        }
        if ((p < 0) != (q < 0)) v = -v;
        *raw = v;
        break;
    }
    case DEC_DIV: {
        if (q == 0) return DR_DIV0;
        /* p/10^s1 / (q/10^s2) at scale rs = p * 10^(rs - s1 + s2) / q */
        int shift = rs - s1 + s2;
        bool ok = true;
        u256 num;
        unsigned __int128 den = uabs128(q);
        if (shift >= 0) {
            num = mul_pow10(uabs128(p), shift, &ok);
        } else {
            num = mul_pow10(uabs128(p), 0, &ok);
            u256 d = mul_pow10(den, -shift, &ok);
            if (!fits_128(&d)) {
                *res = 0;
                return DR_OK;
            }
            den = ((unsigned __int128)d.w[1] << 64) | d.w[0];
        }
        if (!ok) return DR_OVERFLOW;
        u256 qt = div_128_half_up(num, den);
        if (!fits_128(&qt)) return DR_OVERFLOW;
        v = (__int128)(((unsigned __int128)qt.w[1] << 64) | qt.w[0]);
        if ((p < 0) != (q < 0)) v = -v;
        *raw = v;
        break;
    }
    }
    *res = v;
    if (!cs_px_dec_fits(v, rp)) return DR_OVERFLOW;
    return DR_OK;
}

static int dec_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out,
                      enum dec_op op)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);
    (void)na;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    int s1 = a[0]->type->scale, s2 = a[1]->type->scale;
    int rs = k->e->type->scale, rp = k->e->type->precision;
    /* The common cases, without rescaling the result: a product at the scale s1 + s2, a sum or
     * difference at the larger scale (operands under 2^63 raised by at most 10^18 cannot
     * overflow 128 bits). Anything else, or a result past the precision, takes dec_row. */
    const unsigned __int128 lim = max_unscaled(rp);
    const int smax = s1 > s2 ? s1 : s2;
    const bool direct_mul = op == DEC_MUL && s1 + s2 == rs;
    const bool direct_add =
        (op == DEC_ADD || op == DEC_SUB) && smax == rs && smax - s1 <= 18 && smax - s2 <= 18;
    const int64_t m1 = (int64_t)POW10[smax - s1], m2 = (int64_t)POW10[smax - s2];
    for (int64_t i = 0; i < n; i++) {
        if (!ROW_VALID(i)) continue;
        __int128 p = cs_px_dec_get(a[0], i * sa), q = cs_px_dec_get(a[1], i * sb), v = 0;
        const bool small = p == (int64_t)p && q == (int64_t)q;
        if (small && (direct_mul || direct_add)) {
            if (direct_mul)
                v = (__int128)(int64_t)p * (int64_t)q;
            else if (op == DEC_ADD)
                v = (__int128)(int64_t)p * m1 + (__int128)(int64_t)q * m2;
            else
                v = (__int128)(int64_t)p * m1 - (__int128)(int64_t)q * m2;
            if (uabs128(v) <= lim) {
                cs_px_dec_put(r, i, v);
                continue;
            }
        }
        __int128 raw = 0;
        int raw_scale;
        char raw_text[96];
        raw_text[0] = '\0';
        dec_rc rc = dec_row(op, p, s1, q, s2, rs, rp, &v, &raw, &raw_scale, raw_text);
        if (rc == DR_DIV0) NULL_OR_FAIL(i, cs_px_err_divide_by_zero(k->err));
        if (rc == DR_OVERFLOW) {
            if (raw_text[0] && k->ctx->ansi) {
                cs_column_unref(r);
                return cs_sql_error_set(k->err, CS_ETASK,
                                        "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
                                        " %s cannot be represented as Decimal(%d, %d). If "
                                        "necessary set \"spark.sql.ansi.enabled\" to \"false\" "
                                        "to bypass this error, and return NULL instead.",
                                        raw_text, rp, rs);
            }
            NULL_OR_FAIL(i, cs_px_err_numeric_out_of_range(k->err, raw, raw_scale, rp, rs));
        }
        if (rc == DR_OK) cs_px_dec_put(r, i, v);
    }
    *out = r;
    return CS_OK;
}

static int add_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_ADD);
}
static int sub_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_SUB);
}
static int mul_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_MUL);
}
static int div_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_DIV);
}
static int rem_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_REM);
}
static int pmod_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    return dec_kernel(k, a, na, out, DEC_PMOD);
}

/* decimal div decimal -> bigint: the truncated quotient */
static int intdiv_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    BEGIN_BINARY(uint8_t, uint8_t, int64_t);
    int s1 = a[0]->type->scale, s2 = a[1]->type->scale, s = s1 > s2 ? s1 : s2;
    for (int64_t i = 0; i < n; i++) {
        if (!ROW_VALID(i)) continue;
        __int128 p, q;
        bool ok = cs_px_dec_rescale(cs_px_dec_get(a[0], i * sa), s1, s, &p) &&
                  cs_px_dec_rescale(cs_px_dec_get(a[1], i * sb), s2, s, &q);
        if (ok && q == 0) NULL_OR_FAIL(i, cs_px_err_divide_by_zero(k->err));
        if (ok && q == 0) continue;
        __int128 v = ok ? p / q : 0;
        if (!ok || v > INT64_MAX || v < INT64_MIN)
            NULL_OR_FAIL(i, cs_px_err_overflow(k->err, "long", "try_divide"));
        else
            z[i] = (int64_t)v;
    }
    *out = r;
    return CS_OK;
}

static int neg_dec(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    bool is_abs = strcmp(k->e->fn, "abs") == 0;
    for (int64_t i = 0; i < n; i++) {
        __int128 v = cs_px_dec_get(a[0], i * sa);
        cs_px_dec_put(r, i, is_abs ? (v < 0 ? -v : v) : -v);
    }
    *out = r;
    return CS_OK;
}

/* ---- lookup ---- */

static int type_slot(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BYTE:
        return 0;
    case CS_TYPE_SHORT:
        return 1;
    case CS_TYPE_INT:
        return 2;
    case CS_TYPE_LONG:
        return 3;
    case CS_TYPE_FLOAT:
        return 4;
    case CS_TYPE_DOUBLE:
        return 5;
    case CS_TYPE_DECIMAL:
        return 6;
    default:
        return -1;
    }
}

static const struct {
    const char *fn;
    cs_px_kernel k[7]; /* by type_slot */
} BINARY[] = {
    {"+", {add_i8, add_i16, add_i32, add_i64, add_f32, add_f64, add_dec}},
    {"-", {sub_i8, sub_i16, sub_i32, sub_i64, sub_f32, sub_f64, sub_dec}},
    {"*", {mul_i8, mul_i16, mul_i32, mul_i64, mul_f32, mul_f64, mul_dec}},
    {"/", {NULL, NULL, NULL, NULL, div_f32, div_f64, div_dec}},
    {"%", {rem_i8, rem_i16, rem_i32, rem_i64, rem_f32, rem_f64, rem_dec}},
    {"mod", {rem_i8, rem_i16, rem_i32, rem_i64, rem_f32, rem_f64, rem_dec}},
    {"pmod", {pmod_i8, pmod_i16, pmod_i32, pmod_i64, pmod_f32, pmod_f64, pmod_dec}},
    {"div", {NULL, NULL, NULL, div_i64, NULL, NULL, intdiv_dec}},
};
static const struct {
    const char *fn;
    cs_px_kernel k[7];
} UNARY[] = {
    {"negative", {neg_i8, neg_i16, neg_i32, neg_i64, neg_f32, neg_f64, neg_dec}},
    {"abs", {abs_i8, abs_i16, abs_i32, abs_i64, abs_f32, abs_f64, neg_dec}},
};

cs_px_kernel cs_px_arith_lookup(const char *fn, const cs_col_type *const *t, int n,
                                const cs_col_type *result)
{
    (void)result;
    if (n == 2) {
        int s = type_slot(t[0]->id);
        if (s < 0 || t[1]->id != t[0]->id) return NULL;
        for (size_t i = 0; i < sizeof BINARY / sizeof BINARY[0]; i++)
            if (strcmp(fn, BINARY[i].fn) == 0) return BINARY[i].k[s];
    } else if (n == 1) {
        int s = type_slot(t[0]->id);
        if (s < 0) return NULL;
        for (size_t i = 0; i < sizeof UNARY / sizeof UNARY[0]; i++)
            if (strcmp(fn, UNARY[i].fn) == 0) return UNARY[i].k[s];
    }
    return NULL;
}
