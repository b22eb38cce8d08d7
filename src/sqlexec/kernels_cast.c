/*
 * kernels_cast.c — CAST between boolean, tinyint..bigint, float, double, decimal, string, date
 * and timestamp, as Spark 4 casts (Cast.scala), in its three modes:
 *   ANSI    malformed input is CAST_INVALID_INPUT, a value out of the target's range
 *           CAST_OVERFLOW (NUMERIC_VALUE_OUT_OF_RANGE for a decimal target), with Spark's text
 *           ("The value 'abc' of the type \"STRING\" cannot be cast to \"INT\" ...");
 *   TRY     null instead of each of those errors (try_cast);
 *   LEGACY  spark.sql.ansi.enabled=false: null for malformed strings and decimal overflow,
 *           Java's narrowing (wrap-around, double->int saturating) for numbers.
 * Strings are trimmed of whitespace as UTF8String.trimAll does; integers parse as
 * UTF8String.toLong (sign, digits; in ANSI a fraction is malformed, in LEGACY it is dropped);
 * doubles as Java's Double.parseDouble plus Spark's "inf"/"infinity"/"nan"; decimals exactly
 * with HALF_UP to the target scale (a double goes through its Double.toString text, as Scala's
 * BigDecimal(double)); dates as yyyy[-m[m][-d[d]]] with an optional time part after ' ' or 'T';
 * timestamps as yyyy-mm-dd[( |T)hh:mm[:ss[.ffffff]]][Z|UTC|(+|-)hh[:mm]]. To string, doubles
 * print as Java's Double.toString ("1.0E20", "1.0E-4", "1234567.0"), decimals plainly,
 * timestamps as "yyyy-MM-dd HH:mm:ss[.f...]". Timestamps (with local time zone) are read
 * (without a zone in the text), printed and cast to and from dates and timestamp_ntz in the
 * session time zone (ctx->session_tz, kernels_tz.c); a timestamp to bigint, float or double is
 * its seconds since the epoch. One loop per (source, target) family; the
 * per-row work of strings is their parsing. Called through cs_px_cast_lookup at compile time.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

/* ---- errors ---- */

static void type_upper(const cs_col_type *t, char *buf, size_t n)
{
    cs_sbuf sb = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &sb);
    cs_str_copy(buf, n, cs_sbuf_str(&sb));
    cs_sbuf_free(&sb);
    for (char *p = buf; *p; p++)
        *p = (char)toupper((unsigned char)*p);
}

static int err_invalid(cs_error *err, const char *value, const cs_col_type *from,
                       const cs_col_type *to)
{
    char f[64], t[64];
    type_upper(from, f, sizeof f);
    type_upper(to, t, sizeof t);
    cs_sql_error_set(err, CS_ETASK, "CAST_INVALID_INPUT", "22018",
                     "The value %s of the type \"%s\" cannot be cast to \"%s\" because it "
                     "is malformed. Correct the value as per the syntax, or change its "
                     "target type. Use `try_cast` to tolerate malformed input and return "
                     "NULL instead.",
                     value, f, t);
    /* Spark's parameters; the target type also picks the exception a client raises */
    char quoted[80];
    cs_sql_error_param(err, "expression", value);
    snprintf(quoted, sizeof quoted, "\"%s\"", f);
    cs_sql_error_param(err, "sourceType", quoted);
    snprintf(quoted, sizeof quoted, "\"%s\"", t);
    cs_sql_error_param(err, "targetType", quoted);
    return CS_ETASK;
}

static int err_overflow(cs_error *err, const char *value, const cs_col_type *from,
                        const cs_col_type *to)
{
    char f[64], t[64];
    type_upper(from, f, sizeof f);
    type_upper(to, t, sizeof t);
    return cs_sql_error_set(err, CS_ETASK, "CAST_OVERFLOW", "22003",
                            "The value %s of the type \"%s\" cannot be cast to \"%s\" due to an "
                            "overflow. Use `try_cast` to tolerate overflow and return NULL "
                            "instead.",
                            value, f, t);
}

/* ---- Java's Double.toString / Float.toString ---- */

