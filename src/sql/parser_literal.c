/*
 * parser_literal.c — Spark SQL literals and data types, typed as Spark's AstBuilder types them:
 *   integers: int, else bigint, else decimal(p,0); 1L bigint, 1S smallint, 1Y tinyint (out of
 *   range: INVALID_NUMERIC_LITERAL_RANGE); 1.5 decimal(2,1) (BigDecimal's precision and scale,
 *   a negative scale raised to 0); 1e3 and 1.5D double; 1.5F float; 1.5BD decimal;
 *   'strings' string; X'0A' binary; DATE '...' date; TIMESTAMP_NTZ '...' timestamp_ntz;
 *   TIMESTAMP '...' with an offset or zone: timestamp, else cast('...' as timestamp) so that
 *   the analyzer applies the session time zone (the text is checked here); ANSI intervals:
 *   INTERVAL '1' DAY, INTERVAL 1 DAY 2 HOURS (day to hour), INTERVAL '1-2' YEAR TO MONTH,
 *   INTERVAL '1 02:03:04.5' DAY TO SECOND, INTERVAL '3 days' (units inside the string).
 * Bad literals give Spark's INVALID_TYPED_LITERAL. Data types: Spark's names and synonyms
 * (byte, short, integer, long, real, dec, numeric, char(n)/varchar(n) as string), nested
 * array<...>, map<k,v>, struct<name: type [NOT NULL] [COMMENT '...'], ...>, intervals; an
 * unknown name is UNSUPPORTED_DATATYPE.
 *
 * Every column and type is handed to the arena as soon as it is made, so an error (a longjmp)
 * never leaks one.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "formats/text_values.h"
#include "sql/parser_internal.h"

/* ---- one-row literal columns ---- */

static cs_sql_expr *lit_values(cs_sqlp *p, cs_col_type *type, const void *v, int line, int pos)
{
    cs_col_builder *b = cs_col_builder_new(NULL, type);
    if (v)
        cs_col_builder_append_values(b, v, 1, NULL);
    else
        cs_col_builder_append_nulls(b, 1);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_sql_expr *e = cs_sql_expr_literal(p->a, c);
    e->line = line;
    e->pos = pos;
    return e;
}

static cs_sql_expr *lit_bytes(cs_sqlp *p, cs_type_id id, const void *s, size_t n, int line, int pos)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(id));
    cs_col_builder_append_string(b, s, n);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_sql_expr *e = cs_sql_expr_literal(p->a, c);
    e->line = line;
    e->pos = pos;
    return e;
}

cs_sql_expr *cs_sqlp_string_literal(cs_sqlp *p, const char *s, int line, int pos)
{
    return lit_bytes(p, CS_TYPE_STRING, s, strlen(s), line, pos);
}

cs_sql_expr *cs_sqlp_bool_literal(cs_sqlp *p, bool v, int line, int pos)
{
    uint8_t b = v;
    return lit_values(p, cs_col_type_primitive(CS_TYPE_BOOLEAN), &b, line, pos);
}

cs_sql_expr *cs_sqlp_null_literal(cs_sqlp *p, int line, int pos)
{
    /* a void column of one null row: a validity byte, no values (the builders know no void) */
    cs_column *c = cs_column_new_raw(NULL, cs_col_type_primitive(CS_TYPE_NULL), 1);
    c->validity_size = 1;
    c->validity = cs_col_buffer_alloc(c->alloc, 1);
    c->validity[0] = 0;
    c->null_count = 1;
    cs_sql_expr *e = cs_sql_expr_literal(p->a, c);
    e->line = line;
    e->pos = pos;
    return e;
}

cs_sql_expr *cs_sqlp_int_literal(cs_sqlp *p, int32_t v, int line, int pos)
{
    return lit_values(p, cs_col_type_primitive(CS_TYPE_INT), &v, line, pos);
}

/* ---- numbers ---- */

_Noreturn static void range_error(cs_sqlp *p, const cs_sql_token *t, bool neg, size_t body,
                                  const char *type, const char *min, const char *max)
{
    cs_sqlp_fail(p, t->line, t->pos, "INVALID_NUMERIC_LITERAL_RANGE", "22003",
                 "Numeric literal %s%.*s is outside the valid range for %s with minimum value "
                 "of %s and maximum value of %s. Please adjust the value accordingly.",
                 neg ? "-" : "", (int)body, t->text, type, min, max);
}

typedef __int128 i128;

/* BigDecimal(text): unscaled value, precision, scale (a negative scale raised to 0); false when
 * more than 38 digits. */
