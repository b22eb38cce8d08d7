/*
 * text_batch.c — the CSV and JSON formats' chunks into column batches and back (see
 * text_batch.h). Called by csv/csv_format.c and json/json_format.c on the task's thread.
 *
 * Chunk to batch: per column one pass over the chunk's array into a buffer from the batch's
 * allocator (cs_col_buffer_*): 64-bit values copied as they are, int and date narrowed to int32,
 * booleans and nulls packed into bitmaps, string offsets narrowed to int32 and the bytes copied
 * at once. Struct and array columns (JSON only) hold one jansson value per row, already
 * conformed by the reader (json_reader.c: dates and timestamps as the writer's text, doubles as
 * reals, "NaN"/"Infinity" as strings); they go through column builders, value by value, with no
 * allocation but the builders' geometric growth. A nested timestamp therefore keeps milliseconds
 * (the writer's text), as Spark's JSON writer would print it.
 *
 * Batch to chunk (writers): values through the chunk's setters; nested values become the
 * jansson values json_writer.c prints (objects without their null fields, as Spark's
 * ignoreNullFields).
 */
#include "formats/text_batch.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"

/* ---- types ---------------------------------------------------------------------------------- */

cs_col_type *cs_text_col_type(const cs_ftype *t)
{
    switch (t->kind) {
    case CS_FT_BOOLEAN:
        return cs_col_type_primitive(CS_TYPE_BOOLEAN);
    case CS_FT_BYTE:
        return cs_col_type_primitive(CS_TYPE_BYTE);
    case CS_FT_SHORT:
        return cs_col_type_primitive(CS_TYPE_SHORT);
    case CS_FT_INT:
        return cs_col_type_primitive(CS_TYPE_INT);
    case CS_FT_LONG:
        return cs_col_type_primitive(CS_TYPE_LONG);
    case CS_FT_DECIMAL:
        return cs_col_type_decimal(t->precision, t->scale, NULL);
    case CS_FT_FLOAT:
        return cs_col_type_primitive(CS_TYPE_FLOAT);
    case CS_FT_DOUBLE:
        return cs_col_type_primitive(CS_TYPE_DOUBLE);
    case CS_FT_DATE:
        return cs_col_type_primitive(CS_TYPE_DATE);
    case CS_FT_TIMESTAMP:
        return cs_col_type_primitive(CS_TYPE_TIMESTAMP);
    case CS_FT_TIMESTAMP_NTZ:
        return cs_col_type_primitive(CS_TYPE_TIMESTAMP_NTZ);
    case CS_FT_BINARY:
        return cs_col_type_primitive(CS_TYPE_BINARY);
    case CS_FT_ARRAY:
        return cs_col_type_array(cs_text_col_type(t->element), true);
    case CS_FT_MAP:
        return cs_col_type_map(cs_text_col_type(t->key), cs_text_col_type(t->element), true);
    case CS_FT_STRUCT: {
        cs_col_field *f = cs_xcalloc((size_t)t->nfields + 1, sizeof *f);
        for (int i = 0; i < t->nfields; i++)
            f[i] = (cs_col_field){t->names[i], cs_text_col_type(t->fields[i]), true};
        cs_col_type *st = cs_col_type_struct(f, t->nfields);
        free(f);
        return st;
    }
    case CS_FT_NULL:
        return cs_col_type_primitive(CS_TYPE_NULL);
    default:
        return cs_col_type_primitive(CS_TYPE_STRING);
    }
}

void cs_text_sql_type(const cs_col_type *t, cs_sbuf *out)
{
    if (t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_MAP || t->id == CS_TYPE_STRUCT) {
        cs_sbuf_puts(out, t->id == CS_TYPE_ARRAY ? "ARRAY<"
                          : t->id == CS_TYPE_MAP ? "MAP<"
                                                 : "STRUCT<");
        for (int i = 0; i < t->n_fields; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            if (t->id == CS_TYPE_STRUCT) cs_sbuf_printf(out, "%s: ", t->fields[i].name);
            cs_text_sql_type(t->fields[i].type, out);
        }
        cs_sbuf_putc(out, '>');
        return;
    }
    size_t from = out->len;
    cs_col_type_simple_string(t, out);
    for (size_t i = from; i < out->len; i++)
        if (out->data[i] >= 'a' && out->data[i] <= 'z') out->data[i] = (char)(out->data[i] - 32);
}

