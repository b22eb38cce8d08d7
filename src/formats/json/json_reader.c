/*
 * json_reader.c — JSON options, schema inference (Spark's JsonInferSchema) and the reader
 * (JacksonParser's conversions) over a buffer of JSON lines or one multiLine document; json.h has
 * the rules. Reading a JSON line goes first to the scanner of json_scan.c, which writes the
 * values of the records it is sure of straight into the chunk; jansson (json_loadb) parses the
 * others, multiLine documents and every record during inference, and decides malformed records.
 * Called by the JSON data source (inference on the driver,
 * reading in tasks) and the tools; a reader is used by one thread.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json/json.h"
#include "formats/json/json_scan.h"
#include "formats/text_batch.h"

cs_json_options *cs_json_options_new(const char *const *keys, const char *const *values, int n,
                                     cs_error *err)
{
    cs_json_options *o = cs_xcalloc(1, sizeof *o);
    o->corrupt_column = cs_xstrdup("_corrupt_record");
    o->sampling_ratio = 1.0;
    for (int i = 0; i < n; i++) {
        const char *k = keys[i], *v = values[i];
        bool ok = true, b = false;
        const char *expected = "true or false";
        if (cs_str_ieq(k, "mode")) {
            ok = cs_parse_mode_from_name(v, &o->mode);
            expected = "PERMISSIVE, DROPMALFORMED or FAILFAST";
        } else if (cs_str_ieq(k, "columnNameOfCorruptRecord")) {
            free(o->corrupt_column);
            o->corrupt_column = cs_xstrdup(v);
        } else if (cs_str_ieq(k, "multiLine") || cs_str_ieq(k, "primitivesAsString") ||
                   cs_str_ieq(k, "prefersDecimal") || cs_str_ieq(k, "inferTimestamp")) {
            ok = cs_tv_parse_boolean(v, strlen(v), &b);
            if (cs_str_ieq(k, "multiLine"))
                o->multi_line = b;
            else if (cs_str_ieq(k, "inferTimestamp"))
                o->infer_timestamp = b;
            else if (cs_str_ieq(k, "primitivesAsString"))
                o->primitives_as_string = b;
            else
                o->prefers_decimal = b;
        } else if (cs_str_ieq(k, "dateFormat") || cs_str_ieq(k, "timestampFormat") ||
                   cs_str_ieq(k, "timestampNTZFormat")) {
            char bad = 0;
            cs_tv_pattern *p = cs_tv_pattern_new(v, &bad);
            ok = p != NULL;
            expected = "a date-time pattern of y M d H m s S X and 'text'";
            cs_tv_pattern **slot = cs_str_ieq(k, "dateFormat")           ? &o->date_pattern
                                   : cs_str_ieq(k, "timestampNTZFormat") ? &o->ntz_pattern
                                                                         : &o->timestamp_pattern;
            cs_tv_pattern_free(*slot);
            *slot = p;
            if (p && slot == &o->ntz_pattern) {
                cs_tv_pattern_free(o->write_ntz_pattern);
                o->write_ntz_pattern = cs_tv_pattern_new(v, &bad);
            }
        } else if (cs_str_ieq(k, "samplingRatio")) {
            ok = cs_tv_parse_sampling_ratio(v, &o->sampling_ratio);
            expected = "a number greater than 0";
        } else if (cs_str_ieq(k, "compression")) {
            free(o->compression);
            o->compression = cs_xstrdup(v);
        }
        if (!ok) {
            cs_error_set(err, CS_EINVAL, "JSON option %s=%s: expected %s", k, v, expected);
            cs_json_options_free(o);
            return NULL;
        }
    }
    if (!o->write_ntz_pattern) {
        char bad;
        o->write_ntz_pattern = cs_tv_pattern_new("yyyy-MM-dd'T'HH:mm:ss[.SSS]", &bad);
    }
    return o;
}

void cs_json_options_free(cs_json_options *o)
{
    if (!o) return;
    free(o->corrupt_column);
    free(o->compression);
    cs_tv_pattern_free(o->date_pattern);
    cs_tv_pattern_free(o->timestamp_pattern);
    cs_tv_pattern_free(o->ntz_pattern);
    cs_tv_pattern_free(o->write_ntz_pattern);
    free(o);
}

/* ---- records ------------------------------------------------------------------------------ */

