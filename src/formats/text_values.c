/*
 * text_values.c — Spark's text <-> value conversions for the text formats. See text_values.h:
 * which Java/Spark parser each function stands for, and the units of dates and timestamps.
 */
#include "formats/text_values.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

/* digits kept while parsing a decimal (more: not a Decimal of Spark) and the most an unscaled
 * value may have before one more *10 */
#define CS_DECIMAL_DIGITS_GUARD 38
#define CS_DECIMAL_MAX_DIGITS_OF_128 37

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool parse_java_integer(const char *s, size_t n, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    if (n == 0 || !cs_str_parse_i64(s, s + n, true, &v) || v < min || v > max) return false;
    *out = v;
    return true;
}

bool cs_tv_parse_int(const char *s, size_t n, int64_t *out)
{
    return parse_java_integer(s, n, INT32_MIN, INT32_MAX, out);
}

bool cs_tv_parse_long(const char *s, size_t n, int64_t *out)
{
    return parse_java_integer(s, n, INT64_MIN, INT64_MAX, out);
}

/* Clinger's fast path: digits [. digits] [e[+-]digits] (already checked) whose significand has
 * at most 15 digits and whose decimal exponent is within 10^±22 are exact doubles multiplied
 * or divided by an exact power of ten, so one IEEE operation rounds correctly, as strtod and
 * Java's parseDouble. false: strtod's turn. */
static bool fast_double(const char *s, size_t n, double *out)
{
    static const double pow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    uint64_t m = 0;
    int sig = 0, exp10 = 0;
    size_t i = 0;
    for (; i < n && is_digit(s[i]); i++) {
        if (m || s[i] != '0') sig++;
        m = m * 10 + (uint64_t)(s[i] - '0');
        if (sig > 15) return false;
    }
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]); i++) {
            if (m || s[i] != '0') sig++;
            m = m * 10 + (uint64_t)(s[i] - '0');
            exp10--;
            if (sig > 15) return false;
        }
    if (i < n) { /* the exponent */
        i++;
        bool eneg = false;
        if (s[i] == '+' || s[i] == '-') eneg = s[i++] == '-';
        int e = 0;
        for (; i < n; i++) {
            e = e * 10 + (s[i] - '0');
            if (e > 400) return false;
        }
        exp10 += eneg ? -e : e;
    }
    if (exp10 < -22 || exp10 > 22) return false;
    double d = (double)m;
    *out = exp10 < 0 ? d / pow10[-exp10] : d * pow10[exp10];
    return true;
}

/* Java's parseDouble / parseFloat (single: the decimal text rounded once, to a float). */
static bool parse_java_number(const char *s, size_t n, bool single, double *out)
{
    /* Java trims chars <= ' ', takes a sign, NaN / Infinity, or a decimal number with an optional
     * exponent and an optional f/F/d/D suffix (hexadecimal floats are not taken here). */
    while (n && (unsigned char)s[0] <= ' ')
        s++, n--;
    while (n && (unsigned char)s[n - 1] <= ' ')
        n--;
    size_t i = 0;
    bool neg = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    if (n - i == 3 && !memcmp(s + i, "NaN", 3)) {
        *out = NAN;
        return true;
    }
    if (n - i == 8 && !memcmp(s + i, "Infinity", 8)) {
        *out = neg ? -INFINITY : INFINITY;
        return true;
    }
    size_t digits = 0, start = i;
    while (i < n && is_digit(s[i]))
        i++, digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && is_digit(s[i]); i++)
            digits++;
    if (!digits) return false;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= n || !is_digit(s[i])) return false;
        while (i < n && is_digit(s[i]))
            i++;
    }
    size_t end = i;
    if (i < n && strchr("fFdD", s[i]) && s[i]) i++;
    if (i != n) return false;
    if (!single && fast_double(s + start, end - start, out)) {
        if (neg) *out = -*out;
        return true;
    }
    char tmp[512];
    size_t len = end - start;
    if (len >= sizeof tmp) { /* a long digit string: strtod on a heap copy */
        char *big = cs_xstrndup(s + start, len);
        *out = single ? strtof(big, NULL) : strtod(big, NULL);
        free(big);
    } else {
        memcpy(tmp, s + start, len);
        tmp[len] = '\0';
        *out = single ? strtof(tmp, NULL) : strtod(tmp, NULL);
    }
    if (neg) *out = -*out;
    return true;
}

