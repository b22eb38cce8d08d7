/*
 * function_registry_collections.c — the result types of the builtins whose types a signature
 * cannot say (function_registry.c sends them here under the rule R_SPECIAL): Spark 4's array
 * and map functions (array_sort, array_distinct, array_position, slice, map_keys, ...), size
 * over NULL, concat_ws and reverse over arrays, make_timestamp / make_*_interval,
 * convert_timezone, to_char / to_number, sentences, mask, date_part's non-int fields, the exact
 * percentile and the regression aggregates, histogram_numeric and the generator stack. Each checks
 * its arguments with Spark's error classes and inserts Spark's implicit casts. Called by
 * cs_fn_resolve only. Types made here are kept by the statement's arena.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/function_registry.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static int unexpected(cs_error *err, const cs_sql_expr *e, int i, const char *required)
{
    return cs_fn_err_unexpected_type(err, e, i, required, e->args[i]);
}

static cs_col_type *keep(cs_sql_arena *a, cs_col_type *t)
{
    return cs_sql_arena_keep_type(a, t);
}

static cs_col_type *prim(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

static cs_col_type *array_of(cs_sql_arena *a, cs_col_type *elem, bool contains_null)
{
    return keep(a, cs_col_type_array(cs_col_type_ref(elem), contains_null));
}

static bool is_array(const cs_sql_expr *x)
{
    return x->type->id == CS_TYPE_ARRAY;
}

static bool is_null(const cs_sql_expr *x)
{
    return x->type->id == CS_TYPE_NULL;
}

/* Casts args[i] to `want` when it may be implicitly (or is NULL); else Spark's error. */
static int cast_arg(cs_sql_arena *a, cs_sql_expr *e, int i, cs_col_type *want, const char *req,
                    cs_error *err)
{
    cs_sql_expr *x = e->args[i];
    if (cs_col_type_equal(x->type, want)) return 0;
    if (is_null(x) || cs_tc_can_implicit_cast_to(x->type, want)) {
        e->args[i] = cs_tc_cast(a, x, want);
        return 0;
    }
    return unexpected(err, e, i, req);
}

/* args[i] must be an array; NULL is cast to array<null> (Spark's ImplicitTypeCasts). */
static int need_array(cs_sql_arena *a, cs_sql_expr *e, int i, cs_error *err)
{
    if (is_array(e->args[i])) return 0;
    if (is_null(e->args[i])) {
        e->args[i] = cs_tc_cast(a, e->args[i], array_of(a, prim(CS_TYPE_NULL), true));
        return 0;
    }
    return unexpected(err, e, i, "\"ARRAY\"");
}

static int need_map(cs_sql_expr *e, int i, cs_error *err)
{
    if (e->args[i]->type->id == CS_TYPE_MAP) return 0;
    return unexpected(err, e, i, "\"MAP\"");
}

static int diff_types(cs_error *err, const cs_sql_expr *e, const char *fn, const char *what)
{
    cs_sbuf expr = {0}, l = {0}, r = {0};
    cs_fn_sql_expr_quoted(e, &expr);
    cs_tc_type_sql(e->args[0]->type, &l);
    cs_tc_type_sql(e->args[1]->type, &r);
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.ARRAY_FUNCTION_DIFF_TYPES", "42K09",
                     "Cannot resolve %s due to data type mismatch: Input to `%s` should have been "
                     "%s followed by a value with same element type, but it's [\"%s\", \"%s\"].",
                     cs_sbuf_str(&expr), fn, what, cs_sbuf_str(&l), cs_sbuf_str(&r));
    cs_sbuf_free(&expr);
    cs_sbuf_free(&l);
    cs_sbuf_free(&r);
    return CS_EINVAL;
}

