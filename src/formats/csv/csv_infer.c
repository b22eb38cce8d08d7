/*
 * csv_infer.c — Spark's CSVInferSchema over the records of a buffer. Each value is tried as
 * int, long, decimal (a whole number of up to 38 digits: decimal(p,0)), double (or nanValue,
 * Inf, -Inf), date (prefersDate: dateFormat, or strictly yyyy-MM-dd), timestamp (the
 * timestampFormat, or Spark's lenient form), boolean, else string, starting from the type found
 * so far (a column already double is not tried as int again); types merge as Spark's
 * compatibleType: int < long < decimal < double, decimals widen (above 38 digits: double), a
 * date and a timestamp give timestamp, anything else string. Null values (nullValue, empty) are
 * skipped; a column never seen is string. Called by the CSV data source on the driver, before
 * the read.
 */
#include <stdlib.h>
#include <string.h>

#include "formats/csv/csv.h"

typedef struct infer_type {
    cs_ftype_kind kind;
    int precision, scale;
} infer_type;

static bool equals(const char *v, size_t n, const char *s)
{
    return strlen(s) == n && !memcmp(v, s, n);
}

static infer_type kind_only(cs_ftype_kind k)
{
    return (infer_type){k, 0, 0};
}

static infer_type try_from(const cs_csv_options *o, cs_ftype_kind start, const char *v, size_t n)
{
    int64_t i;
    double d;
    switch (start) {
    case CS_FT_NULL:
    case CS_FT_INT:
        if (cs_tv_parse_int(v, n, &i)) return kind_only(CS_FT_INT);
        /* fall through */
    case CS_FT_LONG:
        if (cs_tv_parse_long(v, n, &i)) return kind_only(CS_FT_LONG);
        /* fall through */
    case CS_FT_DECIMAL: {
        __int128 u;
        int p, s;
        bool too_long;
        if (cs_tv_parse_decimal(v, n, &u, &p, &s, &too_long) && s == 0 &&
            p <= CS_DECIMAL_MAX_PRECISION)
            return (infer_type){CS_FT_DECIMAL, p, 0};
    }
        /* fall through */
    case CS_FT_DOUBLE:
        if (cs_tv_parse_double(v, n, &d) || equals(v, n, o->nan_value) ||
            equals(v, n, o->positive_inf) || equals(v, n, o->negative_inf))
            return kind_only(CS_FT_DOUBLE);
        if (!o->prefers_date) goto timestamp;
        /* fall through */
    case CS_FT_DATE: {
        int32_t days;
        int64_t micros;
        if (o->date_pattern ? cs_tv_pattern_parse(o->date_pattern, v, n, &micros)
                            : cs_tv_parse_date_iso(v, n, &days))
            return kind_only(CS_FT_DATE);
    }
        /* fall through */
    case CS_FT_TIMESTAMP:
    timestamp : {
        int64_t micros;
        bool zone;
        if (cs_tv_parse_timestamp_lenient(v, n, &micros, &zone) ||
            (o->timestamp_pattern && cs_tv_pattern_parse(o->timestamp_pattern, v, n, &micros)))
            return kind_only(CS_FT_TIMESTAMP);
    }
        /* fall through */
    case CS_FT_BOOLEAN: {
        bool b;
        if (cs_tv_parse_boolean(v, n, &b)) return kind_only(CS_FT_BOOLEAN);
    }
        /* fall through */
    default:
        return kind_only(CS_FT_STRING);
    }
}

static infer_type as_decimal(infer_type t)
{
    if (t.kind == CS_FT_INT) return (infer_type){CS_FT_DECIMAL, 10, 0};
    if (t.kind == CS_FT_LONG) return (infer_type){CS_FT_DECIMAL, 20, 0};
    return t;
}

static bool numeric(cs_ftype_kind k)
{
    return k == CS_FT_INT || k == CS_FT_LONG || k == CS_FT_DECIMAL || k == CS_FT_DOUBLE;
}

/* compatibleType: findTightestCommonType, then the CSV rules */
static infer_type merge(infer_type a, infer_type b)
{
    if (a.kind == CS_FT_NULL) return b;
    if (b.kind == CS_FT_NULL) return a;
    if (a.kind == b.kind && a.kind != CS_FT_DECIMAL) return a;
    if (numeric(a.kind) && numeric(b.kind)) {
        if (a.kind == CS_FT_DOUBLE || b.kind == CS_FT_DOUBLE) return kind_only(CS_FT_DOUBLE);
        if (a.kind != CS_FT_DECIMAL && b.kind != CS_FT_DECIMAL) return kind_only(CS_FT_LONG);
        a = as_decimal(a);
        b = as_decimal(b);
        int scale = a.scale > b.scale ? a.scale : b.scale;
        int ra = a.precision - a.scale, rb = b.precision - b.scale, range = ra > rb ? ra : rb;
        if (range + scale > CS_DECIMAL_MAX_PRECISION) return kind_only(CS_FT_DOUBLE);
        return (infer_type){CS_FT_DECIMAL, range + scale, scale};
    }
    if ((a.kind == CS_FT_DATE && b.kind == CS_FT_TIMESTAMP) ||
        (a.kind == CS_FT_TIMESTAMP && b.kind == CS_FT_DATE))
        return kind_only(CS_FT_TIMESTAMP);
    return kind_only(CS_FT_STRING);
}

cs_ftype *cs_csv_infer_schema(const cs_csv_options *o, const char *buf, size_t n, cs_error *err)
{
    cs_csv_tokens t = {0};
    size_t pos = 0, rs, re;
    if (!cs_csv_next_record(o, buf, n, &pos, true, &t, &rs, &re)) {
        cs_csv_tokens_free(&t);
        return cs_ftype_new(CS_FT_STRUCT); /* an empty input: no columns */
    }
    cs_ftype *st = cs_csv_header_schema(o, buf, &t);
    if (!o->header) pos = 0; /* the first record is data */
    if (!o->infer_schema) {
        cs_csv_tokens_free(&t);
        return st;
    }
    int ncols = st->nfields;
    infer_type *types = cs_xcalloc((size_t)ncols + 1, sizeof *types);
    while (cs_csv_next_record(o, buf, n, &pos, true, &t, &rs, &re)) {
        for (int i = 0; i < ncols && i < t.n; i++) {
            size_t len;
            const char *v = cs_csv_token_value(o, buf, &t, i, &len);
            if (t.v[i].kind == CS_CSV_TOK_NULL || len == 0 || equals(v, len, o->null_value))
                continue;
            types[i] = merge(types[i], try_from(o, types[i].kind, v, len));
        }
    }
    for (int i = 0; i < ncols; i++) {
        cs_ftype_kind k = types[i].kind == CS_FT_NULL ? CS_FT_STRING : types[i].kind;
        cs_ftype_free(st->fields[i]);
        st->fields[i] = k == CS_FT_DECIMAL
                            ? cs_ftype_decimal_new(types[i].precision, types[i].scale)
                            : cs_ftype_new(k);
    }
    free(types);
    cs_csv_tokens_free(&t);
    (void)err;
    return st;
}