static bool big_decimal(const char *s, size_t n, i128 *unscaled, int *precision, int *scale)
{
    i128 v = 0;
    int digits = 0, frac = 0;
    long exp = 0;
    bool in_frac = false, started = false;
    size_t i = 0;
    for (; i < n; i++) {
        char c = s[i];
        if (c == '.') {
            in_frac = true;
            continue;
        }
        if (!isdigit((unsigned char)c)) break;
        if (in_frac) frac++;
        if (c != '0' || started) {
            started = true;
            if (++digits > 38) return false;
        }
        v = v * 10 + (c - '0');
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) exp = strtol(s + i + 1, NULL, 10);
    long sc = frac - exp;
    if (sc < 0) {
        if (digits - sc > 38 && v != 0) return false;
        for (long k = 0; k < -sc; k++)
            v *= 10;
        if (v != 0) digits += (int)-sc;
        sc = 0;
    }
    if (sc > 38) return false;
    *unscaled = v;
    *precision = digits ? digits : 1;
    *scale = (int)sc;
    return true;
}

static cs_sql_expr *decimal_literal(cs_sqlp *p, const cs_sql_token *t, bool neg, size_t body)
{
    i128 v;
    int prec, scale;
    if (!big_decimal(t->text, body, &v, &prec, &scale))
        cs_sqlp_fail(p, t->line, t->pos, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
                     "Decimal precision %d exceeds max precision 38.", (int)body);
    if (neg) v = -v;
    cs_error err;
    cs_col_type *type = cs_col_type_decimal(prec > scale ? prec : scale, scale, &err);
    if (!type)
        cs_sqlp_fail(p, t->line, t->pos, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
                     "Decimal precision %d exceeds max precision 38.", prec);
    cs_sql_expr *e = lit_values(p, type, &v, t->line, t->pos);
    cs_col_type_unref(type);
    return e;
}

cs_sql_expr *cs_sqlp_number(cs_sqlp *p, bool neg)
{
    /* a negative literal starts at its '-' (errors and the node point there, as Spark's) */
    cs_sql_token tok = *cs_sqlp_next(p), *t = &tok;
    if (neg) {
        t->line = p->toks[p->i - 2].line;
        t->pos = p->toks[p->i - 2].pos;
    }
    size_t n = t->len;
    char last = (char)toupper((unsigned char)t->text[n - 1]);
    bool bd = n >= 2 && last == 'D' && toupper((unsigned char)t->text[n - 2]) == 'B';
    bool has_frac = strchr(t->text, '.') != NULL;
    bool has_exp = strpbrk(t->text, "eE") != NULL && !bd;
    size_t body = bd ? n - 2 : (isalpha((unsigned char)last) ? n - 1 : n);
    if (bd) return decimal_literal(p, t, neg, body);
    if (last == 'D' || last == 'F') {
        char buf[512];
        snprintf(buf, sizeof buf, "%s%.*s", neg ? "-" : "", (int)body, t->text);
        errno = 0;
        double d = strtod(buf, NULL);
        if (last == 'D') {
            if (isinf(d))
                range_error(p, t, neg, body, "double", "-1.7976931348623157E+308",
                            "1.7976931348623157E+308");
            return lit_values(p, cs_col_type_primitive(CS_TYPE_DOUBLE), &d, t->line, t->pos);
        }
        float f = (float)d;
        if (isinf(f))
            range_error(p, t, neg, body, "float", "-3.4028234663852886E+38",
                        "3.4028234663852886E+38");
        return lit_values(p, cs_col_type_primitive(CS_TYPE_FLOAT), &f, t->line, t->pos);
    }
    if (has_exp) { /* EXPONENT_VALUE: double */
        char buf[512];
        snprintf(buf, sizeof buf, "%s%.*s", neg ? "-" : "", (int)body, t->text);
        double d = strtod(buf, NULL);
        if (isinf(d))
            range_error(p, t, neg, body, "double", "-1.7976931348623157E+308",
                        "1.7976931348623157E+308");
        return lit_values(p, cs_col_type_primitive(CS_TYPE_DOUBLE), &d, t->line, t->pos);
    }
    if (has_frac) return decimal_literal(p, t, neg, body);
    /* integers: the value with its sign, checked against the suffix's range */
    i128 v = 0;
    bool big = false;
    for (size_t i = 0; i < body; i++) {
        v = v * 10 + (t->text[i] - '0');
        if (v > (i128)1 << 100) big = true;
        if (big) break;
    }
    if (neg) v = -v;
    if (last == 'L') {
        if (big || v > INT64_MAX || v < INT64_MIN)
            range_error(p, t, neg, body, "bigint", "-9223372036854775808", "9223372036854775807");
        int64_t x = (int64_t)v;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_LONG), &x, t->line, t->pos);
    }
    if (last == 'S') {
        if (big || v > INT16_MAX || v < INT16_MIN)
            range_error(p, t, neg, body, "smallint", "-32768", "32767");
        int16_t x = (int16_t)v;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_SHORT), &x, t->line, t->pos);
    }
    if (last == 'Y') {
        if (big || v > INT8_MAX || v < INT8_MIN)
            range_error(p, t, neg, body, "tinyint", "-128", "127");
        int8_t x = (int8_t)v;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_BYTE), &x, t->line, t->pos);
    }
    if (!big && v >= INT32_MIN && v <= INT32_MAX) {
        int32_t x = (int32_t)v;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_INT), &x, t->line, t->pos);
    }
    if (!big && v >= INT64_MIN && v <= INT64_MAX) {
        int64_t x = (int64_t)v;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_LONG), &x, t->line, t->pos);
    }
    return decimal_literal(p, t, neg, body);
}

