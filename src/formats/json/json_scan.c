/*
 * json_scan.c — the JSON reader's fast path (json_scan.h): a JSON-lines record scanned in place,
 * each field's value written straight into its column, with no tree and no allocation per
 * record. DESIGN's rule is to use the libraries and never hand-write a parser one provides; this
 * small scanner is the exception it allows: jansson, the JSON library of DESIGN §5, has no
 * streaming (SAX) interface, and building its tree for every record (json_loadb, a malloc per
 * value) made the reader 3-4 times slower than pyarrow's (bench/csv_json_parse.sh). jansson stays
 * the judge: the scanner accepts only records it is sure jansson would parse to the same values
 * (the grammar of RFC 8259 as jansson reads it: UTF-8 checked, no leading zeros, integers within
 * 64 bits, escapes and surrogate pairs), reads scalars of their column's type itself, and hands
 * the values of nested and decimal columns to jansson one value at a time. Every record it is
 * unsure of — a syntax error, a value of another type than its column's, a string into a number
 * column, duplicate keys, a root array, very deep nesting — goes whole to json_reader.c's jansson
 * path, which decides it as before (modes, _corrupt_record).
 *
 * Called by json_reader.c's cs_json_read on a task's thread; a scanner belongs to one reader.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json/json_scan.h"

#define MAX_DEPTH 256 /* deeper values are left to jansson (its limit is 2048) */

struct cs_json_scanner {
    const cs_json_options *o;
    const cs_ftype *schema;
    int skip_col, nfields, guess;
    size_t *name_len;
    uint32_t *seen, generation; /* seen[i] == generation: field i set in this record */
    cs_sbuf text;               /* a string value with escapes, decoded */
    cs_sbuf scratch;            /* strings only checked (keys, skipped values) */
};

cs_json_scanner *cs_json_scanner_new(const cs_json_options *o, const cs_ftype *schema, int skip_col)
{
    cs_json_scanner *s = cs_xcalloc(1, sizeof *s);
    s->o = o;
    s->schema = schema;
    s->skip_col = skip_col;
    s->nfields = schema->nfields;
    s->name_len = cs_xcalloc((size_t)s->nfields + 1, sizeof *s->name_len);
    s->seen = cs_xcalloc((size_t)s->nfields + 1, sizeof *s->seen);
    for (int i = 0; i < s->nfields; i++)
        s->name_len[i] = strlen(schema->names[i]);
    return s;
}

void cs_json_scanner_free(cs_json_scanner *s)
{
    if (!s) return;
    free(s->name_len);
    free(s->seen);
    cs_sbuf_free(&s->text);
    cs_sbuf_free(&s->scratch);
    free(s);
}

static inline const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
        p++;
    return p;
}

static inline bool is_digit(const char *p, const char *e)
{
    return p < e && *p >= '0' && *p <= '9';
}

/* One UTF-8 sequence at p as jansson checks it (no overlong forms, surrogates or values past
 * U+10FFFF): its length, 0 when invalid. */
static int utf8_length(const unsigned char *p, const unsigned char *e)
{
    unsigned c = p[0], v;
    int n;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, v = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, v = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, v = c & 0x07;
    else
        return 0;
    if (e - p < n) return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || (v >= 0xD800 && v <= 0xDFFF) ||
        v > 0x10FFFF)
        return 0;
    return n;
}

