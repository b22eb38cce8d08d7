/*
 * json_writer.c — rows as JSON lines, as Spark's JacksonGenerator writes them: one object per row,
 * fields in schema order, null fields left out (ignoreNullFields), strings escaped by jansson,
 * doubles in Java's text (NaN and infinities as strings), decimals as plain numbers, dates
 * yyyy-MM-dd, timestamps yyyy-MM-dd'T'HH:mm:ss.SSSXXX (UTC), nested values as kept by the reader.
 * Called by the JSON data source's task writer (and the tools).
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

void cs_json_write_rows(const cs_json_options *o, const cs_field_chunk *c, cs_sbuf *out)
{
    char bad;
    cs_tv_pattern *ts = cs_tv_pattern_new("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &bad);
    cs_sbuf tmp = CS_SBUF_INIT;
    (void)o;
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
                cs_tv_format_date(k->i64[r], out);
                cs_sbuf_putc(out, '"');
                break;
            case CS_FT_TIMESTAMP:
                cs_sbuf_putc(out, '"');
                cs_tv_pattern_format(ts, k->i64[r], out);
                cs_sbuf_putc(out, '"');
                break;
            default: {
                char *text =
                    json_dumps(k->nested[r], JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
                cs_sbuf_puts(out, text);
                free(text);
            }
            }
        }
        cs_sbuf_puts(out, "}\n");
    }
    cs_sbuf_free(&tmp);
    cs_tv_pattern_free(ts);
}