/* The next record: a non-blank line (or the whole input with multiLine). 1 with [*s, *e), 0 when
 * none is complete in the buffer. */
static int next_line(const cs_json_options *o, const char *buf, size_t n, size_t *pos, bool at_eof,
                     size_t *s, size_t *e)
{
    size_t p = *pos;
    if (o->multi_line) {
        if (!at_eof || p >= n) return 0;
        *s = p, *e = n, *pos = n;
        for (size_t k = p; k < n; k++)
            if ((unsigned char)buf[k] > ' ') return 1;
        return 0;
    }
    while (p < n) {
        const char *nl = memchr(buf + p, '\n', n - p);
        if (!nl && !at_eof) return 0;
        size_t end = nl ? (size_t)(nl - buf) : n, next = nl ? end + 1 : n;
        if (end > p && buf[end - 1] == '\r') end--;
        bool blank = true;
        for (size_t k = p; k < end && blank; k++)
            blank = (unsigned char)buf[k] <= ' ';
        if (!blank) {
            *s = p, *e = end, *pos = next;
            return 1;
        }
        p = next;
    }
    *pos = p;
    return 0;
}

/* One record's value. With multiLine the file's first value is the record and what follows it
 * is ignored, as Spark's Jackson parser reads one value of the stream. */
static json_t *parse_record(const cs_json_options *o, const char *s, size_t n)
{
    size_t flags = JSON_DECODE_ANY | JSON_ALLOW_NUL | (o->multi_line ? JSON_DISABLE_EOF_CHECK : 0);
    json_error_t jerr;
    json_t *v = json_loadb(s, n, flags, &jerr);
    if (!v && json_error_code(&jerr) == json_error_numeric_overflow) /* an integer past 64 bits */
        v = json_loadb(s, n, flags | JSON_DECODE_INT_AS_REAL, &jerr);
    return v;
}

void *cs_json_parse_value(const cs_json_options *o, const char *s, size_t n)
{
    return parse_record(o, s, n);
}

/* ---- inference ---------------------------------------------------------------------------- */

static cs_ftype *merge(cs_ftype *a, cs_ftype *b);

static int cmp_names(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static bool time_text(const cs_tv_pattern *p, bool date, const char *s, size_t n, int64_t *out);

static cs_ftype *infer_value(const cs_json_options *o, json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL:
        return cs_ftype_new(CS_FT_NULL);
    case JSON_TRUE:
    case JSON_FALSE:
        return cs_ftype_new(o->primitives_as_string ? CS_FT_STRING : CS_FT_BOOLEAN);
    case JSON_INTEGER:
        if (o->primitives_as_string) return cs_ftype_new(CS_FT_STRING);
        if (o->prefers_decimal)
            return cs_ftype_decimal_new(cs_tv_decimal_digits(json_integer_value(v)), 0);
        return cs_ftype_new(CS_FT_LONG);
    case JSON_REAL:
        return cs_ftype_new(o->primitives_as_string ? CS_FT_STRING : CS_FT_DOUBLE);
    case JSON_STRING: { /* inferTimestamp: timestampFormat, or Spark's lenient stringToTimestamp */
        int64_t micros;
        if (o->infer_timestamp && !o->primitives_as_string &&
            time_text(o->timestamp_pattern, false, json_string_value(v), json_string_length(v),
                      &micros))
            return cs_ftype_new(CS_FT_TIMESTAMP);
        return cs_ftype_new(CS_FT_STRING);
    }
    case JSON_ARRAY: {
        cs_ftype *t = cs_ftype_new(CS_FT_ARRAY);
        t->element = cs_ftype_new(CS_FT_NULL);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) t->element = merge(t->element, infer_value(o, e));
        return t;
    }
    case JSON_OBJECT: {
        size_t n = json_object_size(v), k = 0;
        const char **keys = cs_xcalloc(n + 1, sizeof *keys);
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e) keys[k++] = key;
        qsort(keys, n, sizeof *keys, cmp_names);
        cs_ftype *t = cs_ftype_new(CS_FT_STRUCT);
        for (k = 0; k < n; k++)
            cs_ftype_add_field(t, keys[k], infer_value(o, json_object_get(v, keys[k])));
        free(keys);
        return t;
    }
    }
    return cs_ftype_new(CS_FT_STRING);
}