static int hex4(const char *p, const char *e)
{
    if (e - p < 4) return -1;
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

static void put_utf8(cs_sbuf *b, unsigned v)
{
    char u[4];
    size_t n;
    if (v < 0x80)
        u[0] = (char)v, n = 1;
    else if (v < 0x800)
        u[0] = (char)(0xC0 | (v >> 6)), u[1] = (char)(0x80 | (v & 0x3F)), n = 2;
    else if (v < 0x10000)
        u[0] = (char)(0xE0 | (v >> 12)), u[1] = (char)(0x80 | ((v >> 6) & 0x3F)),
        u[2] = (char)(0x80 | (v & 0x3F)), n = 3;
    else
        u[0] = (char)(0xF0 | (v >> 18)), u[1] = (char)(0x80 | ((v >> 12) & 0x3F)),
        u[2] = (char)(0x80 | ((v >> 6) & 0x3F)), u[3] = (char)(0x80 | (v & 0x3F)), n = 4;
    cs_sbuf_append(b, u, n);
}

/* A string whose opening quote is before p: its text in [*out, *out + *n) — in place when it
 * has no escapes, else decoded into `decoded` — and has_nul when it holds U+0000. Returns the
 * position after the closing quote, NULL when jansson would refuse it. */
static const char *scan_string(const char *p, const char *e, cs_sbuf *decoded, const char **out,
                               size_t *n, bool *has_nul)
{
    const char *start = p;
    *has_nul = false;
    while (p < e) { /* the common case: no escapes */
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *out = start, *n = (size_t)(p - start);
            return p + 1;
        }
        if (c == '\\') break;
        if (c < 0x20) return NULL;
        if (c < 0x80)
            p++;
        else {
            int k = utf8_length((const unsigned char *)p, (const unsigned char *)e);
            if (!k) return NULL;
            p += k;
        }
    }
    if (p >= e) return NULL;
    decoded->len = 0;
    cs_sbuf_append(decoded, start, (size_t)(p - start));
    while (p < e) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') {
            *out = decoded->data, *n = decoded->len;
            return p + 1;
        }
        if (c < 0x20) return NULL;
        if (c >= 0x80) {
            int k = utf8_length((const unsigned char *)p, (const unsigned char *)e);
            if (!k) return NULL;
            cs_sbuf_append(decoded, p, (size_t)k);
            p += k;
            continue;
        }
        if (c != '\\') {
            cs_sbuf_append(decoded, p++, 1);
            continue;
        }
        if (++p >= e) return NULL;
        char x = *p++, one = 0;
        switch (x) {
        case '"':
        case '\\':
        case '/':
            one = x;
            break;
        case 'b':
            one = '\b';
            break;
        case 'f':
            one = '\f';
            break;
        case 'n':
            one = '\n';
            break;
        case 'r':
            one = '\r';
            break;
        case 't':
            one = '\t';
            break;
        case 'u': {
            int v = hex4(p, e);
            if (v < 0) return NULL;
            p += 4;
            unsigned cp = (unsigned)v;
            if (cp >= 0xDC00 && cp <= 0xDFFF) return NULL; /* a lone low surrogate */
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (e - p < 6 || p[0] != '\\' || p[1] != 'u') return NULL;
                int lo = hex4(p + 2, e);
                if (lo < 0xDC00 || lo > 0xDFFF) return NULL;
                p += 6;
                cp = 0x10000 + ((cp - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
            }
            if (cp == 0) *has_nul = true;
            put_utf8(decoded, cp);
            continue;
        }
        default:
            return NULL;
        }
        cs_sbuf_append(decoded, &one, 1);
    }
    return NULL;
}

/* A number token as jansson reads it: integers (no '.', no exponent) within 64 bits are exact,
 * others are reals. */
typedef struct number {
    bool integer; /* an integer token that fits in 64 bits */
    int64_t i;
    const char *text;
    size_t len;
} number;

static const char *scan_number(const char *p, const char *e, number *num)
{
    const char *s = p;
    bool neg = *p == '-';
    if (neg) p++;
    if (!is_digit(p, e)) return NULL;
    uint64_t u = 0;
    bool overflow = false;
    if (*p == '0') {
        p++;
        if (is_digit(p, e)) return NULL; /* a leading zero */
    } else
        for (; is_digit(p, e); p++) {
            unsigned d = (unsigned)(*p - '0');
            if (u > (UINT64_MAX - d) / 10) overflow = true;
            u = u * 10 + d;
        }
    bool real = false;
    if (p < e && *p == '.') {
        p++;
        if (!is_digit(p, e)) return NULL;
        while (is_digit(p, e))
            p++;
        real = true;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (!is_digit(p, e)) return NULL;
        while (is_digit(p, e))
            p++;
        real = true;
    }
    num->text = s, num->len = (size_t)(p - s);
    num->integer = !real && !overflow && u <= (uint64_t)INT64_MAX + (neg ? 1 : 0);
    num->i = num->integer ? (neg ? (int64_t)(0 - u) : (int64_t)u) : 0;
    return p;
}

/* The double of a number token, as jansson's strtod gives it; false on overflow (jansson refuses
 * the record). Short decimals are exact in doubles (Clinger's fast path); others go to strtod. */
