/*
 * kernels_json_read.c — from_json(json) into the node's result type (the schema the analyzer
 * parsed from from_json's second argument) and schema_of_json(json), over jansson (DESIGN §5's
 * JSON library), as Spark's JsonToStructs and SchemaOfJson in PERMISSIVE mode:
 *
 *   from_json   NULL or blank text gives NULL; text that is not JSON gives a struct of null
 *               fields (a struct schema) or NULL (an array or map schema); fields are looked up
 *               by name, missing ones and values of another JSON kind are null (a string field
 *               takes any value: a non-string as its compact JSON text).
 *   schema_of_json  the DDL of the inferred type: integers BIGINT, other numbers DOUBLE, strings
 *               and nulls STRING, booleans BOOLEAN, objects STRUCT<...> with their fields sorted
 *               by name, arrays ARRAY<the elements' merged type> (empty: STRING).
 *
 * Every row is parsed once; values go straight into the column builders (no per-value
 * allocation of ours). Called through cs_px_json_read_lookup (kernels_json.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static void put_null(cs_col_builder *b)
{
    cs_col_builder_append_nulls(b, 1);
}

static void put_json(cs_col_builder *b, json_t *v);

static void put_struct(cs_col_builder *b, json_t *obj)
{
    const cs_col_type *t = b->type;
    cs_col_builder_append_structs(b, 1, NULL);
    for (int f = 0; f < t->n_fields; f++)
        put_json(cs_col_builder_child(b, f), obj ? json_object_get(obj, t->fields[f].name) : NULL);
}

static void put_decimal(cs_col_builder *b, json_t *v)
{
    const cs_col_type *t = b->type;
    __int128 x;
    if (json_is_integer(v)) {
        if (!cs_px_dec_rescale((__int128)json_integer_value(v), 0, t->scale, &x)) {
            put_null(b);
            return;
        }
    } else {
        double d = json_real_value(v) * (double)cs_px_pow10(t->scale);
        if (!isfinite(d) || fabs(d) > 1e37) {
            put_null(b);
            return;
        }
        x = (__int128)llround(d);
    }
    if (!cs_px_dec_fits(x, t->precision)) {
        put_null(b);
        return;
    }
    cs_col_builder_append_values(b, &x, 1, NULL);
}

/* one row of v (NULL: missing) into b, by b's type */
static void put_json(cs_col_builder *b, json_t *v)
{
    if (!v || json_is_null(v)) {
        put_null(b);
        return;
    }
    const cs_col_type *t = b->type;
    switch (t->id) {
    case CS_TYPE_BOOLEAN: {
        if (!json_is_boolean(v)) break;
        uint8_t x = json_is_true(v);
        cs_col_builder_append_values(b, &x, 1, NULL);
        return;
    }
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG: {
        if (!json_is_integer(v)) break;
        json_int_t x = json_integer_value(v);
        if (!cs_px_int_fits(t->id, x)) break;
        int8_t i8 = (int8_t)x;
        int16_t i16 = (int16_t)x;
        int32_t i32 = (int32_t)x;
        int64_t i64 = x;
        const void *p = t->id == CS_TYPE_BYTE    ? (const void *)&i8
                        : t->id == CS_TYPE_SHORT ? (const void *)&i16
                        : t->id == CS_TYPE_INT   ? (const void *)&i32
                                                 : (const void *)&i64;
        cs_col_builder_append_values(b, p, 1, NULL);
        return;
    }
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE: {
        if (!json_is_number(v)) break;
        double d = json_number_value(v);
        float f = (float)d;
        cs_col_builder_append_values(b, t->id == CS_TYPE_FLOAT ? (const void *)&f : &d, 1, NULL);
        return;
    }
    case CS_TYPE_DECIMAL:
        if (!json_is_number(v)) break;
        put_decimal(b, v);
        return;
    case CS_TYPE_STRING: {
        if (json_is_string(v)) {
            cs_col_builder_append_string(b, json_string_value(v), json_string_length(v));
            return;
        }
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
        if (!text) break;
        cs_col_builder_append_string(b, text, strlen(text));
        free(text);
        return;
    }
    case CS_TYPE_ARRAY: {
        if (!json_is_array(v)) break;
        int32_t len = (int32_t)json_array_size(v);
        cs_col_builder_append_lists(b, &len, 1, NULL);
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) put_json(cs_col_builder_child(b, 0), x);
        return;
    }
    case CS_TYPE_MAP: {
        if (!json_is_object(v) || t->fields[0].type->id != CS_TYPE_STRING) break;
        int32_t len = (int32_t)json_object_size(v);
        cs_col_builder_append_lists(b, &len, 1, NULL);
        const char *key;
        json_t *x;
        json_object_foreach(v, key, x)
        {
            cs_col_builder_append_string(cs_col_builder_child(b, 0), key, strlen(key));
            put_json(cs_col_builder_child(b, 1), x);
        }
        return;
    }
    case CS_TYPE_STRUCT:
        if (!json_is_object(v)) break;
        put_struct(b, v);
        return;
    default:
        break;
    }
    put_null(b);
}