int cs_px_java_double_text(double d, bool is_float, char *buf)
{
    if (isnan(d)) return sprintf(buf, "NaN");
    if (isinf(d)) return sprintf(buf, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0) return sprintf(buf, signbit(d) ? "-0.0" : "0.0");
    char e[40];
    double a0 = fabs(d);
    if (a0 >= 1 && a0 < 9223372036854775808.0 && a0 == trunc(a0)) {
        /* Java's FloatingDecimal prints an integral value's own digits, less the
         * "insignificant" ones its table allows past the significand's bits (so
         * 123456792f is "1.23456792E8", not the shortest "1.2345679E8") */
        static const int insignificant[] = {
            0,  0,  0,  0,  1,  1,  1,  2,  2,  2,  3,  3,  3,  3,  4,  4,  4,  5,  5,  5,  6,  6,
            6,  6,  7,  7,  7,  8,  8,  8,  9,  9,  9,  9,  10, 10, 10, 11, 11, 11, 12, 12, 12, 12,
            13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19};
        uint64_t v = (uint64_t)a0;
        int bin_exp = 63 - __builtin_clzll(v);
        int n_sig = is_float ? 24 : 53; /* the significand's bits, as FloatingDecimal counts */
        int drop = 0;
        if (bin_exp > n_sig) {
            int p2 = bin_exp - n_sig - 1;
            drop = p2 > 1 && p2 < (int)(sizeof insignificant / sizeof insignificant[0])
                       ? insignificant[p2]
                       : 0;
        }
        int extra = drop;
        if (drop) {
            uint64_t p10 = 1;
            for (int i = 0; i < drop; i++)
                p10 *= 10;
            uint64_t residue = v % p10;
            v /= p10;
            if (residue >= p10 / 2) v++;
        }
        char dg[24];
        int nd = sprintf(dg, "%llu", (unsigned long long)v);
        snprintf(e, sizeof e, "%s%c.%se%d", d < 0 ? "-" : "", dg[0], nd > 1 ? dg + 1 : "0",
                 nd - 1 + extra);
    } else {
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(e, sizeof e, "%.*e", prec - 1, d);
            if (is_float ? (float)strtod(e, NULL) == (float)d : strtod(e, NULL) == d) break;
        }
    }
    /* e: [-]d[.ddd]e[+-]xx */
    char digits[24];
    int nd = 0, neg = e[0] == '-';
    const char *p = e + neg;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p)) digits[nd++] = *p;
    int exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int n = 0;
    if (neg) buf[n++] = '-';
    double a = fabs(d);
    if (a >= 1e-3 && a < 1e7) {
        if (exp >= 0) {
            for (int i = 0; i <= exp; i++)
                buf[n++] = i < nd ? digits[i] : '0';
            buf[n++] = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    buf[n++] = digits[i];
            else
                buf[n++] = '0';
        } else {
            buf[n++] = '0';
            buf[n++] = '.';
            for (int i = 0; i < -exp - 1; i++)
                buf[n++] = '0';
            for (int i = 0; i < nd; i++)
                buf[n++] = digits[i];
        }
    } else {
        buf[n++] = digits[0];
        buf[n++] = '.';
        if (nd > 1)
            for (int i = 1; i < nd; i++)
                buf[n++] = digits[i];
        else
            buf[n++] = '0';
        n += sprintf(buf + n, "E%d", exp);
    }
    buf[n] = '\0';
    return n;
}

/* ---- dates ---- */

static bool valid_date(int64_t y, int m, int d)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= mdays[m - 1] + (m == 2 && leap);
}