static cs_ftype *unsupported(const cs_col_type *t, const char *format, const char *field,
                             cs_error *err)
{
    cs_sbuf name = CS_SBUF_INIT;
    cs_text_sql_type(t, &name);
    cs_error_set(err, CS_EUNSUPPORTED,
                 "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The %s datasource doesn't support the "
                 "column `%s` of the type \"%s\".",
                 format, field, cs_sbuf_str(&name));
    cs_sbuf_free(&name);
    return NULL;
}

int cs_text_unsupported(const cs_col_type *t, const char *format, const char *field, cs_error *err)
{
    unsupported(t, format, field, err);
    return CS_EUNSUPPORTED;
}

cs_ftype *cs_text_ftype(const cs_col_type *t, const char *format, const char *field, cs_error *err)
{
    /* CSV takes no nested column (Spark's CSVFileFormat.supportDataType: atomic types only) */
    if (!strcmp(format, "CSV") &&
        (t->id == CS_TYPE_ARRAY || t->id == CS_TYPE_STRUCT || t->id == CS_TYPE_MAP))
        return unsupported(t, format, field, err);
    switch (t->id) {
    case CS_TYPE_BOOLEAN:
        return cs_ftype_new(CS_FT_BOOLEAN);
    case CS_TYPE_BYTE:
        return cs_ftype_new(CS_FT_BYTE);
    case CS_TYPE_SHORT:
        return cs_ftype_new(CS_FT_SHORT);
    case CS_TYPE_INT:
        return cs_ftype_new(CS_FT_INT);
    case CS_TYPE_LONG:
        return cs_ftype_new(CS_FT_LONG);
    case CS_TYPE_DECIMAL:
        return cs_ftype_decimal_new(t->precision, t->scale);
    case CS_TYPE_FLOAT:
        return cs_ftype_new(CS_FT_FLOAT);
    case CS_TYPE_DOUBLE:
        return cs_ftype_new(CS_FT_DOUBLE);
    case CS_TYPE_DATE:
        return cs_ftype_new(CS_FT_DATE);
    case CS_TYPE_TIMESTAMP:
        return cs_ftype_new(CS_FT_TIMESTAMP);
    case CS_TYPE_TIMESTAMP_NTZ:
        return cs_ftype_new(CS_FT_TIMESTAMP_NTZ);
    case CS_TYPE_STRING:
        return cs_ftype_new(CS_FT_STRING);
    case CS_TYPE_BINARY:
        return cs_ftype_new(CS_FT_BINARY);
    case CS_TYPE_ARRAY: {
        cs_ftype *el = cs_text_ftype(t->fields[0].type, format, field, err);
        if (!el) return NULL;
        cs_ftype *a = cs_ftype_new(CS_FT_ARRAY);
        a->element = el;
        return a;
    }
    case CS_TYPE_MAP: {
        cs_ftype *k = cs_text_ftype(t->fields[0].type, format, field, err);
        cs_ftype *v = k ? cs_text_ftype(t->fields[1].type, format, field, err) : NULL;
        if (!v) {
            cs_ftype_free(k);
            return NULL;
        }
        cs_ftype *m = cs_ftype_new(CS_FT_MAP);
        m->key = k;
        m->element = v;
        return m;
    }
    case CS_TYPE_STRUCT: {
        cs_ftype *st = cs_ftype_new(CS_FT_STRUCT);
        for (int i = 0; i < t->n_fields; i++) {
            cs_ftype *f = cs_text_ftype(t->fields[i].type, format, t->fields[i].name, err);
            if (!f) {
                cs_ftype_free(st);
                return NULL;
            }
            cs_ftype_add_field(st, t->fields[i].name, f);
        }
        return st;
    }
    default:
        return unsupported(t, format, field, err);
    }
}

