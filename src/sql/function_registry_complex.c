/*
 * function_registry_complex.c — the result types of Spark's constructors of complex values,
 * for the function registry (function_registry.c calls them from cs_fn_resolve): struct and
 * named_struct (CreateNamedStruct), map (CreateMap) and arrays_zip (ArraysZip: an array of
 * structs whose fields are named after named arguments, else "0", "1", ...), with Spark's type
 * errors. The types are
 * kept by the statement's arena.
 */
#include <stdio.h>
#include <string.h>

#include "sql/function_registry.h"
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

int cs_fn_resolve_struct(cs_sql_arena *a, cs_sql_expr *e, bool named, cs_error *err)
{
    int n = named ? e->n_args / 2 : e->n_args;
    if (named && e->n_args % 2 != 0)
        return cs_sql_error_set(err, CS_EINVAL, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
                                "The `named_struct` requires 2n (n > 0) parameters but the "
                                "actual number is %d.",
                                e->n_args);
    cs_col_field *fields = cs_sql_alloc(a, sizeof *fields * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        cs_sql_expr *v = e->args[named ? 2 * i + 1 : i];
        char buf[24];
        const char *fname = NULL;
        if (named) {
            cs_sql_expr *k = e->args[2 * i];
            int32_t len = 0;
            if (k->kind != CS_EX_LITERAL || !k->literal || !cs_tc_is_string(k->type) ||
                k->literal->null_count)
                return mismatch(err, e,
                                "DATATYPE_MISMATCH.CREATE_NAMED_STRUCT_WITHOUT_FOLDABLE_STRING",
                                "Only foldable `STRING` expressions are allowed to appear at odd "
                                "position.");
            const uint8_t *p = cs_column_bytes(k->literal, 0, &len);
            char *nm = cs_sql_alloc(a, (size_t)len + 1);
            memcpy(nm, p, (size_t)len);
            nm[len] = '\0';
            fname = nm;
        } else if (v->kind == CS_EX_ATTR || v->kind == CS_EX_ALIAS) {
            fname = v->name;
        } else {
            snprintf(buf, sizeof buf, "col%d", i + 1);
            fname = buf;
        }
        fields[i].name = cs_sql_strdup(a, fname); /* buf is reused for the next field */
        fields[i].type = cs_col_type_ref(v->type);
        fields[i].nullable = v->nullable;
    }
    e->type = cs_sql_arena_keep_type(a, cs_col_type_struct(fields, n));
    return 0;
}

int cs_fn_resolve_map(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    if (e->n_args % 2 != 0)
        return cs_sql_error_set(err, CS_EINVAL, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
                                "The `map` requires 2n (n > 0) parameters but the actual number "
                                "is %d.",
                                e->n_args);
    int n = e->n_args / 2;
    cs_col_type *kt = cs_col_type_primitive(CS_TYPE_NULL), *vt = kt;
    bool value_null = false;
    if (n > 0) {
        cs_sql_expr **keys = cs_sql_alloc(a, sizeof *keys * (size_t)n);
        cs_sql_expr **values = cs_sql_alloc(a, sizeof *values * (size_t)n);
        for (int i = 0; i < n; i++) {
            keys[i] = e->args[2 * i];
            values[i] = e->args[2 * i + 1];
        }
        if (!(kt = cs_fn_coerce_common(a, keys, n)))
            return mismatch(err, e, "DATATYPE_MISMATCH.CREATE_MAP_KEY_DIFF_TYPES",
                            "The given keys of function `map` should all be the same type.");
        if (!(vt = cs_fn_coerce_common(a, values, n)))
            return mismatch(err, e, "DATATYPE_MISMATCH.CREATE_MAP_VALUE_DIFF_TYPES",
                            "The given values of function `map` should all be the same type.");
        for (int i = 0; i < n; i++) {
            e->args[2 * i] = keys[i];
            e->args[2 * i + 1] = values[i];
            value_null |= values[i]->nullable;
        }
    }
    e->type = cs_sql_arena_keep_type(
        a, cs_col_type_map(cs_col_type_ref(kt), cs_col_type_ref(vt), value_null));
    return 0;
}

int cs_fn_resolve_arrays_zip(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    int n = e->n_args;
    cs_col_field *fields = cs_sql_alloc(a, sizeof *fields * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        cs_sql_expr *v = e->args[i];
        if (v->type->id != CS_TYPE_ARRAY)
            return cs_fn_err_unexpected_type(err, e, i, "\"ARRAY\"", v);
        char buf[24];
        snprintf(buf, sizeof buf, "%d", i);
        fields[i].name =
            cs_sql_strdup(a, v->kind == CS_EX_ATTR || v->kind == CS_EX_ALIAS ? v->name : buf);
        fields[i].type = cs_col_type_ref(v->type->fields[0].type);
        fields[i].nullable = true;
    }
    e->type = cs_sql_arena_keep_type(a, cs_col_type_array(cs_col_type_struct(fields, n), false));
    return 0;
}
