/* kubesim typed decoding (see decode.h): walks a JSON value against the schema as Go's
 * encoding/json (sigs.k8s.io/json in kube-apiserver) decodes it into the API structs. The error
 * paths follow the decoder: the struct-field path of a type error joins JSON field names with '.'
 * and no array indexes ("Container.spec.containers.image"); the strict-decoding path of an unknown
 * field has indexes ("spec.containers[0].foo"). Custom decoders (Quantity, IntOrString, Time,
 * MicroTime) report their own messages without a path, as they do in Go. */
#include "decode.h"
#include "quantity.h"
#include "schema.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PATH_MAX_LEN 1024

typedef struct dctx {
    char *err;
    size_t errlen;
    json_t *unknown;
    const char *struct_name;       /* innermost struct being decoded (Go's errorContext.Struct) */
    char gopath[PATH_MAX_LEN];     /* struct-field path, no indexes */
    char strictpath[PATH_MAX_LEN]; /* strict-decoding path, with indexes */
} dctx;

static int check(dctx *d, const char *kinds, const char *type, const ks_schema_struct *obj,
                 const json_t *v);

/* What Go's decoder calls a JSON value in "cannot unmarshal X"; numeric targets name the literal.
 */
static void value_name(const json_t *v, int numeric_target, char *buf, size_t len)
{
    if (json_is_string(v))
        snprintf(buf, len, "string");
    else if (json_is_boolean(v))
        snprintf(buf, len, "bool");
    else if (json_is_array(v))
        snprintf(buf, len, "array");
    else if (json_is_object(v))
        snprintf(buf, len, "object");
    else if (numeric_target && json_is_integer(v))
        snprintf(buf, len, "number %lld", (long long)json_integer_value(v));
    else if (numeric_target)
        snprintf(buf, len, "number %.17g", json_real_value(v));
    else
        snprintf(buf, len, "number");
}

/* A type error at the current field: "json: cannot unmarshal X into Go struct field S.P of type T".
 */
static int type_error(dctx *d, const json_t *v, int numeric_target, const char *type)
{
    char what[64];
    value_name(v, numeric_target, what, sizeof what);
    if (d->struct_name && *d->gopath)
        snprintf(d->err, d->errlen,
                 "json: cannot unmarshal %s into Go struct field %s.%s of type %s", what,
                 d->struct_name, d->gopath, type);
    else
        snprintf(d->err, d->errlen, "json: cannot unmarshal %s into Go value of type %s", what,
                 type);
    return -1;
}

/* Range of the Go integer type; 1 if v fits. */
static int int_fits(const char *type, json_int_t v)
{
    static const struct {
        const char *t;
        long long lo, hi;
    } r[] = {{"int8", INT8_MIN, INT8_MAX},    {"int16", INT16_MIN, INT16_MAX},
             {"int32", INT32_MIN, INT32_MAX}, {"uint8", 0, UINT8_MAX},
             {"uint16", 0, UINT16_MAX},       {"uint32", 0, UINT32_MAX},
             {"uint", 0, INT64_MAX},          {"uint64", 0, INT64_MAX}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!strcmp(type, r[i].t)) return v >= r[i].lo && v <= r[i].hi;
    return 1; /* int, int64 and named types of them */
}

/* ---------- Go's time.Parse for RFC 3339 (metav1.Time) and RFC 3339 with microseconds ----------
 */

static int digits(const char *s, int n)
{
    for (int i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return 0;
    return 1;
}

static int num(const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

static int time_error(dctx *d, const char *value, const char *layout, const char *rest,
                      const char *elem)
{
    snprintf(d->err, d->errlen, "parsing time \"%s\" as \"%s\": cannot parse \"%s\" as \"%s\"",
             value, layout, rest, elem);
    return -1;
}

static int parse_time(dctx *d, const char *value, int micro)
{
    const char *layout = micro ? "2006-01-02T15:04:05.000000Z07:00" : "2006-01-02T15:04:05Z07:00";
    static const struct {
        const char *elem;
        int width; /* digits, or 0 for a literal */
    } parts[] = {{"2006", 4}, {"-", 0}, {"01", 2}, {"-", 0}, {"02", 2}, {"T", 0},
                 {"15", 2},   {":", 0}, {"04", 2}, {":", 0}, {"05", 2}};
    const char *p = value;
    int vals[11] = {0};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        const char *elem = parts[i].elem;
        int w = parts[i].width;
        if (w ? ((int)strlen(p) < w || !digits(p, w)) : strncmp(p, elem, strlen(elem)))
            return time_error(d, value, layout, p, elem);
        if (w) vals[i] = num(p, w);
        p += w ? w : (int)strlen(elem);
    }
    if (micro) {
        if (p[0] != '.' || (int)strlen(p) < 7 || !digits(p + 1, 6))
            return time_error(d, value, layout, p, ".000000");
        p += 7;
    } else if ((p[0] == '.' || p[0] == ',') && isdigit((unsigned char)p[1])) {
        for (p++; isdigit((unsigned char)*p); p++)
            ;
    }
    if (*p == 'Z') {
        p++;
    } else if ((*p == '+' || *p == '-') && strlen(p) >= 6 && digits(p + 1, 2) && p[3] == ':' &&
               digits(p + 4, 2)) {
        p += 6;
    } else {
        return time_error(d, value, layout, p, "Z07:00");
    }
    if (*p) {
        snprintf(d->err, d->errlen, "parsing time \"%s\": extra text: \"%s\"", value, p);
        return -1;
    }
    int year = vals[0], month = vals[2], day = vals[4];
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *range = NULL;
    if (month < 1 || month > 12)
        range = "month";
    else if (day < 1 || day > mdays[month - 1] + (month == 2 && year % 4 == 0 &&
                                                  (year % 100 != 0 || year % 400 == 0)))
        range = "day";
    else if (vals[6] > 23)
        range = "hour";
    else if (vals[8] > 59)
        range = "minute";
    else if (vals[10] > 59)
        range = "second";
    if (range) {
        snprintf(d->err, d->errlen, "parsing time \"%s\": %s out of range", value, range);
        return -1;
    }
    return 0;
}

/* Index of the first byte Go's base64.StdEncoding rejects, or -1 when s decodes. */
static long base64_bad_index(const char *s)
{
    long n = (long)strlen(s), q = 0, pad = 0, qstart = 0;
    for (long i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\r' || c == '\n') continue;
        if (q == 0) qstart = i;
        if (c == '=') {
            if (q < 2) return i;
            pad++;
        } else if (pad || !(isalnum((unsigned char)c) || c == '+' || c == '/')) {
            return i;
        }
        q = (q + 1) % 4;
        if (q == 0 && pad) {
            for (long j = i + 1; j < n; j++)
                if (s[j] != '\r' && s[j] != '\n') return j;
            return -1;
        }
    }
    return q ? qstart : -1;
}

/* ---------- the walk ---------- */

/* Appends ".key" (or "key" at the root) to path; *saved gets the length to restore. */
static void push(char *path, size_t *saved, const char *key)
{
    *saved = strlen(path);
    snprintf(path + *saved, PATH_MAX_LEN - *saved, "%s%s", *saved ? "." : "", key);
}

static int check_struct(dctx *d, const ks_schema_struct *s, const json_t *v)
{
    const char *saved_struct = d->struct_name;
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)v, key, val)
    {
        const ks_schema_field *f = ks_schema_field_get(s, key);
        size_t sp, gp;
        push(d->strictpath, &sp, key);
        if (!f) {
            if (d->unknown)
                json_array_append_new(d->unknown,
                                      json_sprintf("unknown field \"%s\"", d->strictpath));
            d->strictpath[sp] = 0;
            continue;
        }
        push(d->gopath, &gp, key);
        d->struct_name = s->name;
        int rc = check(d, f->kinds, f->type, f->obj, val);
        d->gopath[gp] = 0;
        d->strictpath[sp] = 0;
        d->struct_name = saved_struct;
        if (rc < 0) return rc;
    }
    return 0;
}