bool cs_tv_parse_double(const char *s, size_t n, double *out)
{
    return parse_java_number(s, n, false, out);
}

bool cs_tv_parse_float(const char *s, size_t n, double *out)
{
    return parse_java_number(s, n, true, out);
}

bool cs_tv_parse_boolean(const char *s, size_t n, bool *out)
{
    if (n == 4 && !strncasecmp(s, "true", 4)) return *out = true, true;
    if (n == 5 && !strncasecmp(s, "false", 5)) return *out = false, true;
    return false;
}

int cs_tv_decimal_digits(__int128 v)
{
    unsigned __int128 u = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    int d = 1;
    while (u >= 10)
        u /= 10, d++;
    return d;
}

bool cs_tv_parse_decimal(const char *s, size_t n, __int128 *unscaled, int *precision, int *scale,
                         bool *too_long)
{
    size_t i = 0;
    bool neg = false;
    *too_long = false;
    if (i < n && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
    __int128 v = 0;
    int digits = 0, frac = 0, sig = 0;
    bool seen_point = false;
    for (; i < n; i++) {
        if (is_digit(s[i])) {
            digits++;
            if (seen_point) frac++;
            if (sig || s[i] != '0') sig++;
            if (sig > CS_DECIMAL_DIGITS_GUARD)
                *too_long = true;
            else
                v = v * 10 + (s[i] - '0');
        } else if (s[i] == '.' && !seen_point) {
            seen_point = true;
        } else
            break;
    }
    if (!digits) return false;
    long exp = 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        int64_t e;
        size_t st = i;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        while (i < n && is_digit(s[i]))
            i++;
        if (i == st || !cs_str_parse_i64(s + st, s + i, true, &e) || e > 1000000 || e < -1000000)
            return false;
        exp = (long)e;
    }
    if (i != n || *too_long) return false;
    *unscaled = neg ? -v : v;
    *scale = (int)(frac - exp);
    *precision = cs_tv_decimal_digits(v);
    return true;
}

bool cs_tv_decimal_fit(__int128 unscaled, int scale, int p, int to_scale, __int128 *out)
{
    __int128 v = unscaled;
    for (; scale < to_scale; scale++) {
        if (cs_tv_decimal_digits(v) > CS_DECIMAL_MAX_DIGITS_OF_128) return false;
        v *= 10;
    }
    for (; scale > to_scale; scale--) {
        __int128 q = v / 10, r = v % 10;
        if (r >= 5)
            q++;
        else if (r <= -5)
            q--;
        v = q;
    }
    if (cs_tv_decimal_digits(v) > p) return false;
    *out = v;
    return true;
}

/* ---- calendar ----------------------------------------------------------------------------- */

int64_t cs_tv_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void cs_tv_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool valid_date(int64_t y, int m, int d)
{
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m < 1 || m > 12 || d < 1) return false;
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return d <= mdays[m - 1] + (m == 2 && leap);
}

/* up to `max` digits (at least `min`) at s[*i]; the value in *v */
static bool digits_at(const char *s, size_t n, size_t *i, int min, int max, int64_t *v)
{
    int k = 0;
    *v = 0;
    while (*i < n && k < max && is_digit(s[*i]))
        *v = *v * 10 + (s[(*i)++] - '0'), k++;
    return k >= min;
}

static void trim(const char **s, size_t *n)
{
    while (*n && (unsigned char)(*s)[0] <= ' ')
        (*s)++, (*n)--;
    while (*n && (unsigned char)(*s)[*n - 1] <= ' ')
        (*n)--;
}