/* array_position, array_remove, array_contains-like (array, value): the common element type */
static int array_and_value(cs_sql_arena *a, cs_sql_expr *e, const char *fn, cs_error *err)
{
    if (need_array(a, e, 0, err)) return CS_EINVAL;
    cs_col_type *elem = e->args[0]->type->fields[0].type;
    cs_col_type *w = cs_tc_wider(a, elem, e->args[1]->type);
    if (!w) return diff_types(err, e, fn, "\"ARRAY\"");
    if (!cs_col_type_equal(w, elem))
        e->args[0] =
            cs_tc_cast(a, e->args[0], array_of(a, w, e->args[0]->type->fields[0].nullable));
    if (!cs_col_type_equal(w, e->args[1]->type)) e->args[1] = cs_tc_cast(a, e->args[1], w);
    return 0;
}

/* array_union / array_intersect / array_except / arrays_overlap: two arrays, common type */
static int two_arrays(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    if (need_array(a, e, 0, err) || need_array(a, e, 1, err)) return CS_EINVAL;
    cs_col_type *w = cs_tc_wider(a, e->args[0]->type, e->args[1]->type);
    if (!w) {
        cs_sbuf expr = {0}, l = {0}, r = {0};
        cs_fn_sql_expr_quoted(e, &expr);
        cs_tc_type_sql(e->args[0]->type, &l);
        cs_tc_type_sql(e->args[1]->type, &r);
        cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.BINARY_ARRAY_DIFF_TYPES", "42K09",
                         "Cannot resolve %s due to data type mismatch: Input to function `%s` "
                         "should have been two \"ARRAY\" with same element type, but it's "
                         "[\"%s\", \"%s\"].",
                         cs_sbuf_str(&expr), e->name, cs_sbuf_str(&l), cs_sbuf_str(&r));
        cs_sbuf_free(&expr);
        cs_sbuf_free(&l);
        cs_sbuf_free(&r);
        return CS_EINVAL;
    }
    for (int i = 0; i < 2; i++)
        if (!cs_col_type_equal(w, e->args[i]->type)) e->args[i] = cs_tc_cast(a, e->args[i], w);
    e->type = w;
    return 0;
}

static bool literal_int(const cs_sql_expr *x, int64_t *v)
{
    while (x->kind == CS_EX_CAST)
        x = x->args[0];
    if (x->kind != CS_EX_LITERAL || !x->literal || x->literal->null_count) return false;
    switch (x->type->id) {
    case CS_TYPE_INT:
        *v = ((const int32_t *)x->literal->values)[0];
        return true;
    case CS_TYPE_LONG:
        *v = ((const int64_t *)x->literal->values)[0];
        return true;
    default:
        return false;
    }
}

/* stack(n, v0, v1, ...): n rows of ceil(k / n) columns col0.. (the type: a struct of them) */
static int resolve_stack(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    int64_t rows = 0;
    if (!cs_tc_is_integral(e->args[0]->type) || !literal_int(e->args[0], &rows) || rows <= 0) {
        cs_sbuf expr = {0};
        cs_fn_sql_expr_quoted(e, &expr);
        cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09",
                         "Cannot resolve %s due to data type mismatch: the input `n` should be "
                         "a foldable \"INT\" expression; however, got \"%s\".",
                         cs_sbuf_str(&expr), "n");
        cs_sbuf_free(&expr);
        return CS_EINVAL;
    }
    int values = e->n_args - 1;
    int cols = (int)((values + rows - 1) / rows);
    if (cols < 1) cols = 1;
    cs_col_field *f = cs_sql_alloc(a, sizeof *f * (size_t)cols);
    for (int c = 0; c < cols; c++) {
        cs_col_type *t = NULL;
        for (int r = 0; r < rows; r++) { /* the column's type: its first non-null value's */
            int i = 1 + r * cols + c;
            if (i < e->n_args && !is_null(e->args[i])) {
                if (!t)
                    t = e->args[i]->type;
                else if (!cs_col_type_equal(t, e->args[i]->type)) {
                    cs_sbuf expr = {0}, x = {0}, y = {0};
                    cs_fn_sql_expr_quoted(e, &expr);
                    cs_tc_type_sql(t, &x);
                    cs_tc_type_sql(e->args[i]->type, &y);
                    cs_sql_error_set(
                        err, CS_EINVAL, "DATATYPE_MISMATCH.STACK_COLUMN_DIFF_TYPES", "42K09",
                        "Cannot resolve %s due to data type mismatch: The data type "
                        "of the column (%d) do not have the same type: \"%s\" "
                        "(%s) <> \"%s\" (%s).",
                        cs_sbuf_str(&expr), c, cs_sbuf_str(&x), "", cs_sbuf_str(&y), "");
                    cs_sbuf_free(&expr);
                    cs_sbuf_free(&x);
                    cs_sbuf_free(&y);
                    return CS_EINVAL;
                }
            }
        }
        if (!t) t = prim(CS_TYPE_NULL);
        for (int r = 0; r < rows; r++) { /* StackCoercion: NULLs take the column's type */
            int i = 1 + r * cols + c;
            if (i < e->n_args && is_null(e->args[i]) && t->id != CS_TYPE_NULL)
                e->args[i] = cs_tc_cast(a, e->args[i], t);
        }
        char name[24];
        snprintf(name, sizeof name, "col%d", c);
        f[c].name = cs_sql_strdup(a, name);
        f[c].type = cs_col_type_ref(t);
        f[c].nullable = true;
    }
    e->type = keep(a, cs_col_type_struct(f, cols));
    return 0;
}

