/*
 * schema_ddl.c — a user's schema as Spark's DDL string (DataFrameReader.schema("a INT, b
 * STRING")): comma-separated `name type` pairs, names plain or in backquotes, types by Spark's
 * names and aliases, case-insensitive: boolean, tinyint/byte, smallint/short, int/integer,
 * bigint/long, float/real, double, decimal/dec/numeric[(p[,s])] (decimal alone is
 * decimal(10,0)), string, binary, date, timestamp, timestamp_ltz, timestamp_ntz. Nested types
 * are not taken yet. Called by the API (api/datasource_api.c).
 */
#include "datasource/schema_ddl.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    cs_type_id id;
} type_names[] = {
    {"boolean", CS_TYPE_BOOLEAN},
    {"tinyint", CS_TYPE_BYTE},
    {"byte", CS_TYPE_BYTE},
    {"smallint", CS_TYPE_SHORT},
    {"short", CS_TYPE_SHORT},
    {"int", CS_TYPE_INT},
    {"integer", CS_TYPE_INT},
    {"bigint", CS_TYPE_LONG},
    {"long", CS_TYPE_LONG},
    {"float", CS_TYPE_FLOAT},
    {"real", CS_TYPE_FLOAT},
    {"double", CS_TYPE_DOUBLE},
    {"string", CS_TYPE_STRING},
    {"binary", CS_TYPE_BINARY},
    {"date", CS_TYPE_DATE},
    {"timestamp", CS_TYPE_TIMESTAMP},
    {"timestamp_ltz", CS_TYPE_TIMESTAMP},
    {"timestamp_ntz", CS_TYPE_TIMESTAMP_NTZ},
};

static void skip_space(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

/* A column name at *p (backquoted or up to a space), malloc'd; NULL when none. */
static char *parse_name(const char **p)
{
    skip_space(p);
    const char *s = *p;
    if (*s == '`') {
        const char *e = strchr(s + 1, '`');
        if (!e) return NULL;
        *p = e + 1;
        return cs_xstrndup(s + 1, (size_t)(e - s - 1));
    }
    while (**p && !isspace((unsigned char)**p) && **p != ',' && **p != ':')
        (*p)++;
    return *p > s ? cs_xstrndup(s, (size_t)(*p - s)) : NULL;
}

/* The type at *p; NULL + err naming what is wrong. */
static cs_col_type *parse_type(const char **p, const char *ddl, cs_error *err)
{
    skip_space(p);
    const char *s = *p;
    while (isalnum((unsigned char)**p) || **p == '_')
        (*p)++;
    size_t n = (size_t)(*p - s);
    if ((n == 7 && strncasecmp(s, "decimal", 7) == 0) ||
        (n == 3 && strncasecmp(s, "dec", 3) == 0) ||
        (n == 7 && strncasecmp(s, "numeric", 7) == 0)) {
        long prec = 10, scale = 0;
        skip_space(p);
        if (**p == '(') {
            char *end;
            prec = strtol(*p + 1, &end, 10);
            *p = end;
            skip_space(p);
            if (**p == ',') {
                scale = strtol(*p + 1, &end, 10);
                *p = end;
                skip_space(p);
            }
            if (**p != ')') {
                cs_error_set(err, CS_EINVAL, "schema '%s': expected ')' after decimal(p,s)", ddl);
                return NULL;
            }
            (*p)++;
        }
        return cs_col_type_decimal((int)prec, (int)scale, err);
    }
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i].name) == n && strncasecmp(type_names[i].name, s, n) == 0)
            return cs_col_type_primitive(type_names[i].id);
    cs_error_set(err, CS_EINVAL,
                 "schema '%s': unknown or unsupported data type '%.*s' (expected boolean, "
                 "tinyint, smallint, int, bigint, float, double, decimal(p,s), string, binary, "
                 "date, timestamp or timestamp_ntz)",
                 ddl, (int)(n ? n : 1), n ? s : *p);
    return NULL;
}

cs_col_type *cs_ds_parse_ddl(const char *ddl, cs_error *err)
{
    const char *p = ddl;
    int n = 0, cap = 8;
    cs_col_field *f = cs_xcalloc((size_t)cap, sizeof *f);
    cs_col_type *out = NULL;
    for (;;) {
        char *name = parse_name(&p);
        if (!name) {
            cs_error_set(err, CS_EINVAL, "schema '%s': expected a column name at '%s'", ddl, p);
            break;
        }
        skip_space(&p);
        if (*p == ':') p++;
        cs_col_type *t = parse_type(&p, ddl, err);
        if (!t) {
            free(name);
            break;
        }
        if (n == cap) f = cs_xrealloc(f, (size_t)(cap *= 2) * sizeof *f);
        f[n++] = (cs_col_field){name, t, true};
        skip_space(&p);
        if (*p == 0) {
            out = cs_col_type_struct(f, n);
            break;
        }
        if (*p != ',') {
            cs_error_set(err, CS_EINVAL, "schema '%s': expected ',' at '%s'", ddl, p);
            break;
        }
        p++;
    }
    for (int i = 0; i < n; i++) {
        free(f[i].name);
        if (!out) cs_col_type_unref(f[i].type);
    }
    free(f);
    return out;
}