cs_ftype *cs_text_schema_ftype(const cs_col_type *schema, const char *format, cs_error *err)
{
    cs_ftype *st = cs_ftype_new(CS_FT_STRUCT);
    for (int i = 0; i < schema->n_fields; i++) {
        cs_ftype *f = cs_text_ftype(schema->fields[i].type, format, schema->fields[i].name, err);
        if (!f) {
            cs_ftype_free(st);
            return NULL;
        }
        cs_ftype_add_field(st, schema->fields[i].name, f);
    }
    return st;
}

int cs_text_projection(const cs_field_chunk *chunk, const cs_col_type *read_schema, int *cols,
                       cs_error *err)
{
    for (int i = 0; i < read_schema->n_fields; i++) {
        const char *name = read_schema->fields[i].name;
        int k = cs_ftype_field_index(chunk->schema, name);
        if (k < 0)
            return cs_error_set(err, CS_EINVAL, "the column %s to read is not in the data schema",
                                name);
        cs_col_type *have = cs_text_col_type(chunk->schema->fields[k]);
        bool same = cs_col_type_equal(have, read_schema->fields[i].type);
        cs_col_type_unref(have);
        if (!same)
            return cs_error_set(err, CS_EINVAL,
                                "the column %s to read has another type than in the data schema",
                                name);
        cols[i] = k;
    }
    return CS_OK;
}

/* ---- chunk to batch ---------------------------------------------------------------------------
 */

/* The validity bitmap of a chunk column's null flags (none when no row is null). */
static void set_validity(cs_column *c, const uint8_t *nulls, int64_t rows)
{
    int64_t nulls_n = 0;
    for (int64_t r = 0; r < rows; r++)
        nulls_n += nulls[r] != 0;
    c->null_count = nulls_n;
    if (!nulls_n) return;
    c->validity_size = (size_t)(rows + 7) / 8;
    c->validity = cs_col_buffer_alloc(c->alloc, c->validity_size);
    for (int64_t r = 0; r < rows; r++)
        if (!nulls[r]) c->validity[r >> 3] |= (uint8_t)(1u << (r & 7));
}

static void *values_buffer(cs_column *c, size_t bytes)
{
    c->values_size = bytes;
    c->values = cs_col_buffer_alloc(c->alloc, bytes ? bytes : 1);
    if (!bytes) c->values_size = 1;
    return c->values;
}

static void append_nested(cs_col_builder *b, const cs_col_type *t, json_t *v);

static void append_one(cs_col_builder *b, const void *value)
{
    cs_col_builder_append_values(b, value, 1, NULL);
}

