/*
 * kernels_integral.c — the bitwise operators & | ^ ~ of tinyint..bigint (the operands' type, as
 * Spark's BitwiseAnd/Or/Xor/Not), factorial (bigint, null outside 0..20) and try_add /
 * try_subtract / try_multiply / try_mod (null instead of Spark's ARITHMETIC_OVERFLOW: integers
 * checked with the compiler's overflow builtins, doubles never overflow, decimals through the "+",
 * "-" or "*" kernel run without ANSI, whose decimal overflow is already null). One loop per batch.
 * Called through cs_px_integral_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <string.h>

#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

static int bitwise_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    char op = k->e->fn[0];
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = na > 1 ? cs_px_stride(a[1], n) : 0;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    for (int64_t i = 0; i < n; i++) {
        int64_t x = cs_sql_long_at(a[0], i * sx), y = na > 1 ? cs_sql_long_at(a[1], i * sy) : 0;
        cs_px_int_put(r, i, op == '&' ? x & y : op == '|' ? x | y : op == '^' ? x ^ y : ~x);
    }
    *out = r;
    return CS_OK;
}

static int factorial_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        int64_t x = cs_sql_long_at(a[0], i * s), f = 1;
        if (x < 0 || x > 20) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
            continue;
        }
        for (int64_t j = 2; j <= x; j++)
            f *= j;
        ((int64_t *)(void *)r->values)[i] = f;
    }
    *out = r;
    return CS_OK;
}

static int try_arith_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    char op = strcmp(k->e->fn, "try_add") == 0        ? '+'
              : strcmp(k->e->fn, "try_subtract") == 0 ? '-'
              : strcmp(k->e->fn, "try_mod") == 0      ? '%'
                                                      : '*';
    cs_type_id id = k->e->type->id;
    if (id == CS_TYPE_DECIMAL || id != a[0]->type->id || op == '%') {
        /* the operator's own kernel without ANSI: its overflow is a null */
        const char name[2] = {op, '\0'};
        const cs_col_type *t[2] = {a[0]->type, a[1]->type};
        cs_px_kernel kern = cs_px_arith_lookup(name, t, 2, k->e->type);
        if (!kern) return cs_error_set(k->err, CS_EUNSUPPORTED, "no %s kernel", name);
        cs_pexpr node = *k->e;
        node.fn = (char *)name;
        cs_sql_exec_ctx ctx = *k->ctx;
        ctx.ansi = false;
        cs_px_kctx lk = *k;
        lk.e = &node;
        lk.ctx = &ctx;
        return kern(&lk, a, na, out);
    }
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = cs_px_stride(a[1], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        if (id == CS_TYPE_DOUBLE || id == CS_TYPE_FLOAT) {
            double x = id == CS_TYPE_DOUBLE ? ((const double *)(const void *)a[0]->values)[i * sx]
                                            : ((const float *)(const void *)a[0]->values)[i * sx];
            double y = id == CS_TYPE_DOUBLE ? ((const double *)(const void *)a[1]->values)[i * sy]
                                            : ((const float *)(const void *)a[1]->values)[i * sy];
            double v = op == '+' ? x + y : op == '-' ? x - y : x * y;
            if (id == CS_TYPE_DOUBLE)
                ((double *)(void *)r->values)[i] = v;
            else
                ((float *)(void *)r->values)[i] = (float)v;
            continue;
        }
        int64_t x = cs_sql_long_at(a[0], i * sx), y = cs_sql_long_at(a[1], i * sy), v = 0;
        bool over = op == '+'   ? __builtin_add_overflow(x, y, &v)
                    : op == '-' ? __builtin_sub_overflow(x, y, &v)
                                : __builtin_mul_overflow(x, y, &v);
        if ((over || !cs_px_int_fits(id, v)) && cs_column_is_valid(r, i)) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
            continue;
        }
        cs_px_int_put(r, i, v);
    }
    *out = r;
    return CS_OK;
}

static bool integral(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG;
}

cs_px_kernel cs_px_integral_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result)
{
    if (n == 2 && (strcmp(fn, "&") == 0 || strcmp(fn, "|") == 0 || strcmp(fn, "^") == 0))
        return integral(t[0]->id) && t[1]->id == t[0]->id ? bitwise_kernel : NULL;
    if (n == 1 && strcmp(fn, "~") == 0) return integral(t[0]->id) ? bitwise_kernel : NULL;
    if (n == 1 && strcmp(fn, "factorial") == 0) return integral(t[0]->id) ? factorial_kernel : NULL;
    if (n == 2 && strcmp(fn, "try_mod") == 0) /* % without ANSI: a zero divisor is null */
        return cs_px_arith_lookup("%", t, 2, result) ? try_arith_kernel : NULL;
    if (n == 2 && (strcmp(fn, "try_add") == 0 || strcmp(fn, "try_subtract") == 0 ||
                   strcmp(fn, "try_multiply") == 0)) {
        if (t[0]->id != t[1]->id) return NULL;
        if (t[0]->id == CS_TYPE_DECIMAL) {
            const char name[2] = {fn[4] == 'a' ? '+' : fn[4] == 's' ? '-' : '*', '\0'};
            return cs_px_arith_lookup(name, t, 2, result) ? try_arith_kernel : NULL;
        }
        return (integral(t[0]->id) || t[0]->id == CS_TYPE_DOUBLE || t[0]->id == CS_TYPE_FLOAT) &&
                       result->id == t[0]->id
                   ? try_arith_kernel
                   : NULL;
    }
    return NULL;
}