static bool numeric(cs_ftype_kind k)
{
    return k == CS_FT_LONG || k == CS_FT_DECIMAL || k == CS_FT_DOUBLE;
}

/* compatibleType; consumes a and b */
static cs_ftype *merge(cs_ftype *a, cs_ftype *b)
{
    if (a->kind == CS_FT_NULL || cs_ftype_equal(a, b)) {
        cs_ftype_free(a);
        return b;
    }
    if (b->kind == CS_FT_NULL) {
        cs_ftype_free(b);
        return a;
    }
    cs_ftype *r = NULL;
    if (numeric(a->kind) && numeric(b->kind)) {
        if (a->kind == CS_FT_DOUBLE || b->kind == CS_FT_DOUBLE)
            r = cs_ftype_new(CS_FT_DOUBLE);
        else {
            int pa = a->kind == CS_FT_LONG ? 20 : a->precision,
                sa = a->kind == CS_FT_LONG ? 0 : a->scale;
            int pb = b->kind == CS_FT_LONG ? 20 : b->precision,
                sb = b->kind == CS_FT_LONG ? 0 : b->scale;
            int scale = sa > sb ? sa : sb, range = pa - sa > pb - sb ? pa - sa : pb - sb;
            r = range + scale > CS_DECIMAL_MAX_PRECISION
                    ? cs_ftype_new(CS_FT_DOUBLE)
                    : cs_ftype_decimal_new(range + scale, scale);
        }
    } else if (a->kind == CS_FT_ARRAY && b->kind == CS_FT_ARRAY) {
        r = cs_ftype_new(CS_FT_ARRAY);
        r->element = merge(a->element, b->element);
        a->element = b->element = NULL;
    } else if (a->kind == CS_FT_STRUCT && b->kind == CS_FT_STRUCT) {
        r = cs_ftype_new(CS_FT_STRUCT); /* both sorted: merge by name */
        int i = 0, j = 0;
        while (i < a->nfields || j < b->nfields) {
            int c = i >= a->nfields ? 1 : j >= b->nfields ? -1 : strcmp(a->names[i], b->names[j]);
            if (c < 0) {
                cs_ftype_add_field(r, a->names[i], a->fields[i]), a->fields[i++] = NULL;
            } else if (c > 0) {
                cs_ftype_add_field(r, b->names[j], b->fields[j]), b->fields[j++] = NULL;
            } else {
                cs_ftype_add_field(r, a->names[i], merge(a->fields[i], b->fields[j]));
                a->fields[i++] = b->fields[j++] = NULL;
            }
        }
    } else
        r = cs_ftype_new(CS_FT_STRING);
    cs_ftype_free(a);
    cs_ftype_free(b);
    return r;
}

/* Spark's canonicalizeType: NullType becomes string; struct fields with an empty name and
 * structs without fields (and arrays of them) go away. False: drop t. */
static bool canonicalize(cs_ftype *t)
{
    if (t->kind == CS_FT_NULL) t->kind = CS_FT_STRING;
    if (t->kind == CS_FT_ARRAY) return canonicalize(t->element);
    if (t->kind != CS_FT_STRUCT) return true;
    int kept = 0;
    for (int i = 0; i < t->nfields; i++) {
        if (t->names[i][0] && canonicalize(t->fields[i])) {
            t->names[kept] = t->names[i];
            t->fields[kept++] = t->fields[i];
        } else {
            free(t->names[i]);
            cs_ftype_free(t->fields[i]);
        }
    }
    t->nfields = kept;
    return kept > 0;
}

