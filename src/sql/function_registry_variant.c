/*
 * function_registry_variant.c — Spark 4's variant functions in the function registry: their
 * entries (cs_fn_lookup searches them after function_registry.c's table) and their type rules
 * (cs_fn_resolve_special calls cs_fn_resolve_variant):
 *
 *   parse_json(s), try_parse_json(s)   a STRING (NULL is cast) -> VARIANT
 *   is_variant_null(v)                 VARIANT -> BOOLEAN, never null
 *   schema_of_variant(v)               VARIANT -> STRING
 *   schema_of_variant_agg(v)           the aggregate: VARIANT -> STRING, never null
 *   variant_explode(v), variant_explode_outer(v)
 *                                      the generator (pos, key, value), a table-valued function
 *                                      only, as Spark registers it (cs_fn_lookup_table_function:
 *                                      FROM f(...) and LATERAL f(...), not a select list or
 *                                      LATERAL VIEW)
 *   to_variant_object(x)               a struct, map (string keys) or array -> VARIANT
 *                                      (DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION otherwise)
 *   variant_get(v, path[, type]), try_variant_get(...)
 *                                      the type a string literal names (default VARIANT), parsed
 *                                      as Spark's DataType.fromDDL; the path is a string (a
 *                                      literal is checked here against Spark's variant path
 *                                      grammar: INVALID_VARIANT_GET_PATH; others per row when
 *                                      they run). The type then leaves the call's arguments,
 *                                      as Spark prints the call.
 *
 * The path grammar is the engine's (cs_variant_path_parse). Types are kept by the statement's
 * arena.
 */
#include <string.h>

#include "sql/function_registry.h"
#include "sql/function_registry_internal.h"
#include "sql/sql_parser.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/variant_codec.h"

#define S CS_FN_SCALAR
#define AG CS_FN_AGGREGATE
const fn_entry cs_fn_variant_functions[] = {
    FN("parse_json", "parse_json", 1, 1, S, R_SPECIAL, "", ""),
    FN("try_parse_json", "try_parse_json", 1, 1, S, R_SPECIAL, "", ""),
    FNN("is_variant_null", "is_variant_null", 1, 1, S, R_SPECIAL, "", ""),
    FN("schema_of_variant", "schema_of_variant", 1, 1, S, R_SPECIAL, "", ""),
    FN("to_variant_object", "to_variant_object", 1, 1, S, R_SPECIAL, "", ""),
    FN("variant_get", "variant_get", 2, 3, S, R_SPECIAL, "", ""),
    FN("try_variant_get", "try_variant_get", 2, 3, S, R_SPECIAL, "", ""),
    FNN("schema_of_variant_agg", "schema_of_variant_agg", 1, 1, AG, R_SPECIAL, "", ""),
};
#undef S
#undef AG
const int cs_fn_variant_count =
    (int)(sizeof cs_fn_variant_functions / sizeof cs_fn_variant_functions[0]);

static const fn_entry table_functions[] = {
    FN("variant_explode", "variant_explode", 1, 1, CS_FN_GENERATOR, R_SPECIAL, "", ""),
    FN("variant_explode_outer", "variant_explode", 1, 1, CS_FN_GENERATOR, R_SPECIAL, "", ""),
};

const cs_fn_info *cs_fn_lookup_table_function(const char *name)
{
    for (size_t i = 0; i < sizeof table_functions / sizeof table_functions[0]; i++)
        if (cs_str_ieq(table_functions[i].info.name, name)) return &table_functions[i].info;
    return NULL;
}

static int need_variant(const cs_sql_expr *e, int i, cs_error *err)
{
    if (cs_col_type_is_variant(e->args[i]->type)) return 0;
    return cs_fn_err_unexpected_type(err, e, i, "\"VARIANT\"", e->args[i]);
}

/* The text of a non-null string literal, or NULL. */
static const char *literal_text(cs_sql_arena *a, const cs_sql_expr *s, size_t *len)
{
    if (s->kind != CS_EX_LITERAL || !s->literal || s->literal->null_count ||
        !cs_tc_is_string(s->type))
        return NULL;
    int32_t n = 0;
    const uint8_t *p = cs_column_bytes(s->literal, 0, &n);
    char *text = cs_sql_alloc(a, (size_t)n + 1);
    memcpy(text, p, (size_t)n);
    text[n] = '\0';
    *len = (size_t)n;
    return text;
}

static int resolve_variant_get(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    int rc = need_variant(e, 0, err);
    if (rc) return rc;
    cs_col_type *t = cs_col_type_variant();
    if (e->n_args == 3) {
        size_t n;
        const char *text = literal_text(a, e->args[2], &n);
        if (!text) {
            cs_sbuf x = {0};
            cs_fn_sql_expr_quoted(e->args[2], &x);
            rc = cs_sql_error_set(err, CS_EINVAL, "INVALID_SCHEMA.NON_STRING_LITERAL", "42K07",
                                  "The input schema %s is not a valid schema string. The input "
                                  "expression must be string literal and not null.",
                                  cs_sbuf_str(&x));
            cs_sbuf_free(&x);
            return rc;
        }
        if ((rc = cs_sql_parse_schema(a, text, &t, err)) != 0) return rc;
        if (!cs_tc_variant_castable(t, true)) {
            cs_sbuf ts = {0};
            cs_tc_type_sql(t, &ts);
            rc = cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_DATATYPE", "0A000",
                                  "Unsupported data type \"%s\".", cs_sbuf_str(&ts));
            cs_sbuf_free(&ts);
            return rc;
        }
    }
    cs_sql_expr *p = e->args[1];
    if (p->type->id == CS_TYPE_NULL) {
        e->args[1] = cs_tc_cast(a, p, cs_col_type_primitive(CS_TYPE_STRING));
    } else {
        size_t n;
        const char *path = literal_text(a, p, &n);
        if (!cs_tc_is_string(p->type)) return cs_fn_err_unexpected_type(err, e, 1, "\"STRING\"", p);
        if (path && cs_variant_path_parse(path, n, NULL) < 0) {
            rc = cs_sql_error_set(err, CS_EINVAL, "INVALID_VARIANT_GET_PATH", "22023",
                                  "The path `%s` is not a valid variant extraction path in "
                                  "``%s``.",
                                  path, e->fn);
            cs_sql_error_param(err, "path", path);
            return rc;
        }
    }
    e->n_args = 2;
    e->type = t;
    e->nullable = true;
    return 0;
}

