/*
 * field_chunk.c — Spark types as a tree (simpleString, DDL) and chunks of typed columns. See
 * field_chunk.h for the layout and ownership; the readers of formats/csv and formats/json are the
 * writers of chunks, the format writers and the tools their readers.
 */
#include "formats/field_chunk.h"

#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

cs_ftype *cs_ftype_new(cs_ftype_kind kind)
{
    cs_ftype *t = cs_xcalloc(1, sizeof *t);
    t->kind = kind;
    return t;
}

cs_ftype *cs_ftype_decimal_new(int precision, int scale)
{
    cs_ftype *t = cs_ftype_new(CS_FT_DECIMAL);
    t->precision = precision;
    t->scale = scale;
    return t;
}

void cs_ftype_add_field(cs_ftype *st, const char *name, cs_ftype *type)
{
    st->names = cs_xrealloc(st->names, (size_t)(st->nfields + 1) * sizeof *st->names);
    st->fields = cs_xrealloc(st->fields, (size_t)(st->nfields + 1) * sizeof *st->fields);
    st->names[st->nfields] = cs_xstrdup(name);
    st->fields[st->nfields] = type;
    st->nfields++;
}

cs_ftype *cs_ftype_copy(const cs_ftype *t)
{
    if (!t) return NULL;
    cs_ftype *c = cs_ftype_new(t->kind);
    c->precision = t->precision;
    c->scale = t->scale;
    c->element = cs_ftype_copy(t->element);
    c->key = cs_ftype_copy(t->key);
    for (int i = 0; i < t->nfields; i++)
        cs_ftype_add_field(c, t->names[i], cs_ftype_copy(t->fields[i]));
    return c;
}

void cs_ftype_free(cs_ftype *t)
{
    if (!t) return;
    cs_ftype_free(t->element);
    cs_ftype_free(t->key);
    for (int i = 0; i < t->nfields; i++) {
        free(t->names[i]);
        cs_ftype_free(t->fields[i]);
    }
    free(t->names);
    free(t->fields);
    free(t);
}

bool cs_ftype_equal(const cs_ftype *a, const cs_ftype *b)
{
    if (!a || !b) return a == b;
    if (a->kind != b->kind || a->nfields != b->nfields) return false;
    if (a->kind == CS_FT_DECIMAL && (a->precision != b->precision || a->scale != b->scale))
        return false;
    if ((a->kind == CS_FT_ARRAY || a->kind == CS_FT_MAP) && !cs_ftype_equal(a->element, b->element))
        return false;
    if (a->kind == CS_FT_MAP && !cs_ftype_equal(a->key, b->key)) return false;
    for (int i = 0; i < a->nfields; i++)
        if (strcmp(a->names[i], b->names[i]) || !cs_ftype_equal(a->fields[i], b->fields[i]))
            return false;
    return true;
}

int cs_ftype_field_index(const cs_ftype *st, const char *name)
{
    for (int i = 0; i < st->nfields; i++)
        if (!strcmp(st->names[i], name)) return i;
    return -1;
}