static cs_ftype *corrupt_only(const cs_json_options *o)
{
    cs_ftype *t = cs_ftype_new(CS_FT_STRUCT);
    cs_ftype_add_field(t, o->corrupt_column, cs_ftype_new(CS_FT_STRING));
    return t;
}

struct cs_json_inference {
    const cs_json_options *o;
    cs_ftype *root;
    size_t line;
    cs_tv_sampler sample; /* samplingRatio */
};

cs_json_inference *cs_json_inference_new(const cs_json_options *o)
{
    cs_json_inference *inf = cs_xcalloc(1, sizeof *inf);
    inf->o = o;
    inf->root = cs_ftype_new(CS_FT_STRUCT);
    cs_tv_sampler_init(&inf->sample, o->multi_line ? 1.0 : o->sampling_ratio, 1);
    return inf;
}

int cs_json_inference_feed(cs_json_inference *inf, const char *buf, size_t n, size_t *pos,
                           bool at_eof, cs_error *err)
{
    const cs_json_options *o = inf->o;
    size_t s, e, from = *pos;
    while (next_line(o, buf, n, pos, at_eof, &s, &e)) {
        size_t line = ++inf->line;
        if (inf->sample.fraction <= 0.99) { /* a draw per line, the blank ones skipped too */
            for (const char *b = buf + from; (b = memchr(b, '\n', (size_t)(buf + s - b))); b++)
                cs_tv_sampler_keep(&inf->sample);
            from = *pos;
            if (!cs_tv_sampler_keep(&inf->sample)) continue;
        }
        json_t *v = parse_record(o, buf + s, e - s);
        cs_ftype *t = v ? infer_value(o, v) : NULL;
        json_decref(v);
        /* a root array contributes its elements; anything but objects is malformed */
        bool bad = !t;
        if (t && t->kind == CS_FT_ARRAY) {
            cs_ftype *el = t->element;
            t->element = NULL;
            cs_ftype_free(t);
            t = el;
            bad = t->kind != CS_FT_STRUCT && t->kind != CS_FT_NULL;
        } else if (t && t->kind != CS_FT_STRUCT)
            bad = true;
        if (bad) {
            cs_ftype_free(t);
            t = NULL;
            if (o->mode == CS_MODE_FAILFAST)
                return cs_error_set(
                    err, CS_EINVAL,
                    "[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are "
                    "detected in schema inference: line %zu. Parse Mode: FAILFAST",
                    line);
            if (o->mode == CS_MODE_PERMISSIVE) t = corrupt_only(o);
        }
        if (t && t->kind == CS_FT_STRUCT)
            inf->root = merge(inf->root, t);
        else
            cs_ftype_free(t);
    }
    if (inf->sample.fraction <= 0.99) /* blank lines at the end of the buffer */
        for (const char *b = buf + from; (b = memchr(b, '\n', (size_t)(buf + *pos - b))); b++)
            cs_tv_sampler_keep(&inf->sample);
    return CS_OK;
}

cs_ftype *cs_json_inference_finish(cs_json_inference *inf)
{
    cs_ftype *root = inf->root;
    free(inf);
    if (root) canonicalize(root);
    return root;
}

cs_ftype *cs_json_infer_schema(const cs_json_options *o, const char *buf, size_t n, cs_error *err)
{
    cs_json_inference *inf = cs_json_inference_new(o);
    size_t pos = 0;
    if (cs_json_inference_feed(inf, buf, n, &pos, true, err) != CS_OK) {
        cs_ftype_free(cs_json_inference_finish(inf));
        return NULL;
    }
    return cs_json_inference_finish(inf);
}

/* ---- reading ------------------------------------------------------------------------------ */

struct cs_json_reader {
    const cs_json_options *o;
    const cs_ftype *schema;
    int corrupt_col;
    json_t *pending; /* a root array being turned into rows */
    size_t pending_next;
    cs_sbuf pending_text;
    size_t records;
    cs_json_scanner *scanner; /* the fast path of JSON lines (json_scan.h) */
};

