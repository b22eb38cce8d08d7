/*
 * function_registry_time_window.c — the type rule of Spark's window(time, windowDuration
 * [, slideDuration [, startTime]]) (TimeWindow) for the function registry (cs_fn_resolve_special
 * calls cs_fn_resolve_time_window): the time is a timestamp (a date or string is cast), the
 * durations are literal interval strings ("5 minutes", "interval 1 hour") read by the SQL
 * parser's interval literals, and the result is struct<start: timestamp, end: timestamp>. The
 * durations are replaced by their microseconds (bigint literals), which the engine's kernel
 * reads; tumbling windows only (a slide other than the window is UNSUPPORTED_FEATURE).
 * window_time(window) (Spark's WindowTime) takes such a struct and is its end's type. The
 * analyzer (analyzer_agg.c) drops rows whose time is NULL, as Spark's TimeWindowing does. The
 * types are kept by the statement's arena.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sql/function_registry.h"
#include "sql/sql_parser.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static int bad_duration(cs_error *err, const char *what)
{
    return cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", "42K09",
                            "Cannot resolve \"window\" due to data type mismatch: the %s must be "
                            "a literal interval string.",
                            what);
}

/* the microseconds of a literal interval string argument; false when it is none */
static bool duration_us(cs_sql_arena *a, const cs_sql_expr *x, int64_t *us)
{
    if (x->kind != CS_EX_LITERAL || !x->literal || x->literal->null_count ||
        !cs_tc_is_string(x->type))
        return false;
    int32_t len = 0;
    const char *p = (const char *)cs_column_bytes(x->literal, 0, &len);
    if (len > 200 || memchr(p, '\'', (size_t)len)) return false;
    char sql[256];
    bool prefixed = len >= 8 && strncasecmp(p, "interval", 8) == 0;
    snprintf(sql, sizeof sql, "INTERVAL '%.*s'", (int)(prefixed ? len - 8 : len),
             prefixed ? p + 8 : p);
    cs_sql_expr *e = NULL;
    cs_error perr = {0};
    if (cs_sql_parse_expression(a, sql, &e, NULL, &perr) != CS_OK || !e ||
        e->kind != CS_EX_LITERAL || !e->literal || e->literal->type->id != CS_TYPE_INTERVAL_DT)
        return false;
    *us = ((const int64_t *)(const void *)e->literal->values)[0];
    return true;
}

static cs_sql_expr *long_literal(cs_sql_arena *a, int64_t v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
    cs_col_builder_append_values(b, &v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

/* window_time(w): w a window's struct<start: timestamp, end: timestamp> */
static int resolve_window_time(cs_sql_expr *e, cs_error *err)
{
    const cs_col_type *t = e->args[0]->type;
    bool window =
        t->id == CS_TYPE_STRUCT && t->n_fields == 2 && strcmp(t->fields[0].name, "start") == 0 &&
        strcmp(t->fields[1].name, "end") == 0 && t->fields[0].type->id == t->fields[1].type->id &&
        (t->fields[1].type->id == CS_TYPE_TIMESTAMP ||
         t->fields[1].type->id == CS_TYPE_TIMESTAMP_NTZ);
    if (!window)
        return cs_fn_err_unexpected_type(err, e, 0, "\"STRUCT<start: TIMESTAMP, end: TIMESTAMP>\"",
                                         e->args[0]);
    e->type = cs_col_type_primitive(t->fields[1].type->id);
    e->nullable = true;
    return 0;
}

int cs_fn_resolve_time_window(cs_sql_arena *a, cs_sql_expr *e, cs_error *err)
{
    if (strcmp(e->fn, "window_time") == 0 && e->n_args == 1) return resolve_window_time(e, err);
    if (strcmp(e->fn, "window") != 0) return 1;
    cs_sql_expr *t = e->args[0];
    if (t->type->id != CS_TYPE_TIMESTAMP && t->type->id != CS_TYPE_TIMESTAMP_NTZ) {
        if (t->type->id != CS_TYPE_DATE && !cs_tc_is_string(t->type) && t->type->id != CS_TYPE_NULL)
            return cs_fn_err_unexpected_type(err, e, 0, "(\"TIMESTAMP\" or \"TIMESTAMP_NTZ\")", t);
        e->args[0] = t = cs_tc_cast(a, t, cs_col_type_primitive(CS_TYPE_TIMESTAMP));
    }
    int64_t v[3] = {0, 0, 0};
    static const char *const what[] = {"window duration", "slide duration", "start time"};
    for (int i = 1; i < e->n_args; i++)
        if (!duration_us(a, e->args[i], &v[i - 1]) || (i < 3 && v[i - 1] <= 0))
            return bad_duration(err, what[i - 1]);
    if (e->n_args > 2 && v[1] != v[0])
        return cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: window() with a slide duration "
                                "other than its window duration.");
    cs_sql_expr **args = cs_sql_alloc(a, sizeof *args * 3);
    args[0] = t;
    args[1] = long_literal(a, v[0]);
    args[2] = long_literal(a, v[2]);
    e->args = args;
    e->n_args = 3;
    cs_col_field f[2] = {{"start", cs_col_type_ref(t->type), true},
                         {"end", cs_col_type_ref(t->type), true}};
    e->type = cs_sql_arena_keep_type(a, cs_col_type_struct(f, 2));
    e->nullable = t->nullable;
    return 0;
}