/* ---- dates and timestamps ---- */

static int days_in_month(int64_t y, int m)
{
    static const int dm[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

static int read_int(const char **s, int max_digits, int64_t *out)
{
    int k = 0;
    int64_t v = 0;
    while (k < max_digits && isdigit((unsigned char)**s)) {
        v = v * 10 + (**s - '0');
        (*s)++;
        k++;
    }
    *out = v;
    return k;
}

/* Spark's date text: [+-]yyyy[-[m]m[-[d]d]] then nothing, or ' ' / 'T' and anything. */
static bool parse_date(const char *s, int64_t *days, const char **rest)
{
    while (isspace((unsigned char)*s))
        s++;
    bool neg = *s == '-';
    if (*s == '+' || *s == '-') s++;
    int64_t y, m = 1, d = 1;
    int k = read_int(&s, 7, &y);
    if (k < 4) return false;
    if (neg) y = -y;
    if (*s == '-') {
        s++;
        if (read_int(&s, 2, &m) < 1) return false;
        if (*s == '-') {
            s++;
            if (read_int(&s, 2, &d) < 1) return false;
        }
    }
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, (int)m)) return false;
    *days = cs_tv_days_from_civil(y, (int)m, (int)d);
    *rest = s;
    return true;
}

/* The date and time of a timestamp text; *has_zone when an offset or zone follows (then
 * *micros is UTC). */
static bool parse_timestamp(const char *s, int64_t *micros, bool *has_zone, int64_t *offset)
{
    int64_t days;
    const char *r;
    if (!parse_date(s, &days, &r)) return false;
    int64_t h = 0, mi = 0, sec = 0, frac = 0;
    *has_zone = false;
    if (*r == ' ' || *r == 'T') {
        r++;
        if (read_int(&r, 2, &h) < 1) {
            while (isspace((unsigned char)*r))
                r++;
            if (*r) return false;
        } else {
            if (*r == ':') {
                r++;
                if (read_int(&r, 2, &mi) < 1) return false;
                if (*r == ':') {
                    r++;
                    if (read_int(&r, 2, &sec) < 1) return false;
                    if (*r == '.') {
                        r++;
                        int64_t f;
                        int k = 0;
                        f = 0;
                        while (isdigit((unsigned char)*r)) {
                            if (k < 6) f = f * 10 + (*r - '0');
                            k++;
                            r++;
                        }
                        for (; k < 6; k++)
                            f *= 10;
                        frac = f;
                    }
                }
            }
        }
    }
    if (h > 23 || mi > 59 || sec > 59) return false;
    int64_t off = 0;
    while (*r == ' ')
        r++;
    if (*r == 'Z' && !r[1]) {
        *has_zone = true;
        r++;
    } else if (*r == '+' || *r == '-') {
        int sign = *r == '-' ? -1 : 1;
        r++;
        int64_t oh, om = 0;
        if (read_int(&r, 2, &oh) < 1) return false;
        if (*r == ':') r++;
        read_int(&r, 2, &om);
        if (oh > 18 || om > 59) return false;
        off = sign * (oh * 3600 + om * 60);
        *has_zone = true;
    } else if (strncasecmp(r, "UTC", 3) == 0 || strncasecmp(r, "GMT", 3) == 0) {
        r += 3;
        *has_zone = true;
    }
    while (isspace((unsigned char)*r))
        r++;
    if (*r) return false;
    *micros = ((days * 86400 + h * 3600 + mi * 60 + sec) - off) * 1000000 + frac;
    *offset = off;
    return true;
}

_Noreturn static void bad_typed(cs_sqlp *p, const cs_sql_token *t, const char *type,
                                const char *text)
{
    cs_sqlp_fail(p, t->line, t->pos, "INVALID_TYPED_LITERAL", "42604",
                 "The value of the typed literal \"%s\" is invalid: '%.300s'.", type, text);
}