static bool blank(const uint8_t *s, int32_t len)
{
    for (int32_t i = 0; i < len; i++)
        if (!isspace(s[i])) return false;
    return true;
}

static int from_json_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    bool is_struct = k->e->type->id == CS_TYPE_STRUCT;
    for (int64_t i = 0; i < n; i++) {
        int32_t len = 0;
        const uint8_t *p = cs_column_is_valid(a[0], i * s) ? cs_px_bytes(a[0], i, s, &len) : NULL;
        if (!p || blank(p, len)) {
            put_null(b);
            continue;
        }
        json_error_t jerr;
        json_t *doc = json_loadb((const char *)p, (size_t)len, JSON_DECODE_ANY, &jerr);
        if (is_struct && !json_is_object(doc))
            put_struct(b, NULL); /* PERMISSIVE: a row of nulls */
        else
            put_json(b, doc);
        json_decref(doc);
    }
    return cs_px_builder_result(b, CS_OK, out);
}

/* ---- schema_of_json ---- */

enum { K_NULL, K_BOOL, K_LONG, K_DOUBLE, K_STRING, K_ARRAY, K_STRUCT };

typedef struct inferred inferred;
struct inferred {
    int kind;
    inferred *element; /* K_ARRAY */
    int n_fields;      /* K_STRUCT, sorted by name */
    char **names;
    inferred **fields;
};

static void inferred_free(inferred *t)
{
    if (!t) return;
    inferred_free(t->element);
    for (int i = 0; i < t->n_fields; i++) {
        free(t->names[i]);
        inferred_free(t->fields[i]);
    }
    free(t->names);
    free(t->fields);
    free(t);
}

static inferred *merge(inferred *x, inferred *y);

static int cmp_names(const void *a, const void *b)
{
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

static inferred *infer(json_t *v)
{
    inferred *t = cs_xcalloc(1, sizeof *t);
    if (!v || json_is_null(v)) {
        t->kind = K_NULL;
    } else if (json_is_boolean(v)) {
        t->kind = K_BOOL;
    } else if (json_is_integer(v)) {
        t->kind = K_LONG;
    } else if (json_is_real(v)) {
        t->kind = K_DOUBLE;
    } else if (json_is_string(v)) {
        t->kind = K_STRING;
    } else if (json_is_array(v)) {
        t->kind = K_ARRAY;
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) t->element = merge(t->element, infer(x));
    } else {
        t->kind = K_STRUCT;
        size_t n = json_object_size(v);
        const char **keys = cs_xcalloc(n ? n : 1, sizeof *keys);
        const char *key;
        json_t *x;
        size_t i = 0;
        json_object_foreach(v, key, x) keys[i++] = key;
        qsort(keys, n, sizeof *keys, cmp_names);
        t->n_fields = (int)n;
        t->names = cs_xcalloc(n ? n : 1, sizeof *t->names);
        t->fields = cs_xcalloc(n ? n : 1, sizeof *t->fields);
        for (i = 0; i < n; i++) {
            t->names[i] = cs_xstrdup(keys[i]);
            t->fields[i] = infer(json_object_get(v, keys[i]));
        }
        free(keys);
    }
    return t;
}

