/*
 * function_registry_json.c — the type rules of Spark's JSON functions for the function registry
 * (cs_fn_resolve_special calls cs_fn_resolve_json): to_json takes a struct, array or map
 * (DATATYPE_MISMATCH.INVALID_JSON_SCHEMA otherwise) and gives a string; from_json(json, schema)
 * gives the type its literal schema names, parsed as Spark's DataType.fromDDL does (a type,
 * "ARRAY<INT>", or a list of fields, "a INT, b STRING", as a struct); the schema then leaves the
 * call's arguments, so that the call prints as Spark names it ("from_json(j)"). The types are
 * kept by the statement's arena.
 */
#include <string.h>

#include "sql/function_registry.h"
#include "sql/sql_parser.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static int mismatch(cs_error *err, const cs_sql_expr *e, const char *cls, const char *what)
{
    cs_sbuf x = {0};
    cs_fn_sql_expr_quoted(e, &x);
    cs_sql_error_set(err, CS_EINVAL, cls, "42K09",
                     "Cannot resolve %s due to data type mismatch: %s", cs_sbuf_str(&x), what);
    cs_sbuf_free(&x);
    return CS_EINVAL;
}

static int resolve_to_json(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    const cs_col_type *t = e->args[0]->type;
    if (t->id != CS_TYPE_STRUCT && t->id != CS_TYPE_ARRAY && t->id != CS_TYPE_MAP) {
        cs_sbuf ts = {0}, what = {0};
        cs_tc_type_sql(t, &ts);
        cs_sbuf_printf(&what, "Input schema \"%s\" must be a struct, an array, a map or a variant.",
                       cs_sbuf_str(&ts));
        mismatch(err, e, "DATATYPE_MISMATCH.INVALID_JSON_SCHEMA", cs_sbuf_str(&what));
        cs_sbuf_free(&ts);
        cs_sbuf_free(&what);
        return CS_EINVAL;
    }
    e->n_args = 1; /* the options map is not read */
    e->type = cs_col_type_primitive(CS_TYPE_STRING);
    (void)a;
    return 0;
}

static int resolve_from_json(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    const cs_sql_expr *s = e->args[1];
    if (s->kind != CS_EX_LITERAL || !s->literal || s->literal->null_count ||
        !cs_tc_is_string(s->type))
        return cs_sql_error_set(err, CS_EINVAL, "INVALID_SCHEMA.NON_STRING_LITERAL", "42K07",
                                "The input schema is not a valid schema string. The input "
                                "expression must be string literal and not null.");
    int32_t len = 0;
    const uint8_t *p = cs_column_bytes(s->literal, 0, &len);
    char *text = cs_sql_alloc(a, (size_t)len + 1);
    memcpy(text, p, (size_t)len);
    text[len] = '\0';
    cs_col_type *t = NULL;
    int rc = cs_sql_parse_schema(a, text, &t, err);
    if (rc) return rc;
    if (e->args[0]->type->id == CS_TYPE_NULL)
        e->args[0] = cs_tc_cast(a, e->args[0], cs_col_type_primitive(CS_TYPE_STRING));
    if (!cs_tc_is_string(e->args[0]->type)) {
        cs_sbuf ts = {0}, what = {0};
        cs_tc_type_sql(e->args[0]->type, &ts);
        cs_sbuf_printf(&what,
                       "The first parameter requires the \"STRING\" type, however the "
                       "input has the type \"%s\".",
                       cs_sbuf_str(&ts));
        mismatch(err, e, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", cs_sbuf_str(&what));
        cs_sbuf_free(&ts);
        cs_sbuf_free(&what);
        return CS_EINVAL;
    }
    e->n_args = 1;
    e->type = t;
    e->nullable = true;
    return 0;
}

int cs_fn_resolve_json(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    if (strcmp(e->fn, "to_json") == 0) return resolve_to_json(a, e, err);
    if (strcmp(e->fn, "from_json") == 0) return resolve_from_json(a, e, err);
    return 1;
}