/* The first binary or timestamp_ntz type inside an array or struct of t, or NULL. */
static const cs_ftype *nested_unread(const cs_ftype *t, bool inside)
{
    if (inside && (t->kind == CS_FT_BINARY || t->kind == CS_FT_TIMESTAMP_NTZ)) return t;
    if (t->kind == CS_FT_ARRAY || t->kind == CS_FT_MAP) return nested_unread(t->element, true);
    for (int i = 0; i < t->nfields; i++) {
        const cs_ftype *u = nested_unread(t->fields[i], t->kind == CS_FT_STRUCT && inside);
        if (u) return u;
    }
    return NULL;
}

/* Whether t holds a map whose key type is not string (Spark reads keys as strings only). */
static bool map_key_not_string(const cs_ftype *t)
{
    if (t->kind == CS_FT_MAP && t->key->kind != CS_FT_STRING) return true;
    if (t->element && map_key_not_string(t->element)) return true;
    for (int i = 0; i < t->nfields; i++)
        if (map_key_not_string(t->fields[i])) return true;
    return false;
}

cs_json_reader *cs_json_reader_new(const cs_json_options *o, const cs_ftype *schema, cs_error *err)
{
    if (map_key_not_string(schema)) {
        cs_col_type *t = cs_text_col_type(schema);
        cs_sbuf sql = CS_SBUF_INIT;
        cs_text_sql_type(t, &sql);
        cs_error_set(err, CS_EINVAL,
                     "[INVALID_JSON_SCHEMA_MAP_TYPE] Input schema \"%s\" can only contain STRING "
                     "as a key type for a MAP.",
                     cs_sbuf_str(&sql));
        cs_sbuf_free(&sql);
        cs_col_type_unref(t);
        return NULL;
    }
    for (int i = 0; i < schema->nfields; i++) {
        const cs_ftype *u = nested_unread(schema->fields[i], false);
        if (u) {
            cs_error_set(err, CS_EUNSUPPORTED,
                         "JSON data source does not read %s inside an array or struct yet (column "
                         "%s)",
                         u->kind == CS_FT_BINARY ? "binary" : "timestamp_ntz", schema->names[i]);
            return NULL;
        }
    }
    cs_json_reader *r = cs_xcalloc(1, sizeof *r);
    r->o = o;
    r->schema = schema;
    r->corrupt_col = cs_ftype_field_index(schema, o->corrupt_column);
    if (r->corrupt_col >= 0 && schema->fields[r->corrupt_col]->kind != CS_FT_STRING) {
        cs_error_set(err, CS_EINVAL, "the corrupt record column %s must be of type string",
                     o->corrupt_column);
        free(r);
        return NULL;
    }
    r->scanner = cs_json_scanner_new(o, schema, r->corrupt_col);
    return r;
}

void cs_json_reader_free(cs_json_reader *r)
{
    if (!r) return;
    json_decref(r->pending);
    cs_sbuf_free(&r->pending_text);
    cs_json_scanner_free(r->scanner);
    free(r);
}

static bool time_text(const cs_tv_pattern *p, bool date, const char *s, size_t n, int64_t *out)
{
    if (p) return cs_tv_pattern_parse(p, s, n, out) && (!date || (*out = cs_tv_day_of(*out), true));
    if (date) {
        int32_t d;
        if (!cs_tv_parse_date_lenient(s, n, &d)) return false;
        *out = d;
        return true;
    }
    bool zone;
    return cs_tv_parse_timestamp_lenient(s, n, out, &zone);
}

bool cs_json_time_text(const cs_json_options *o, bool date, const char *s, size_t n, int64_t *out)
{
    return time_text(date ? o->date_pattern : o->timestamp_pattern, date, s, n, out);
}

/* Spark's parseWithoutTimeZone(text, allowTimeZone = false): a zone makes it malformed. */
bool cs_json_ntz_text(const cs_json_options *o, const char *s, size_t n, int64_t *out)
{
    bool zone = false;
    if (o->ntz_pattern) return cs_tv_pattern_parse(o->ntz_pattern, s, n, out);
    return cs_tv_parse_timestamp_lenient(s, n, out, &zone) && !zone;
}