cs_sql_expr *cs_sqlp_typed_literal(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_next(p);
    const char *s = cs_sqlp_string(p);
    if (cs_sql_tok_is_kw(t, "X")) {
        size_t n = strlen(s);
        uint8_t *bytes = cs_sql_alloc(p->a, n / 2 + 2);
        size_t k = 0, i = 0;
        if (n % 2) { /* an odd count: a leading 0 nibble, as Spark's Hex.unhex */
            if (!isxdigit((unsigned char)s[0])) bad_typed(p, t, "X", s);
            bytes[k++] =
                (uint8_t)(isdigit((unsigned char)s[0]) ? s[0] - '0' : tolower(s[0]) - 'a' + 10);
            i = 1;
        }
        for (; i < n; i += 2) {
            if (!isxdigit((unsigned char)s[i]) || !isxdigit((unsigned char)s[i + 1]))
                bad_typed(p, t, "X", s);
            int hi = isdigit((unsigned char)s[i]) ? s[i] - '0' : tolower(s[i]) - 'a' + 10;
            int lo =
                isdigit((unsigned char)s[i + 1]) ? s[i + 1] - '0' : tolower(s[i + 1]) - 'a' + 10;
            bytes[k++] = (uint8_t)(hi * 16 + lo);
        }
        return lit_bytes(p, CS_TYPE_BINARY, bytes, k, t->line, t->pos);
    }
    if (cs_sql_tok_is_kw(t, "DATE")) {
        int64_t days;
        const char *rest;
        if (!parse_date(s, &days, &rest) || (*rest && *rest != ' ' && *rest != 'T') ||
            days > INT32_MAX || days < INT32_MIN)
            bad_typed(p, t, "DATE", s);
        int32_t d = (int32_t)days;
        return lit_values(p, cs_col_type_primitive(CS_TYPE_DATE), &d, t->line, t->pos);
    }
    bool ntz = cs_sql_tok_is_kw(t, "TIMESTAMP_NTZ");
    const char *name = ntz                                    ? "TIMESTAMP_NTZ"
                       : cs_sql_tok_is_kw(t, "TIMESTAMP_LTZ") ? "TIMESTAMP_LTZ"
                                                              : "TIMESTAMP";
    int64_t micros, offset;
    bool zone;
    if (!parse_timestamp(s, &micros, &zone, &offset)) bad_typed(p, t, name, s);
    if (ntz) micros += offset * 1000000; /* Spark's TIMESTAMP_NTZ drops a written zone */
    if (ntz || zone)
        return lit_values(p, cs_col_type_primitive(ntz ? CS_TYPE_TIMESTAMP_NTZ : CS_TYPE_TIMESTAMP),
                          &micros, t->line, t->pos);
    /* a local time: the session time zone applies at analysis, as Spark's cast of the local
     * date-time (TIMESTAMP_NTZ) to timestamp */
    cs_sql_expr *c = cs_sql_expr_new(p->a, CS_EX_CAST, 1);
    c->line = t->line;
    c->pos = t->pos;
    c->args[0] =
        lit_values(p, cs_col_type_primitive(CS_TYPE_TIMESTAMP_NTZ), &micros, t->line, t->pos);
    c->cast_type = cs_col_type_primitive(CS_TYPE_TIMESTAMP);
    c->cast_mode = CS_CAST_ANSI;
    c->typed_literal = true;
    return c;
}

/* ---- intervals ---- */

typedef enum unit {
    U_YEAR,
    U_MONTH,
    U_WEEK,
    U_DAY,
    U_HOUR,
    U_MINUTE,
    U_SECOND,
    U_MILLI,
    U_MICRO,
    U_NONE
} unit;

