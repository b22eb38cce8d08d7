/*
 * plan_update_fields.c — Spark Connect's update_fields expression (Column.withField and
 * Column.dropFields) as the struct Spark's UpdateFields evaluates to: named_struct of the
 * struct's fields in their order, the named field replaced (or appended when missing) by the
 * value, or left out when dropped, a dotted name ("a.b") updating a nested struct the same way;
 * a null struct stays null (CASE WHEN s IS NOT NULL THEN named_struct(...) END).
 *
 * The struct's fields are those of its type: the struct expression is analyzed over the input
 * of the relation whose expressions are being translated (cs_cp.expr_input: a select or a
 * withColumns); elsewhere the expression is refused with UNSUPPORTED_FEATURE.
 *
 * Called by plan_expressions.c. Ownership: nodes and names in the translation's arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"

/* s.name as the analyzer's field extraction (GetStructField). */
static cs_sql_expr *field_of(cs_cp *c, cs_sql_expr *s, const char *name)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l.string = (char *)name;
    cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2);
    x->args[0] = s;
    if (cs_cp_literal(c, &l, &x->args[1]) != 0) return NULL;
    return x;
}

static cs_sql_expr *name_of(cs_cp *c, const char *name)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l.string = (char *)name;
    cs_sql_expr *e = NULL;
    return cs_cp_literal(c, &l, &e) == 0 ? e : NULL;
}

/* The struct s (of type t, nullable) with parts[0..n) set to value (NULL: dropped). */
static int update(cs_cp *c, cs_sql_expr *s, const cs_col_type *t, bool nullable,
                  const char *const *parts, int n, cs_sql_expr *value, cs_sql_expr **out)
{
    if (t->id != CS_TYPE_STRUCT)
        return cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE",
                                "42K09",
                                "Cannot resolve \"update_fields\" due to data type mismatch: "
                                "The first parameter requires the \"STRUCT\" type.");
    cs_sql_expr **args = (cs_sql_expr **)cs_cp_array(c, 2 * (size_t)(t->n_fields + 1));
    int na = 0;
    bool found = false;
    for (int i = 0; i < t->n_fields; i++) {
        const cs_col_field *f = &t->fields[i];
        cs_sql_expr *v = field_of(c, s, f->name);
        if (!v) return c->err->code;
        if (cs_str_ieq(f->name, parts[0])) {
            found = true;
            if (n == 1 && !value) continue; /* dropped */
            if (n == 1) {
                v = value;
            } else {
                int rc =
                    update(c, v, f->type, nullable || f->nullable, parts + 1, n - 1, value, &v);
                if (rc) return rc;
            }
        }
        args[na++] = name_of(c, f->name);
        args[na++] = v;
    }
    if (!found && value) { /* a new field at the end; a missing parent fails its extraction */
        cs_sql_expr *v = value;
        if (n > 1 && !(v = field_of(c, s, parts[0]))) return c->err->code;
        args[na++] = name_of(c, parts[0]);
        args[na++] = v;
    }
    if (na == 0)
        return cs_sql_error_set(c->err, CS_EINVAL, "CANNOT_DROP_ALL_FIELDS", "42000",
                                "Cannot drop all fields in struct.");
    cs_sql_expr *st = cs_cp_call(c, "named_struct", args, na);
    if (!nullable) {
        *out = st;
        return 0;
    }
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_CASE, 2); /* no ELSE: NULL */
    e->args[0] = cs_cp_call(c, "isnotnull", &s, 1);
    e->args[1] = st;
    *out = e;
    return 0;
}

int cs_cp_update_fields(cs_cp *c, const Spark__Connect__Expression__UpdateFields *u,
                        cs_sql_expr **out)
{
    if (!u->struct_expression) return cs_cp_invalid(c, "the struct of update_fields is missing");
    if (!c->expr_input)
        return cs_cp_unsupported(c, "withField / dropFields outside select and withColumns");
    const char **parts;
    int n;
    int rc = cs_cp_attribute_name(c, u->field_name ? u->field_name : "", &parts, &n);
    if (rc) return rc;
    /* the struct's type: SELECT struct FROM input, analyzed (a second translation of the
     * struct, so that the one kept is untouched by the analysis) */
    cs_sql_expr *probe, *s, *value = NULL;
    if ((rc = cs_cp_expression(c, u->struct_expression, &probe)) != 0) return rc;
    if ((rc = cs_cp_expression(c, u->struct_expression, &s)) != 0) return rc;
    if (u->value_expression && (rc = cs_cp_expression(c, u->value_expression, &value)) != 0)
        return rc;
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_PROJECT, 1);
    p->children[0] = c->expr_input;
    p->n_exprs = 1;
    p->exprs = (cs_sql_expr **)cs_cp_array(c, 1);
    p->exprs[0] = probe;
    cs_logical_plan *resolved;
    if ((rc = cs_cp_input_columns(c, p, &resolved)) != 0) return rc;
    const cs_sql_expr *st = resolved->output[0];
    return update(c, s, st->type, st->nullable, parts, n, value, out);
}