/* A binary value: the base64 text of a string, decoded (Jackson's getBinaryValue). */
static bool base64_fits(json_t *v)
{
    size_t n = json_string_length(v), got;
    char small[256];
    if (n > sizeof small) {
        char *big = cs_xmalloc(n); /* only to check: values read go through the chunk */
        bool ok = cs_tv_base64_decode(json_string_value(v), n, big, &got);
        free(big);
        return ok;
    }
    return cs_tv_base64_decode(json_string_value(v), n, small, &got);
}

bool cs_json_set_binary(cs_field_chunk *c, int col, const char *s, size_t n)
{
    cs_field_set_str(c, col, s, n);
    cs_field_column *k = &c->cols[col];
    char *at = k->bytes + k->offsets[c->rows];
    size_t got;
    if (!cs_tv_base64_decode(at, n, at, &got)) {
        cs_field_set_null(c, col);
        return false;
    }
    cs_field_shrink_str(c, col, got);
    return true;
}

static bool time_value(const cs_tv_pattern *p, bool date, json_t *v, int64_t *out)
{
    return json_is_string(v) &&
           time_text(p, date, json_string_value(v), json_string_length(v), out);
}

/* Whether v converts to type t (nested values are checked all the way down). */
static bool fits(const cs_json_options *o, const cs_ftype *t, json_t *v)
{
    if (json_is_null(v) || t->kind == CS_FT_STRING) return true;
    int64_t x;
    switch (t->kind) {
    case CS_FT_BOOLEAN:
        return json_is_boolean(v);
    case CS_FT_BYTE: /* Jackson's getByteValue takes -128..255 (unsigned bytes too) */
        return json_is_integer(v) && json_integer_value(v) >= INT8_MIN &&
               json_integer_value(v) <= UINT8_MAX;
    case CS_FT_SHORT:
        return json_is_integer(v) && json_integer_value(v) >= INT16_MIN &&
               json_integer_value(v) <= INT16_MAX;
    case CS_FT_INT:
        return json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
               json_integer_value(v) <= INT32_MAX;
    case CS_FT_LONG:
        return json_is_integer(v);
    case CS_FT_FLOAT: /* Jackson's getFloatValue: the number's double, rounded to float */
    case CS_FT_DOUBLE:
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            return !strcmp(s, "NaN") || !strcmp(s, "Infinity") || !strcmp(s, "-Infinity") ||
                   !strcmp(s, "+Infinity");
        }
        return json_is_number(v);
    case CS_FT_DECIMAL:
        return json_is_number(v);
    case CS_FT_DATE:
        return time_value(o->date_pattern, true, v, &x);
    case CS_FT_TIMESTAMP:
        return time_value(o->timestamp_pattern, false, v, &x);
    case CS_FT_TIMESTAMP_NTZ:
        return json_is_string(v) &&
               cs_json_ntz_text(o, json_string_value(v), json_string_length(v), &x);
    case CS_FT_BINARY:
        return json_is_string(v) && base64_fits(v);
    case CS_FT_ARRAY: {
        if (!json_is_array(v)) return false;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) if (!fits(o, t->element, e)) return false;
        return true;
    }
    case CS_FT_STRUCT: {
        if (!json_is_object(v)) return false;
        for (int i = 0; i < t->nfields; i++) {
            json_t *f = json_object_get(v, t->names[i]);
            if (f && !fits(o, t->fields[i], f)) return false;
        }
        return true;
    }
    case CS_FT_MAP: {
        if (!json_is_object(v)) return false;
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e) if (!fits(o, t->element, e)) return false;
        return true;
    }
    default:
        return false;
    }
}

/* A new value of v (already checked by fits) in the form of type t, as Spark holds it: strings
 * for string fields (other values as their JSON text), doubles as reals, dates and timestamps
 * in the writer's text, struct fields in schema order without the null ones. */