/* percentile(x, p [, freq]): double, or array<double> for an array of percentages */
static int resolve_percentile(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    cs_sql_expr *x = e->args[0];
    if (cs_tc_is_string(x->type) || is_null(x))
        e->args[0] = cs_tc_cast(a, x, prim(CS_TYPE_DOUBLE));
    else if (!cs_tc_is_numeric(x->type) && !cs_tc_is_interval(x->type))
        return unexpected(err, e, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")");
    cs_sql_expr *p = e->args[1];
    bool many = is_array(p);
    if (many) {
        cs_col_type *want = array_of(a, prim(CS_TYPE_DOUBLE), false);
        if (!cs_tc_is_numeric(p->type->fields[0].type))
            return unexpected(err, e, 1, "(\"DOUBLE\" or \"ARRAY<DOUBLE>\")");
        e->args[1] = cs_tc_cast(a, p, want);
    } else if (cast_arg(a, e, 1, prim(CS_TYPE_DOUBLE), "(\"DOUBLE\" or \"ARRAY<DOUBLE>\")", err)) {
        return CS_EINVAL;
    }
    if (e->n_args > 2 && !cs_tc_is_integral(e->args[2]->type))
        return unexpected(err, e, 2, "\"INTEGRAL\"");
    cs_col_type *d = cs_tc_is_interval(e->args[0]->type) ? e->args[0]->type : prim(CS_TYPE_DOUBLE);
    e->type = many ? array_of(a, d, false) : d;
    e->nullable = true;
    return 0;
}