/* A conformed jansson value (json_reader.c's conform) into builder b of type t. */
static void append_nested(cs_col_builder *b, const cs_col_type *t, json_t *v)
{
    if (!v || json_is_null(v)) {
        cs_col_builder_append_nulls(b, 1);
        return;
    }
    switch (t->id) {
    case CS_TYPE_STRUCT: {
        cs_col_builder_append_structs(b, 1, NULL);
        for (int i = 0; i < t->n_fields; i++)
            append_nested(b->children[i], t->fields[i].type, json_object_get(v, t->fields[i].name));
        return;
    }
    case CS_TYPE_ARRAY: {
        int32_t n = (int32_t)json_array_size(v);
        cs_col_builder_append_lists(b, &n, 1, NULL);
        for (int32_t i = 0; i < n; i++)
            append_nested(b->children[0], t->fields[0].type, json_array_get(v, (size_t)i));
        return;
    }
    case CS_TYPE_MAP: { /* keys as strings (the reader takes map<string,...> only) */
        int32_t n = (int32_t)json_object_size(v);
        const char *key;
        json_t *e;
        cs_col_builder_append_lists(b, &n, 1, NULL);
        json_object_foreach(v, key, e)
        {
            cs_col_builder_append_string(b->children[0], key, strlen(key));
            append_nested(b->children[1], t->fields[1].type, e);
        }
        return;
    }
    case CS_TYPE_STRING:
        if (json_is_string(v))
            cs_col_builder_append_string(b, json_string_value(v), json_string_length(v));
        else {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
            cs_col_builder_append_string(b, text, strlen(text));
            free(text);
        }
        return;
    case CS_TYPE_BOOLEAN: {
        uint8_t x = json_is_true(v);
        append_one(b, &x);
        return;
    }
    case CS_TYPE_BYTE: {
        int8_t x = (int8_t)json_integer_value(v);
        append_one(b, &x);
        return;
    }
    case CS_TYPE_SHORT: {
        int16_t x = (int16_t)json_integer_value(v);
        append_one(b, &x);
        return;
    }
    case CS_TYPE_INT: {
        int32_t x = (int32_t)json_integer_value(v);
        append_one(b, &x);
        return;
    }
    case CS_TYPE_LONG: {
        int64_t x = json_integer_value(v);
        append_one(b, &x);
        return;
    }
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE: {
        double x = json_is_number(v)                ? json_number_value(v)
                   : !json_is_string(v)             ? NAN
                   : json_string_value(v)[0] == 'N' ? NAN
                   : json_string_value(v)[0] == '-' ? -INFINITY
                                                    : INFINITY;
        if (t->id == CS_TYPE_FLOAT) {
            float f = (float)x;
            append_one(b, &f);
        } else
            append_one(b, &x);
        return;
    }
    case CS_TYPE_DECIMAL: {
        char text[64];
        __int128 u, out = 0;
        int p, s;
        bool too_long;
        if (json_is_integer(v))
            snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        else
            snprintf(text, sizeof text, "%.17g", json_number_value(v));
        if (!cs_tv_parse_decimal(text, strlen(text), &u, &p, &s, &too_long) ||
            !cs_tv_decimal_fit(u, s, t->precision, t->scale, &out)) {
            cs_col_builder_append_nulls(b, 1);
            return;
        }
        append_one(b, &out);
        return;
    }
    case CS_TYPE_DATE: {
        int32_t d = 0;
        if (!json_is_string(v) ||
            !cs_tv_parse_date_lenient(json_string_value(v), json_string_length(v), &d)) {
            cs_col_builder_append_nulls(b, 1);
            return;
        }
        append_one(b, &d);
        return;
    }
    case CS_TYPE_TIMESTAMP: {
        int64_t us = 0;
        bool zone;
        if (!json_is_string(v) || !cs_tv_parse_timestamp_lenient(
                                      json_string_value(v), json_string_length(v), &us, &zone)) {
            cs_col_builder_append_nulls(b, 1);
            return;
        }
        append_one(b, &us);
        return;
    }
    default:
        cs_col_builder_append_nulls(b, 1);
    }
}