/* [+-]yyyy[-[m]m[-[d]d]]; returns the index after it, or 0 when not a date start */
static size_t lenient_date_part(const char *s, size_t n, int64_t *y, int *m, int *d, bool *full)
{
    size_t i = 0;
    bool neg = false;
    int64_t v;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (!digits_at(s, n, &i, 4, 7, &v) || (i < n && is_digit(s[i]))) return 0;
    *y = neg ? -v : v;
    *m = 1, *d = 1, *full = false;
    if (i < n && s[i] == '-') {
        i++;
        if (!digits_at(s, n, &i, 1, 2, &v)) return 0;
        *m = (int)v;
        if (i < n && s[i] == '-') {
            i++;
            if (!digits_at(s, n, &i, 1, 2, &v)) return 0;
            *d = (int)v;
            *full = true;
        }
    }
    return valid_date(*y, *m, *d) ? i : 0;
}

bool cs_tv_parse_date_lenient(const char *s, size_t n, int32_t *days)
{
    int64_t y;
    int m, d;
    bool full;
    trim(&s, &n);
    size_t i = lenient_date_part(s, n, &y, &m, &d, &full);
    if (!i || (i < n && !(full && (s[i] == ' ' || s[i] == 'T')))) return false;
    *days = (int32_t)cs_tv_days_from_civil(y, m, d);
    return true;
}

bool cs_tv_parse_date_iso(const char *s, size_t n, int32_t *days)
{
    if (n != 10 || s[4] != '-' || s[7] != '-') return false;
    for (size_t i = 0; i < 10; i++)
        if (i != 4 && i != 7 && !is_digit(s[i])) return false;
    int64_t y = atoi(s), m = (s[5] - '0') * 10 + s[6] - '0', d = (s[8] - '0') * 10 + s[9] - '0';
    if (!valid_date(y, (int)m, (int)d)) return false;
    *days = (int32_t)cs_tv_days_from_civil(y, (int)m, (int)d);
    return true;
}

/* Z, UTC, GMT, UT, +hh, +hh:mm, +hhmm (after GMT/UTC too) at s[i..n): offset in seconds */
static bool zone_at(const char *s, size_t n, size_t i, int64_t *offset)
{
    *offset = 0;
    if (i < n && s[i] == ' ') i++;
    if (n - i == 1 && s[i] == 'Z') return true;
    if (n - i >= 3 && (!memcmp(s + i, "UTC", 3) || !memcmp(s + i, "GMT", 3)))
        i += 3;
    else if (n - i >= 2 && !memcmp(s + i, "UT", 2))
        i += 2;
    if (i == n) return true;
    if (s[i] != '+' && s[i] != '-') return false;
    int sign = s[i++] == '-' ? -1 : 1;
    int64_t hh, mm = 0;
    if (!digits_at(s, n, &i, 1, 2, &hh)) return false;
    if (i < n && s[i] == ':') i++;
    if (i < n && !digits_at(s, n, &i, 2, 2, &mm)) return false;
    if (i != n || hh > 18 || mm > 59) return false;
    *offset = sign * (hh * 3600 + mm * 60);
    return true;
}

bool cs_tv_parse_timestamp_lenient(const char *s, size_t n, int64_t *micros, bool *has_zone)
{
    int64_t y, hh = 0, mi = 0, ss = 0, frac = 0, offset = 0;
    int m, d;
    bool full;
    trim(&s, &n);
    size_t i = lenient_date_part(s, n, &y, &m, &d, &full);
    if (!i) return false;
    *has_zone = false;
    if (i < n) {
        if (!full || (s[i] != ' ' && s[i] != 'T')) return false;
        i++;
        if (i < n && is_digit(s[i])) {
            if (!digits_at(s, n, &i, 1, 2, &hh) || i >= n || s[i++] != ':' ||
                !digits_at(s, n, &i, 1, 2, &mi))
                return false;
            if (i < n && s[i] == ':') {
                i++;
                if (!digits_at(s, n, &i, 1, 2, &ss)) return false;
                if (i < n && s[i] == '.') {
                    i++;
                    int k = 0;
                    for (; i < n && is_digit(s[i]); i++, k++)
                        if (k < 6) frac = frac * 10 + (s[i] - '0');
                    if (k > 9) return false;
                    for (; k < 6; k++)
                        frac *= 10;
                }
            }
            if (hh > 23 || mi > 59 || ss > 59) return false;
        }
        if (i < n) {
            if (!zone_at(s, n, i, &offset)) return false;
            *has_zone = true;
        }
    }
    int64_t secs = cs_tv_days_from_civil(y, m, d) * 86400 + hh * 3600 + mi * 60 + ss - offset;
    *micros = secs * 1000000 + frac;
    return true;
}

