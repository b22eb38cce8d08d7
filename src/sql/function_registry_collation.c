/*
 * function_registry_collation.c — Spark's collation functions and rules for the analyzer:
 * collate(x, name) (`x COLLATE name`: x's string with an explicit collation), collation(x) (the
 * fully qualified name SYSTEM.BUILTIN.NAME of x's collation), and the collation a string
 * operator or function works in (Spark's CollationTypeCoercion): each string argument has a
 * strength, explicit (a COLLATE), implicit (a column, UTF8_BINARY ones too) or default (a
 * literal), an expression the strongest of its inputs'; the strongest collation wins; two
 * different explicit collations are COLLATION_MISMATCH.EXPLICIT, two different implicit ones
 * (with no explicit one) INDETERMINATE_COLLATION_IN_EXPRESSION, as Spark 4.0.1 answers. Called by
 * function_registry.c's resolution of comparisons, IN and common-type functions.
 */
#include <string.h>

#include "columnar/col_collation.h"
#include "sql/function_registry.h"
#include "sql/function_registry_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

enum { DEFAULT_STRENGTH, IMPLICIT, EXPLICIT };

/* Spark's collation strength of a string expression: a COLLATE is explicit, a literal (and a
 * NULL) default, a column implicit, any other expression the strongest of its string inputs. */
static int strength(const cs_sql_expr *e, int depth)
{
    if (depth > 64) return DEFAULT_STRENGTH;
    switch (e->kind) {
    case CS_EX_LITERAL:
        return DEFAULT_STRENGTH;
    case CS_EX_ATTR:
    case CS_EX_OUTER_ATTR:
    case CS_EX_LAMBDA_VAR:
        return IMPLICIT;
    case CS_EX_FUNC:
        if (e->fn && strcmp(e->fn, "collate") == 0) return EXPLICIT;
        break;
    case CS_EX_SCALAR_SUBQUERY:
        return IMPLICIT;
    default:
        break;
    }
    int best = DEFAULT_STRENGTH;
    for (int i = 0; i < e->n_args; i++)
        if (e->args[i] && e->args[i]->type && e->args[i]->type->id == CS_TYPE_STRING) {
            int s = strength(e->args[i], depth + 1);
            if (s > best) best = s;
        }
    return best;
}

static int mismatch(cs_error *err, const cs_sql_expr *e, bool explicit_, int c1, int c2)
{
    if (explicit_)
        return cs_sql_error_set(
            err, CS_EINVAL, "COLLATION_MISMATCH.EXPLICIT", "42P21",
            "Could not determine which collation to use for string functions and operators. "
            "Error occurred due to the mismatch between explicit collations: [\"STRING COLLATE "
            "%s\", \"STRING COLLATE %s\"]. Decide on a single explicit collation and remove "
            "others.",
            cs_collation_name(c1), cs_collation_name(c2));
    /* two implicit collations: the expression's collation is indeterminate (Spark 4.0.1) */
    cs_sbuf x = {0};
    if (e) cs_fn_sql_expr_quoted(e, &x);
    cs_sql_error_set(err, CS_EINVAL, "INDETERMINATE_COLLATION_IN_EXPRESSION", "42P22",
                     "Data type of %s has indeterminate collation. Use COLLATE clause to set the "
                     "collation explicitly.",
                     e ? cs_sbuf_str(&x) : "the expression");
    cs_sbuf_free(&x);
    return CS_EINVAL;
}

int cs_fn_coerce_collations(cs_sql_arena *a, const cs_sql_expr *e, cs_sql_expr **args, int n,
                            cs_error *err)
{
    int coll[EXPLICIT + 1] = {-1, -1, -1};
    int top = DEFAULT_STRENGTH;
    for (int i = 0; i < n; i++) {
        const cs_sql_expr *x = args[i];
        if (!x->type || x->type->id != CS_TYPE_STRING) continue;
        int s = strength(x, 0), c = x->type->collation;
        if (s > top) top = s;
        if (coll[s] >= 0 && coll[s] != c && s != DEFAULT_STRENGTH) {
            if (s == EXPLICIT) return mismatch(err, e, true, coll[s], c);
            coll[s] = -2; /* two implicit collations: an error unless an explicit one decides */
            continue;
        }
        if (coll[s] == -1) coll[s] = c;
    }
    if (top == IMPLICIT && coll[IMPLICIT] == -2) {
        int first = -1, second = -1;
        for (int i = 0; i < n && second < 0; i++) {
            const cs_sql_expr *x = args[i];
            if (!x->type || x->type->id != CS_TYPE_STRING || strength(x, 0) != IMPLICIT) continue;
            if (first < 0)
                first = x->type->collation;
            else if (x->type->collation != first)
                second = x->type->collation;
        }
        return mismatch(err, e, false, first, second);
    }
    int win = coll[top];
    if (top == DEFAULT_STRENGTH) { /* literals only: a collated one (CAST ... COLLATE) wins */
        win = -1;
        for (int i = 0; i < n; i++)
            if (cs_col_type_is_collated(args[i]->type)) win = args[i]->type->collation;
    }
    if (win < 0) return 0;
    cs_col_type *t = cs_col_type_string(win);
    for (int i = 0; i < n; i++)
        if (args[i]->type && args[i]->type->id == CS_TYPE_STRING && args[i]->type->collation != win)
            args[i] = cs_tc_cast(a, args[i], t);
    return 0;
}

int cs_fn_resolve_collation(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    (void)a;
    if (strcmp(e->fn, "collate") == 0) {
        cs_sql_expr *x = e->args[0], *name = e->args[1];
        if (x->type->id != CS_TYPE_STRING)
            return cs_fn_err_unexpected_type(err, e, 0, "\"STRING\"", x);
        int32_t len = 0;
        const char *s =
            name->kind == CS_EX_LITERAL && name->literal && name->literal->null_count == 0
                ? (const char *)cs_column_bytes(name->literal, 0, &len)
                : NULL;
        char buf[128];
        if (!s || len <= 0 || (size_t)len >= sizeof buf)
            return cs_sql_error_set(err, CS_EINVAL, "COLLATION_INVALID_NAME", "42704",
                                    "The value %.*s does not represent a correct collation name. "
                                    "Suggested valid collation names: [UTF8_BINARY].",
                                    (int)len, s ? s : "");
        memcpy(buf, s, (size_t)len);
        buf[len] = '\0';
        int id = cs_collation_lookup(buf);
        if (id < 0) {
            cs_sbuf props = {0};
            cs_collation_proposals(buf, &props);
            cs_sql_error_set(err, CS_EINVAL, "COLLATION_INVALID_NAME", "42704",
                             "The value %s does not represent a correct collation name. "
                             "Suggested valid collation names: [%s].",
                             buf, cs_sbuf_str(&props));
            cs_sbuf_free(&props);
            return CS_EINVAL;
        }
        e->type = cs_col_type_string(id);
        e->nullable = x->nullable;
        return 0;
    }
    if (strcmp(e->fn, "collation") == 0) {
        if (e->args[0]->type->id != CS_TYPE_STRING)
            return cs_fn_err_unexpected_type(err, e, 0, "\"STRING\"", e->args[0]);
        e->type = cs_col_type_primitive(CS_TYPE_STRING);
        e->nullable = false;
        return 0;
    }
    return 1;
}