static int resolve_make_timestamp(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    for (int i = 0; i < 5; i++)
        if (cast_arg(a, e, i, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
    if (cast_arg(a, e, 5, cs_tc_decimal(a, 16, 6), "\"DECIMAL(16,6)\"", err)) return CS_EINVAL;
    if (e->n_args > 6 && cast_arg(a, e, 6, prim(CS_TYPE_STRING), "\"STRING\"", err))
        return CS_EINVAL;
    e->type = prim(CS_TYPE_TIMESTAMP);
    return 0;
}

/* to_number(s, fmt): decimal(digits, fraction digits of the format), as Spark's ToNumberParser */
static cs_col_type *number_format_type(cs_sql_arena *a, const cs_sql_expr *fmt)
{
    int digits = 0, fraction = 0;
    bool after_point = false;
    if (fmt->kind == CS_EX_LITERAL && fmt->literal && !fmt->literal->null_count &&
        cs_tc_is_string(fmt->type)) {
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(fmt->literal, 0, &len);
        for (int32_t i = 0; i < len; i++) {
            char ch = (char)p[i];
            if (ch == '0' || ch == '9') {
                digits++;
                if (after_point) fraction++;
            } else if (ch == '.' || ch == 'D' || ch == 'd') {
                after_point = true;
            }
        }
    }
    if (digits == 0) digits = 1;
    return cs_tc_decimal(a, digits, fraction);
}

static int resolve_special(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    const char *fn = e->fn;
    int n = e->n_args;
    if (strcmp(fn, "size") == 0) {
        cs_type_id id = e->args[0]->type->id;
        if (id != CS_TYPE_ARRAY && id != CS_TYPE_MAP && id != CS_TYPE_NULL)
            return unexpected(err, e, 0, "(\"ARRAY\" or \"MAP\")");
        e->type = prim(CS_TYPE_INT);
        return 0;
    }
    if (strcmp(fn, "array_sort") == 0 || strcmp(fn, "array_distinct") == 0) {
        if (need_array(a, e, 0, err)) return CS_EINVAL;
        e->type = e->args[0]->type;
        return 0;
    }
    if (strcmp(fn, "array_max") == 0 || strcmp(fn, "array_min") == 0) {
        if (need_array(a, e, 0, err)) return CS_EINVAL;
        e->type = e->args[0]->type->fields[0].type;
        e->nullable = true;
        return 0;
    }
    if (strcmp(fn, "reverse") == 0) {
        if (is_array(e->args[0])) {
            e->type = e->args[0]->type;
            return 0;
        }
        if (!cs_tc_is_atomic(e->args[0]->type))
            return unexpected(err, e, 0, "(\"STRING\" or \"ARRAY\")");
        if (!cs_tc_is_string(e->args[0]->type))
            e->args[0] = cs_tc_cast(a, e->args[0], prim(CS_TYPE_STRING));
        e->type = prim(CS_TYPE_STRING);
        return 0;
    }
    if (strcmp(fn, "array_position") == 0) {
        if (array_and_value(a, e, "array_position", err)) return CS_EINVAL;
        e->type = prim(CS_TYPE_LONG);
        return 0;
    }
    if (strcmp(fn, "array_contains") == 0) {
        if (e->args[0]->type->id == CS_TYPE_NULL || e->args[1]->type->id == CS_TYPE_NULL) {
            cs_sbuf expr = {0};
            cs_fn_sql_expr_quoted(e, &expr);
            cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.NULL_TYPE", "42K09",
                             "Cannot resolve %s due to data type mismatch: Null typed values "
                             "cannot be used as arguments of `array_contains`.",
                             cs_sbuf_str(&expr));
            cs_sbuf_free(&expr);
            return CS_EINVAL;
        }
        if (array_and_value(a, e, "array_contains", err)) return CS_EINVAL;
        e->type = prim(CS_TYPE_BOOLEAN);
        return 0;
    }
    if (strcmp(fn, "array_remove") == 0) {
        if (array_and_value(a, e, "array_remove", err)) return CS_EINVAL;
        e->type = e->args[0]->type;
        return 0;
    }
    if (strcmp(fn, "array_union") == 0 || strcmp(fn, "array_intersect") == 0 ||
        strcmp(fn, "array_except") == 0) {
        return two_arrays(a, e, err);
    }
    if (strcmp(fn, "arrays_overlap") == 0) {
        if (two_arrays(a, e, err)) return CS_EINVAL;
        e->type = prim(CS_TYPE_BOOLEAN);
        e->nullable = true;
        return 0;
    }
    if (strcmp(fn, "slice") == 0) {
        if (need_array(a, e, 0, err) || cast_arg(a, e, 1, prim(CS_TYPE_INT), "\"INT\"", err) ||
            cast_arg(a, e, 2, prim(CS_TYPE_INT), "\"INT\"", err))
            return CS_EINVAL;
        e->type = e->args[0]->type;
        return 0;
    }
    if (strcmp(fn, "array_join") == 0) {
        if (need_array(a, e, 0, err)) return CS_EINVAL;
        const cs_col_type *el = e->args[0]->type->fields[0].type;
        if (!cs_tc_is_string(el) && el->id != CS_TYPE_NULL)
            return unexpected(err, e, 0, "\"ARRAY<STRING>\"");
        for (int i = 1; i < n; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_STRING), "\"STRING\"", err)) return CS_EINVAL;
        e->type = prim(CS_TYPE_STRING);
        return 0;
    }
    if (strcmp(fn, "flatten") == 0) {
        if (need_array(a, e, 0, err)) return CS_EINVAL;
        const cs_col_type *inner = e->args[0]->type->fields[0].type;
        if (inner->id != CS_TYPE_ARRAY) return unexpected(err, e, 0, "\"ARRAY\" of \"ARRAY\"");
        e->type = (cs_col_type *)inner;
        return 0;
    }
    if (strcmp(fn, "array_repeat") == 0) {
        if (cast_arg(a, e, 1, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
        e->type = array_of(a, e->args[0]->type, e->args[0]->nullable);
        return 0;
    }
    if (strcmp(fn, "map_keys") == 0 || strcmp(fn, "map_values") == 0) {
        if (need_map(e, 0, err)) return CS_EINVAL;
        const cs_col_type *m = e->args[0]->type;
        e->type = fn[4] == 'k' ? array_of(a, m->fields[0].type, false)
                               : array_of(a, m->fields[1].type, m->fields[1].nullable);
        return 0;
    }
    if (strcmp(fn, "map_entries") == 0) {
        if (need_map(e, 0, err)) return CS_EINVAL;
        const cs_col_type *m = e->args[0]->type;
        cs_col_field f[2] = {{"key", cs_col_type_ref(m->fields[0].type), false},
                             {"value", cs_col_type_ref(m->fields[1].type), m->fields[1].nullable}};
        cs_col_type *st = keep(a, cs_col_type_struct(f, 2));
        e->type = array_of(a, st, false);
        return 0;
    }
    if (strcmp(fn, "map_contains_key") == 0) {
        if (need_map(e, 0, err)) return CS_EINVAL;
        if (cast_arg(a, e, 1, e->args[0]->type->fields[0].type, "\"MAP KEY\"", err))
            return CS_EINVAL;
        e->type = prim(CS_TYPE_BOOLEAN);
        return 0;
    }
    if (strcmp(fn, "map_from_arrays") == 0) {
        if (need_array(a, e, 0, err) || need_array(a, e, 1, err)) return CS_EINVAL;
        const cs_col_type *k = e->args[0]->type, *v = e->args[1]->type;
        e->type =
            keep(a, cs_col_type_map(cs_col_type_ref(k->fields[0].type),
                                    cs_col_type_ref(v->fields[0].type), v->fields[0].nullable));
        return 0;
    }
    if (strcmp(fn, "map_from_entries") == 0) {
        if (need_array(a, e, 0, err)) return CS_EINVAL;
        const cs_col_type *st = e->args[0]->type->fields[0].type;
        if (st->id != CS_TYPE_STRUCT || st->n_fields != 2)
            return unexpected(err, e, 0, "\"ARRAY\" of pair \"STRUCT\"");
        e->type =
            keep(a, cs_col_type_map(cs_col_type_ref(st->fields[0].type),
                                    cs_col_type_ref(st->fields[1].type), st->fields[1].nullable));
        return 0;
    }
    if (strcmp(fn, "map_concat") == 0) {
        for (int i = 0; i < n; i++)
            if (need_map(e, i, err)) return CS_EINVAL;
        cs_col_type *t = cs_fn_coerce_common(a, e->args, n);
        if (!t) return unexpected(err, e, 1, "\"MAP\"");
        e->type = t;
        return 0;
    }
    if (strcmp(fn, "concat_ws") == 0) {
        for (int i = 0; i < n; i++) {
            cs_sql_expr *x = e->args[i];
            if (i > 0 && is_array(x)) {
                const cs_col_type *el = x->type->fields[0].type;
                if (!cs_tc_is_string(el) && el->id != CS_TYPE_NULL)
                    return unexpected(err, e, i, "(\"ARRAY<STRING>\" or \"STRING\")");
                continue;
            }
            if (cs_tc_is_string(x->type)) continue;
            if (is_null(x) || cs_tc_is_atomic(x->type)) {
                e->args[i] = cs_tc_cast(a, x, prim(CS_TYPE_STRING));
                continue;
            }
            return unexpected(err, e, i, i ? "(\"ARRAY<STRING>\" or \"STRING\")" : "\"STRING\"");
        }
        e->type = prim(CS_TYPE_STRING);
        return 0;
    }
    if (strcmp(fn, "make_timestamp") == 0) return resolve_make_timestamp(a, e, err);
    if (strcmp(fn, "make_dt_interval") == 0) {
        for (int i = 0; i < n && i < 3; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
        if (n > 3 && cast_arg(a, e, 3, cs_tc_decimal(a, 18, 6), "\"DECIMAL(18,6)\"", err))
            return CS_EINVAL;
        e->type = keep(a, cs_col_type_interval(CS_TYPE_INTERVAL_DT, CS_INTERVAL_DAY,
                                               CS_INTERVAL_SECOND, NULL));
        return 0;
    }
    if (strcmp(fn, "make_interval") == 0) { /* CalendarIntervalType */
        for (int i = 0; i < n && i < 6; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
        if (n > 6 && cast_arg(a, e, 6, cs_tc_decimal(a, 18, 6), "\"DECIMAL(18,6)\"", err))
            return CS_EINVAL;
        e->type = prim(CS_TYPE_INTERVAL_CAL);
        return 0;
    }
    if (strcmp(fn, "make_ym_interval") == 0) {
        for (int i = 0; i < n; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
        e->type = keep(a, cs_col_type_interval(CS_TYPE_INTERVAL_YM, CS_INTERVAL_YEAR,
                                               CS_INTERVAL_MONTH, NULL));
        return 0;
    }
    if (strcmp(fn, "convert_timezone") == 0) {
        for (int i = 0; i < n - 1; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_STRING), "\"STRING\"", err)) return CS_EINVAL;
        cs_sql_expr *ts = e->args[n - 1];
        if (!cs_tc_is_datetime(ts->type) && !is_null(ts) && !cs_tc_is_string(ts->type))
            return unexpected(err, e, n - 1, "\"TIMESTAMP_NTZ\"");
        if (ts->type->id != CS_TYPE_TIMESTAMP_NTZ)
            e->args[n - 1] = cs_tc_cast(a, ts, prim(CS_TYPE_TIMESTAMP_NTZ));
        e->type = prim(CS_TYPE_TIMESTAMP_NTZ);
        return 0;
    }
    if (strcmp(fn, "to_char") == 0) {
        cs_sql_expr *x = e->args[0];
        if (!cs_tc_is_numeric(x->type) && !cs_tc_is_datetime(x->type) &&
            x->type->id != CS_TYPE_BINARY && !is_null(x))
            return unexpected(err, e, 0, "\"NUMERIC\"");
        if (cs_tc_is_numeric(x->type) && x->type->id != CS_TYPE_DECIMAL)
            e->args[0] = cs_tc_cast(a, x, cs_tc_decimal_of(a, x));
        if (cast_arg(a, e, 1, prim(CS_TYPE_STRING), "\"STRING\"", err)) return CS_EINVAL;
        e->type = prim(CS_TYPE_STRING);
        return 0;
    }
    if (strcmp(fn, "to_number") == 0 || strcmp(fn, "try_to_number") == 0) {
        for (int i = 0; i < 2; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_STRING), "\"STRING\"", err)) return CS_EINVAL;
        e->type = number_format_type(a, e->args[1]);
        if (strcmp(fn, "try_to_number") == 0) e->nullable = true;
        return 0;
    }
    if (strcmp(fn, "sentences") == 0) {
        for (int i = 0; i < n; i++)
            if (cast_arg(a, e, i, prim(CS_TYPE_STRING), "\"STRING\"", err)) return CS_EINVAL;
        e->type = array_of(a, array_of(a, prim(CS_TYPE_STRING), false), false);
        return 0;
    }
    if (strcmp(fn, "percentile") == 0) return resolve_percentile(a, e, err);
    if (strcmp(fn, "median") == 0) {
        cs_sql_expr *x = e->args[0];
        if (cs_tc_is_string(x->type) || is_null(x))
            e->args[0] = cs_tc_cast(a, x, prim(CS_TYPE_DOUBLE));
        else if (!cs_tc_is_numeric(x->type) && !cs_tc_is_interval(x->type))
            return unexpected(err, e, 0, "(\"NUMERIC\" or \"ANSI INTERVAL\")");
        e->type = cs_tc_is_interval(e->args[0]->type) ? e->args[0]->type : prim(CS_TYPE_DOUBLE);
        e->nullable = true;
        return 0;
    }
    if (strcmp(fn, "histogram_numeric") == 0) {
        cs_sql_expr *x = e->args[0];
        if (!cs_tc_is_numeric(x->type) && !cs_tc_is_datetime(x->type) &&
            !cs_tc_is_interval(x->type))
            return unexpected(err, e, 0, "(\"NUMERIC\" or \"DATETIME\" or \"ANSI INTERVAL\")");
        if (cast_arg(a, e, 1, prim(CS_TYPE_INT), "\"INT\"", err)) return CS_EINVAL;
        cs_col_field f[2] = {{"x", cs_col_type_ref(x->type), true},
                             {"y", prim(CS_TYPE_DOUBLE), true}};
        e->type = array_of(a, keep(a, cs_col_type_struct(f, 2)), true);
        e->nullable = true;
        return 0;
    }
    if (strcmp(fn, "stack") == 0) return resolve_stack(a, e, err);
    return cs_sql_error_set(err, CS_EINVAL, "INTERNAL_ERROR", "XX000",
                            "no type rule for the function %s", fn);
}