void cs_ftype_simple_string(const cs_ftype *t, cs_sbuf *out)
{
    static const char *const names[] = {"void",   "boolean", "int",       "bigint", "decimal",
                                        "double", "date",    "timestamp", "string", "array",
                                        "struct", "tinyint", "smallint",  "float",  "timestamp_ntz",
                                        "binary", "map"};
    switch (t->kind) {
    case CS_FT_DECIMAL:
        cs_sbuf_printf(out, "decimal(%d,%d)", t->precision, t->scale);
        return;
    case CS_FT_ARRAY:
        cs_sbuf_puts(out, "array<");
        cs_ftype_simple_string(t->element, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_FT_MAP:
        cs_sbuf_puts(out, "map<");
        cs_ftype_simple_string(t->key, out);
        cs_sbuf_putc(out, ',');
        cs_ftype_simple_string(t->element, out);
        cs_sbuf_putc(out, '>');
        return;
    case CS_FT_STRUCT:
        cs_sbuf_puts(out, "struct<");
        for (int i = 0; i < t->nfields; i++) {
            cs_sbuf_printf(out, "%s%s:", i ? "," : "", t->names[i]);
            cs_ftype_simple_string(t->fields[i], out);
        }
        cs_sbuf_putc(out, '>');
        return;
    default:
        cs_sbuf_puts(out, names[t->kind]);
    }
}

/* ---- DDL: name TYPE, ... ------------------------------------------------------------------ */

typedef struct ddl_cursor {
    const char *p;
    cs_error *err;
} ddl_cursor;

static void ddl_space(ddl_cursor *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static char *ddl_name(ddl_cursor *c)
{
    ddl_space(c);
    const char *start = c->p;
    if (*c->p == '`') {
        const char *end = strchr(c->p + 1, '`');
        if (!end) return NULL;
        c->p = end + 1;
        return cs_xstrndup(start + 1, (size_t)(end - start - 1));
    }
    while (*c->p && (isalnum((unsigned char)*c->p) || *c->p == '_'))
        c->p++;
    return c->p > start ? cs_xstrndup(start, (size_t)(c->p - start)) : NULL;
}

static bool ddl_eat(ddl_cursor *c, char ch)
{
    ddl_space(c);
    if (*c->p != ch) return false;
    c->p++;
    return true;
}

static cs_ftype *ddl_type(ddl_cursor *c);

static cs_ftype *ddl_fields(ddl_cursor *c, char close)
{
    cs_ftype *st = cs_ftype_new(CS_FT_STRUCT);
    do {
        char *name = ddl_name(c);
        if (!name) {
            cs_error_set(c->err, CS_EINVAL, "schema: a field name expected at '%.20s'", c->p);
            cs_ftype_free(st);
            return NULL;
        }
        ddl_eat(c, ':');
        cs_ftype *t = ddl_type(c);
        if (!t) {
            free(name);
            cs_ftype_free(st);
            return NULL;
        }
        cs_ftype_add_field(st, name, t);
        free(name);
    } while (ddl_eat(c, ','));
    ddl_space(c);
    if (*c->p != close) {
        cs_error_set(c->err, CS_EINVAL, "schema: ',' or the end expected at '%.20s'", c->p);
        cs_ftype_free(st);
        return NULL;
    }
    if (close) c->p++;
    return st;
}

static cs_ftype *ddl_type(ddl_cursor *c)
{
    static const struct {
        const char *name;
        cs_ftype_kind kind;
    } simple[] = {{"boolean", CS_FT_BOOLEAN}, {"int", CS_FT_INT},
                  {"integer", CS_FT_INT},     {"bigint", CS_FT_LONG},
                  {"long", CS_FT_LONG},       {"double", CS_FT_DOUBLE},
                  {"date", CS_FT_DATE},       {"timestamp", CS_FT_TIMESTAMP},
                  {"string", CS_FT_STRING},   {"tinyint", CS_FT_BYTE},
                  {"byte", CS_FT_BYTE},       {"smallint", CS_FT_SHORT},
                  {"short", CS_FT_SHORT},     {"float", CS_FT_FLOAT},
                  {"real", CS_FT_FLOAT},      {"timestamp_ntz", CS_FT_TIMESTAMP_NTZ},
                  {"binary", CS_FT_BINARY}};
    char *name = ddl_name(c);
    if (!name) {
        cs_error_set(c->err, CS_EINVAL, "schema: a type expected at '%.20s'", c->p);
        return NULL;
    }
    cs_ftype *t = NULL;
    for (size_t i = 0; i < sizeof simple / sizeof simple[0] && !t; i++)
        if (cs_str_ieq(name, simple[i].name)) t = cs_ftype_new(simple[i].kind);
    if (!t && cs_str_ieq(name, "decimal")) {
        int p = 10, s = 0;
        if (ddl_eat(c, '(')) {
            char *end;
            p = (int)strtol(c->p, &end, 10);
            c->p = end;
            if (ddl_eat(c, ',')) {
                s = (int)strtol(c->p, &end, 10);
                c->p = end;
            }
            if (!ddl_eat(c, ')') || p < 1 || p > CS_DECIMAL_MAX_PRECISION || s < 0 || s > p) {
                cs_error_set(c->err, CS_EINVAL,
                             "schema: decimal(p,s) with 1 <= p <= 38, 0 <= s <= p expected");
                free(name);
                return NULL;
            }
        }
        t = cs_ftype_decimal_new(p, s);
    } else if (!t && cs_str_ieq(name, "array")) {
        cs_ftype *e = ddl_eat(c, '<') ? ddl_type(c) : NULL;
        if (e && ddl_eat(c, '>')) {
            t = cs_ftype_new(CS_FT_ARRAY);
            t->element = e;
        } else
            cs_ftype_free(e);
    } else if (!t && cs_str_ieq(name, "map")) {
        cs_ftype *k = ddl_eat(c, '<') ? ddl_type(c) : NULL;
        cs_ftype *v = k && ddl_eat(c, ',') ? ddl_type(c) : NULL;
        if (v && ddl_eat(c, '>')) {
            t = cs_ftype_new(CS_FT_MAP);
            t->key = k;
            t->element = v;
        } else {
            cs_ftype_free(k);
            cs_ftype_free(v);
        }
    } else if (!t && cs_str_ieq(name, "struct")) {
        t = ddl_eat(c, '<') ? ddl_fields(c, '>') : NULL;
    }
    if (!t && c->err && c->err->code == CS_OK)
        cs_error_set(c->err, CS_EINVAL, "schema: unknown or incomplete type '%s'", name);
    free(name);
    return t;
}

cs_ftype *cs_ftype_parse_ddl(const char *ddl, cs_error *err)
{
    cs_error local;
    cs_error_clear(&local);
    ddl_cursor c = {ddl, err ? err : &local};
    cs_error_clear(c.err);
    return ddl_fields(&c, '\0');
}

/* ---- chunks ------------------------------------------------------------------------------- */

static void column_alloc(cs_field_column *k, size_t cap)
{
    k->nulls = cs_xcalloc(cap, 1);
    switch (k->kind) {
    case CS_FT_DOUBLE:
    case CS_FT_FLOAT:
        k->f64 = cs_xcalloc(cap, sizeof *k->f64);
        break;
    case CS_FT_DECIMAL:
        k->dec = cs_xcalloc(cap, sizeof *k->dec);
        break;
    case CS_FT_STRING:
    case CS_FT_BINARY:
        k->offsets = cs_xcalloc(cap + 1, sizeof *k->offsets);
        k->bytes_cap = 64 * cap;
        k->bytes = cs_xmalloc(k->bytes_cap);
        break;
    case CS_FT_ARRAY:
    case CS_FT_STRUCT:
    case CS_FT_MAP:
        k->nested = cs_xcalloc(cap, sizeof *k->nested);
        break;
    default:
        k->i64 = cs_xcalloc(cap, sizeof *k->i64);
    }
}

cs_field_chunk *cs_field_chunk_new(const cs_ftype *schema, size_t capacity)
{
    cs_field_chunk *c = cs_xcalloc(1, sizeof *c);
    c->schema = schema;
    c->ncols = schema->nfields;
    c->capacity = capacity ? capacity : 1;
    c->cols = cs_xcalloc((size_t)c->ncols + 1, sizeof *c->cols);
    for (int i = 0; i < c->ncols; i++) {
        c->cols[i].kind = schema->fields[i]->kind;
        c->cols[i].scale = schema->fields[i]->scale;
        column_alloc(&c->cols[i], c->capacity);
    }
    return c;
}

static void release_nested(cs_field_column *k, size_t from, size_t to)
{
    if (!k->nested) return;
    for (size_t r = from; r < to; r++) {
        json_decref(k->nested[r]);
        k->nested[r] = NULL;
    }
}

void cs_field_chunk_reset(cs_field_chunk *c)
{
    for (int i = 0; i < c->ncols; i++) {
        release_nested(&c->cols[i], 0, c->rows + (c->rows < c->capacity));
        c->cols[i].bytes_len = 0;
        if (c->cols[i].offsets) c->cols[i].offsets[0] = 0;
    }
    c->rows = 0;
}

void cs_field_chunk_free(cs_field_chunk *c)
{
    if (!c) return;
    cs_field_chunk_reset(c);
    for (int i = 0; i < c->ncols; i++) {
        cs_field_column *k = &c->cols[i];
        free(k->nulls);
        free(k->i64);
        free(k->f64);
        free(k->dec);
        free(k->offsets);
        free(k->bytes);
        free(k->nested);
    }
    free(c->cols);
    free(c);
}

void cs_field_set_null(cs_field_chunk *c, int col)
{
    cs_field_column *k = &c->cols[col];
    k->nulls[c->rows] = 1;
    if (k->offsets) k->offsets[c->rows + 1] = k->offsets[c->rows];
    if (k->nested) {
        json_decref(k->nested[c->rows]);
        k->nested[c->rows] = NULL;
    }
}

void cs_field_set_i64(cs_field_chunk *c, int col, int64_t v)
{
    c->cols[col].nulls[c->rows] = 0;
    c->cols[col].i64[c->rows] = v;
}

void cs_field_set_f64(cs_field_chunk *c, int col, double v)
{
    c->cols[col].nulls[c->rows] = 0;
    c->cols[col].f64[c->rows] = v;
}

void cs_field_set_dec(cs_field_chunk *c, int col, __int128 unscaled)
{
    c->cols[col].nulls[c->rows] = 0;
    c->cols[col].dec[c->rows] = unscaled;
}

void cs_field_set_str(cs_field_chunk *c, int col, const char *s, size_t n)
{
    cs_field_column *k = &c->cols[col];
    size_t start = (size_t)k->offsets[c->rows];
    if (start + n > k->bytes_cap) {
        while (start + n > k->bytes_cap)
            k->bytes_cap *= 2;
        k->bytes = cs_xrealloc(k->bytes, k->bytes_cap);
    }
    memcpy(k->bytes + start, s, n);
    k->nulls[c->rows] = 0;
    k->offsets[c->rows + 1] = start + n;
    k->bytes_len = start + n;
}

void cs_field_shrink_str(cs_field_chunk *c, int col, size_t n)
{
    cs_field_column *k = &c->cols[col];
    k->offsets[c->rows + 1] = k->offsets[c->rows] + n;
    k->bytes_len = k->offsets[c->rows + 1];
}

void cs_field_set_nested(cs_field_chunk *c, int col, void *json)
{
    cs_field_column *k = &c->cols[col];
    json_decref(k->nested[c->rows]);
    k->nested[c->rows] = json;
    k->nulls[c->rows] = json == NULL;
}

void cs_field_chunk_commit_row(cs_field_chunk *c)
{
    c->rows++;
    if (c->rows < c->capacity)
        for (int i = 0; i < c->ncols; i++)
            if (c->cols[i].offsets) c->cols[i].offsets[c->rows + 1] = c->cols[i].offsets[c->rows];
}

void cs_field_chunk_discard_row(cs_field_chunk *c)
{
    for (int i = 0; i < c->ncols; i++) {
        cs_field_column *k = &c->cols[i];
        if (k->offsets) {
            k->offsets[c->rows + 1] = k->offsets[c->rows];
            k->bytes_len = k->offsets[c->rows];
        }
        release_nested(k, c->rows, c->rows + 1);
    }
}