static int check(dctx *d, const char *kinds, const char *type, const ks_schema_struct *obj,
                 const json_t *v)
{
    if (json_is_null(v)) return 0;
    switch (kinds[0]) {
    case 'a': {
        if (!json_is_array(v)) return type_error(d, v, 0, type);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            size_t sp = strlen(d->strictpath);
            snprintf(d->strictpath + sp, PATH_MAX_LEN - sp, "[%zu]", i);
            int rc = check(d, kinds + 1, type + 2, obj, e);
            d->strictpath[sp] = 0;
            if (rc < 0) return rc;
        }
        return 0;
    }
    case 'm': {
        if (!json_is_object(v)) return type_error(d, v, 0, type);
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e)
        {
            size_t sp;
            push(d->strictpath, &sp, k);
            int rc = check(d, kinds + 1, type + strlen("map[string]"), obj, e);
            d->strictpath[sp] = 0;
            if (rc < 0) return rc;
        }
        return 0;
    }
    case 'o':
        if (!json_is_object(v)) return type_error(d, v, 0, type);
        return obj ? check_struct(d, obj, v) : 0;
    case 's':
        return json_is_string(v) ? 0 : type_error(d, v, 0, type);
    case 'b':
        return json_is_boolean(v) ? 0 : type_error(d, v, 0, type);
    case 'f':
        return json_is_number(v) ? 0 : type_error(d, v, 0, type);
    case 'i':
        if (!json_is_number(v)) return type_error(d, v, 0, type);
        if (!json_is_integer(v) || !int_fits(type, json_integer_value(v)))
            return type_error(d, v, 1, type);
        return 0;
    case 'q': {
        const char *msg = NULL;
        if (json_is_number(v)) return 0;
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            char buf[128];
            while (isspace((unsigned char)*s))
                s++;
            snprintf(buf, sizeof buf, "%s", s);
            for (size_t n = strlen(buf); n && isspace((unsigned char)buf[n - 1]); n--)
                buf[n - 1] = 0;
            if (ks_quantity_parse(buf, NULL, &msg) == 0) return 0;
        }
        snprintf(d->err, d->errlen, "%s", msg ? msg : KS_QUANTITY_FORMAT_MSG);
        return -1;
    }
    case 'n': /* IntOrString: a string, or json.Unmarshal into an int32 */
        if (json_is_string(v) || (json_is_integer(v) && int_fits("int32", json_integer_value(v))))
            return 0;
        d->struct_name = NULL;
        return type_error(d, v, json_is_number(v), "int32");
    case 't':
    case 'u':
        if (!json_is_string(v)) {
            d->struct_name = NULL;
            return type_error(d, v, 0, "string");
        }
        return parse_time(d, json_string_value(v), kinds[0] == 'u');
    case 'y': {
        if (!json_is_string(v)) return type_error(d, v, 0, type);
        long bad = base64_bad_index(json_string_value(v));
        if (bad < 0) return 0;
        snprintf(d->err, d->errlen, "illegal base64 data at input byte %ld", bad);
        return -1;
    }
    default: /* 'r': any JSON */
        return 0;
    }
}

int ks_decode_check(const char *go_type, const json_t *body, char *err, size_t errlen,
                    json_t *unknown)
{
    const ks_schema_struct *s = ks_schema_struct_get(go_type);
    if (!s) return 0;
    dctx d = {.err = err, .errlen = errlen, .unknown = unknown};
    char kinds[] = "o";
    return check(&d, kinds, go_type, s, body);
}