static json_t *conform(const cs_json_options *o, const cs_ftype *t, json_t *v)
{
    if (!v || json_is_null(v)) return json_null();
    int64_t x;
    switch (t->kind) {
    case CS_FT_STRING: {
        if (json_is_string(v)) return json_incref(v);
        char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
        json_t *r = json_string(text);
        free(text);
        return r;
    }
    case CS_FT_DOUBLE:
        return json_is_number(v) ? json_real(json_number_value(v)) : json_incref(v);
    case CS_FT_FLOAT:
        return json_is_number(v) ? json_real((float)json_number_value(v)) : json_incref(v);
    case CS_FT_BYTE:
        return json_integer((int8_t)json_integer_value(v));
    case CS_FT_DATE:
    case CS_FT_TIMESTAMP: {
        cs_sbuf b = CS_SBUF_INIT;
        char bad;
        time_value(t->kind == CS_FT_DATE ? o->date_pattern : o->timestamp_pattern,
                   t->kind == CS_FT_DATE, v, &x);
        cs_tv_pattern *p = cs_tv_pattern_new(
            t->kind == CS_FT_DATE ? "yyyy-MM-dd" : "yyyy-MM-dd'T'HH:mm:ss.SSSXXX", &bad);
        cs_tv_pattern_format(p, t->kind == CS_FT_DATE ? x * CS_MICROS_PER_DAY : x, &b);
        cs_tv_pattern_free(p);
        json_t *r = json_stringn(b.data, b.len);
        cs_sbuf_free(&b);
        return r;
    }
    case CS_FT_ARRAY: {
        json_t *r = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) json_array_append_new(r, conform(o, t->element, e));
        return r;
    }
    case CS_FT_MAP: { /* every key kept, null values too */
        json_t *r = json_object();
        const char *key;
        json_t *e;
        json_object_foreach(v, key, e)
            json_object_set_new_nocheck(r, key, conform(o, t->element, e));
        return r;
    }
    case CS_FT_STRUCT: {
        json_t *r = json_object();
        for (int i = 0; i < t->nfields; i++) {
            json_t *f = json_object_get(v, t->names[i]);
            if (f && !json_is_null(f))
                json_object_set_new(r, t->names[i], conform(o, t->fields[i], f));
        }
        return r;
    }
    default:
        return json_incref(v);
    }
}

/* One field into the chunk; false when it does not convert. */
static bool set_field(const cs_json_options *o, const cs_ftype *t, json_t *v, cs_field_chunk *c,
                      int col)
{
    if (!v || json_is_null(v)) {
        cs_field_set_null(c, col);
        return true;
    }
    if (!fits(o, t, v)) {
        cs_field_set_null(c, col);
        return false;
    }
    int64_t x;
    switch (t->kind) {
    case CS_FT_STRING:
        if (json_is_string(v))
            cs_field_set_str(c, col, json_string_value(v), json_string_length(v));
        else {
            char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
            cs_field_set_str(c, col, text, strlen(text));
            free(text);
        }
        return true;
    case CS_FT_BOOLEAN:
        cs_field_set_i64(c, col, json_is_true(v));
        return true;
    case CS_FT_BYTE:
        cs_field_set_i64(c, col, (int8_t)json_integer_value(v));
        return true;
    case CS_FT_SHORT:
    case CS_FT_INT:
    case CS_FT_LONG:
        cs_field_set_i64(c, col, json_integer_value(v));
        return true;
    case CS_FT_FLOAT:
    case CS_FT_DOUBLE: {
        double d = json_is_string(v) ? (json_string_value(v)[0] == 'N'   ? NAN
                                        : json_string_value(v)[0] == '-' ? -INFINITY
                                                                         : INFINITY)
                                     : json_number_value(v);
        cs_field_set_f64(c, col, t->kind == CS_FT_FLOAT ? (float)d : d);
        return true;
    }
    case CS_FT_DECIMAL: {
        char text[64];
        __int128 u, out;
        int p, s;
        bool too_long;
        if (json_is_integer(v))
            snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        else
            snprintf(text, sizeof text, "%.17g", json_real_value(v));
        if (!cs_tv_parse_decimal(text, strlen(text), &u, &p, &s, &too_long) ||
            !cs_tv_decimal_fit(u, s, t->precision, t->scale, &out)) {
            cs_field_set_null(c, col);
            return false;
        }
        cs_field_set_dec(c, col, out);
        return true;
    }
    case CS_FT_DATE:
    case CS_FT_TIMESTAMP:
        time_value(t->kind == CS_FT_DATE ? o->date_pattern : o->timestamp_pattern,
                   t->kind == CS_FT_DATE, v, &x);
        cs_field_set_i64(c, col, x);
        return true;
    case CS_FT_TIMESTAMP_NTZ:
        cs_json_ntz_text(o, json_string_value(v), json_string_length(v), &x);
        cs_field_set_i64(c, col, x);
        return true;
    case CS_FT_BINARY:
        return cs_json_set_binary(c, col, json_string_value(v), json_string_length(v));
    default:
        cs_field_set_nested(c, col, conform(o, t, v));
        return true;
    }
}

