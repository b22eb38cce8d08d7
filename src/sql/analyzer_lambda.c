/*
 * analyzer_lambda.c — Spark's higher-order functions in the analyzer (its ResolveLambdaVariables
 * and the HigherOrderFunction expressions' bind and checkInputDataTypes): transform, filter,
 * exists, forall, aggregate (reduce), zip_with, map_filter, transform_keys, transform_values and
 * array_sort with a comparator.
 *
 * analyzer_expr.c's resolve_function hands a call here when cs_an_is_higher_order names it. The
 * ordinary arguments are resolved first; then each lambda's variables are made LAMBDA_VAR nodes
 * (a fresh expression id, the type Spark binds: an array's element, an index int, a map's key
 * and value, an accumulator of the zero's type) and pushed on c->lambdas while its body is
 * resolved, so that a name in the body is a lambda variable before it is a column
 * (analyzer_expr.c's resolve_name asks cs_an_lambda_lookup first). The resolved call is a FUNC
 * whose lambda arguments are LAMBDA nodes: args[0] the body, args[1..] the variables, which the
 * planner binds after the input columns (planner_bind.c) for the engine (kernels_lambda.c).
 *
 * Ownership: every node is made in the query's arena (c->a); the scope pushed on c->lambdas
 * lives on this file's stack and is popped before returning.
 */
#include <string.h>

#include "sql/analyzer_internal.h"

static const char *const higher_order[] = {
    "transform", "filter",     "exists",         "forall",           "aggregate", "reduce",
    "zip_with",  "map_filter", "transform_keys", "transform_values", "array_sort"};

bool cs_an_is_higher_order(const cs_sql_expr *e)
{
    for (size_t i = 0; i < sizeof higher_order / sizeof *higher_order; i++)
        if (e->name && strcmp(e->name, higher_order[i]) == 0) {
            /* array_sort(x) without a comparator is the ordinary function */
            if (strcmp(e->name, "array_sort") == 0) return e->n_args == 2;
            return true;
        }
    return false;
}

const cs_sql_expr *cs_an_lambda_lookup(const cs_an_ctx *c, const char *name)
{
    for (const cs_an_lambda_scope *l = c->lambdas; l; l = l->outer)
        for (int i = 0; i < l->n; i++)
            if (cs_str_ieq(l->vars[i]->name, name)) return l->vars[i];
    return NULL;
}

/* Spark's UNEXPECTED_INPUT_TYPE: the param-th argument (0-based) is not of type `want`. */
static int mismatch(cs_an_ctx *c, const cs_sql_expr *call, int param, const char *want,
                    const cs_sql_expr *actual)
{
    static const char *const ordinal[] = {"first", "second", "third", "fourth"};
    cs_sbuf x = {0}, a = {0}, t = {0};
    cs_fn_sql_expr_quoted(call, &x);
    cs_fn_sql_expr_quoted(actual, &a);
    if (actual->type)
        cs_tc_type_sql(actual->type, &t);
    else
        cs_sbuf_puts(&t, "LAMBDA");
    cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                     "Cannot resolve %s due to data type mismatch: The %s parameter requires the "
                     "\"%s\" type, however %s has the type \"%s\".",
                     cs_sbuf_str(&x), ordinal[param & 3], want, cs_sbuf_str(&a), cs_sbuf_str(&t));
    cs_sbuf_free(&x);
    cs_sbuf_free(&a);
    cs_sbuf_free(&t);
    return CS_EINVAL;
}

/* The resolved LAMBDA of `lam` (an unresolved LAMBDA) whose variables have types[0..n) (a
 * lambda may name fewer variables than the function offers, as Spark's (x) for (x, i)). */
static cs_sql_expr *resolve_lambda(cs_an_ctx *c, const cs_sql_expr *call, int param,
                                   const cs_sql_expr *lam, cs_col_type *const *types,
                                   const bool *nullable, int n_min, int n, const cs_an_scope *s,
                                   int flags)
{
    if (lam->kind != CS_EX_LAMBDA) {
        mismatch(c, call, param, "LAMBDA", lam);
        return NULL;
    }
    if (lam->n_parts < n_min || lam->n_parts > n) {
        cs_sql_error_set(c->err, CS_EINVAL, "INVALID_LAMBDA_FUNCTION_CALL.NUM_ARGS_MISMATCH",
                         "42K0D",
                         "Invalid lambda function call. A higher order function expects %d "
                         "arguments, but got %d.",
                         n, lam->n_parts);
        return NULL;
    }
    for (int i = 0; i < lam->n_parts; i++)
        for (int j = 0; j < i; j++)
            if (cs_str_ieq(lam->parts[i], lam->parts[j])) {
                cs_sql_error_set(c->err, CS_EINVAL,
                                 "INVALID_LAMBDA_FUNCTION_CALL.DUPLICATE_ARG_NAMES", "42K0D",
                                 "Invalid lambda function call. The lambda function has "
                                 "duplicate arguments `%s`.",
                                 lam->parts[i]);
                return NULL;
            }
    cs_sql_expr *r = cs_sql_expr_new(c->a, CS_EX_LAMBDA, 1 + lam->n_parts);
    r->n_parts = lam->n_parts;
    r->parts = lam->parts;
    cs_an_lambda_scope scope = {(const cs_sql_expr **)r->args + 1, lam->n_parts, c->lambdas};
    for (int i = 0; i < lam->n_parts; i++) {
        cs_sql_expr *v = cs_sql_expr_new(c->a, CS_EX_LAMBDA_VAR, 0);
        v->name = lam->parts[i];
        v->type = types[i];
        v->nullable = nullable[i];
        v->id = cs_catalog_next_expr_id(c->cat);
        v->resolved = true;
        r->args[1 + i] = v;
    }
    c->lambdas = &scope;
    cs_sql_expr *body = cs_an_expr(c, lam->args[0], s, flags);
    c->lambdas = scope.outer;
    if (!body) return NULL;
    r->args[0] = body;
    r->type = body->type;
    r->nullable = body->nullable;
    r->resolved = true;
    return r;
}

