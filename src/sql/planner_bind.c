/*
 * planner_bind.c — resolved expressions to bound physical expressions (see planner_bind.h):
 * Catalyst's BindReferences plus the two rewrites the engine's expression set needs (CASE
 * with an operand, IN over non-literals). Called by the planner.
 */
#include "sql/planner_bind.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sqlexec/sql_error.h"

/* date_part / EXTRACT with a literal field that an integer field function computes (Spark's
 * aliases of each: YEAR, Y, YEARS, YR, YRS, ...): that function's name, else NULL. SECOND
 * (a decimal with the fraction) and the other fields go to date_part's own kernel. */
static const char *date_part_field(const cs_sql_expr *e)
{
    if (!e->fn || strcmp(e->fn, "date_part") != 0) return NULL;
    const cs_sql_expr *f = e->args[0];
    if (f->kind != CS_EX_LITERAL || !f->literal || f->literal->null_count ||
        f->literal->type->id != CS_TYPE_STRING)
        return NULL;
    int32_t len = 0;
    const char *p = (const char *)cs_column_bytes(f->literal, 0, &len);
    static const char *const fields[][2] = {{"year", "year"},
                                            {"y", "year"},
                                            {"years", "year"},
                                            {"yr", "year"},
                                            {"yrs", "year"},
                                            {"month", "month"},
                                            {"mon", "month"},
                                            {"mons", "month"},
                                            {"months", "month"},
                                            {"day", "day"},
                                            {"d", "day"},
                                            {"days", "day"},
                                            {"dayofweek", "dayofweek"},
                                            {"dow", "dayofweek"},
                                            {"quarter", "quarter"},
                                            {"qtr", "quarter"},
                                            {"doy", "dayofyear"},
                                            {"hour", "hour"},
                                            {"h", "hour"},
                                            {"hours", "hour"},
                                            {"hr", "hour"},
                                            {"hrs", "hour"},
                                            {"minute", "minute"},
                                            {"m", "minute"},
                                            {"min", "minute"},
                                            {"mins", "minute"},
                                            {"minutes", "minute"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (strlen(fields[i][0]) == (size_t)len && strncasecmp(fields[i][0], p, (size_t)len) == 0)
            return fields[i][1];
    return NULL;
}

static const char *negated_counterpart(const char *fn)
{
    static const char *const pairs[][2] = {{"like_any", "like_all"},
                                           {"like_all", "like_any"},
                                           {"ilike_any", "ilike_all"},
                                           {"ilike_all", "ilike_any"}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (strcmp(fn, pairs[i][0]) == 0) return pairs[i][1];
    return fn;
}

static int bind(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                cs_error *err);

static cs_pexpr *equal_to(cs_pexpr *a, cs_pexpr *b)
{
    cs_pexpr *args[2] = {a, b};
    return cs_pexpr_call("=", cs_col_type_primitive(CS_TYPE_BOOLEAN), a->nullable || b->nullable,
                         args, 2);
}

static cs_pexpr *or_of(cs_pexpr *a, cs_pexpr *b)
{
    cs_pexpr *args[2] = {a, b};
    return cs_pexpr_call("or", cs_col_type_primitive(CS_TYPE_BOOLEAN), a->nullable || b->nullable,
                         args, 2);
}

/* Binds e->args[from..to) into args[0..); frees what was bound on failure. */
static int bind_args(const cs_sql_expr *e, int from, int to, cs_sql_expr *const *input, int n_input,
                     cs_pexpr **args, cs_error *err)
{
    for (int i = from; i < to; i++) {
        int rc = bind(e->args[i], input, n_input, &args[i - from], err);
        if (rc < 0) {
            for (int j = from; j < i; j++)
                cs_pexpr_free(args[j - from]);
            return rc;
        }
    }
    return CS_OK;
}

static int bind_case(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                     cs_error *err)
{
    int n = e->n_args;
    cs_pexpr **args = cs_xcalloc((size_t)n + 1, sizeof *args);
    int rc = bind_args(e, 0, n, input, n_input, args, err);
    if (rc < 0) {
        free(args);
        return rc;
    }
    cs_pexpr **when = args;
    int n_when = n;
    cs_pexpr *operand = NULL;
    if (e->has_operand) {
        operand = args[0];
        when = args + 1;
        n_when = n - 1;
        /* CASE x WHEN v THEN r: x = v, x bound once per branch (a copy of a small tree) */
        int pairs = (n_when - (e->has_else ? 1 : 0)) / 2;
        for (int i = 0; i < 2 * pairs; i += 2) {
            cs_pexpr *x = NULL;
            rc = bind(e->args[0], input, n_input, &x, err);
            if (rc < 0) break;
            when[i] = equal_to(x, when[i]);
        }
        cs_pexpr_free(operand);
        if (rc < 0) {
            for (int i = 0; i < n_when; i++)
                cs_pexpr_free(when[i]);
            free(args);
            return rc;
        }
    }
    *out = cs_pexpr_case(cs_col_type_ref(e->type), e->nullable, when, n_when, e->has_else);
    free(args);
    return CS_OK;
}

static bool all_literals(const cs_sql_expr *e)
{
    for (int i = 1; i < e->n_args; i++)
        if (e->args[i]->kind != CS_EX_LITERAL) return false;
    return true;
}

static int bind_in(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                   cs_error *err)
{
    int n = e->n_args;
    cs_pexpr **args = cs_xcalloc((size_t)n + 1, sizeof *args);
    int rc = bind_args(e, 0, n, input, n_input, args, err);
    if (rc < 0) {
        free(args);
        return rc;
    }
    if (all_literals(e)) {
        *out = cs_pexpr_in(args[0], args + 1, n - 1);
    } else {
        /* x IN (a, b) = (x = a) OR (x = b): the same three-valued result as Spark's In */
        cs_pexpr *acc = NULL;
        for (int i = 1; i < n; i++) {
            cs_pexpr *x = args[0];
            if (i < n - 1) {
                rc = bind(e->args[0], input, n_input, &x, err);
                if (rc < 0) {
                    for (int j = i; j < n; j++)
                        cs_pexpr_free(args[j]);
                    cs_pexpr_free(args[0]);
                    cs_pexpr_free(acc);
                    free(args);
                    return rc;
                }
            }
            cs_pexpr *eq = equal_to(x, args[i]);
            acc = acc ? or_of(acc, eq) : eq;
        }
        *out = acc;
    }
    free(args);
    return CS_OK;
}

/* A lambda: its body bound over the input columns followed by its variables, as the engine
 * evaluates it (kernels_lambda.c): lambdafunction(body, var0, var1, ...), each variable a
 * column at its ordinal after the input's. */
static int bind_lambda(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                       cs_error *err)
{
    int n_vars = e->n_args - 1;
    cs_sql_expr **ext = cs_xcalloc((size_t)(n_input + n_vars) + 1, sizeof *ext);
    if (n_input) memcpy(ext, input, sizeof *ext * (size_t)n_input);
    for (int i = 0; i < n_vars; i++)
        ext[n_input + i] = e->args[1 + i];
    cs_pexpr **args = cs_xcalloc((size_t)e->n_args, sizeof *args);
    int rc = bind(e->args[0], ext, n_input + n_vars, &args[0], err);
    if (rc == CS_OK) {
        for (int i = 0; i < n_vars; i++) {
            const cs_sql_expr *v = e->args[1 + i];
            args[1 + i] = cs_pexpr_column(n_input + i, cs_col_type_ref(v->type), v->nullable);
        }
        *out =
            cs_pexpr_call("lambdafunction", cs_col_type_ref(e->type), e->nullable, args, e->n_args);
    }
    free(args);
    free(ext);
    return rc;
}

static int bind(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                cs_error *err)
{
    *out = NULL;
    switch (e->kind) {
    case CS_EX_LITERAL:
        *out = cs_pexpr_literal(cs_column_ref(e->literal));
        return CS_OK;
    case CS_EX_LAMBDA:
        return bind_lambda(e, input, n_input, out, err);
    case CS_EX_LAMBDA_VAR:
    case CS_EX_ATTR:
        for (int i = 0; i < n_input; i++)
            if (input[i]->id == e->id) {
                *out = cs_pexpr_column(i, cs_col_type_ref(e->type), e->nullable);
                return CS_OK;
            }
        return cs_error_set(err, CS_EINVAL, "internal error: %s#%lld is not among the %d inputs",
                            e->name, (long long)e->id, n_input);
    case CS_EX_ALIAS:
        return bind(e->args[0], input, n_input, out, err);
    case CS_EX_FUNC: {
        const char *field = e->n_args == 2 ? date_part_field(e) : NULL;
        if (field) { /* EXTRACT(YEAR FROM d): the field's own function over d */
            cs_pexpr *arg = NULL;
            int rc = bind(e->args[1], input, n_input, &arg, err);
            if (rc < 0) return rc;
            *out = cs_pexpr_call(field, cs_col_type_ref(e->type), e->nullable, &arg, 1);
            return CS_OK;
        }
        cs_pexpr **args = cs_xcalloc((size_t)e->n_args + 1, sizeof *args);
        int rc = bind_args(e, 0, e->n_args, input, n_input, args, err);
        /* the parser's NOT LIKE / NOT ILIKE / NOT RLIKE: not(...); NOT LIKE ANY (Spark's
         * NotLikeAny, a pattern not matched) is not(like_all), NOT LIKE ALL not(like_any) */
        const char *fn = e->fn;
        if (e->negated) fn = negated_counterpart(fn);
        if (rc == CS_OK) {
            *out = cs_pexpr_call(fn, cs_col_type_ref(e->type), e->nullable, args, e->n_args);
            if (e->negated) {
                cs_pexpr *inner = *out;
                *out = cs_pexpr_call("not", cs_col_type_ref(e->type), e->nullable, &inner, 1);
            }
        }
        free(args);
        return rc;
    }
    case CS_EX_CAST: {
        cs_pexpr *child = NULL;
        int rc = bind(e->args[0], input, n_input, &child, err);
        if (rc < 0) return rc;
        *out = cs_pexpr_cast(child, cs_col_type_ref(e->cast_type), e->cast_mode);
        return CS_OK;
    }
    case CS_EX_CASE:
        return bind_case(e, input, n_input, out, err);
    case CS_EX_IN_LIST:
        return bind_in(e, input, n_input, out, err);
    case CS_EX_PYTHON_UDF: /* the planner runs them in PYTHON_EVAL nodes where it can */
        return cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: the Python UDF %s in this part "
                                "of a query (only in select lists, filters, and the keys and "
                                "arguments of aggregates, sorts and joins).",
                                e->name ? e->name : "udf");
    default: {
        cs_sbuf s = {0};
        cs_sql_expr_print(e, &s);
        cs_error_set(err, CS_EINVAL, "internal error: %s cannot be evaluated by an operator",
                     cs_sbuf_str(&s));
        cs_sbuf_free(&s);
        return CS_EINVAL;
    }
    }
}

int cs_sql_bind_expr(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                     cs_error *err)
{
    if (!e->resolved)
        return cs_error_set(err, CS_EINVAL, "internal error: binding an unresolved expression");
    return bind(e, input, n_input, out, err);
}