static unit unit_of(const char *w)
{
    static const struct {
        const char *name;
        unit u;
    } names[] = {{"YEAR", U_YEAR},         {"YEARS", U_YEAR},
                 {"MONTH", U_MONTH},       {"MONTHS", U_MONTH},
                 {"WEEK", U_WEEK},         {"WEEKS", U_WEEK},
                 {"DAY", U_DAY},           {"DAYS", U_DAY},
                 {"HOUR", U_HOUR},         {"HOURS", U_HOUR},
                 {"MINUTE", U_MINUTE},     {"MINUTES", U_MINUTE},
                 {"SECOND", U_SECOND},     {"SECONDS", U_SECOND},
                 {"MILLISECOND", U_MILLI}, {"MILLISECONDS", U_MILLI},
                 {"MICROSECOND", U_MICRO}, {"MICROSECONDS", U_MICRO}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (strcasecmp(w, names[k].name) == 0) return names[k].u;
    return U_NONE;
}

typedef struct interval_acc {
    int64_t months, micros;
    int ym_lo, ym_hi, dt_lo, dt_hi; /* fields used; -1 none */
    bool bad;
} interval_acc;

static void acc_field(interval_acc *a, bool ym, int f)
{
    if (ym) {
        if (a->ym_lo < 0 || f < a->ym_lo) a->ym_lo = f;
        if (f > a->ym_hi) a->ym_hi = f;
    } else {
        if (a->dt_lo < 0 || f < a->dt_lo) a->dt_lo = f;
        if (f > a->dt_hi) a->dt_hi = f;
    }
}

/* value (a decimal number with sign) of unit u added to a */
static bool acc_add(interval_acc *a, const char *value, unit u)
{
    char *end;
    while (isspace((unsigned char)*value))
        value++;
    if (!*value) return false;
    errno = 0;
    double d = strtod(value, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (*end || errno) return false;
    bool integral = d == floor(d);
    long double mul;
    switch (u) {
    case U_YEAR:
    case U_MONTH:
        if (!integral) return false;
        a->months += (int64_t)d * (u == U_YEAR ? 12 : 1);
        acc_field(a, true, u == U_YEAR ? CS_INTERVAL_YEAR : CS_INTERVAL_MONTH);
        return fabs((double)a->months) < 2147483648.0;
    case U_WEEK:
        mul = 7.0L * 86400e6L;
        acc_field(a, false, CS_INTERVAL_DAY);
        break;
    case U_DAY:
        mul = 86400e6L;
        acc_field(a, false, CS_INTERVAL_DAY);
        break;
    case U_HOUR:
        mul = 3600e6L;
        acc_field(a, false, CS_INTERVAL_HOUR);
        break;
    case U_MINUTE:
        mul = 60e6L;
        acc_field(a, false, CS_INTERVAL_MINUTE);
        break;
    case U_SECOND:
        mul = 1e6L;
        acc_field(a, false, CS_INTERVAL_SECOND);
        break;
    case U_MILLI:
        mul = 1e3L;
        acc_field(a, false, CS_INTERVAL_SECOND);
        break;
    case U_MICRO:
        mul = 1;
        acc_field(a, false, CS_INTERVAL_SECOND);
        break;
    default:
        return false;
    }
    if (!integral && u != U_SECOND && u != U_MILLI) return false;
    long double v = (long double)d * mul;
    if (fabsl(v) > 9.2e18L) return false;
    a->micros += (int64_t)llroundl(v);
    return true;
}

/* 'y-m', 'd h:m:s.f' and their shorter forms for INTERVAL '...' from TO to */
static bool parse_from_to(const char *s, unit from, unit to, interval_acc *a)
{
    while (isspace((unsigned char)*s))
        s++;
    int sign = 1;
    if (*s == '-' || *s == '+') {
        sign = *s == '-' ? -1 : 1;
        s++;
    }
    int64_t v[4] = {0};
    if (from == U_YEAR && to == U_MONTH) {
        if (read_int(&s, 10, &v[0]) < 1 || *s++ != '-' || read_int(&s, 2, &v[1]) < 1 || v[1] > 11)
            return false;
        while (isspace((unsigned char)*s))
            s++;
        if (*s) return false;
        a->months = sign * (v[0] * 12 + v[1]);
        acc_field(a, true, CS_INTERVAL_YEAR);
        acc_field(a, true, CS_INTERVAL_MONTH);
        return a->months < 2147483648LL && a->months > -2147483648LL;
    }
    /* day-time: fields from..to, separated by ' ' after a day and ':' after others */
    int first = from == U_DAY ? 0 : from == U_HOUR ? 1 : from == U_MINUTE ? 2 : 3;
    int last = to == U_DAY ? 0 : to == U_HOUR ? 1 : to == U_MINUTE ? 2 : 3;
    if (last < first || from == U_YEAR || from == U_MONTH) return false;
    int64_t frac = 0;
    for (int f = first; f <= last; f++) {
        if (f > first) {
            char sep = f == 1 ? ' ' : ':';
            if (*s++ != sep) return false;
        }
        if (read_int(&s, f == first ? 12 : 2, &v[f]) < 1) return false;
        if (f > first && ((f == 1 && v[f] > 23) || (f >= 2 && v[f] > 59))) return false;
        if (f == 3 && *s == '.') {
            s++;
            int k = 0;
            while (isdigit((unsigned char)*s)) {
                if (k < 6) frac = frac * 10 + (*s - '0');
                k++;
                s++;
            }
            if (k > 9) return false;
            for (; k < 6; k++)
                frac *= 10;
        }
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s) return false;
    long double total = ((long double)v[0] * 86400 + v[1] * 3600 + v[2] * 60 + v[3]) * 1e6L + frac;
    if (total > 9.2e18L) return false;
    a->micros = sign * (int64_t)total;
    acc_field(a, false, first);
    acc_field(a, false, last);
    return true;
}

static cs_sql_expr *interval_value(cs_sqlp *p, const cs_sql_token *t, interval_acc *a)
{
    if (a->ym_lo >= 0 && a->dt_lo >= 0) {
        const cs_sql_token *last = &p->toks[p->i - 1];
        int len = (int)(last->end - t->start);
        cs_sqlp_fail(p, t->line, t->pos, "_LEGACY_ERROR_TEMP_0029", "42000",
                     "Cannot mix year-month and day-time fields: %.*s.", len > 300 ? 300 : len,
                     p->sql + t->start);
    }
    cs_error err;
    if (a->ym_lo >= 0) {
        cs_col_type *ty = cs_col_type_interval(CS_TYPE_INTERVAL_YM, a->ym_lo, a->ym_hi, &err);
        int32_t m = (int32_t)a->months;
        cs_sql_expr *e = lit_values(p, ty, &m, t->line, t->pos);
        cs_col_type_unref(ty);
        return e;
    }
    cs_col_type *ty = cs_col_type_interval(CS_TYPE_INTERVAL_DT, a->dt_lo, a->dt_hi, &err);
    cs_sql_expr *e = lit_values(p, ty, &a->micros, t->line, t->pos);
    cs_col_type_unref(ty);
    return e;
}

/* the value of one unit: a number (signed) or a string */
static const char *interval_operand(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind == CS_TOK_STRING) return cs_sqlp_string(p);
    bool neg = false;
    if (cs_sql_tok_is_op(t, "-") || cs_sql_tok_is_op(t, "+")) {
        neg = t->text[0] == '-';
        cs_sqlp_next(p);
        t = cs_sqlp_peek(p, 0);
    }
    if (t->kind != CS_TOK_NUMBER) cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    size_t n = t->len + 2;
    char *s = cs_sql_alloc(p->a, n);
    snprintf(s, n, "%s%s", neg ? "-" : "", t->text);
    return s;
}

/* A value of INTERVAL 'v' UNIT [...] holding a letter ('1 day' HOUR, 'x' DAY): Spark's parser
 * refuses it before it could join its units (visitMultiUnitsInterval) */
static void no_letters(cs_sqlp *p, const cs_sql_token *t, const char *value)
{
    for (const char *c = value; *c; c++)
        if (isalpha((unsigned char)*c))
            cs_sqlp_fail(p, t->line, t->pos, "_LEGACY_ERROR_TEMP_0026", "",
                         "Can only use numbers in the interval value part for multiple unit value "
                         "pairs interval form, but got invalid value: %s.",
                         value);
}

cs_sql_expr *cs_sqlp_interval(cs_sqlp *p)
{
    cs_sql_token *t = &p->toks[p->i - 1]; /* INTERVAL */
    interval_acc a = {.ym_lo = -1, .ym_hi = -1, .dt_lo = -1, .dt_hi = -1};
    const char *first = interval_operand(p);
    cs_sql_token *ut = cs_sqlp_peek(p, 0);
    unit u = ut->kind == CS_TOK_WORD ? unit_of(ut->text) : U_NONE;
    if (u == U_NONE) {
        /* INTERVAL '3 days 2 hours': the units inside the string */
        char *copy = cs_sql_strdup(p->a, first);
        char *save = NULL, *num = strtok_r(copy, " \t", &save);
        if (!num) bad_typed(p, t, "INTERVAL", first);
        while (num) {
            char *un = strtok_r(NULL, " \t", &save);
            unit uu = un ? unit_of(un) : U_NONE;
            if (uu == U_NONE || !acc_add(&a, num, uu)) bad_typed(p, t, "INTERVAL", first);
            num = strtok_r(NULL, " \t", &save);
        }
        return interval_value(p, t, &a);
    }
    cs_sqlp_next(p);
    if (cs_sqlp_is_kw(p, 0, "TO")) {
        cs_sqlp_next(p);
        cs_sql_token *tt = cs_sqlp_peek(p, 0);
        unit to = tt->kind == CS_TOK_WORD ? unit_of(tt->text) : U_NONE;
        if (to == U_NONE) cs_sqlp_syntax_error(p, tt);
        cs_sqlp_next(p);
        if (!parse_from_to(first, u, to, &a))
            cs_sqlp_fail(p, t->line, t->pos, "INVALID_INTERVAL_FORMAT.INTERVAL_PARSING", "22006",
                         "Error parsing '%s' to interval. Please ensure that the value provided "
                         "is in a valid format for defining an interval. You can reference the "
                         "documentation for the correct format. Error parsing interval %s "
                         "string.",
                         first, u == U_YEAR || u == U_MONTH ? "year-month" : "day-time");
        return interval_value(p, t, &a);
    }
    no_letters(p, t, first);
    if (!acc_add(&a, first, u)) bad_typed(p, t, "INTERVAL", first);
    /* more units: INTERVAL 1 DAY 2 HOURS */
    while (cs_sqlp_peek(p, 0)->kind == CS_TOK_NUMBER || cs_sqlp_peek(p, 0)->kind == CS_TOK_STRING ||
           ((cs_sqlp_is_op(p, 0, "-") || cs_sqlp_is_op(p, 0, "+")) &&
            cs_sqlp_peek(p, 1)->kind == CS_TOK_NUMBER && cs_sqlp_peek(p, 2)->kind == CS_TOK_WORD &&
            unit_of(cs_sqlp_peek(p, 2)->text) != U_NONE)) {
        int k = cs_sqlp_peek(p, 0)->kind == CS_TOK_OP ? 2 : 1;
        if (cs_sqlp_peek(p, k)->kind != CS_TOK_WORD || unit_of(cs_sqlp_peek(p, k)->text) == U_NONE)
            break;
        const char *v = interval_operand(p);
        no_letters(p, t, v);
        unit uu = unit_of(cs_sqlp_next(p)->text);
        if (!acc_add(&a, v, uu)) bad_typed(p, t, "INTERVAL", v);
    }
    return interval_value(p, t, &a);
}

/* ---- data types ---- */

static void expect_close_angle(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (cs_sql_tok_is_op(t, ">")) {
        cs_sqlp_next(p);
        return;
    }
    if (cs_sql_tok_is_op(t, ">>") || cs_sql_tok_is_op(t, ">>>")) { /* array<array<int>> */
        t->text++;
        t->len--;
        t->start++;
        t->pos++;
        return;
    }
    cs_sqlp_syntax_error(p, t);
}

static int type_int_param(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_NUMBER || t->len > 9 || strspn(t->text, "0123456789") != t->len)
        cs_sqlp_syntax_error(p, t);
    cs_sqlp_next(p);
    return atoi(t->text);
}