int cs_fn_resolve_variant(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    const char *f = e->fn;
    int rc;
    if (strcmp(f, "parse_json") == 0 || strcmp(f, "try_parse_json") == 0) {
        if (e->args[0]->type->id == CS_TYPE_NULL)
            e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_primitive(CS_TYPE_STRING));
        if (!cs_tc_is_string(e->args[0]->type))
            return cs_fn_err_unexpected_type(err, e, 0, "\"STRING\"", e->args[0]);
        e->type = cs_col_type_variant();
        e->nullable = f[0] == 't' || e->args[0]->nullable;
        return 0;
    }
    if (strcmp(f, "variant_explode") == 0) {
        if (e->args[0]->type->id == CS_TYPE_NULL)
            e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_variant());
        if ((rc = need_variant(e, 0, err)) != 0) return rc;
        e->type = cs_col_type_variant();
        e->nullable = true;
        return 0;
    }
    if (strcmp(f, "schema_of_variant_agg") == 0) {
        if ((rc = need_variant(e, 0, err)) != 0) return rc;
        e->type = cs_col_type_primitive(CS_TYPE_STRING);
        e->nullable = false;
        return 0;
    }
    if (strcmp(f, "is_variant_null") == 0 || strcmp(f, "schema_of_variant") == 0) {
        if (e->args[0]->type->id == CS_TYPE_NULL)
            e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_variant());
        if ((rc = need_variant(e, 0, err)) != 0) return rc;
        bool is_null = f[0] == 'i';
        e->type = cs_col_type_primitive(is_null ? CS_TYPE_BOOLEAN : CS_TYPE_STRING);
        e->nullable = !is_null && e->args[0]->nullable;
        return 0;
    }
    if (strcmp(f, "to_variant_object") == 0) {
        const cs_col_type *t = e->args[0]->type;
        bool complex = (t->id == CS_TYPE_STRUCT && !t->variant) || t->id == CS_TYPE_MAP ||
                       t->id == CS_TYPE_ARRAY;
        if (!complex || !cs_tc_variant_castable(t, true)) {
            cs_sbuf x = {0}, ts = {0};
            cs_fn_sql_expr_quoted(e, &x);
            cs_tc_type_sql(t, &ts);
            rc = cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.CAST_WITHOUT_SUGGESTION",
                                  "42K09",
                                  "Cannot resolve %s due to data type mismatch: cannot cast "
                                  "\"%s\" to \"VARIANT\".",
                                  cs_sbuf_str(&x), cs_sbuf_str(&ts));
            cs_sbuf_free(&x);
            cs_sbuf_free(&ts);
            return rc;
        }
        e->type = cs_col_type_variant();
        e->nullable = e->args[0]->nullable;
        return 0;
    }
    if (strcmp(f, "variant_get") == 0 || strcmp(f, "try_variant_get") == 0)
        return resolve_variant_get(a, e, err);
    return 1;
}

static bool holds_variant(const cs_col_type *t)
{
    if (cs_col_type_is_variant(t)) return true;
    for (int i = 0; i < t->n_fields; i++)
        if (holds_variant(t->fields[i].type)) return true;
    return false;
}

int cs_fn_check_variant_order(cs_error *err, const cs_sql_expr *e, const char *op)
{
    const cs_col_type *t = NULL;
    for (int i = 0; i < e->n_args && !t; i++)
        if (holds_variant(e->args[i]->type)) t = e->args[i]->type;
    if (!t) return 0;
    cs_sbuf x = {0}, ts = {0};
    cs_fn_sql_expr_quoted(e, &x);
    cs_tc_type_sql(t, &ts);
    int rc = cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE", "42K09",
                              "Cannot resolve %s due to data type mismatch: The `%s` does not "
                              "support ordering on type \"%s\".",
                              cs_sbuf_str(&x), op ? op : e->fn, cs_sbuf_str(&ts));
    cs_sbuf_free(&x);
    cs_sbuf_free(&ts);
    return rc;
}

int cs_fn_check_variant_group(cs_error *err, const cs_sql_expr *g)
{
    if (!holds_variant(g->type)) return 0;
    cs_sbuf x = {0}, ts = {0};
    cs_fn_sql_expr_quoted(g, &x);
    cs_tc_type_sql(g->type, &ts);
    int rc = cs_sql_error_set(err, CS_EINVAL, "GROUP_EXPRESSION_TYPE_IS_NOT_ORDERABLE", "42822",
                              "The expression %s cannot be used as a grouping expression "
                              "because its data type \"%s\" is not an orderable data type.",
                              cs_sbuf_str(&x), cs_sbuf_str(&ts));
    cs_sbuf_free(&x);
    cs_sbuf_free(&ts);
    return rc;
}