/* ---- Java DateTimeFormatter patterns (subset) --------------------------------------------- */

typedef struct pattern_item {
    char letter; /* 0 = literal text */
    int count;
    int optional_depth;
    char literal[16];
} pattern_item;

struct cs_tv_pattern {
    int n;
    pattern_item items[64];
};

cs_tv_pattern *cs_tv_pattern_new(const char *pattern, char *bad)
{
    cs_tv_pattern *p = cs_xcalloc(1, sizeof *p);
    int depth = 0;
    for (const char *c = pattern; *c && p->n < 64;) {
        pattern_item *it = &p->items[p->n];
        it->optional_depth = depth;
        if (*c == '[' || *c == ']') {
            depth += *c++ == '[' ? 1 : -1;
            continue;
        }
        if (*c == '\'') {
            size_t k = 0;
            for (c++; *c && *c != '\''; c++)
                if (k + 1 < sizeof it->literal) it->literal[k++] = *c;
            if (*c) c++;
            p->n++;
            continue;
        }
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z')) {
            if (!strchr("yuMdHmsSXxZ", *c)) {
                *bad = *c;
                free(p);
                return NULL;
            }
            it->letter = *c == 'u' ? 'y' : *c;
            while (*c == it->letter || (*c == 'u' && it->letter == 'y'))
                it->count++, c++;
        } else
            it->literal[0] = *c++;
        p->n++;
    }
    return p;
}

void cs_tv_pattern_free(cs_tv_pattern *p)
{
    free(p);
}

bool cs_tv_pattern_parse(const cs_tv_pattern *p, const char *s, size_t n, int64_t *micros)
{
    int64_t y = 1970, mo = 1, d = 1, hh = 0, mi = 0, ss = 0, frac = 0, off = 0, v;
    size_t i = 0;
    int skip_depth = 0; /* > 0: inside an optional section that did not match */
    for (int k = 0; k < p->n; k++) {
        const pattern_item *it = &p->items[k];
        if (skip_depth && it->optional_depth >= skip_depth) continue;
        skip_depth = 0;
        size_t before = i;
        bool ok = true;
        switch (it->letter) {
        case 0: {
            size_t len = strlen(it->literal);
            ok = n - i >= len && !memcmp(s + i, it->literal, len);
            if (ok) i += len;
            break;
        }
        case 'y':
            ok = digits_at(s, n, &i, it->count == 2 ? 2 : 4, it->count == 2 ? 2 : 9, &y);
            if (it->count == 2) y += 2000;
            break;
        case 'S': {
            int64_t f;
            size_t st = i;
            ok = digits_at(s, n, &i, it->count, it->count, &f);
            for (int c = (int)(i - st); ok && c < 6; c++)
                f *= 10;
            for (int c = (int)(i - st); ok && c > 6; c--)
                f /= 10;
            frac = f;
            break;
        }
        case 'X':
        case 'x':
        case 'Z': {
            size_t e = i;
            while (e < n &&
                   (s[e] == 'Z' || s[e] == '+' || s[e] == '-' || s[e] == ':' || is_digit(s[e])))
                e++;
            ok = e > i && zone_at(s, e, i, &off);
            if (ok) i = e;
            break;
        }
        default:
            ok = digits_at(s, n, &i, it->count, it->count == 1 ? 2 : it->count, &v);
            if (it->letter == 'M')
                mo = v;
            else if (it->letter == 'd')
                d = v;
            else if (it->letter == 'H')
                hh = v;
            else if (it->letter == 'm')
                mi = v;
            else if (it->letter == 's')
                ss = v;
        }
        if (!ok) {
            if (!it->optional_depth) return false;
            i = before;
            skip_depth = it->optional_depth;
        }
    }
    if (i != n || !valid_date(y, (int)mo, (int)d) || hh > 23 || mi > 59 || ss > 59) return false;
    *micros = (cs_tv_days_from_civil(y, (int)mo, (int)d) * 86400 + hh * 3600 + mi * 60 + ss - off) *
                  1000000 +
              frac;
    return true;
}