static cs_col_type *keep(cs_sqlp *p, cs_col_type *t)
{
    return cs_sql_arena_keep_type(p->a, t);
}

static int interval_field(const cs_sql_token *t, bool *ym)
{
    static const char *const f[] = {"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"};
    for (int k = 0; k < 6; k++)
        if (cs_sql_tok_is_kw(t, f[k])) {
            *ym = k < 2;
            return k < 2 ? k : k - 2;
        }
    return -1;
}

const char *cs_sqlp_collation_name(cs_sqlp *p)
{
    /* an identifier, or SYSTEM.BUILTIN.name */
    const char *name = cs_sqlp_ident(p);
    while (cs_sqlp_is_op(p, 0, ".")) {
        cs_sqlp_next(p);
        const char *part = cs_sqlp_ident(p);
        size_t n = strlen(name) + strlen(part) + 2;
        char *joined = cs_sql_alloc(p->a, n);
        snprintf(joined, n, "%s.%s", name, part);
        name = joined;
    }
    return name;
}

_Noreturn void cs_sqlp_collation_invalid(cs_sqlp *p, const cs_sql_token *t, const char *name)
{
    cs_sbuf buf = {0};
    cs_collation_proposals(name, &buf);
    const char *props = cs_sql_strdup(p->a, buf.data ? buf.data : "");
    cs_sbuf_free(&buf);
    cs_sqlp_fail(p, t->line, t->pos, "COLLATION_INVALID_NAME", "42704",
                 "The value %s does not represent a correct collation name. Suggested valid "
                 "collation names: [%s].",
                 name, props);
}

