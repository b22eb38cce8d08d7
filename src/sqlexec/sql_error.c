/*
 * sql_error.c — Spark SQL's error class, SQLSTATE and message shape on a cs_error (see
 * sql_error.h), and its message parameters (a JSON object, made with jansson). Called by
 * src/sqlexec and src/sql.
 */
#include "sqlexec/sql_error.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"

int cs_sql_error_set(cs_error *err, int code, const char *error_class, const char *sql_state,
                     const char *fmt, ...)
{
    if (!err) return code;
    char text[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cs_error_set(err, code, "[%s] %s SQLSTATE: %s", error_class, text, sql_state);
    cs_str_copy(err->error_class, sizeof err->error_class, error_class);
    cs_str_copy(err->sql_state, sizeof err->sql_state, sql_state);
    return code;
}

void cs_sql_error_param(cs_error *err, const char *name, const char *value)
{
    if (!err || !name || !value) return;
    json_t *obj = err->params[0] ? json_loads(err->params, 0, NULL) : json_object();
    json_t *v = json_string(value);
    if (obj && v && json_object_set_new(obj, name, v) == 0) {
        v = NULL;
        char *text = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (text && strlen(text) < sizeof err->params)
            cs_str_copy(err->params, sizeof err->params, text);
        free(text);
    }
    json_decref(v);
    json_decref(obj);
}

int cs_sql_error_is(const cs_error *err, const char *error_class)
{
    if (!err || !err->error_class[0]) return 0;
    size_t n = strlen(error_class);
    return strncmp(err->error_class, error_class, n) == 0 &&
           (err->error_class[n] == '\0' || err->error_class[n] == '.');
}