/* digits [p, end) up to max_digits into *v; returns count */
static int read_digits(const char **p, const char *end, int max_digits, int64_t *v)
{
    int n = 0;
    *v = 0;
    while (*p < end && isdigit((unsigned char)**p) && n < max_digits) {
        *v = *v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n;
}

/* yyyy[-[m]m[-[d]d]]; *p left after the date */
static bool parse_date_part(const char **pp, const char *end, int64_t *days)
{
    const char *p = *pp;
    int64_t y, m = 1, d = 1;
    bool neg = false;
    if (p < end && (*p == '-' || *p == '+')) neg = *p++ == '-';
    int ny = read_digits(&p, end, 7, &y);
    if (ny < 4) return false;
    if (p < end && *p == '-') {
        p++;
        if (read_digits(&p, end, 2, &m) < 1) return false;
        if (p < end && *p == '-') {
            p++;
            if (read_digits(&p, end, 2, &d) < 1) return false;
        }
    }
    if (neg) y = -y;
    if (!valid_date(y, (int)m, (int)d)) return false;
    *days = cs_tv_days_from_civil(y, (int)m, (int)d);
    *pp = p;
    return true;
}

static void trim(const uint8_t **p, int32_t *len)
{
    while (*len > 0 && **p <= ' ') {
        (*p)++;
        (*len)--;
    }
    while (*len > 0 && (*p)[*len - 1] <= ' ')
        (*len)--;
}

static bool parse_date(const uint8_t *s, int32_t len, int32_t *out)
{
    trim(&s, &len);
    const char *p = (const char *)s, *end = p + len;
    int64_t days;
    if (!parse_date_part(&p, end, &days)) return false;
    /* Spark allows a trailing time part after ' ' or 'T' (ignored) */
    if (p < end && *p != ' ' && *p != 'T') return false;
    *out = (int32_t)days;
    return true;
}

/* *has_zone: whether the text names its zone (else it is local time of the session zone) */
static bool parse_timestamp(const uint8_t *s, int32_t len, int64_t *out, bool *has_zone)
{
    *has_zone = false;
    trim(&s, &len);
    const char *p = (const char *)s, *end = p + len;
    int64_t days, hh = 0, mi = 0, ss = 0, frac = 0;
    if (!parse_date_part(&p, end, &days)) return false;
    if (p < end && (*p == ' ' || *p == 'T')) {
        p++;
        if (read_digits(&p, end, 2, &hh) < 1 || p >= end || *p != ':') return false;
        p++;
        if (read_digits(&p, end, 2, &mi) < 1) return false;
        if (p < end && *p == ':') {
            p++;
            if (read_digits(&p, end, 2, &ss) < 1) return false;
            if (p < end && *p == '.') {
                p++;
                int nf = 0;
                while (p < end && isdigit((unsigned char)*p)) {
                    if (nf < 6) frac = frac * 10 + (*p - '0');
                    nf++;
                    p++;
                }
                for (; nf < 6; nf++)
                    frac *= 10;
            }
        }
        if (hh > 23 || mi > 59 || ss > 59) return false;
    }
    int64_t offset_s = 0;
    if (p < end) {
        *has_zone = true;
        if (*p == 'Z' && p + 1 == end) {
            p++;
        } else if (end - p == 3 && strncmp(p, "UTC", 3) == 0) {
            p += 3;
        } else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1;
            int64_t oh, om = 0;
            if (read_digits(&p, end, 2, &oh) < 1) return false;
            if (p < end && *p == ':') p++;
            read_digits(&p, end, 2, &om);
            offset_s = sign * (oh * 3600 + om * 60);
        } else {
            return false;
        }
    }
    if (p != end) return false;
    *out = ((days * 86400 + hh * 3600 + mi * 60 + ss - offset_s) * 1000000) + frac;
    return true;
}

/* ---- numbers from strings ---- */

/* UTF8String.toLong: sign and digits; a '.' fraction only when allow_fraction (dropped) */
static bool parse_long(const uint8_t *s, int32_t len, bool allow_fraction, int64_t *out)
{
    trim(&s, &len);
    if (len == 0) return false;
    int i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        i++;
    }
    if (i == len) return false;
    int64_t v = 0;
    int digits = 0;
    /* the first 18 digits cannot overflow: no range check (and no division) per digit */
    for (; i < len && digits < 18 && (unsigned)(s[i] - '0') < 10; i++, digits++)
        v = v * 10 - (s[i] - '0');
    for (; i < len && s[i] != '.'; i++) {
        if (!isdigit(s[i])) return false;
        int dgt = s[i] - '0';
        /* accumulate negatively so INT64_MIN parses */
        if (v < (INT64_MIN + dgt) / 10) return false;
        v = v * 10 - dgt;
        digits++;
    }
    if (i < len) {
        if (!allow_fraction) return false;
        for (i++; i < len; i++)
            if (!isdigit(s[i])) return false;
    }
    if (!digits && !allow_fraction) return false;
    if (!neg) {
        if (v == INT64_MIN) return false;
        v = -v;
    }
    *out = v;
    return true;
}

static bool parse_double(const uint8_t *s, int32_t len, double *out)
{
    trim(&s, &len);
    if (len == 0 || len > 400) return false;
    char buf[416];
    memcpy(buf, s, (size_t)len);
    buf[len] = '\0';
    const char *q = buf + (buf[0] == '+' || buf[0] == '-');
    if (strcasecmp(q, "inf") == 0 || strcasecmp(q, "infinity") == 0) {
        *out = buf[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (strcasecmp(q, "nan") == 0) {
        *out = NAN;
        return true;
    }
    /* Java's syntax: digits [. digits] [e [sign] digits] [fFdD]; no hex, no spaces */
    if (len > 1 && strchr("fFdD", buf[len - 1])) buf[--len] = '\0';
    int digits = 0;
    const char *p = q;
    while (isdigit((unsigned char)*p))
        p++, digits++;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p))
            p++, digits++;
    }
    if (!digits) return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!isdigit((unsigned char)*p)) return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p) return false;
    *out = strtod(buf, NULL);
    return true;
}