static cs_column *nested_column(const cs_field_column *k, cs_col_type *type, int64_t rows,
                                cs_col_allocator *alloc)
{
    cs_col_builder *b = cs_col_builder_new(alloc, type);
    cs_col_builder_reserve(b, rows, 0);
    for (int64_t r = 0; r < rows; r++)
        append_nested(b, type, k->nulls[r] ? NULL : (json_t *)k->nested[r]);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static cs_column *flat_column(const cs_field_column *k, cs_col_type *type, int64_t rows,
                              cs_col_allocator *alloc, cs_error *err)
{
    if (k->kind == CS_FT_ARRAY || k->kind == CS_FT_STRUCT || k->kind == CS_FT_MAP)
        return nested_column(k, type, rows, alloc);
    cs_column *c = cs_column_new_raw(alloc, cs_col_type_ref(type), rows);
    set_validity(c, k->nulls, rows);
    size_t n = (size_t)rows;
    switch (k->kind) {
    case CS_FT_LONG:
    case CS_FT_TIMESTAMP:
    case CS_FT_TIMESTAMP_NTZ:
        c->values_size = n * 8;
        c->values = cs_col_buffer_copy(c->alloc, k->i64, n * 8);
        break;
    case CS_FT_DOUBLE:
        c->values_size = n * 8;
        c->values = cs_col_buffer_copy(c->alloc, k->f64, n * 8);
        break;
    case CS_FT_DECIMAL:
        c->values_size = n * 16;
        c->values = cs_col_buffer_copy(c->alloc, k->dec, n * 16);
        break;
    case CS_FT_BYTE: {
        int8_t *v = values_buffer(c, n);
        for (size_t r = 0; r < n; r++)
            v[r] = (int8_t)k->i64[r];
        break;
    }
    case CS_FT_FLOAT: {
        float *v = values_buffer(c, n * 4);
        for (size_t r = 0; r < n; r++)
            v[r] = (float)k->f64[r];
        break;
    }
    case CS_FT_SHORT: {
        int16_t *v = values_buffer(c, n * 2);
        for (size_t r = 0; r < n; r++)
            v[r] = (int16_t)k->i64[r];
        break;
    }
    case CS_FT_INT:
    case CS_FT_DATE: {
        int32_t *v = values_buffer(c, n * 4);
        for (size_t r = 0; r < n; r++)
            v[r] = (int32_t)k->i64[r];
        break;
    }
    case CS_FT_BOOLEAN: {
        uint8_t *bits = values_buffer(c, (n + 7) / 8);
        for (size_t r = 0; r < n; r++)
            if (k->i64[r]) bits[r >> 3] |= (uint8_t)(1u << (r & 7));
        break;
    }
    case CS_FT_STRING:
    case CS_FT_BINARY: {
        uint64_t base = k->offsets[0], total = k->offsets[n] - base;
        if (total > INT32_MAX) {
            cs_column_unref(c);
            cs_error_set(err, CS_EINVAL,
                         "a batch of %lld rows holds %llu bytes of one string column, more than "
                         "a column takes (2 GiB)",
                         (long long)rows, (unsigned long long)total);
            return NULL;
        }
        int32_t *off = values_buffer(c, (n + 1) * 4);
        for (size_t r = 0; r <= n; r++)
            off[r] = (int32_t)(k->offsets[r] - base);
        c->data_size = total;
        c->data = total ? cs_col_buffer_copy(c->alloc, k->bytes + base, total) : NULL;
        break;
    }
    default:
        break; /* void: no values */
    }
    if (!c->values && rows && k->kind != CS_FT_NULL) values_buffer(c, 1);
    return c;
}

cs_col_batch *cs_text_chunk_batch(const cs_field_chunk *chunk, const cs_col_type *read_schema,
                                  const int *cols, cs_col_allocator *alloc, cs_error *err)
{
    int n = read_schema->n_fields;
    cs_column **columns = cs_xcalloc((size_t)n + 1, sizeof *columns);
    int64_t rows = (int64_t)chunk->rows;
    for (int i = 0; i < n; i++) {
        columns[i] =
            flat_column(&chunk->cols[cols[i]], read_schema->fields[i].type, rows, alloc, err);
        if (!columns[i]) {
            for (int j = 0; j < i; j++)
                cs_column_unref(columns[j]);
            free(columns);
            return NULL;
        }
    }
    cs_col_batch *b =
        cs_col_batch_new(cs_col_type_ref((cs_col_type *)read_schema), columns, n, rows, err);
    free(columns);
    return b;
}

/* ---- batch to chunk ---------------------------------------------------------------------------
 */

static json_t *json_of(const cs_column *c, int64_t r)
{
    if (!cs_column_is_valid(c, r)) return json_null();
    const cs_col_type *t = c->type;
    cs_sbuf b = CS_SBUF_INIT;
    json_t *j = NULL;
    switch (t->id) {
    case CS_TYPE_STRUCT:
        j = json_object();
        for (int i = 0; i < t->n_fields; i++)
            if (cs_column_is_valid(c->children[i], r))
                json_object_set_new(j, t->fields[i].name, json_of(c->children[i], r));
        return j;
    case CS_TYPE_ARRAY: {
        const int32_t *off = cs_column_offsets(c);
        j = json_array();
        for (int32_t e = off[r]; e < off[r + 1]; e++)
            json_array_append_new(j, json_of(c->children[0], e));
        return j;
    }
    case CS_TYPE_MAP: { /* values kept null: JacksonGenerator writes a map's nulls */
        const int32_t *off = cs_column_offsets(c);
        j = json_object();
        for (int32_t e = off[r]; e < off[r + 1]; e++) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(c->children[0], e, &len);
            char *key = cs_xstrndup((const char *)p, (size_t)len);
            json_object_set_new_nocheck(j, key, json_of(c->children[1], e));
            free(key);
        }
        return j;
    }
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, r, &len);
        return json_stringn_nocheck((const char *)p, (size_t)len);
    }
    case CS_TYPE_BOOLEAN:
        return json_boolean(cs_bit_get(c->values, r));
    case CS_TYPE_BYTE:
        return json_integer(((const int8_t *)(const void *)c->values)[r]);
    case CS_TYPE_SHORT:
        return json_integer(((const int16_t *)(const void *)c->values)[r]);
    case CS_TYPE_INT:
        return json_integer(((const int32_t *)(const void *)c->values)[r]);
    case CS_TYPE_LONG:
        return json_integer(((const int64_t *)(const void *)c->values)[r]);
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE: {
        double d = c->type->id == CS_TYPE_FLOAT ? ((const float *)(const void *)c->values)[r]
                                                : ((const double *)(const void *)c->values)[r];
        if (isfinite(d)) return json_real(d);
        return json_string(isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
    }
    case CS_TYPE_DECIMAL: {
        __int128 u;
        memcpy(&u, c->values + 16 * r, 16);
        cs_tv_format_decimal(u, t->scale, &b);
        j = json_real(strtod(cs_sbuf_str(&b), NULL));
        break;
    }
    case CS_TYPE_DATE:
        cs_tv_format_date(((const int32_t *)(const void *)c->values)[r], &b);
        j = json_stringn(b.data, b.len);
        break;
    case CS_TYPE_TIMESTAMP: {
        char bad;
        cs_tv_pattern *p = cs_tv_pattern_new("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &bad);
        cs_tv_pattern_format(p, ((const int64_t *)(const void *)c->values)[r], &b);
        cs_tv_pattern_free(p);
        j = json_stringn(b.data, b.len);
        break;
    }
    default:
        j = json_null();
    }
    cs_sbuf_free(&b);
    return j;
}

