/*
 * csv_writer.c — rows as CSV text, as Spark's UnivocityGenerator writes them: values trimmed of
 * leading/trailing white space (ignoreLeading/TrailingWhiteSpace, true when writing), quoted when
 * they hold the separator, the quote or a line end (or always with quoteAll), a quote inside
 * escaped with the escape character (escapeQuotes), nulls as nullValue, empty strings as
 * emptyValue (`""`); a row whose text is empty (one null column, nullValue "") is not written, as
 * univocity's skipEmptyLines. Numbers, dates and timestamps in Spark's text (csv.h); binary values
 * as Spark prints bytes, `[68 69]` (their hex, upper case, space-separated). The caller compresses
 * the text with the codec of the `compression` option (fs/codec.h). Called by the CSV data source's
 * task writer (and the tools).
 */
#include <string.h>

#include "formats/csv/csv.h"

static void put_value(const cs_csv_options *o, const char *v, size_t n, cs_sbuf *out)
{
    if (o->ignore_leading_ws_write)
        while (n && (unsigned char)v[0] <= ' ')
            v++, n--;
    if (o->ignore_trailing_ws_write)
        while (n && (unsigned char)v[n - 1] <= ' ')
            n--;
    if (n == 0) {
        cs_sbuf_puts(out, o->empty_value_write);
        return;
    }
    bool quote = o->quote_all;
    for (size_t i = 0; i < n && !quote; i++)
        quote = v[i] == o->sep || (o->quote && v[i] == o->quote) || v[i] == '\n' || v[i] == '\r';
    if (!quote || !o->quote) {
        cs_sbuf_append(out, v, n);
        return;
    }
    cs_sbuf_putc(out, o->quote);
    size_t seg = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] == o->quote && o->escape_quotes) {
            cs_sbuf_append(out, v + seg, i - seg);
            cs_sbuf_putc(out, o->escape ? o->escape : o->quote);
            seg = i;
        }
    }
    cs_sbuf_append(out, v + seg, n - seg);
    cs_sbuf_putc(out, o->quote);
}

void cs_csv_write_header(const cs_csv_options *o, const cs_ftype *schema, cs_sbuf *out)
{
    for (int i = 0; i < schema->nfields; i++) {
        if (i) cs_sbuf_putc(out, o->sep);
        put_value(o, schema->names[i], strlen(schema->names[i]), out);
    }
    cs_sbuf_putc(out, '\n');
}

void cs_csv_write_rows(const cs_csv_options *o, const cs_field_chunk *c, cs_sbuf *out)
{
    cs_sbuf tmp = CS_SBUF_INIT;
    for (size_t r = 0; r < c->rows; r++) {
        size_t line = out->len;
        for (int i = 0; i < c->ncols; i++) {
            const cs_field_column *k = &c->cols[i];
            if (i) cs_sbuf_putc(out, o->sep);
            if (k->nulls[r]) {
                cs_sbuf_puts(out, o->null_value);
                continue;
            }
            tmp.len = 0;
            switch (k->kind) {
            case CS_FT_BINARY: { /* Spark's text of bytes: "[68 69 2C]" */
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                cs_sbuf_putc(&tmp, '[');
                for (size_t b = 0; b < n; b++)
                    cs_sbuf_printf(&tmp, b ? " %02X" : "%02X", (unsigned char)s[b]);
                cs_sbuf_putc(&tmp, ']');
                break;
            }
            case CS_FT_STRING: {
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                put_value(o, s, n, out);
                continue;
            }
            case CS_FT_BOOLEAN:
                cs_sbuf_puts(&tmp, k->i64[r] ? "true" : "false");
                break;
            case CS_FT_BYTE:
            case CS_FT_SHORT:
            case CS_FT_INT:
            case CS_FT_LONG:
                cs_sbuf_printf(&tmp, "%lld", (long long)k->i64[r]);
                break;
            case CS_FT_DOUBLE:
                cs_tv_format_double(k->f64[r], &tmp);
                break;
            case CS_FT_FLOAT:
                cs_tv_format_float(k->f64[r], &tmp);
                break;
            case CS_FT_DECIMAL:
                cs_tv_format_decimal(k->dec[r], k->scale, &tmp);
                break;
            case CS_FT_DATE:
                cs_tv_pattern_format(o->write_date_pattern, k->i64[r] * CS_MICROS_PER_DAY, &tmp);
                break;
            case CS_FT_TIMESTAMP:
                cs_tv_pattern_format(o->write_ts_pattern, k->i64[r], &tmp);
                break;
            case CS_FT_TIMESTAMP_NTZ: /* local date-time: the pattern's zone, if any, is UTC */
                cs_tv_pattern_format(o->write_ntz_pattern, k->i64[r], &tmp);
                break;
            default:
                break;
            }
            put_value(o, tmp.data ? tmp.data : "", tmp.len, out);
        }
        if (out->len > line) /* univocity's skipEmptyLines: a row of no text is not written */
            cs_sbuf_putc(out, '\n');
    }
    cs_sbuf_free(&tmp);
}