cs_col_type *cs_sqlp_data_type(cs_sqlp *p)
{
    cs_sql_token *t = cs_sqlp_peek(p, 0);
    if (t->kind != CS_TOK_WORD) cs_sqlp_syntax_error(p, t);
    cs_sqlp_enter(p);
    cs_sqlp_next(p);
    static const struct {
        const char *name;
        cs_type_id id;
    } prims[] = {{"BOOLEAN", CS_TYPE_BOOLEAN},
                 {"TINYINT", CS_TYPE_BYTE},
                 {"BYTE", CS_TYPE_BYTE},
                 {"SMALLINT", CS_TYPE_SHORT},
                 {"SHORT", CS_TYPE_SHORT},
                 {"INT", CS_TYPE_INT},
                 {"INTEGER", CS_TYPE_INT},
                 {"BIGINT", CS_TYPE_LONG},
                 {"LONG", CS_TYPE_LONG},
                 {"FLOAT", CS_TYPE_FLOAT},
                 {"REAL", CS_TYPE_FLOAT},
                 {"DOUBLE", CS_TYPE_DOUBLE},
                 {"DATE", CS_TYPE_DATE},
                 {"TIMESTAMP", CS_TYPE_TIMESTAMP},
                 {"TIMESTAMP_LTZ", CS_TYPE_TIMESTAMP},
                 {"TIMESTAMP_NTZ", CS_TYPE_TIMESTAMP_NTZ},
                 {"STRING", CS_TYPE_STRING},
                 {"BINARY", CS_TYPE_BINARY},
                 {"VOID", CS_TYPE_NULL}};
    cs_col_type *result = NULL;
    for (size_t k = 0; k < sizeof prims / sizeof prims[0]; k++)
        if (cs_sql_tok_is_kw(t, prims[k].name)) result = cs_col_type_primitive(prims[k].id);
    if (cs_sql_tok_is_kw(t, "VARIANT")) result = cs_col_type_variant();
    if (result && result->id == CS_TYPE_STRING && cs_sqlp_is_kw(p, 0, "COLLATE")) {
        /* STRING COLLATE name */
        cs_sqlp_next(p);
        cs_sql_token *nt = cs_sqlp_peek(p, 0);
        const char *name = cs_sqlp_collation_name(p);
        int id = cs_collation_lookup(name);
        if (id < 0) cs_sqlp_collation_invalid(p, nt, name);
        result = cs_col_type_string(id);
    }
    if (result) {
        cs_sqlp_leave(p);
        return result;
    }
    if (cs_sql_tok_is_kw(t, "CHAR") || cs_sql_tok_is_kw(t, "CHARACTER") ||
        cs_sql_tok_is_kw(t, "VARCHAR")) {
        /* Spark keeps char/varchar in a table's schema; as a value they are strings */
        cs_sqlp_expect_op(p, "(");
        type_int_param(p);
        cs_sqlp_expect_op(p, ")");
        result = cs_col_type_primitive(CS_TYPE_STRING);
    } else if (cs_sql_tok_is_kw(t, "DECIMAL") || cs_sql_tok_is_kw(t, "DEC") ||
               cs_sql_tok_is_kw(t, "NUMERIC")) {
        int prec = 10, scale = 0;
        if (cs_sqlp_accept_op(p, "(")) {
            prec = type_int_param(p);
            if (cs_sqlp_accept_op(p, ",")) scale = type_int_param(p);
            cs_sqlp_expect_op(p, ")");
        }
        if (prec > CS_DECIMAL_MAX_PRECISION)
            cs_sqlp_fail(p, t->line, t->pos, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION", "22003",
                         "Decimal precision %d exceeds max precision 38.", prec);
        cs_error err;
        cs_col_type *d = cs_col_type_decimal(prec, scale, &err);
        if (!d)
            cs_sqlp_fail(p, t->line, t->pos, "_LEGACY_ERROR_TEMP_1228", "42000",
                         "Decimal scale (%d) cannot be greater than precision (%d).", scale, prec);
        result = keep(p, d);
    } else if (cs_sql_tok_is_kw(t, "INTERVAL")) {
        bool ym = false, ym2 = false;
        int start = interval_field(cs_sqlp_peek(p, 0), &ym);
        if (start < 0)
            cs_sqlp_fail(p, t->line, t->pos, "UNSUPPORTED_DATATYPE", "0A000",
                         "Unsupported data type \"INTERVAL\".");
        cs_sqlp_next(p);
        int end = start;
        if (cs_sqlp_accept_kw(p, "TO")) {
            cs_sql_token *et = cs_sqlp_peek(p, 0);
            end = interval_field(et, &ym2);
            if (end < 0 || ym2 != ym || end < start) cs_sqlp_syntax_error(p, et);
            cs_sqlp_next(p);
        }
        cs_error err;
        result = keep(p, cs_col_type_interval(ym ? CS_TYPE_INTERVAL_YM : CS_TYPE_INTERVAL_DT, start,
                                              end, &err));
    } else if (cs_sql_tok_is_kw(t, "ARRAY")) {
        cs_sqlp_expect_op(p, "<");
        cs_col_type *el = cs_sqlp_data_type(p);
        expect_close_angle(p);
        result = keep(p, cs_col_type_array(cs_col_type_ref(el), true));
    } else if (cs_sql_tok_is_kw(t, "MAP")) {
        cs_sqlp_expect_op(p, "<");
        cs_col_type *k = cs_sqlp_data_type(p);
        cs_sqlp_expect_op(p, ",");
        cs_col_type *v = cs_sqlp_data_type(p);
        expect_close_angle(p);
        result = keep(p, cs_col_type_map(cs_col_type_ref(k), cs_col_type_ref(v), true));
    } else if (cs_sql_tok_is_kw(t, "STRUCT")) {
        cs_sqlp_expect_op(p, "<");
        cs_sqlp_list names = {0}, types = {0}, nulls = {0};
        if (!cs_sqlp_is_op(p, 0, ">")) {
            do {
                cs_sqlp_list_add(p, &names, (void *)cs_sqlp_ident(p));
                cs_sqlp_accept_op(p, ":");
                cs_sqlp_list_add(p, &types, cs_sqlp_data_type(p));
                bool nullable = true;
                if (cs_sqlp_is_kw(p, 0, "NOT") && cs_sqlp_is_kw(p, 1, "NULL")) {
                    cs_sqlp_next(p);
                    cs_sqlp_next(p);
                    nullable = false;
                }
                cs_sqlp_list_add(p, &nulls, nullable ? (void *)1 : NULL);
                if (cs_sqlp_accept_kw(p, "COMMENT")) cs_sqlp_string(p);
            } while (cs_sqlp_accept_op(p, ","));
        }
        expect_close_angle(p);
        cs_col_field *f = cs_sql_alloc(p->a, sizeof *f * (size_t)(names.n + 1));
        for (int k = 0; k < names.n; k++) {
            f[k].name = (char *)names.items[k];
            f[k].type = cs_col_type_ref(types.items[k]);
            f[k].nullable = nulls.items[k] != NULL;
        }
        result = keep(p, cs_col_type_struct(f, names.n));
    } else {
        {
            char up[64];
            size_t k = 0;
            for (; t->text[k] && k < sizeof up - 1; k++)
                up[k] = (char)toupper((unsigned char)t->text[k]);
            up[k] = '\0';
            cs_sqlp_fail(p, t->line, t->pos, "UNSUPPORTED_DATATYPE", "0A000",
                         "Unsupported data type \"%s\".", up);
        }
    }
    cs_sqlp_leave(p);
    return result;
}
