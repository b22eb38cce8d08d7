/*
 * csv_infer.c — Spark's CSVInferSchema over the records of a buffer. Each value is tried as
 * int, long, decimal (a whole number of up to 38 digits: decimal(p,0)), double (or nanValue,
 * Inf, -Inf), date (prefersDate: dateFormat, or strictly yyyy-MM-dd), timestamp (the
 * timestampFormat, or Spark's lenient form), boolean, else string, starting from the type found
 * so far (a column already double is not tried as int again); types merge as Spark's
 * compatibleType: int < long < decimal < double, decimals widen (above 38 digits: double), a
 * date and a timestamp give timestamp, anything else string. Null values (nullValue, empty) are
 * skipped; a column never seen is string. With samplingRatio below 1 only the lines Spark's sample
 * keeps count (CSVUtils.sample: text_values.h's sampler, a draw per line of the files, header,
 * blank and comment lines too, seed 1 over all the files in order: Spark's draws when the files
 * are one partition; Spark seeds each further partition 1 + its index and packs files into
 * partitions largest first, so over several partitions the sample differs; with multiLine Spark
 * samples parsed records with another sampler, and cspark reads them all). The header's names
 * come from the first record, sampled or not. Called by the CSV data source on the driver, before
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
    /* the first byte decides most calls (nullValue "" against a value) without a strlen */
    return (n ? s[0] == v[0] : s[0] == '\0') && strlen(s) == n && !memcmp(v, s, n);
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

struct cs_csv_inference {
    const cs_csv_options *o;
    cs_ftype *names; /* the first record's column names (NULL until it is seen) */
    infer_type *types;
    int ncols;
    cs_csv_tokens t;
    cs_tv_sampler sample; /* samplingRatio */
};

cs_csv_inference *cs_csv_inference_new(const cs_csv_options *o)
{
    cs_csv_inference *inf = cs_xcalloc(1, sizeof *inf);
    inf->o = o;
    cs_tv_sampler_init(&inf->sample, o->multi_line ? 1.0 : o->sampling_ratio, 1);
    return inf;
}

static void draw_lines(cs_csv_inference *inf, const char *from, const char *to)
{
    for (const char *b = from; (b = memchr(b, '\n', (size_t)(to - b))); b++)
        cs_tv_sampler_keep(&inf->sample);
}

bool cs_csv_inference_feed(cs_csv_inference *inf, const char *buf, size_t n, size_t *pos,
                           bool at_eof, bool *skip_header)
{
    const cs_csv_options *o = inf->o;
    cs_csv_tokens *t = &inf->t;
    size_t rs, re, from = *pos;
    bool sampling = inf->sample.fraction <= 0.99;
    while (cs_csv_next_record(o, buf, n, pos, at_eof, t, &rs, &re)) {
        bool keep = true;
        if (sampling) { /* a draw per line: the skipped blank and comment lines too */
            draw_lines(inf, buf + from, buf + rs);
            keep = cs_tv_sampler_keep(&inf->sample);
            from = *pos;
        }
        if (!inf->names) {
            inf->names = cs_csv_header_schema(o, buf, t);
            inf->ncols = inf->names->nfields;
            inf->types = cs_xcalloc((size_t)inf->ncols + 1, sizeof *inf->types);
        }
        if (*skip_header) {
            *skip_header = false;
            continue;
        }
        if (!o->infer_schema || !keep) continue;
        for (int i = 0; i < inf->ncols && i < t->n; i++) {
            size_t len;
            const char *v = cs_csv_token_value(o, buf, t, i, &len);
            if (t->v[i].kind == CS_CSV_TOK_NULL || len == 0 || equals(v, len, o->null_value))
                continue;
            inf->types[i] = merge(inf->types[i], try_from(o, inf->types[i].kind, v, len));
        }
        if (!o->infer_schema) break; /* the names are all it needs */
    }
    if (sampling) draw_lines(inf, buf + from, buf + *pos);
    return o->infer_schema || !inf->names;
}

cs_ftype *cs_csv_inference_finish(cs_csv_inference *inf)
{
    cs_ftype *st = inf->names ? inf->names : cs_ftype_new(CS_FT_STRUCT); /* empty: no columns */
    for (int i = 0; inf->o->infer_schema && i < inf->ncols; i++) {
        cs_ftype_kind k = inf->types[i].kind == CS_FT_NULL ? CS_FT_STRING : inf->types[i].kind;
        cs_ftype_free(st->fields[i]);
        st->fields[i] = k == CS_FT_DECIMAL
                            ? cs_ftype_decimal_new(inf->types[i].precision, inf->types[i].scale)
                            : cs_ftype_new(k);
    }
    free(inf->types);
    cs_csv_tokens_free(&inf->t);
    free(inf);
    return st;
}

cs_ftype *cs_csv_infer_schema(const cs_csv_options *o, const char *buf, size_t n, cs_error *err)
{
    cs_csv_inference *inf = cs_csv_inference_new(o);
    size_t pos = 0;
    bool skip_header = o->header;
    cs_csv_inference_feed(inf, buf, n, &pos, true, &skip_header);
    (void)err;
    return cs_csv_inference_finish(inf);
}