void cs_tv_pattern_format(const cs_tv_pattern *p, int64_t micros, cs_sbuf *out)
{
    int64_t days = cs_tv_day_of(micros);
    int64_t in_day = micros - days * CS_MICROS_PER_DAY, y;
    int mo, d;
    cs_tv_civil_from_days(days, &y, &mo, &d);
    int64_t secs = in_day / 1000000, frac = in_day % 1000000;
    for (int k = 0; k < p->n; k++) {
        const pattern_item *it = &p->items[k];
        switch (it->letter) {
        case 0:
            cs_sbuf_puts(out, it->literal);
            break;
        case 'y':
            cs_sbuf_printf(out, it->count == 2 ? "%02lld" : "%04lld",
                           (long long)(it->count == 2 ? y % 100 : y));
            break;
        case 'M':
            cs_sbuf_printf(out, "%0*d", it->count, mo);
            break;
        case 'd':
            cs_sbuf_printf(out, "%0*d", it->count, d);
            break;
        case 'H':
            cs_sbuf_printf(out, "%0*d", it->count, (int)(secs / 3600));
            break;
        case 'm':
            cs_sbuf_printf(out, "%0*d", it->count, (int)(secs / 60 % 60));
            break;
        case 's':
            cs_sbuf_printf(out, "%0*d", it->count, (int)(secs % 60));
            break;
        case 'S': {
            char f[8];
            snprintf(f, sizeof f, "%06lld", (long long)frac);
            cs_sbuf_append(out, f, it->count < 6 ? (size_t)it->count : 6);
            break;
        }
        default: /* zones: always UTC */
            cs_sbuf_puts(out, it->letter == 'X' ? "Z" : "+0000");
        }
    }
}

/* ---- writing ------------------------------------------------------------------------------ */

