/*
 * function_registry_collation.c — Spark's collation functions and rules for the analyzer:
 * collate(x, name) (`x COLLATE name`: x's string with an explicit collation), collation(x) (the
 * fully qualified name SYSTEM.BUILTIN.NAME of x's collation), and the collation a string
 * operator or function works in (Spark's CollationTypeCoercion): an explicit collation (a COLLATE
 * at the top of an argument) wins, else an implicit one (a collated column or expression) wins
 * over UTF8_BINARY strings and literals; two different explicit collations are
 * COLLATION_MISMATCH.EXPLICIT, two different implicit ones COLLATION_MISMATCH.IMPLICIT. Called by
 * function_registry.c's resolution of comparisons, IN and common-type functions.
 */
#include <string.h>

#include "columnar/col_collation.h"
#include "sql/function_registry.h"
#include "sql/function_registry_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static bool is_explicit(const cs_sql_expr *e)
{
    return e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "collate") == 0;
}

static int mismatch(cs_error *err, bool explicit_, int c1, int c2)
{
    if (explicit_)
        return cs_sql_error_set(
            err, CS_EINVAL, "COLLATION_MISMATCH.EXPLICIT", "42P21",
            "Could not determine which collation to use for string functions and operators. "
            "Error occurred due to the mismatch between explicit collations: [\"STRING COLLATE "
            "%s\", \"STRING COLLATE %s\"]. Decide on a single explicit collation and remove "
            "others.",
            cs_collation_name(c1), cs_collation_name(c2));
    return cs_sql_error_set(
        err, CS_EINVAL, "COLLATION_MISMATCH.IMPLICIT", "42P21",
        "Could not determine which collation to use for string functions and operators. Error "
        "occurred due to the mismatch between implicit collations: [\"STRING COLLATE %s\", "
        "\"STRING COLLATE %s\"]. Use COLLATE function to set the collation explicitly.",
        cs_collation_name(c1), cs_collation_name(c2));
}

int cs_fn_coerce_collations(cs_sql_arena *a, cs_sql_expr **args, int n, cs_error *err)
{
    int expl = -1, impl = -1;
    for (int i = 0; i < n; i++) {
        const cs_sql_expr *x = args[i];
        if (!x->type || x->type->id != CS_TYPE_STRING) continue;
        int c = x->type->collation;
        if (is_explicit(x)) {
            if (expl >= 0 && expl != c) return mismatch(err, true, expl, c);
            expl = c;
        } else if (c != CS_COLLATION_UTF8_BINARY) {
            if (impl >= 0 && impl != c && expl < 0) {
                /* only an error when no explicit collation settles it */
                bool later_explicit = false;
                for (int j = i + 1; j < n; j++)
                    later_explicit |= args[j]->type && args[j]->type->id == CS_TYPE_STRING &&
                                      is_explicit(args[j]);
                if (!later_explicit) return mismatch(err, false, impl, c);
            }
            if (impl < 0) impl = c;
        }
    }
    int win = expl >= 0 ? expl : impl;
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
