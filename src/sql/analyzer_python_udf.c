/*
 * analyzer_python_udf.c — a Python UDF call (CS_EX_PYTHON_UDF, its result type declared by the
 * client) resolved: its arguments (a grouped-aggregate pandas UDF's hold no aggregate function,
 * and it is in none's: NESTED_AGGREGATE_FUNCTION), and its named arguments (`f(b => x)`,
 * `f(b=col)`: ALIASes marked named_argument, which the planner passes to the worker by name)
 * checked as Spark's NamedParametersSupport checks a call. Called by analyzer_expr.c's
 * cs_an_expr. Ownership: nodes in the analysis's arena.
 */
#include <string.h>

#include "sql/analyzer_internal.h"

/* A Python UDF's named arguments (`f(b => x)`, `f(b=col)`: ALIASes marked named_argument, passed
 * to the worker by name), checked as Spark's NamedParametersSupport checks a call: no
 * positional argument after a named one (UNEXPECTED_POSITIONAL_ARGUMENT), no name twice
 * (DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT), and only for the eval types whose worker reads
 * names (row-at-a-time and scalar pandas UDFs; NAMED_PARAMETERS_NOT_SUPPORTED otherwise). The
 * rest (an unknown name, a name given a positional's value) is the Python function's to raise.
 * Grouped-aggregate pandas UDFs (202) read names too. */
static int check_named_arguments(cs_an_ctx *c, const cs_sql_expr *e)
{
    const char *fname = e->name ? e->name : "udf";
    const cs_sql_expr *last_named = NULL;
    for (int i = 0; i < e->n_args; i++) {
        const cs_sql_expr *a = e->args[i];
        bool named = a->kind == CS_EX_ALIAS && a->named_argument;
        if (!named) {
            if (!last_named) continue;
            cs_sbuf f = CS_SBUF_INIT, p = CS_SBUF_INIT;
            cs_an_sql_id(&fname, 1, &f);
            cs_an_sql_id(&last_named->name, 1, &p);
            cs_sql_error_set(c->err, CS_EINVAL, "UNEXPECTED_POSITIONAL_ARGUMENT", "4274K",
                             "Cannot invoke routine %s because it contains positional "
                             "argument(s) following the named argument assigned to %s; please "
                             "rearrange them so the positional arguments come first and then "
                             "retry the query again.",
                             cs_sbuf_str(&f), cs_sbuf_str(&p));
            cs_sbuf_free(&f);
            cs_sbuf_free(&p);
            return -1;
        }
        int t = e->python_udf ? e->python_udf->eval_type : 0;
        if (t != 100 && t != 101 && t != 200 && t != 202) {
            cs_sbuf f = CS_SBUF_INIT;
            cs_an_sql_id(&fname, 1, &f);
            cs_sql_error_set(c->err, CS_EINVAL, "NAMED_PARAMETERS_NOT_SUPPORTED", "4274K",
                             "Named parameters are not supported for function %s; please retry "
                             "the query with positional arguments to the function call instead.",
                             cs_sbuf_str(&f));
            cs_sbuf_free(&f);
            return -1;
        }
        for (int j = 0; j < i; j++) {
            const cs_sql_expr *b = e->args[j];
            if (!(b->kind == CS_EX_ALIAS && b->named_argument) || strcmp(b->name, a->name) != 0)
                continue;
            cs_sbuf f = CS_SBUF_INIT, p = CS_SBUF_INIT;
            cs_an_sql_id(&fname, 1, &f);
            cs_an_sql_id(&a->name, 1, &p);
            cs_sql_error_set(
                c->err, CS_EINVAL,
                "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE", "4274K",
                "Call to routine %s is invalid because it includes multiple "
                "argument assignments to the same parameter name %s. More than one "
                "named argument referred to the same parameter. Please assign a "
                "value only once.",
                cs_sbuf_str(&f), cs_sbuf_str(&p));
            cs_sbuf_free(&f);
            cs_sbuf_free(&p);
            return -1;
        }
        last_named = a;
    }
    return 0;
}

cs_sql_expr *cs_an_python_udf(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags)
{
    if (check_named_arguments(c, e) != 0) return NULL;
    /* a grouped-aggregate pandas UDF is an aggregate function: none in its arguments, and it in
     * none's */
    bool agg = cs_sql_expr_is_python_agg(e);
    if (agg && (flags & CS_AN_IN_AGG)) {
        cs_sql_error_set(c->err, CS_EINVAL, "NESTED_AGGREGATE_FUNCTION", "42607",
                         "It is not allowed to use an aggregate function in the argument of "
                         "another aggregate function. Please use the inner aggregate function in "
                         "a sub-query.");
        return NULL;
    }
    int inner = agg ? (flags & ~CS_AN_ALLOW_AGG) | CS_AN_IN_AGG : flags;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    for (int i = 0; i < e->n_args; i++)
        if (!(r->args[i] = cs_an_expr(c, e->args[i], s, inner))) return NULL;
    r->resolved = r->nullable = true;
    return r;
}

bool cs_sql_expr_has_python_agg(const cs_sql_expr *e)
{
    if (!e) return false;
    if (cs_sql_expr_is_python_agg(e)) return true;
    for (int i = 0; i < e->n_args; i++)
        if (cs_sql_expr_has_python_agg(e->args[i])) return true;
    return false;
}