typedef enum { DP_OK, DP_MALFORMED, DP_RANGE } dparse;

/* a decimal text to the unscaled value at scale s, HALF_UP; DP_RANGE past precision p */
static dparse parse_decimal(const uint8_t *s, int32_t len, int prec, int scale, __int128 *out)
{
    trim(&s, &len);
    int i = 0;
    bool neg = false;
    if (i < len && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    char dg[128];
    int nd = 0, frac = 0, seen = 0;
    bool dot = false;
    for (; i < len; i++) {
        if (isdigit(s[i])) {
            seen++;
            if (nd == 0 && s[i] == '0') {
                if (dot) frac++;
                continue;
            }
            if (nd >= (int)sizeof dg) return DP_MALFORMED;
            dg[nd++] = (char)s[i];
            if (dot) frac++;
        } else if (s[i] == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!seen) return DP_MALFORMED;
    int64_t exp = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        int ne = 0;
        for (; i < len && isdigit(s[i]); i++, ne++)
            if (exp < 100000) exp = exp * 10 + (s[i] - '0');
        if (!ne) return DP_MALFORMED;
        if (eneg) exp = -exp;
    }
    if (i != len) return DP_MALFORMED;
    /* value = dg * 10^(exp - frac); wanted at scale: keep = nd + (scale - (frac - exp)) digits */
    int64_t vscale = frac - exp, keep = nd + (scale - vscale);
    __int128 v = 0;
    if (keep > 38 + 1 || (keep > nd && keep - nd > 38)) return nd ? DP_RANGE : DP_OK;
    for (int64_t k = 0; k < keep && k < nd; k++)
        v = v * 10 + (dg[k] - '0');
    for (int64_t k = nd; k < keep; k++)
        v *= 10;
    if (keep >= 0 && keep < nd && dg[keep] >= '5') v++;
    if (!cs_px_dec_fits(v, prec)) return DP_RANGE;
    *out = neg ? -v : v;
    return DP_OK;
}

/* ---- the kernel ---- */

typedef enum { F_BOOL, F_INT, F_FLOAT, F_DEC, F_STR, F_DATE, F_TS, F_NONE } family;

static family family_of(cs_type_id id)
{
    switch (id) {
    case CS_TYPE_BOOLEAN:
        return F_BOOL;
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
        return F_INT;
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
        return F_FLOAT;
    case CS_TYPE_DECIMAL:
        return F_DEC;
    case CS_TYPE_STRING:
        return F_STR;
    case CS_TYPE_DATE:
        return F_DATE;
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        return F_TS;
    default:
        return F_NONE;
    }
}

static inline int64_t load_int(const cs_column *c, int64_t i)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)c->values)[i];
    case CS_TYPE_SHORT:
        return ((const int16_t *)(const void *)c->values)[i];
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        return ((const int32_t *)(const void *)c->values)[i];
    case CS_TYPE_BOOLEAN:
        return cs_bit_get(c->values, i);
    default:
        return ((const int64_t *)(const void *)c->values)[i];
    }
}
static inline double load_float(const cs_column *c, int64_t i)
{
    if (c->type->id == CS_TYPE_FLOAT) return ((const float *)(const void *)c->values)[i];
    return ((const double *)(const void *)c->values)[i];
}

static inline void store_float(cs_column *r, int64_t i, double v)
{
    if (r->type->id == CS_TYPE_FLOAT)
        ((float *)(void *)r->values)[i] = (float)v;
    else
        ((double *)(void *)r->values)[i] = v;
}

