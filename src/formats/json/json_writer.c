/*
 * json_writer.c — rows as JSON lines, as Spark's JacksonGenerator writes them: one object per row,
 * fields in schema order, null fields left out (ignoreNullFields), strings escaped by jansson,
 * doubles in Java's text (NaN and infinities as strings), decimals as plain numbers, dates
 * yyyy-MM-dd (or dateFormat), timestamps yyyy-MM-dd'T'HH:mm:ss.SSSXXX (UTC; or timestampFormat),
 * nested values as kept by the reader (or built from a batch by text_batch.c) written by their
 * type: floats and doubles inside arrays and structs in Java's text as at the top level. Called by
 * the JSON data source's task writer (and the tools).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json/json.h"

static void put_string(const char *s, size_t n, cs_sbuf *out)
{
    json_t *j = json_stringn_nocheck(s, n);
    char *text = json_dumps(j, JSON_ENCODE_ANY);
    cs_sbuf_puts(out, text);
    free(text);
    json_decref(j);
}

/* A nested value v (as the reader conformed it, or text_batch.c built it) of type t, as
 * JacksonGenerator writes it: struct fields in schema order without the null ones, array
 * elements with their nulls, floats and doubles in Java's text (Float.toString,
 * Double.toString; NaN and the infinities as strings), other scalars as jansson prints them. */
static void put_nested(const cs_ftype *t, json_t *v, cs_sbuf *out)
{
    if (!v || json_is_null(v)) {
        cs_sbuf_puts(out, "null");
        return;
    }
    if (t->kind == CS_FT_STRUCT && json_is_object(v)) {
        bool first = true;
        cs_sbuf_putc(out, '{');
        for (int i = 0; i < t->nfields; i++) {
            json_t *f = json_object_get(v, t->names[i]);
            if (!f || json_is_null(f)) continue;
            if (!first) cs_sbuf_putc(out, ',');
            first = false;
            put_string(t->names[i], strlen(t->names[i]), out);
            cs_sbuf_putc(out, ':');
            put_nested(t->fields[i], f, out);
        }
        cs_sbuf_putc(out, '}');
        return;
    }
    if (t->kind == CS_FT_MAP && json_is_object(v)) { /* every key, null values as null */
        const char *key;
        json_t *e;
        bool first = true;
        cs_sbuf_putc(out, '{');
        json_object_foreach(v, key, e)
        {
            if (!first) cs_sbuf_putc(out, ',');
            first = false;
            put_string(key, strlen(key), out);
            cs_sbuf_putc(out, ':');
            put_nested(t->element, e, out);
        }
        cs_sbuf_putc(out, '}');
        return;
    }
    if (t->kind == CS_FT_ARRAY && json_is_array(v)) {
        size_t i;
        json_t *e;
        cs_sbuf_putc(out, '[');
        json_array_foreach(v, i, e)
        {
            if (i) cs_sbuf_putc(out, ',');
            put_nested(t->element, e, out);
        }
        cs_sbuf_putc(out, ']');
        return;
    }
    if ((t->kind == CS_FT_FLOAT || t->kind == CS_FT_DOUBLE) && json_is_number(v)) {
        if (t->kind == CS_FT_FLOAT)
            cs_tv_format_float(json_number_value(v), out);
        else
            cs_tv_format_double(json_number_value(v), out);
        return;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    cs_sbuf_puts(out, text);
    free(text);
}

void cs_json_write_rows(const cs_json_options *o, const cs_field_chunk *c, cs_sbuf *out)
{
    char bad;
    cs_tv_pattern *ts = cs_tv_pattern_new("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &bad);
    cs_sbuf tmp = CS_SBUF_INIT;
    for (size_t r = 0; r < c->rows; r++) {
        bool first = true;
        cs_sbuf_putc(out, '{');
        for (int i = 0; i < c->ncols; i++) {
            const cs_field_column *k = &c->cols[i];
            if (k->nulls[r]) continue;
            if (!first) cs_sbuf_putc(out, ',');
            first = false;
            put_string(c->schema->names[i], strlen(c->schema->names[i]), out);
            cs_sbuf_putc(out, ':');
            tmp.len = 0;
            switch (k->kind) {
            case CS_FT_STRING: {
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                put_string(s, n, out);
                break;
            }
            case CS_FT_BINARY: { /* Jackson's writeBinary: base64 */
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                cs_sbuf_putc(out, '"');
                cs_tv_base64_encode(s, n, out);
                cs_sbuf_putc(out, '"');
                break;
            }
            case CS_FT_TIMESTAMP_NTZ:
                cs_sbuf_putc(out, '"');
                cs_tv_pattern_format(o->write_ntz_pattern, k->i64[r], out);
                cs_sbuf_putc(out, '"');
                break;
            case CS_FT_BOOLEAN:
                cs_sbuf_puts(out, k->i64[r] ? "true" : "false");
                break;
            case CS_FT_BYTE:
            case CS_FT_SHORT:
            case CS_FT_INT:
            case CS_FT_LONG:
                cs_sbuf_printf(out, "%lld", (long long)k->i64[r]);
                break;
            case CS_FT_FLOAT:
            case CS_FT_DOUBLE:
                if (k->kind == CS_FT_FLOAT)
                    cs_tv_format_float(k->f64[r], &tmp);
                else
                    cs_tv_format_double(k->f64[r], &tmp);
                if (isfinite(k->f64[r]))
                    cs_sbuf_append(out, tmp.data, tmp.len);
                else
                    put_string(tmp.data, tmp.len, out);
                break;
            case CS_FT_DECIMAL:
                cs_tv_format_decimal(k->dec[r], k->scale, out);
                break;
            case CS_FT_DATE:
                cs_sbuf_putc(out, '"');
                if (o->date_pattern) /* dateFormat, as JacksonGenerator's dateFormatter */
                    cs_tv_pattern_format(o->date_pattern, k->i64[r] * CS_MICROS_PER_DAY, out);
                else
                    cs_tv_format_date(k->i64[r], out);
                cs_sbuf_putc(out, '"');
                break;
            case CS_FT_TIMESTAMP:
                cs_sbuf_putc(out, '"');
                cs_tv_pattern_format(o->timestamp_pattern ? o->timestamp_pattern : ts, k->i64[r],
                                     out);
                cs_sbuf_putc(out, '"');
                break;
            default:
                put_nested(c->schema->fields[i], k->nested[r], out);
            }
        }
        cs_sbuf_puts(out, "}\n");
    }
    cs_sbuf_free(&tmp);
    cs_tv_pattern_free(ts);
}