/* Double.toString / Float.toString (single): the shortest digits that read back as v. */
static void format_java_number(double v, bool single, cs_sbuf *out)
{
    if (isnan(v)) {
        cs_sbuf_puts(out, "NaN");
        return;
    }
    if (isinf(v)) {
        cs_sbuf_puts(out, v > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (v == 0) {
        cs_sbuf_puts(out, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    char buf[40];
    /* the shortest digits that read back as v; Java's d.dddE-n form has at least one digit
     * after the point, the closest one (Float.MIN_VALUE is 1.4E-45, not 1.0E-45) */
    int prec = fabs(v) < 1e-3 || fabs(v) >= 1e7 ? 2 : 1;
    for (; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*e", prec - 1, v);
        if (single ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v) break;
    }
    /* buf: [-]d.ddde[+-]xx */
    char digits[24];
    int nd = 0, exp;
    const char *c = buf;
    bool neg = *c == '-';
    if (neg) c++;
    for (; *c != 'e'; c++)
        if (is_digit(*c)) digits[nd++] = *c;
    exp = atoi(c + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    if (neg) cs_sbuf_putc(out, '-');
    if (exp >= -3 && exp < 7) {
        if (exp < 0) {
            cs_sbuf_puts(out, "0.");
            for (int k = -1; k > exp; k--)
                cs_sbuf_putc(out, '0');
            cs_sbuf_append(out, digits, (size_t)nd);
        } else {
            for (int k = 0; k <= exp; k++)
                cs_sbuf_putc(out, k < nd ? digits[k] : '0');
            cs_sbuf_putc(out, '.');
            if (nd > exp + 1)
                cs_sbuf_append(out, digits + exp + 1, (size_t)(nd - exp - 1));
            else
                cs_sbuf_putc(out, '0');
        }
    } else {
        cs_sbuf_putc(out, digits[0]);
        cs_sbuf_putc(out, '.');
        if (nd > 1)
            cs_sbuf_append(out, digits + 1, (size_t)(nd - 1));
        else
            cs_sbuf_putc(out, '0');
        cs_sbuf_printf(out, "E%d", exp);
    }
}

void cs_tv_format_double(double v, cs_sbuf *out)
{
    format_java_number(v, false, out);
}

void cs_tv_format_float(double v, cs_sbuf *out)
{
    format_java_number((float)v, true, out);
}

void cs_tv_format_decimal(__int128 unscaled, int scale, cs_sbuf *out)
{
    char buf[64];
    int k = 0;
    unsigned __int128 u = unscaled < 0 ? -(unsigned __int128)unscaled : (unsigned __int128)unscaled;
    do {
        buf[k++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (k <= scale)
        buf[k++] = '0';
    if (unscaled < 0) cs_sbuf_putc(out, '-');
    for (int i = k - 1; i >= 0; i--) {
        cs_sbuf_putc(out, buf[i]);
        if (i == scale && scale > 0) cs_sbuf_putc(out, '.');
    }
}

void cs_tv_format_date(int64_t days, cs_sbuf *out)
{
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    cs_sbuf_printf(out, "%04lld-%02d-%02d", (long long)y, m, d);
}

void cs_tv_format_local_timestamp(int64_t micros, cs_sbuf *out)
{
    int64_t day = cs_tv_day_of(micros), rest = micros - day * CS_MICROS_PER_DAY, s = rest / 1000000;
    int f = (int)(rest % 1000000), digits = 6;
    cs_tv_format_date(day, out);
    cs_sbuf_printf(out, " %02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
    if (!f) return;
    while (f % 10 == 0) {
        f /= 10;
        digits--;
    }
    cs_sbuf_printf(out, ".%0*d", digits, f);
}

void cs_line_split_range(const char *buf, size_t n, size_t start, size_t length, size_t *lo,
                         size_t *hi)
{
    size_t end = start + length < n ? start + length : n;
    *lo = 0;
    if (start > 0) {
        const char *nl = start < n ? memchr(buf + start, '\n', n - start) : NULL;
        *lo = nl ? (size_t)(nl - buf) + 1 : n;
    }
    *hi = n;
    if (end < n) {
        const char *nl = memchr(buf + end, '\n', n - end);
        *hi = nl ? (size_t)(nl - buf) + 1 : n;
    }
    if (*hi < *lo) *hi = *lo;
}

/* ---- sampling ------------------------------------------------------------------------------ */

static uint32_t rotl32(uint32_t x, int r)
{
    return (x << r) | (x >> (32 - r));
}

static uint32_t murmur_mix(uint32_t h, uint32_t k, bool last)
{
    k *= 0xcc9e2d51u;
    k = rotl32(k, 15);
    k *= 0x1b873593u;
    h ^= k;
    if (last) return h;
    h = rotl32(h, 13);
    return h * 5 + 0xe6546b64u;
}

/* Scala's MurmurHash3.bytesHash(data, seed) */
static uint32_t murmur_bytes(const uint8_t *data, size_t n, uint32_t seed)
{
    uint32_t h = seed;
    size_t i = 0;
    for (; n - i >= 4; i += 4)
        h = murmur_mix(h,
                       (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                           (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24,
                       false);
    uint32_t k = 0;
    size_t rest = n - i;
    if (rest == 3) k ^= (uint32_t)data[i + 2] << 16;
    if (rest >= 2) k ^= (uint32_t)data[i + 1] << 8;
    if (rest >= 1) {
        k ^= data[i];
        h = murmur_mix(h, k, true);
    }
    h ^= (uint32_t)n;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint64_t cs_tv_xorshift_seed(int64_t seed)
{
    /* XORShiftRandom.hashSeed: the seed's 8 bytes big-endian (Spark 4: Long.BYTES; Spark 2
     * hashed a 64-byte buffer), hashed twice */
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)((uint64_t)seed >> (56 - 8 * i));
    uint32_t low = murmur_bytes(bytes, sizeof bytes, 0x3c074a61u); /* MurmurHash3.arraySeed */
    uint32_t high = murmur_bytes(bytes, sizeof bytes, low);
    return (uint64_t)high << 32 | low;
}

uint32_t cs_tv_xorshift_next(uint64_t *state, int bits)
{
    uint64_t x = *state ^ (*state << 21);
    x ^= x >> 35;
    x ^= x << 4;
    *state = x;
    return (uint32_t)(x & ((1ULL << bits) - 1));
}

double cs_tv_xorshift_next_double(uint64_t *state)
{
    uint64_t hi = cs_tv_xorshift_next(state, 26), lo = cs_tv_xorshift_next(state, 27);
    return (double)((hi << 27) + lo) * 0x1.0p-53;
}

void cs_tv_sampler_init(cs_tv_sampler *s, double fraction, int64_t seed)
{
    s->state = cs_tv_xorshift_seed(seed);
    s->fraction = fraction;
}

double cs_tv_sampler_next_double(cs_tv_sampler *s)
{
    return cs_tv_xorshift_next_double(&s->state);
}

bool cs_tv_sampler_keep(cs_tv_sampler *s)
{
    if (s->fraction > 0.99) return true;
    /* BernoulliCellSampler(0, fraction): 0 <= x < fraction */
    return cs_tv_sampler_next_double(s) < s->fraction;
}

int32_t cs_tv_xorshift_first_int(int64_t seed, int32_t bound)
{
    cs_tv_sampler s;
    cs_tv_sampler_init(&s, 1.0, seed);
    int32_t r = (int32_t)cs_tv_xorshift_next(&s.state, 31), m = bound - 1;
    if ((bound & m) == 0) return (int32_t)(((int64_t)bound * r) >> 31);
    for (int32_t u = r; (int32_t)((uint32_t)u - (uint32_t)(r = u % bound) + (uint32_t)m) < 0;)
        u = (int32_t)cs_tv_xorshift_next(&s.state, 31);
    return r;
}

bool cs_tv_parse_sampling_ratio(const char *s, double *out)
{
    return cs_tv_parse_double(s, strlen(s), out) && *out > 0 && *out == *out;
}

/* ---- base64 ------------------------------------------------------------------------------- */

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool cs_tv_base64_decode(const char *s, size_t n, char *out, size_t *out_n)
{
    size_t i = 0, w = 0;
    for (;;) {
        while (i < n && (unsigned char)s[i] <= ' ') /* Jackson skips white space between quads */
            i++;
        if (i >= n) break;
        int q[4], have = 0;
        for (; have < 4 && i < n; have++, i++) {
            q[have] = s[i] == '=' && have >= 2 ? -2 : b64_value((unsigned char)s[i]);
            if (q[have] == -1) return false;
            if (q[have] == -2) break;
        }
        if (have < 2 || (have < 4 && (i >= n || s[i] != '='))) return false;
        uint32_t v = ((uint32_t)q[0] << 18) | ((uint32_t)q[1] << 12);
        if (have == 2) { /* "xx==" */
            if (++i >= n || s[i] != '=') return false;
            i++;
            out[w++] = (char)(v >> 16);
            break;
        }
        v |= (uint32_t)q[2] << 6;
        if (have == 3) { /* "xxx=" */
            i++;
            out[w++] = (char)(v >> 16);
            out[w++] = (char)(v >> 8);
            break;
        }
        v |= (uint32_t)q[3];
        out[w++] = (char)(v >> 16);
        out[w++] = (char)(v >> 8);
        out[w++] = (char)v;
    }
    while (i < n && (unsigned char)s[i] <= ' ')
        i++;
    if (i < n) return false; /* text after the padding */
    *out_n = w;
    return true;
}

void cs_tv_base64_encode(const void *data, size_t n, cs_sbuf *out)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        if (i + 1 < n) v |= (uint32_t)p[i + 1] << 8;
        if (i + 2 < n) v |= p[i + 2];
        char q[4] = {b64_alphabet[(v >> 18) & 63], b64_alphabet[(v >> 12) & 63],
                     i + 1 < n ? b64_alphabet[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64_alphabet[v & 63] : '='};
        cs_sbuf_append(out, q, 4);
    }
}