/* The identity lambda aggregate's finish defaults to: acc -> acc. */
static cs_sql_expr *identity_lambda(cs_an_ctx *c, cs_col_type *type, bool nullable)
{
    cs_sql_expr *r = cs_sql_expr_new(c->a, CS_EX_LAMBDA, 2);
    cs_sql_expr *v = cs_sql_expr_new(c->a, CS_EX_LAMBDA_VAR, 0);
    v->name = "id";
    v->type = type;
    v->nullable = nullable;
    v->id = cs_catalog_next_expr_id(c->cat);
    v->resolved = true;
    r->n_parts = 1;
    r->parts = &v->name;
    r->args[0] = v;
    r->args[1] = v;
    r->type = type;
    r->nullable = nullable;
    r->resolved = true;
    return r;
}

/* The same type up to nullability flags (Spark's equalsStructurally ignoring nullability). */
static bool same_shape(const cs_col_type *a, const cs_col_type *b)
{
    if (a == b) return true;
    if (a->id != b->id || a->n_fields != b->n_fields || a->precision != b->precision ||
        a->scale != b->scale)
        return false;
    for (int i = 0; i < a->n_fields; i++)
        if (!same_shape(a->fields[i].type, b->fields[i].type)) return false;
    return true;
}

static bool is_boolean(const cs_sql_expr *e)
{
    return e->type->id == CS_TYPE_BOOLEAN || e->type->id == CS_TYPE_NULL;
}

static cs_col_type *keep(cs_an_ctx *c, cs_col_type *t)
{
    return cs_sql_arena_keep_type(c->a, t);
}

