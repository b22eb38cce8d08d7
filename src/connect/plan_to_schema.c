/*
 * plan_to_schema.c — Spark Connect's to_schema relation (DataFrame.to(schema)) as Spark's
 * Project.matchSchema: SELECT each column of the schema, found by name in the input (case
 * insensitively), reconciled with the schema's field:
 *   - a struct is rebuilt field by field by name (named_struct of the nested reconciliations, in
 *     the schema's order; a null struct stays null), so that fields may be reordered and dropped;
 *   - another type is cast when Spark's Cast.canUpCast allows it (a wider number, anything to
 *     string, date to timestamp, ...), else INVALID_COLUMN_OR_FIELD_DATA_TYPE;
 *   - a nullable column or field where the schema wants a non-nullable one is refused with
 *     NULLABLE_COLUMN_OR_FIELD; a missing one with UNRESOLVED_COLUMN (top level) or
 *     UNRESOLVED_FIELD (nested).
 * The input is analyzed for its columns' types (no job runs); the projection is written over the
 * unresolved input.
 *
 * Called by plan_relations.c. Ownership: nodes and names in the translation's arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static cs_sql_expr *string_lit(cs_cp *c, const char *s)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l.string = (char *)s;
    cs_sql_expr *e = NULL;
    return cs_cp_literal(c, &l, &e) == 0 ? e : NULL;
}

/* The position of a number in Spark's numericPrecedence (byte .. double), -1 for others. */
static int numeric_rank(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_BYTE:
        return 0;
    case CS_TYPE_SHORT:
        return 1;
    case CS_TYPE_INT:
        return 2;
    case CS_TYPE_LONG:
        return 3;
    case CS_TYPE_FLOAT:
        return 4;
    case CS_TYPE_DOUBLE:
        return 5;
    default:
        return -1;
    }
}

/* Spark's Cast.canUpCast for the types that are not structs (structs are rebuilt by name). */
static bool can_up_cast(const cs_col_type *from, const cs_col_type *to)
{
    if (cs_col_type_equal(from, to) || from->id == CS_TYPE_NULL) return true;
    int rf = numeric_rank(from), rt = numeric_rank(to);
    if (rf >= 0 && rt >= 0) return rf <= rt;
    if (to->id == CS_TYPE_DECIMAL) {
        if (from->id == CS_TYPE_DECIMAL)
            return to->scale >= from->scale &&
                   to->precision - to->scale >= from->precision - from->scale;
        int d = cs_tc_integral_digits(from->id);
        return d > 0 && to->precision - to->scale >= d;
    }
    if (from->id == CS_TYPE_DECIMAL && rt >= 0) /* isTighterThan: fits a float / double */
        return to->id == CS_TYPE_DOUBLE || to->id == CS_TYPE_FLOAT;
    switch (to->id) {
    case CS_TYPE_STRING:
        return from->id != CS_TYPE_ARRAY && from->id != CS_TYPE_MAP && from->id != CS_TYPE_STRUCT;
    case CS_TYPE_TIMESTAMP:
        return from->id == CS_TYPE_DATE || from->id == CS_TYPE_TIMESTAMP_NTZ ||
               from->id == CS_TYPE_LONG;
    case CS_TYPE_TIMESTAMP_NTZ:
        return from->id == CS_TYPE_DATE || from->id == CS_TYPE_TIMESTAMP;
    case CS_TYPE_LONG:
        return from->id == CS_TYPE_TIMESTAMP;
    case CS_TYPE_ARRAY:
        return from->id == CS_TYPE_ARRAY && (to->fields[0].nullable || !from->fields[0].nullable) &&
               can_up_cast(from->fields[0].type, to->fields[0].type);
    case CS_TYPE_MAP:
        return from->id == CS_TYPE_MAP && can_up_cast(from->fields[0].type, to->fields[0].type) &&
               (to->fields[1].nullable || !from->fields[1].nullable) &&
               can_up_cast(from->fields[1].type, to->fields[1].type);
    default:
        return false;
    }
}

static int type_mismatch(cs_cp *c, const char *name, const cs_col_type *from, const cs_col_type *to)
{
    cs_sbuf f = {0}, t = {0};
    cs_tc_type_sql(from, &f);
    cs_tc_type_sql(to, &t);
    cs_sql_error_set(c->err, CS_EINVAL, "INVALID_COLUMN_OR_FIELD_DATA_TYPE", "42000",
                     "Column or field `%s` is of type \"%s\" while it's required to be \"%s\".",
                     name, cs_sbuf_str(&f), cs_sbuf_str(&t));
    cs_sbuf_free(&f);
    cs_sbuf_free(&t);
    return CS_EINVAL;
}