/* the SQL text of row i of c for error messages (Spark's toSQLValue) */
static void sql_value(const cs_column *c, int64_t i, char *buf, size_t n)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        snprintf(buf, n, "%lldY", (long long)load_int(c, i));
        return;
    case CS_TYPE_SHORT:
        snprintf(buf, n, "%lldS", (long long)load_int(c, i));
        return;
    case CS_TYPE_INT:
        snprintf(buf, n, "%lld", (long long)load_int(c, i));
        return;
    case CS_TYPE_LONG:
        snprintf(buf, n, "%lldL", (long long)load_int(c, i));
        return;
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE: {
        char t[64];
        cs_px_java_double_text(load_float(c, i), c->type->id == CS_TYPE_FLOAT, t);
        /* Spark's toSQLValue: "1.0E20D" for a double, no suffix for a float, NaN or Infinity */
        double v = load_float(c, i);
        bool suffix = c->type->id == CS_TYPE_DOUBLE && !isnan(v) && !isinf(v);
        snprintf(buf, n, "%s%s", t, suffix ? "D" : "");
        return;
    }
    case CS_TYPE_DECIMAL: {
        char t[64];
        cs_px_dec_format(cs_px_dec_get(c, i), c->type->scale, t);
        snprintf(buf, n, "%sBD", t);
        return;
    }
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        snprintf(buf, n, "'%.*s'", (int)(len > 200 ? 200 : len), (const char *)p);
        return;
    }
    default:
        snprintf(buf, n, "?");
        return;
    }
}

/* one row's value as text (the target string's bytes) */
/* zone: the session zone timestamps (with local time zone) are printed in */
static int to_text(const cs_column *c, int64_t i, char *buf, const cs_px_zone *zone)
{
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        return sprintf(buf, "%s", cs_bit_get(c->values, i) ? "true" : "false");
    case CS_TYPE_BYTE:
    case CS_TYPE_SHORT:
    case CS_TYPE_INT:
    case CS_TYPE_LONG:
        return sprintf(buf, "%lld", (long long)load_int(c, i));
    case CS_TYPE_FLOAT:
    case CS_TYPE_DOUBLE:
        return cs_px_java_double_text(load_float(c, i), c->type->id == CS_TYPE_FLOAT, buf);
    case CS_TYPE_DECIMAL:
        return cs_px_dec_format(cs_px_dec_get(c, i), c->type->scale, buf);
    case CS_TYPE_DATE: {
        int64_t y;
        int m, d;
        cs_tv_civil_from_days(load_int(c, i), &y, &m, &d);
        return sprintf(buf, "%04lld-%02d-%02d", (long long)y, m, d);
    }
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ: {
        int64_t us = load_int(c, i);
        if (zone && c->type->id == CS_TYPE_TIMESTAMP) us = cs_px_zone_utc_to_local_us(zone, us);
        int64_t secs = us / 1000000, frac = us % 1000000;
        if (frac < 0) {
            frac += 1000000;
            secs--;
        }
        int64_t days = secs / 86400, sod = secs % 86400;
        if (sod < 0) {
            sod += 86400;
            days--;
        }
        int64_t y;
        int m, d;
        cs_tv_civil_from_days(days, &y, &m, &d);
        int n = sprintf(buf, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)y, m, d,
                        (int)(sod / 3600), (int)(sod / 60 % 60), (int)(sod % 60));
        if (frac) {
            n += sprintf(buf + n, ".%06lld", (long long)frac);
            while (buf[n - 1] == '0')
                buf[--n] = '\0';
        }
        return n;
    }
    default:
        return 0;
    }
}

/* a bad row: an error (ANSI), else null */
#define BAD_ROW(i, call)                                                                           \
    do {                                                                                           \
        if (mode == CS_CAST_ANSI) {                                                                \
            cs_column_unref(r);                                                                    \
            return (call);                                                                         \
        }                                                                                          \
        cs_px_ensure_validity(r);                                                                  \
        cs_px_set_null(r, (i));                                                                    \
    } while (0)

static int cast_to_string(const cs_px_kctx *k, const cs_column *a, cs_column **out)
{
    int64_t n = k->n, sa = cs_px_stride(a, n);
    const cs_px_zone *zone = NULL;
    if (a->type->id == CS_TYPE_TIMESTAMP && !(zone = cs_px_session_zone(k))) return CS_EINVAL;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    char buf[128];
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a, i * sa)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        if (a->type->id == CS_TYPE_STRING || a->type->id == CS_TYPE_BINARY) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(a, i * sa, &len);
            cs_col_builder_append_string(b, p, (size_t)len);
            continue;
        }
        int len = to_text(a, i * sa, buf, zone);
        cs_col_builder_append_string(b, buf, (size_t)len);
    }
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