bool cs_json_set_field(const cs_json_options *o, const cs_ftype *t, void *json, cs_field_chunk *c,
                       int col)
{
    return set_field(o, t, json, c, col);
}

/* One row from a parsed value (NULL: did not parse); returns -1 on FAILFAST. */
static int add_row(cs_json_reader *r, json_t *v, const char *text, size_t len, cs_field_chunk *c,
                   cs_error *err)
{
    const cs_ftype *st = r->schema;
    /* a record that parsed keeps the fields that converted (Spark 4's partial results,
     * spark.sql.json.enablePartialResults); one that did not parse is all nulls */
    bool object = v && json_is_object(v), bad = !object;
    for (int i = 0; i < st->nfields; i++) {
        if (i == r->corrupt_col) continue;
        json_t *f = object ? json_object_get(v, st->names[i]) : NULL;
        if (!set_field(r->o, st->fields[i], f, c, i)) bad = true;
    }
    if (r->corrupt_col >= 0) {
        if (bad)
            cs_field_set_str(c, r->corrupt_col, text, len);
        else
            cs_field_set_null(c, r->corrupt_col);
    }
    r->records++;
    if (bad && r->o->mode == CS_MODE_FAILFAST) {
        cs_field_chunk_discard_row(c);
        return cs_error_set(
            err, CS_EINVAL,
            "[MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION] Malformed records are "
            "detected in record parsing: record %zu: %.*s. Parse Mode: FAILFAST",
            r->records, (int)(len > 200 ? 200 : len), text);
    }
    if (bad && r->o->mode == CS_MODE_DROPMALFORMED)
        cs_field_chunk_discard_row(c);
    else
        cs_field_chunk_commit_row(c);
    return CS_OK;
}

int cs_json_read(cs_json_reader *r, const char *buf, size_t n, size_t *pos, bool at_eof,
                 cs_field_chunk *chunk, cs_error *err)
{
    size_t s, e;
    for (;;) {
        while (r->pending && !cs_field_chunk_full(chunk)) {
            if (r->pending_next >= json_array_size(r->pending)) {
                json_decref(r->pending);
                r->pending = NULL;
                break;
            }
            json_t *el = json_array_get(r->pending, r->pending_next++);
            if (add_row(r, json_is_object(el) ? el : NULL, cs_sbuf_str(&r->pending_text),
                        r->pending_text.len, chunk, err) < 0)
                return err->code;
        }
        if (cs_field_chunk_full(chunk) || !next_line(r->o, buf, n, pos, at_eof, &s, &e))
            return CS_OK;
        if (!r->o->multi_line && cs_json_scan_record(r->scanner, buf + s, e - s, chunk)) {
            if (r->corrupt_col >= 0) cs_field_set_null(chunk, r->corrupt_col);
            r->records++;
            cs_field_chunk_commit_row(chunk);
            continue;
        }
        json_t *v = parse_record(r->o, buf + s, e - s);
        bool objects = v && json_is_array(v);
        for (size_t k = 0; objects && k < json_array_size(v); k++)
            objects = json_is_object(json_array_get(v, k));
        if (objects) {
            r->pending = v;
            r->pending_next = 0;
            r->pending_text.len = 0;
            cs_sbuf_append(&r->pending_text, buf + s, e - s);
            continue;
        }
        int rc = add_row(r, v, buf + s, e - s, chunk, err);
        json_decref(v);
        if (rc < 0) return rc;
    }
}