void cs_text_batch_rows(const cs_col_batch *batch, int64_t from, int64_t n, cs_field_chunk *chunk)
{
    cs_field_chunk_reset(chunk);
    for (int64_t r = from; r < from + n; r++) {
        for (int i = 0; i < batch->n_columns; i++) {
            const cs_column *c = batch->columns[i];
            if (!cs_column_is_valid(c, r)) {
                cs_field_set_null(chunk, i);
                continue;
            }
            const void *v = c->values;
            switch (c->type->id) {
            case CS_TYPE_BOOLEAN:
                cs_field_set_i64(chunk, i, cs_bit_get(c->values, r));
                break;
            case CS_TYPE_BYTE:
                cs_field_set_i64(chunk, i, ((const int8_t *)v)[r]);
                break;
            case CS_TYPE_SHORT:
                cs_field_set_i64(chunk, i, ((const int16_t *)v)[r]);
                break;
            case CS_TYPE_INT:
            case CS_TYPE_DATE:
                cs_field_set_i64(chunk, i, ((const int32_t *)v)[r]);
                break;
            case CS_TYPE_LONG:
            case CS_TYPE_TIMESTAMP:
            case CS_TYPE_TIMESTAMP_NTZ:
                cs_field_set_i64(chunk, i, ((const int64_t *)v)[r]);
                break;
            case CS_TYPE_FLOAT:
                cs_field_set_f64(chunk, i, ((const float *)v)[r]);
                break;
            case CS_TYPE_DOUBLE:
                cs_field_set_f64(chunk, i, ((const double *)v)[r]);
                break;
            case CS_TYPE_DECIMAL: {
                __int128 u;
                memcpy(&u, c->values + 16 * r, 16);
                cs_field_set_dec(chunk, i, u);
                break;
            }
            case CS_TYPE_STRING:
            case CS_TYPE_BINARY: {
                int32_t len;
                const uint8_t *p = cs_column_bytes(c, r, &len);
                cs_field_set_str(chunk, i, (const char *)p, (size_t)len);
                break;
            }
            default:
                cs_field_set_nested(chunk, i, json_of(c, r));
            }
        }
        cs_field_chunk_commit_row(chunk);
    }
}
