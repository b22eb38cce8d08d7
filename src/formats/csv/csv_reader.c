/*
 * csv_reader.c — CSV records into typed columns, as Spark's UnivocityParser converts them: each
 * value is compared with nullValue first, then converted by the column's type (Java's
 * parseInt/parseLong/parseDouble, Scala's toBoolean, BigDecimal rounded HALF_UP into
 * decimal(p,s), dates and timestamps with the given pattern or Spark's lenient defaults). The
 * parse modes and the corrupt-record column are in csv.h. Called by the CSV data source's task
 * reader (and the tools); one reader per task, not shared between threads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"
#include "formats/text_batch.h"

struct cs_csv_reader {
    const cs_csv_options *o;
    const cs_ftype *schema;
    int ndata;       /* columns the values fill: the schema without the corrupt-record one */
    int *data_cols;  /* chunk column of the i-th value */
    int corrupt_col; /* -1: none */
    cs_csv_tokens tokens;
    size_t records;
};

cs_csv_reader *cs_csv_reader_new(const cs_csv_options *o, const cs_ftype *schema, cs_error *err)
{
    cs_csv_reader *r = cs_xcalloc(1, sizeof *r);
    r->o = o;
    r->schema = schema;
    r->corrupt_col = -1;
    r->data_cols = cs_xcalloc((size_t)schema->nfields + 1, sizeof *r->data_cols);
    for (int i = 0; i < schema->nfields; i++) {
        cs_ftype_kind k = schema->fields[i]->kind;
        if (!strcmp(schema->names[i], o->corrupt_column)) {
            if (k != CS_FT_STRING) {
                cs_error_set(
                    err, CS_EINVAL,
                    "the corrupt record column %s must be of type string, not another type",
                    o->corrupt_column);
                cs_csv_reader_free(r);
                return NULL;
            }
            r->corrupt_col = i;
            continue;
        }
        if (k == CS_FT_ARRAY || k == CS_FT_STRUCT || k == CS_FT_MAP || k == CS_FT_NULL) {
            cs_col_type *t = cs_text_col_type(schema->fields[i]);
            cs_text_unsupported(t, "CSV", schema->names[i], err);
            cs_col_type_unref(t);
            cs_csv_reader_free(r);
            return NULL;
        }
        r->data_cols[r->ndata++] = i;
    }
    return r;
}

void cs_csv_reader_free(cs_csv_reader *r)
{
    if (!r) return;
    cs_csv_tokens_free(&r->tokens);
    free(r->data_cols);
    free(r);
}

size_t cs_csv_reader_records(const cs_csv_reader *r)
{
    return r->records;
}

static bool equals(const char *v, size_t n, const char *s)
{
    /* the first byte decides most calls (nullValue "" against a value) without a strlen */
    return (n ? s[0] == v[0] : s[0] == '\0') && strlen(s) == n && !memcmp(v, s, n);
}

