/*
 * analyzer_legacy_coercion.c — Spark's non-ANSI type coercion (TypeCoercion, when
 * spark.sql.ansi.enabled is false) where its answer differs from the ANSI rules the function
 * registry applies: array(...) over a string and other atomic values is an array of strings
 * (findWiderCommonType with stringPromotion: 'a', 1, NULL, 1.0 are '1', NULL, '1.0' beside
 * 'a'), where ANSI takes the numeric type. Called by analyzer_expr.c before the registry
 * resolves the call. Ownership: casts made in the analysis's arena.
 */
#include "sql/analyzer_internal.h"
#include "sql/catalog.h"

void cs_an_legacy_array_coercion(cs_an_ctx *c, cs_sql_expr **args, int n)
{
    if (cs_catalog_ansi(c->cat)) return;
    bool any_string = false;
    for (int i = 0; i < n; i++) {
        const cs_col_type *t = args[i]->type;
        if (cs_tc_is_string(t)) {
            any_string = true;
            continue;
        }
        /* stringPromotion takes atomic types but binary and boolean (and NULL) */
        if (t->id != CS_TYPE_NULL &&
            (!cs_tc_is_atomic(t) || t->id == CS_TYPE_BINARY || t->id == CS_TYPE_BOOLEAN))
            return;
    }
    if (!any_string) return;
    for (int i = 0; i < n; i++)
        if (!cs_tc_is_string(args[i]->type))
            args[i] = cs_tc_cast(c->a, args[i], cs_col_type_primitive(CS_TYPE_STRING));
}