static bool number_double(const number *num, double *out)
{
    if (num->integer) {
        *out = (double)num->i;
        return true;
    }
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char *p = num->text, *e = p + num->len;
    bool neg = *p == '-';
    if (neg) p++;
    uint64_t m = 0;
    int digits = 0, exp10 = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++)
        if (digits < 19 && (m || *p != '0'))
            m = m * 10 + (uint64_t)(*p - '0'), digits++;
        else if (m || *p != '0')
            digits = 99; /* too many: strtod */
    if (p < e && *p == '.')
        for (p++; p < e && *p >= '0' && *p <= '9'; p++) {
            if (digits < 19 && (m || *p != '0'))
                m = m * 10 + (uint64_t)(*p - '0'), digits++;
            else if (m || *p != '0')
                digits = 99;
            exp10--;
        }
    if (p < e) { /* the exponent */
        p++;
        bool eneg = *p == '-';
        if (*p == '+' || *p == '-') p++;
        int x = 0;
        for (; p < e; p++)
            x = x < 10000 ? x * 10 + (*p - '0') : x;
        exp10 += eneg ? -x : x;
    }
    if (digits <= 19 && m <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
        double d = (double)m;
        d = exp10 < 0 ? d / pow10[-exp10] : d * pow10[exp10];
        *out = neg ? -d : d;
        return true;
    }
    char text[128];
    if (num->len >= sizeof text) return false; /* left to jansson */
    memcpy(text, num->text, num->len);
    text[num->len] = 0;
    errno = 0;
    double d = strtod(text, NULL);
    if ((d == HUGE_VAL || d == -HUGE_VAL) && errno == ERANGE) return false;
    *out = d;
    return true;
}

static const char *scan_literal(const char *p, const char *e, const char *word, size_t n)
{
    return (size_t)(e - p) >= n && !memcmp(p, word, n) ? p + n : NULL;
}

/* Past one value, checked as jansson would parse it; NULL when it would not (or is too deep). */
static const char *skip_value(cs_json_scanner *s, const char *p, const char *e, int depth)
{
    if (p >= e || depth > MAX_DEPTH) return NULL;
    const char *str;
    size_t n;
    bool nul;
    number num;
    switch (*p) {
    case '"':
        return scan_string(p + 1, e, &s->scratch, &str, &n, &nul);
    case 't':
        return scan_literal(p, e, "true", 4);
    case 'f':
        return scan_literal(p, e, "false", 5);
    case 'n':
        return scan_literal(p, e, "null", 4);
    case '[':
        p = skip_ws(p + 1, e);
        if (p < e && *p == ']') return p + 1;
        for (;;) {
            if (!(p = skip_value(s, p, e, depth + 1))) return NULL;
            p = skip_ws(p, e);
            if (p >= e) return NULL;
            if (*p == ']') return p + 1;
            if (*p != ',') return NULL;
            p = skip_ws(p + 1, e);
        }
    case '{':
        p = skip_ws(p + 1, e);
        if (p < e && *p == '}') return p + 1;
        for (;;) {
            if (p >= e || *p != '"' || !(p = scan_string(p + 1, e, &s->scratch, &str, &n, &nul)) ||
                nul)
                return NULL; /* jansson refuses a NUL in a key */
            p = skip_ws(p, e);
            if (p >= e || *p != ':') return NULL;
            if (!(p = skip_value(s, skip_ws(p + 1, e), e, depth + 1))) return NULL;
            p = skip_ws(p, e);
            if (p >= e) return NULL;
            if (*p == '}') return p + 1;
            if (*p != ',') return NULL;
            p = skip_ws(p + 1, e);
        }
    default:
        return *p == '-' || (*p >= '0' && *p <= '9') ? scan_number(p, e, &num) : NULL;
    }
}