static int cast_kernel(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    const cs_col_type *to = k->e->type, *from = a->type;
    family ff = family_of(from->id), tf = family_of(to->id);
    if (tf == F_STR) return cast_to_string(k, a, out);
    cs_cast_mode mode = k->e->cast_mode;
    if (mode == CS_CAST_ANSI && !k->ctx->ansi) mode = CS_CAST_LEGACY;
    int64_t n = k->n, sa = cs_px_stride(a, n);
    /* timestamp (with local time zone) to or from local values: the session zone's rules */
    const cs_px_zone *zone = NULL;
    if ((to->id == CS_TYPE_TIMESTAMP) != (from->id == CS_TYPE_TIMESTAMP) &&
        !(zone = cs_px_session_zone(k)))
        return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, to, n);
    cs_px_and_validity(r, args, 1, n);
    char vbuf[256];
    for (int64_t i = 0; i < n; i++) {
        int64_t ia = i * sa;
        if (!cs_column_is_valid(a, ia)) continue;
        if (ff == F_STR) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(a, ia, &len);
            bool ok = true;
            if (tf == F_INT) {
                int64_t v;
                ok = parse_long(p, len, mode == CS_CAST_LEGACY, &v) && cs_px_int_fits(to->id, v);
                if (ok) cs_px_int_put(r, i, v);
            } else if (tf == F_FLOAT) {
                double v;
                ok = parse_double(p, len, &v);
                if (ok) store_float(r, i, v);
            } else if (tf == F_BOOL) {
                const uint8_t *q = p;
                int32_t l = len;
                trim(&q, &l);
                static const char *const yes[] = {"t", "true", "y", "yes", "1"};
                static const char *const no[] = {"f", "false", "n", "no", "0"};
                int v = -1;
                for (int j = 0; j < 5 && v < 0; j++) {
                    if ((size_t)l == strlen(yes[j]) &&
                        strncasecmp((const char *)q, yes[j], (size_t)l) == 0)
                        v = 1;
                    if ((size_t)l == strlen(no[j]) &&
                        strncasecmp((const char *)q, no[j], (size_t)l) == 0)
                        v = 0;
                }
                ok = v >= 0;
                if (ok) cs_bit_set(r->values, i, v);
            } else if (tf == F_DATE) {
                int32_t v;
                ok = parse_date(p, len, &v);
                if (ok) cs_px_int_put(r, i, v);
            } else if (tf == F_TS) {
                int64_t v;
                bool has_zone;
                ok = parse_timestamp(p, len, &v, &has_zone);
                if (ok && zone && !has_zone) v = cs_px_zone_local_to_utc_us(zone, v);
                if (ok) cs_px_int_put(r, i, v);
            } else if (tf == F_DEC) {
                __int128 v = 0;
                dparse d = parse_decimal(p, len, to->precision, to->scale, &v);
                if (d == DP_RANGE) {
                    const uint8_t *q = p;
                    int32_t l = len;
                    trim(&q, &l);
                    snprintf(vbuf, sizeof vbuf, "%.*s", (int)(l > 200 ? 200 : l), (const char *)q);
                    if (mode == CS_CAST_ANSI) {
                        cs_column_unref(r);
                        char pv[64];
                        cs_sql_error_set(k->err, CS_ETASK,
                                         "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
                                         " %s cannot be represented as Decimal(%d, %d). If "
                                         "necessary set \"spark.sql.ansi.enabled\" to \"false\" "
                                         "to bypass this error, and return NULL instead.",
                                         vbuf, to->precision, to->scale);
                        (void)pv;
                        return CS_ETASK;
                    }
                    cs_px_ensure_validity(r);
                    cs_px_set_null(r, i);
                    continue;
                }
                ok = d == DP_OK;
                if (ok) cs_px_dec_put(r, i, v);
            }
            if (!ok) {
                sql_value(a, ia, vbuf, sizeof vbuf);
                /* an integral string out of range is malformed for Spark too */
                BAD_ROW(i, err_invalid(k->err, vbuf, from, to));
            }
            continue;
        }
        if (tf == F_BOOL) {
            bool v = ff == F_FLOAT ? load_float(a, ia) != 0
                     : ff == F_DEC ? cs_px_dec_get(a, ia) != 0
                                   : load_int(a, ia) != 0;
            cs_bit_set(r->values, i, v);
            continue;
        }
        if (tf == F_INT) {
            int64_t v = 0;
            bool ok = true;
            if (ff == F_INT || ff == F_BOOL) {
                v = load_int(a, ia);
            } else if (ff == F_FLOAT) {
                double d = load_float(a, ia);
                double t = trunc(d);
                ok = !isnan(d) && t >= -9223372036854775808.0 && t < 9223372036854775808.0;
                if (ok) v = (int64_t)t;
                if (!ok && mode == CS_CAST_LEGACY) {
                    /* Java's (long)/(int) conversion saturates, NaN is 0 */
                    v = isnan(d) ? 0 : d > 0 ? INT64_MAX : INT64_MIN;
                    if (to->id != CS_TYPE_LONG) v = isnan(d) ? 0 : d > 0 ? INT32_MAX : INT32_MIN;
                    ok = true;
                } else if (ok && mode == CS_CAST_LEGACY && to->id != CS_TYPE_LONG &&
                           !cs_px_int_fits(CS_TYPE_INT, v)) {
                    v = v > 0 ? INT32_MAX : INT32_MIN;
                }
            } else if (ff == F_DEC) {
                __int128 u = cs_px_dec_get(a, ia) / cs_px_pow10(from->scale);
                ok = u >= INT64_MIN && u <= INT64_MAX;
                v = (int64_t)u;
            } else {
                ok = false;
            }
            if (ok && !cs_px_int_fits(to->id, v) && mode != CS_CAST_LEGACY) ok = false;
            if (!ok) {
                sql_value(a, ia, vbuf, sizeof vbuf);
                BAD_ROW(i, err_overflow(k->err, vbuf, from, to));
                continue;
            }
            cs_px_int_put(r, i, v); /* LEGACY narrowing wraps as Java's */
            continue;
        }
        if (tf == F_FLOAT) {
            double v;
            if (ff == F_INT || ff == F_BOOL) {
                v = (double)load_int(a, ia);
            } else if (ff == F_FLOAT) {
                v = load_float(a, ia);
            } else {
                char t[64];
                cs_px_dec_format(cs_px_dec_get(a, ia), from->scale, t);
                v = strtod(t, NULL);
            }
            store_float(r, i, v);
            continue;
        }
        if (tf == F_DEC) {
            __int128 v = 0;
            bool ok = true;
            char text[64];
            /* the value's text (for the error) only when it does not fit */
            if (ff == F_DEC) {
                ok = cs_px_dec_rescale(cs_px_dec_get(a, ia), from->scale, to->scale, &v) &&
                     cs_px_dec_fits(v, to->precision);
                if (!ok) cs_px_dec_format(cs_px_dec_get(a, ia), from->scale, text);
            } else if (ff == F_INT || ff == F_BOOL) {
                ok = cs_px_dec_rescale(load_int(a, ia), 0, to->scale, &v) &&
                     cs_px_dec_fits(v, to->precision);
                if (!ok) snprintf(text, sizeof text, "%lld", (long long)load_int(a, ia));
            } else {
                double d = load_float(a, ia);
                if (isnan(d) || isinf(d)) {
                    sql_value(a, ia, vbuf, sizeof vbuf);
                    BAD_ROW(i, err_overflow(k->err, vbuf, from, to));
                    continue;
                }
                int len = cs_px_java_double_text(d, from->id == CS_TYPE_FLOAT, text);
                ok = parse_decimal((const uint8_t *)text, len, to->precision, to->scale, &v) ==
                     DP_OK;
            }
            if (!ok) {
                if (mode == CS_CAST_ANSI) {
                    cs_column_unref(r);
                    return cs_sql_error_set(k->err, CS_ETASK,
                                            "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", "22003",
                                            " %s cannot be represented as Decimal(%d, %d). If "
                                            "necessary set \"spark.sql.ansi.enabled\" to "
                                            "\"false\" to bypass this error, and return NULL "
                                            "instead.",
                                            text, to->precision, to->scale);
                }
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
                continue;
            }
            cs_px_dec_put(r, i, v);
            continue;
        }
        if (tf == F_DATE && ff == F_TS) {
            int64_t us = load_int(a, ia);
            if (zone) us = cs_px_zone_utc_to_local_us(zone, us);
            int64_t d = us / 86400000000LL;
            if (us % 86400000000LL < 0) d--;
            cs_px_int_put(r, i, d);
            continue;
        }
        if (tf == F_TS && ff == F_DATE) {
            int64_t us = load_int(a, ia) * 86400000000LL;
            cs_px_int_put(r, i, zone ? cs_px_zone_local_to_utc_us(zone, us) : us);
            continue;
        }
        if (tf == F_TS && ff == F_TS) { /* ntz <-> ltz: the same local time */
            int64_t us = load_int(a, ia);
            if (zone)
                us = to->id == CS_TYPE_TIMESTAMP ? cs_px_zone_local_to_utc_us(zone, us)
                                                 : cs_px_zone_utc_to_local_us(zone, us);
            cs_px_int_put(r, i, us);
            continue;
        }
        if (tf == F_DATE && ff == F_DATE) {
            cs_px_int_put(r, i, load_int(a, ia));
            continue;
        }
    }
    *out = r;
    return CS_OK;
}

