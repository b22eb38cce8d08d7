/*
 * function_registry_random.c — the type rule of Spark 4's uniform(min, max[, seed]) for the
 * function registry (cs_fn_resolve_special calls cs_fn_resolve_uniform): min, max and the seed
 * are foldable (DATATYPE_MISMATCH.NON_FOLDABLE_INPUT otherwise), min and max numeric, the seed
 * an int or bigint; the result is Spark's Uniform.dataType: the wider of two integral types,
 * else double beside a double, float beside a float, else the (wider) decimal; void when an
 * argument is NULL. The optimizer's ReplaceExpressions (opt_expr.c) then makes the call
 * CAST(min + (max - min) * rand(seed) AS type), as Spark's replacement. The analyzer names the
 * column by the call, `uniform(10, 20, 0)`. Types are kept by the statement's arena.
 */
#include <string.h>

#include "sql/function_registry.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

/* a literal, or a cast of one (Spark's foldable inputs as the parser and the client write them) */
static bool foldable_input(const cs_sql_expr *x)
{
    while (x->kind == CS_EX_CAST)
        x = x->args[0];
    return x->kind == CS_EX_LITERAL;
}

static int non_foldable(const cs_sql_expr *e, int i, cs_error *err)
{
    static const char *const names[] = {"min", "max", "seed"};
    cs_sbuf call = {0}, arg = {0};
    cs_fn_sql_expr_quoted(e, &call);
    cs_fn_sql_expr_quoted(e->args[i], &arg);
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09",
                     "Cannot resolve %s due to data type mismatch: the input `%s` should be a "
                     "foldable \"integer or floating-point\" expression; however, got %s.",
                     cs_sbuf_str(&call), names[i], cs_sbuf_str(&arg));
    cs_sbuf_free(&call);
    cs_sbuf_free(&arg);
    return CS_EINVAL;
}

/* integral types by width: byte < short < int < long */
static int integral_rank(cs_type_id id)
{
    return id == CS_TYPE_BYTE ? 0 : id == CS_TYPE_SHORT ? 1 : id == CS_TYPE_INT ? 2 : 3;
}

/* decimal x holds every value of y (Spark's DecimalType.isWiderThan) */
static bool decimal_wider(const cs_col_type *x, const cs_col_type *y)
{
    return x->precision - x->scale >= y->precision - y->scale && x->scale >= y->scale;
}

static const cs_col_type *uniform_type(const cs_col_type *lo, const cs_col_type *hi)
{
    if (cs_tc_is_integral(lo) && cs_tc_is_integral(hi))
        return integral_rank(lo->id) < integral_rank(hi->id) ? hi : lo;
    if (lo->id == CS_TYPE_DOUBLE || hi->id == CS_TYPE_DOUBLE)
        return cs_col_type_primitive(CS_TYPE_DOUBLE);
    if (lo->id == CS_TYPE_FLOAT || hi->id == CS_TYPE_FLOAT)
        return cs_col_type_primitive(CS_TYPE_FLOAT);
    if (lo->id == CS_TYPE_DECIMAL && hi->id == CS_TYPE_DECIMAL)
        return decimal_wider(lo, hi) ? lo : hi;
    return hi->id == CS_TYPE_DECIMAL ? hi : lo;
}

int cs_fn_resolve_uniform(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    (void)a;
    if (strcmp(e->fn, "uniform") != 0) return 1;
    for (int i = 0; i < e->n_args; i++) {
        const cs_col_type *t = e->args[i]->type;
        bool ok = t->id == CS_TYPE_NULL ||
                  (i < 2 ? cs_tc_is_numeric(t) : t->id == CS_TYPE_INT || t->id == CS_TYPE_LONG);
        if (!ok)
            return cs_fn_err_unexpected_type(
                err, e, i, i < 2 ? "\"NUMERIC\"" : "(\"INT\" or \"BIGINT\")", e->args[i]);
        if (!foldable_input(e->args[i])) return non_foldable(e, i, err);
    }
    bool void_arg = false;
    for (int i = 0; i < e->n_args; i++)
        void_arg |= e->args[i]->type->id == CS_TYPE_NULL;
    e->type = void_arg ? cs_col_type_primitive(CS_TYPE_NULL)
                       : (cs_col_type *)uniform_type(e->args[0]->type, e->args[1]->type);
    e->nullable = void_arg;
    return 0;
}