/* e (named name, of type from, nullable) as a value of `to` (nullable: to_nullable). */
static int reconcile(cs_cp *c, cs_sql_expr *e, const char *name, const cs_col_type *from,
                     bool nullable, const cs_col_type *to, bool to_nullable, cs_sql_expr **out)
{
    if (nullable && !to_nullable)
        return cs_sql_error_set(c->err, CS_EINVAL, "NULLABLE_COLUMN_OR_FIELD", "42000",
                                "Column or field `%s` is nullable while it's required to be "
                                "non-nullable.",
                                name);
    if (from->id != CS_TYPE_STRUCT || to->id != CS_TYPE_STRUCT) {
        if (!can_up_cast(from, to)) return type_mismatch(c, name, from, to);
        *out = e;
        if (!cs_col_type_equal(from, to)) {
            cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
            x->args[0] = e;
            x->cast_type = (cs_col_type *)to;
            x->cast_mode = CS_CAST_ANSI;
            *out = x;
        }
        return 0;
    }
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, 2 * (size_t)to->n_fields + 1);
    for (int f = 0; f < to->n_fields; f++) {
        const cs_col_field *want = &to->fields[f];
        const cs_col_field *have = NULL;
        for (int g = 0; g < from->n_fields && !have; g++)
            if (cs_str_ieq(from->fields[g].name, want->name)) have = &from->fields[g];
        if (!have)
            return cs_sql_error_set(
                c->err, CS_EINVAL, "UNRESOLVED_FIELD.WITHOUT_SUGGESTION", "42703",
                "A field with name `%s` cannot be resolved with the struct-type "
                "column `%s`.",
                want->name, name);
        cs_sql_expr *get = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2);
        get->args[0] = e;
        get->args[1] = string_lit(c, have->name);
        args[2 * f] = string_lit(c, want->name);
        int rc = reconcile(c, get, want->name, have->type, have->nullable, want->type,
                           want->nullable, &args[2 * f + 1]);
        if (rc) return rc;
    }
    cs_sql_expr *st = cs_cp_call(c, "named_struct", args, 2 * to->n_fields);
    if (!nullable) {
        *out = st;
        return 0;
    }
    cs_sql_expr *w = cs_sql_expr_new(c->a, CS_EX_CASE, 2); /* no ELSE: a null struct stays null */
    w->args[0] = cs_cp_call(c, "isnotnull", &e, 1);
    w->args[1] = st;
    *out = w;
    return 0;
}

int cs_cp_to_schema(cs_cp *c, const Spark__Connect__ToSchema *t, cs_logical_plan **out)
{
    cs_col_type *schema;
    int rc = cs_cp_data_type(c, t->schema, &schema);
    if (rc) return rc;
    if (schema->id != CS_TYPE_STRUCT)
        return cs_cp_invalid(c, "ToSchema needs a struct type, got %s",
                             cs_type_id_name(schema->id));
    cs_logical_plan *input, *resolved;
    if ((rc = cs_cp_input(c, t->input, "ToSchema", &input)) != 0) return rc;
    if ((rc = cs_cp_input_columns(c, input, &resolved)) != 0) return rc;
    cs_sql_expr **exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)schema->n_fields);
    for (int f = 0; f < schema->n_fields; f++) {
        const cs_col_field *fd = &schema->fields[f];
        const cs_sql_expr *col = NULL;
        for (int i = 0; i < resolved->n_output && !col; i++)
            if (cs_str_ieq(resolved->output[i]->name, fd->name)) col = resolved->output[i];
        if (!col)
            return cs_sql_error_set(c->err, CS_EINVAL, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION",
                                    "42703",
                                    "A column, variable, or function parameter with name `%s` "
                                    "cannot be resolved.",
                                    fd->name);
        cs_sql_expr *e;
        if ((rc = reconcile(c, cs_cp_column1(c, col->name), fd->name, col->type, col->nullable,
                            fd->type, fd->nullable, &e)) != 0)
            return rc;
        exprs[f] = cs_cp_alias(c, e, fd->name);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    p->children[0] = input;
    p->n_exprs = schema->n_fields;
    p->exprs = exprs;
    *out = p;
    return 0;
}