int cs_fn_resolve_special(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    int rc = cs_fn_resolve_json(a, e, err);
    if (rc <= 0) return rc;
    rc = cs_fn_resolve_time_window(a, e, err);
    if (rc <= 0) return rc;
    rc = cs_fn_resolve_uniform(a, e, err);
    if (rc <= 0) return rc;
    rc = cs_fn_resolve_variant(a, e, err);
    if (rc <= 0) return rc;
    rc = cs_fn_resolve_collation(a, e, err);
    if (rc <= 0) return rc;
    if (strcmp(e->fn, "arrays_zip") == 0) return cs_fn_resolve_arrays_zip(a, e, err);
    return resolve_special(a, e, err);
}

cs_col_type *cs_fn_date_part_type(cs_sql_arena *a, const cs_sql_expr *e)
{
    const cs_sql_expr *f = e->args[0];
    if (e->n_args != 2 || f->kind != CS_EX_LITERAL || !f->literal || f->literal->null_count ||
        !cs_tc_is_string(f->literal->type))
        return NULL;
    int32_t len = 0;
    const char *p = (const char *)cs_column_bytes(f->literal, 0, &len);
    static const char *const fields[][2] = {
        {"second", "s"}, {"s", "s"},   {"sec", "s"},   {"seconds", "s"}, {"secs", "s"},
        {"hour", "b"},   {"h", "b"},   {"hours", "b"}, {"hr", "b"},      {"hrs", "b"},
        {"minute", "b"}, {"m", "b"},   {"min", "b"},   {"mins", "b"},    {"minutes", "b"},
        {"month", "b"},  {"mon", "b"}, {"mons", "b"},  {"months", "b"}};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strlen(fields[i][0]) != (size_t)len || strncasecmp(fields[i][0], p, (size_t)len) != 0)
            continue;
        if (fields[i][1][0] == 's') return keep(a, cs_col_type_decimal(8, 6, NULL));
        return cs_tc_is_interval(e->args[1]->type) ? prim(CS_TYPE_BYTE) : NULL;
    }
    return NULL;
}