/* the common type of x and y (both taken over): Spark's compatibleType of inferred types */
static inferred *merge(inferred *x, inferred *y)
{
    if (!x) return y;
    if (!y) return x;
    if (x->kind == K_NULL) {
        inferred_free(x);
        return y;
    }
    if (y->kind == K_NULL || (x->kind == y->kind && x->kind < K_ARRAY)) {
        inferred_free(y);
        return x;
    }
    if ((x->kind == K_LONG || x->kind == K_DOUBLE) && (y->kind == K_LONG || y->kind == K_DOUBLE)) {
        x->kind = K_DOUBLE;
        inferred_free(y);
        return x;
    }
    if (x->kind == K_ARRAY && y->kind == K_ARRAY) {
        x->element = merge(x->element, y->element);
        y->element = NULL;
        inferred_free(y);
        return x;
    }
    if (x->kind == K_STRUCT && y->kind == K_STRUCT) {
        for (int j = 0; j < y->n_fields; j++) {
            int i = 0;
            while (i < x->n_fields && strcmp(x->names[i], y->names[j]) != 0)
                i++;
            if (i < x->n_fields) {
                x->fields[i] = merge(x->fields[i], y->fields[j]);
                free(y->names[j]);
            } else {
                x->names = cs_xrealloc(x->names, sizeof *x->names * (size_t)(x->n_fields + 1));
                x->fields = cs_xrealloc(x->fields, sizeof *x->fields * (size_t)(x->n_fields + 1));
                x->names[x->n_fields] = y->names[j];
                x->fields[x->n_fields++] = y->fields[j];
            }
        }
        free(y->names);
        free(y->fields);
        y->n_fields = 0;
        y->names = NULL;
        y->fields = NULL;
        inferred_free(y);
        /* keep the fields sorted by name */
        for (int i = 1; i < x->n_fields; i++)
            for (int j = i; j > 0 && strcmp(x->names[j - 1], x->names[j]) > 0; j--) {
                char *nm = x->names[j];
                inferred *f = x->fields[j];
                x->names[j] = x->names[j - 1];
                x->fields[j] = x->fields[j - 1];
                x->names[j - 1] = nm;
                x->fields[j - 1] = f;
            }
        return x;
    }
    inferred_free(y);
    inferred_free(x->element);
    for (int i = 0; i < x->n_fields; i++) {
        free(x->names[i]);
        inferred_free(x->fields[i]);
    }
    free(x->names);
    free(x->fields);
    memset(x, 0, sizeof *x);
    x->kind = K_STRING;
    return x;
}

static bool plain_name(const char *s)
{
    if (!*s || isdigit((unsigned char)*s)) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return false;
    return true;
}

static void ddl(const inferred *t, cs_sbuf *sb)
{
    switch (t ? t->kind : K_STRING) {
    case K_BOOL:
        cs_sbuf_puts(sb, "BOOLEAN");
        return;
    case K_LONG:
        cs_sbuf_puts(sb, "BIGINT");
        return;
    case K_DOUBLE:
        cs_sbuf_puts(sb, "DOUBLE");
        return;
    case K_ARRAY:
        cs_sbuf_puts(sb, "ARRAY<");
        ddl(t->element, sb);
        cs_sbuf_putc(sb, '>');
        return;
    case K_STRUCT:
        cs_sbuf_puts(sb, "STRUCT<");
        for (int i = 0; i < t->n_fields; i++) {
            if (i) cs_sbuf_puts(sb, ", ");
            if (plain_name(t->names[i])) {
                cs_sbuf_puts(sb, t->names[i]);
            } else {
                cs_sbuf_putc(sb, '`');
                for (const char *c = t->names[i]; *c; c++) {
                    if (*c == '`') cs_sbuf_putc(sb, '`');
                    cs_sbuf_putc(sb, *c);
                }
                cs_sbuf_putc(sb, '`');
            }
            cs_sbuf_puts(sb, ": ");
            ddl(t->fields[i], sb);
        }
        cs_sbuf_putc(sb, '>');
        return;
    default:
        cs_sbuf_puts(sb, "STRING");
    }
}

static int schema_of_json_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s = cs_px_stride(a[0], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * s)) {
            put_null(b);
            continue;
        }
        int32_t len;
        const uint8_t *p = cs_px_bytes(a[0], i, s, &len);
        json_error_t jerr;
        json_t *doc = json_loadb((const char *)p, (size_t)len, JSON_DECODE_ANY, &jerr);
        inferred *t = doc ? infer(doc) : NULL;
        sb.len = 0;
        ddl(t, &sb);
        cs_col_builder_append_string(b, sb.data, sb.len);
        inferred_free(t);
        json_decref(doc);
    }
    cs_sbuf_free(&sb);
    return cs_px_builder_result(b, CS_OK, out);
}

cs_px_kernel cs_px_json_read_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    if (n < 1 || t[0]->id != CS_TYPE_STRING) return NULL;
    if (strcmp(fn, "from_json") == 0 && n == 1 &&
        (result->id == CS_TYPE_STRUCT || result->id == CS_TYPE_ARRAY || result->id == CS_TYPE_MAP))
        return from_json_kernel;
    if (strcmp(fn, "schema_of_json") == 0 && n == 1) return schema_of_json_kernel;
    return NULL;
}