/* An integral value to a wider integral type (byte -> short, int, long; short -> int, long;
 * int -> long): no value can fail or change, so one typed loop over the batch, the nulls
 * carried over as they are. A one-row argument (a literal) takes cast_kernel's path. */
#define WIDEN_KERNEL(NAME, TF, TT)                                                                 \
    static int NAME(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)          \
    {                                                                                              \
        const cs_column *a = args[0];                                                              \
        int64_t n = k->n;                                                                          \
        if (cs_px_stride(a, n) == 0) return cast_kernel(k, args, na, out);                         \
        cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);                                   \
        cs_px_and_validity(r, args, 1, n);                                                         \
        const TF *src = (const TF *)(const void *)a->values;                                       \
        TT *dst = (TT *)(void *)r->values;                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            dst[i] = (TT)src[i];                                                                   \
        *out = r;                                                                                  \
        return CS_OK;                                                                              \
    }
WIDEN_KERNEL(widen_i8_i16, int8_t, int16_t)
WIDEN_KERNEL(widen_i8_i32, int8_t, int32_t)
WIDEN_KERNEL(widen_i8_i64, int8_t, int64_t)
WIDEN_KERNEL(widen_i16_i32, int16_t, int32_t)
WIDEN_KERNEL(widen_i16_i64, int16_t, int64_t)
WIDEN_KERNEL(widen_i32_i64, int32_t, int64_t)