cs_sql_expr *cs_an_higher_order(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags)
{
    const char *fn = strcmp(e->name, "reduce") == 0 ? "aggregate" : e->name;
    int inner = flags & ~(CS_AN_ALLOW_WINDOW | CS_AN_WINDOW_FN | CS_AN_ALLOW_GENERATOR);
    bool two_inputs = strcmp(fn, "zip_with") == 0, agg = strcmp(fn, "aggregate") == 0;
    int n_plain = two_inputs || agg ? 2 : 1; /* the arguments before the lambda(s) */
    int n_lambdas = agg ? (e->n_args == 4 ? 2 : 1) : 1;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    r->kind = CS_EX_FUNC;
    r->fn = fn;
    r->n_args = n_plain + (agg ? 2 : 1);
    r->args = cs_sql_alloc(c->a, sizeof *r->args * (size_t)r->n_args);
    if (e->n_args != n_plain + n_lambdas || (agg && e->n_args != 3 && e->n_args != 4)) {
        cs_sql_error_set(c->err, CS_EINVAL, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
                         "The `%s` requires %d parameters but the actual number is %d.", e->name,
                         n_plain + n_lambdas, e->n_args);
        return NULL;
    }
    for (int i = n_plain; i < e->n_args; i++) /* named as written in errors until resolved */
        r->args[i] = e->args[i];
    for (int i = 0; i < n_plain; i++)
        if (!(r->args[i] = cs_an_expr(c, e->args[i], s, inner))) return NULL;
    cs_sql_expr *in = r->args[0];
    bool is_map = strncmp(fn, "map_", 4) == 0 || strncmp(fn, "transform_", 10) == 0;
    if (in->type->id != (is_map ? CS_TYPE_MAP : CS_TYPE_ARRAY)) {
        mismatch(c, r, 0, is_map ? "MAP" : "ARRAY", in);
        return NULL;
    }
    if (two_inputs && r->args[1]->type->id != CS_TYPE_ARRAY) {
        mismatch(c, r, 1, "ARRAY", r->args[1]);
        return NULL;
    }
    cs_col_type *t[2];
    bool nl[2];
    cs_col_type *int_t = cs_col_type_primitive(CS_TYPE_INT);
    cs_sql_expr *lam;
    const cs_sql_expr *ul = e->args[n_plain];
    if (is_map) {
        t[0] = in->type->fields[0].type;
        nl[0] = false;
        t[1] = in->type->fields[1].type;
        nl[1] = in->type->fields[1].nullable;
        if (!(lam = resolve_lambda(c, r, n_plain, ul, t, nl, 2, 2, s, inner))) return NULL;
    } else if (two_inputs) {
        t[0] = in->type->fields[0].type;
        t[1] = r->args[1]->type->fields[0].type;
        nl[0] = nl[1] = true; /* the shorter array is padded with nulls */
        if (!(lam = resolve_lambda(c, r, n_plain, ul, t, nl, 2, 2, s, inner))) return NULL;
    } else if (agg) {
        cs_sql_expr *zero = r->args[1];
        t[0] = zero->type;
        nl[0] = true;
        t[1] = in->type->fields[0].type;
        nl[1] = in->type->fields[0].nullable;
        if (!(lam = resolve_lambda(c, r, n_plain, ul, t, nl, 2, 2, s, inner))) return NULL;
        if (!same_shape(lam->type, zero->type)) { /* Spark coerces neither side */
            cs_sbuf x = {0}, zt = {0}, l = {0}, mt = {0};
            r->args[2] = lam;
            r->args[3] = identity_lambda(c, zero->type, true);
            cs_fn_sql_expr_quoted(r, &x);
            cs_tc_type_sql(zero->type, &zt);
            cs_fn_sql_expr_quoted(lam, &l);
            cs_tc_type_sql(lam->type, &mt);
            cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                             "Cannot resolve %s due to data type mismatch: The third parameter "
                             "requires the \"%s\" type, however %s has the type \"%s\".",
                             cs_sbuf_str(&x), cs_sbuf_str(&zt), cs_sbuf_str(&l), cs_sbuf_str(&mt));
            cs_sbuf_free(&x);
            cs_sbuf_free(&zt);
            cs_sbuf_free(&l);
            cs_sbuf_free(&mt);
            return NULL;
        }
        r->args[2] = lam;
        if (e->n_args == 4) { /* the accumulator keeps the zero's type */
            t[0] = zero->type;
            nl[0] = true;
            if (!(r->args[3] = resolve_lambda(c, r, 3, e->args[3], t, nl, 1, 1, s, inner)))
                return NULL;
        } else {
            r->args[3] = identity_lambda(c, zero->type, true);
        }
        r->type = r->args[3]->type;
        r->nullable = in->nullable || r->args[3]->nullable;
        r->resolved = true;
        return r;
    } else if (strcmp(fn, "array_sort") == 0) {
        t[0] = t[1] = in->type->fields[0].type;
        nl[0] = nl[1] = in->type->fields[0].nullable;
        if (!(lam = resolve_lambda(c, r, n_plain, ul, t, nl, 2, 2, s, inner))) return NULL;
        if (lam->type->id != CS_TYPE_INT) {
            r->args[1] = lam;
            mismatch(c, r, 1, "INT", lam);
            return NULL;
        }
    } else { /* transform, filter, exists, forall: (x) or (x, i) */
        t[0] = in->type->fields[0].type;
        nl[0] = in->type->fields[0].nullable;
        t[1] = int_t;
        nl[1] = false;
        int most = strcmp(fn, "exists") == 0 || strcmp(fn, "forall") == 0 ? 1 : 2;
        if (!(lam = resolve_lambda(c, r, n_plain, ul, t, nl, 1, most, s, inner))) return NULL;
    }
    r->args[n_plain] = lam;
    r->nullable = in->nullable || (two_inputs && r->args[1]->nullable);
    bool predicate = strcmp(fn, "filter") == 0 || strcmp(fn, "exists") == 0 ||
                     strcmp(fn, "forall") == 0 || strcmp(fn, "map_filter") == 0;
    if (predicate && !is_boolean(lam)) {
        mismatch(c, r, n_plain, "BOOLEAN", lam);
        return NULL;
    }
    if (strcmp(fn, "transform") == 0 || two_inputs)
        r->type = keep(c, cs_col_type_array(cs_col_type_ref(lam->type), lam->nullable));
    else if (strcmp(fn, "exists") == 0 || strcmp(fn, "forall") == 0) {
        r->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
        r->nullable = in->nullable || in->type->fields[0].nullable || lam->nullable;
    } else if (strcmp(fn, "transform_values") == 0)
        r->type = keep(c, cs_col_type_map(cs_col_type_ref(in->type->fields[0].type),
                                          cs_col_type_ref(lam->type), lam->nullable));
    else if (strcmp(fn, "transform_keys") == 0)
        r->type = keep(c, cs_col_type_map(cs_col_type_ref(lam->type),
                                          cs_col_type_ref(in->type->fields[1].type),
                                          in->type->fields[1].nullable));
    else
        r->type = in->type; /* filter, map_filter, array_sort */
    r->resolved = true;
    return r;
}