/* The value at p into column col of type t: past it, or NULL to leave the record to jansson. */
static const char *scan_field(cs_json_scanner *s, const char *p, const char *e, int col,
                              cs_field_chunk *c)
{
    const cs_ftype *t = s->schema->fields[col];
    if (p >= e) return NULL;
    if (*p == 'n') {
        cs_field_set_null(c, col);
        return scan_literal(p, e, "null", 4);
    }
    const char *q = NULL, *str;
    size_t n;
    bool nul;
    number num;
    switch (t->kind) {
    case CS_FT_STRING:
        if (*p != '"') break;
        if ((q = scan_string(p + 1, e, &s->text, &str, &n, &nul))) cs_field_set_str(c, col, str, n);
        return q;
    case CS_FT_BYTE: /* -128..255 as Jackson's getByteValue, the byte of it */
    case CS_FT_SHORT:
    case CS_FT_INT:
    case CS_FT_LONG:
        if (*p != '-' && !(*p >= '0' && *p <= '9')) break;
        if (!(q = scan_number(p, e, &num)) || !num.integer ||
            (t->kind == CS_FT_INT && (num.i < INT32_MIN || num.i > INT32_MAX)) ||
            (t->kind == CS_FT_SHORT && (num.i < INT16_MIN || num.i > INT16_MAX)) ||
            (t->kind == CS_FT_BYTE && (num.i < INT8_MIN || num.i > UINT8_MAX)))
            return NULL;
        cs_field_set_i64(c, col, t->kind == CS_FT_BYTE ? (int8_t)num.i : num.i);
        return q;
    case CS_FT_FLOAT: /* the double rounded to float, as json_reader.c's set_field */
    case CS_FT_DOUBLE: {
        double d;
        if (*p != '-' && !(*p >= '0' && *p <= '9')) break;
        if (!(q = scan_number(p, e, &num)) || !number_double(&num, &d)) return NULL;
        cs_field_set_f64(c, col, t->kind == CS_FT_FLOAT ? (float)d : d);
        return q;
    }
    case CS_FT_BOOLEAN:
        if ((q = scan_literal(p, e, "true", 4)))
            cs_field_set_i64(c, col, 1);
        else if ((q = scan_literal(p, e, "false", 5)))
            cs_field_set_i64(c, col, 0);
        return q;
    case CS_FT_DATE:
    case CS_FT_TIMESTAMP: {
        int64_t x;
        if (*p != '"') break;
        if (!(q = scan_string(p + 1, e, &s->text, &str, &n, &nul)) ||
            !cs_json_time_text(s->o, t->kind == CS_FT_DATE, str, n, &x))
            return NULL;
        cs_field_set_i64(c, col, x);
        return q;
    }
    case CS_FT_TIMESTAMP_NTZ: {
        int64_t x;
        if (*p != '"') break;
        if (!(q = scan_string(p + 1, e, &s->text, &str, &n, &nul)) ||
            !cs_json_ntz_text(s->o, str, n, &x))
            return NULL;
        cs_field_set_i64(c, col, x);
        return q;
    }
    case CS_FT_BINARY:
        if (*p != '"') break;
        if (!(q = scan_string(p + 1, e, &s->text, &str, &n, &nul)) ||
            !cs_json_set_binary(c, col, str, n))
            return NULL;
        return q;
    default:
        break;
    }
    /* nested and decimal columns, and values of other JSON types: jansson reads this value */
    if (!(q = skip_value(s, p, e, 1))) return NULL;
    json_t *v = cs_json_parse_value(s->o, p, (size_t)(q - p));
    bool ok = v && cs_json_set_field(s->o, t, v, c, col);
    json_decref(v);
    return ok ? q : NULL;
}

static int find_field(cs_json_scanner *s, const char *key, size_t n)
{
    int g = s->guess;
    if (g < s->nfields && s->name_len[g] == n && !memcmp(s->schema->names[g], key, n)) return g;
    for (int i = 0; i < s->nfields; i++)
        if (s->name_len[i] == n && !memcmp(s->schema->names[i], key, n)) return i;
    return -1;
}

bool cs_json_scan_record(cs_json_scanner *s, const char *text, size_t len, cs_field_chunk *c)
{
    const char *p = skip_ws(text, text + len), *e = text + len;
    if (p >= e || *p != '{') return false;
    if (++s->generation == 0) { /* wrapped: forget every mark */
        memset(s->seen, 0, (size_t)s->nfields * sizeof *s->seen);
        s->generation = 1;
    }
    s->guess = 0;
    p = skip_ws(p + 1, e);
    if (p < e && *p == '}')
        p++;
    else
        for (;;) {
            const char *key;
            size_t n;
            bool nul;
            if (p >= e || *p != '"' || !(p = scan_string(p + 1, e, &s->scratch, &key, &n, &nul)) ||
                nul)
                return false;
            p = skip_ws(p, e);
            if (p >= e || *p != ':') return false;
            p = skip_ws(p + 1, e);
            int col = find_field(s, key, n);
            if (col >= 0 && col != s->skip_col) {
                if (s->seen[col] == s->generation) return false; /* a duplicate key */
                s->seen[col] = s->generation;
                s->guess = col + 1;
                p = scan_field(s, p, e, col, c);
            } else
                p = skip_value(s, p, e, 1);
            if (!p) return false;
            p = skip_ws(p, e);
            if (p >= e) return false;
            if (*p == '}') {
                p++;
                break;
            }
            if (*p != ',') return false;
            p = skip_ws(p + 1, e);
        }
    if (skip_ws(p, e) != e) return false; /* text after the value */
    for (int i = 0; i < s->nfields; i++)
        if (s->seen[i] != s->generation && i != s->skip_col) cs_field_set_null(c, i);
    return true;
}