/* One value into column col of the row being written; false when it does not convert. */
static bool convert(const cs_csv_options *o, const cs_ftype *t, const char *v, size_t n,
                    cs_field_chunk *c, int col)
{
    if (equals(v, n, o->null_value)) {
        cs_field_set_null(c, col);
        return true;
    }
    int64_t i;
    switch (t->kind) {
    case CS_FT_STRING:
        cs_field_set_str(c, col, v, n);
        return true;
    case CS_FT_BYTE: /* Byte.parseByte, Short.parseShort: parseInt and the type's range */
    case CS_FT_SHORT:
    case CS_FT_INT:
    case CS_FT_LONG:
        if (!(t->kind == CS_FT_LONG ? cs_tv_parse_long(v, n, &i) : cs_tv_parse_int(v, n, &i)) ||
            (t->kind == CS_FT_BYTE && (i < INT8_MIN || i > INT8_MAX)) ||
            (t->kind == CS_FT_SHORT && (i < INT16_MIN || i > INT16_MAX)))
            return false;
        cs_field_set_i64(c, col, i);
        return true;
    case CS_FT_BOOLEAN: {
        bool b;
        if (!cs_tv_parse_boolean(v, n, &b)) return false;
        cs_field_set_i64(c, col, b);
        return true;
    }
    case CS_FT_FLOAT: /* nanValue, negativeInf, positiveInf, then Float.parseFloat */
    case CS_FT_DOUBLE: {
        double d;
        if (equals(v, n, o->nan_value))
            d = NAN;
        else if (equals(v, n, o->negative_inf))
            d = -INFINITY;
        else if (equals(v, n, o->positive_inf))
            d = INFINITY;
        else if (!(t->kind == CS_FT_FLOAT ? cs_tv_parse_float(v, n, &d)
                                          : cs_tv_parse_double(v, n, &d)))
            return false;
        cs_field_set_f64(c, col, d);
        return true;
    }
    case CS_FT_DECIMAL: {
        __int128 u, out;
        int p, s;
        bool too_long;
        if (!cs_tv_parse_decimal(v, n, &u, &p, &s, &too_long) ||
            !cs_tv_decimal_fit(u, s, t->precision, t->scale, &out))
            return false;
        cs_field_set_dec(c, col, out);
        return true;
    }
    case CS_FT_DATE: {
        int32_t days;
        int64_t micros;
        if (o->date_pattern) {
            if (!cs_tv_pattern_parse(o->date_pattern, v, n, &micros)) return false;
            days = (int32_t)cs_tv_day_of(micros);
        } else if (!cs_tv_parse_date_lenient(v, n, &days))
            return false;
        cs_field_set_i64(c, col, days);
        return true;
    }
    case CS_FT_TIMESTAMP: {
        int64_t micros;
        bool zone;
        if (o->timestamp_pattern ? !cs_tv_pattern_parse(o->timestamp_pattern, v, n, &micros)
                                 : !cs_tv_parse_timestamp_lenient(v, n, &micros, &zone))
            return false;
        cs_field_set_i64(c, col, micros);
        return true;
    }
    case CS_FT_TIMESTAMP_NTZ: { /* Spark's parseWithoutTimeZone(allowTimeZone = false) */
        int64_t micros;
        bool zone = false;
        if (o->ntz_pattern ? !cs_tv_pattern_parse(o->ntz_pattern, v, n, &micros)
                           : !cs_tv_parse_timestamp_lenient(v, n, &micros, &zone) || zone)
            return false;
        cs_field_set_i64(c, col, micros);
        return true;
    }
    case CS_FT_BINARY: /* the value's bytes, as Spark's String.getBytes (UTF-8) */
        cs_field_set_str(c, col, v, n);
        return true;
    default:
        return false;
    }
}

int cs_csv_read(cs_csv_reader *r, const char *buf, size_t n, size_t *pos, bool at_eof,
                bool *skip_header, cs_field_chunk *chunk, cs_error *err)
{
    const cs_csv_options *o = r->o;
    cs_csv_tokens *t = &r->tokens;
    size_t rs, re;
    while (!cs_field_chunk_full(chunk)) {
        size_t at = *pos;
        if (!cs_csv_next_record(o, buf, n, pos, at_eof, t, &rs, &re)) return CS_OK;
        if (*skip_header) {
            *skip_header = false;
            continue;
        }
        r->records++;
        bool bad = t->n != r->ndata;
        for (int i = 0; i < r->ndata; i++) {
            int col = r->data_cols[i];
            if (i >= t->n) {
                cs_field_set_null(chunk, col);
                continue;
            }
            size_t len;
            const char *v = cs_csv_token_value(o, buf, t, i, &len);
            if (!convert(o, r->schema->fields[col], v, len, chunk, col)) {
                cs_field_set_null(chunk, col);
                bad = true;
            }
        }
        if (r->corrupt_col >= 0) {
            if (bad)
                cs_field_set_str(chunk, r->corrupt_col, buf + rs, re - rs);
            else
                cs_field_set_null(chunk, r->corrupt_col);
        }
        if (bad && o->mode == CS_MODE_FAILFAST) {
            cs_field_chunk_discard_row(chunk);
            *pos = at;
            return cs_error_set(
                err, CS_EINVAL,
                "[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records "
                "are detected in record parsing: record %zu: %.*s. Parse Mode: FAILFAST",
                r->records, (int)(re - rs > 200 ? 200 : re - rs), buf + rs);
        }
        if (bad && o->mode == CS_MODE_DROPMALFORMED)
            cs_field_chunk_discard_row(chunk);
        else
            cs_field_chunk_commit_row(chunk);
    }
    return CS_OK;
}