/* A timestamp to bigint, float or double, as Spark's Cast: the seconds since the epoch, whole
 * (Math.floorDiv of the microseconds) for bigint, with their fraction for the floating types. No
 * value is out of these types' range. */
static int timestamp_to_number(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    int64_t n = k->n, sa = cs_px_stride(a, n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, args, 1, n);
    const int64_t *us = (const int64_t *)(const void *)a->values;
    bool integral = k->e->type->id == CS_TYPE_LONG;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = us[i * sa];
        if (integral)
            cs_px_int_put(r, i, v / 1000000 - (v % 1000000 < 0));
        else
            store_float(r, i, (double)v / 1e6);
    }
    *out = r;
    return 0;
}

/* The widening kernel from integral `from` to integral `to`, NULL when to is not wider. */
static cs_px_kernel widen_lookup(cs_type_id from, cs_type_id to)
{
    switch (from) {
    case CS_TYPE_BYTE:
        return to == CS_TYPE_SHORT  ? widen_i8_i16
               : to == CS_TYPE_INT  ? widen_i8_i32
               : to == CS_TYPE_LONG ? widen_i8_i64
                                    : NULL;
    case CS_TYPE_SHORT:
        return to == CS_TYPE_INT ? widen_i16_i32 : to == CS_TYPE_LONG ? widen_i16_i64 : NULL;
    case CS_TYPE_INT:
        return to == CS_TYPE_LONG ? widen_i32_i64 : NULL;
    default:
        return NULL;
    }
}

cs_px_kernel cs_px_cast_lookup(const cs_col_type *from, const cs_col_type *to)
{
    cs_px_kernel complex = cs_px_cast_complex_lookup(from, to);
    if (complex) return complex;
    family ff = from->id == CS_TYPE_BINARY ? F_STR : family_of(from->id), tf = family_of(to->id);
    if (ff == F_NONE || tf == F_NONE) return NULL;
    if (tf == F_STR) return cast_kernel;
    if (ff == F_STR) return from->id == CS_TYPE_STRING ? cast_kernel : NULL;
    bool numeric_from = ff == F_BOOL || ff == F_INT || ff == F_FLOAT || ff == F_DEC;
    bool numeric_to = tf == F_BOOL || tf == F_INT || tf == F_FLOAT || tf == F_DEC;
    if (numeric_from && numeric_to) {
        cs_px_kernel widen = widen_lookup(from->id, to->id);
        return widen ? widen : cast_kernel;
    }
    if ((ff == F_DATE || ff == F_TS) && (tf == F_DATE || tf == F_TS)) return cast_kernel;
    if (from->id == CS_TYPE_TIMESTAMP &&
        (to->id == CS_TYPE_LONG || to->id == CS_TYPE_FLOAT || to->id == CS_TYPE_DOUBLE))
        return timestamp_to_number;
    return NULL;
}
