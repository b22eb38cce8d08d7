/*
 * kernels_datetime_format.c — Spark's datetime patterns (java.time's DateTimeFormatter letters
 * as Spark 3+ accepts them) for date_format(ts, fmt), from_unixtime(seconds, fmt),
 * to_timestamp(s, fmt), try_to_timestamp(s[, fmt]), to_date(s, fmt), unix_timestamp(s, fmt) and
 * to_unix_timestamp(s, fmt). A pattern is compiled into tokens (fields, literals, optional
 * sections) once per batch when it is a literal, else once per row into a stack buffer; Spark's
 * checks run first (week-based letters, unsupported and, when parsing, formatting-only letters,
 * too many letters) and a refused pattern raises Spark's error: DATETIME_PATTERN_RECOGNITION
 * when the legacy SimpleDateFormat would take it, else DATETIME_WEEK_BASED_PATTERN or
 * INVALID_DATETIME_PATTERN (ILLEGAL_CHARACTER, LENGTH).
 * Formatting takes the fields in the session time zone; parsing is case-insensitive as
 * Spark's formatter, fills missing fields with 1970-01-01 00:00:00, resolves strictly (no
 * February 30) and reads the instant in the parsed offset or zone, else in the session zone.
 * A text that does not parse raises CANNOT_PARSE_TIMESTAMP under ANSI (null otherwise, and
 * always null for try_to_timestamp). Called through cs_px_datetime_format_lookup
 * (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference; nothing is allocated
 * per row (patterns and texts live on the stack).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

#define US_PER_SEC 1000000LL
#define MAX_TOKENS 64
#define MAX_TEXT 128

typedef struct {
    char letter; /* 0: literal text */
    uint8_t count;
    uint16_t lit_off, lit_len;
} dt_tok;

typedef struct {
    dt_tok t[MAX_TOKENS];
    int n;
    char lit[256];
    int lit_used;
} dt_pattern;

static const char *const MONTHS[] = {"January",   "February", "March",    "April",
                                     "May",       "June",     "July",     "August",
                                     "September", "October",  "November", "December"};
static const char *const DAYS[] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                   "Friday", "Saturday", "Sunday"};

/* Whether java.text.SimpleDateFormat (Spark's legacy formatter) takes the pattern: its letters
 * only, and at most three X. */
static bool legacy_accepts(const uint8_t *p, int32_t len)
{
    bool quoted = false;
    for (int32_t i = 0; i < len; i++) {
        char c = (char)p[i];
        if (c == '\'') {
            quoted = !quoted;
            continue;
        }
        if (quoted || !isalpha((unsigned char)c)) continue;
        if (!strchr("GyYMLwWDdFEuaHkKhmsSzZX", c)) return false;
        int run = 1;
        while (i + run < len && p[i + run] == (uint8_t)c)
            run++;
        if (c == 'X' && run > 3) return false;
        i += run - 1;
    }
    return !quoted;
}

/* A pattern java.time refuses: when the legacy formatter takes it, Spark says the behaviour
 * changed (DATETIME_PATTERN_RECOGNITION); otherwise the refusal itself, `cls` (WEEK_BASED,
 * LENGTH or an illegal character). */
static int pattern_error(cs_error *err, const char *cls, const uint8_t *p, int32_t len, char c)
{
    if (legacy_accepts(p, len))
        return cs_sql_error_set(
            err, CS_ETASK, "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION",
            "42K0B",
            "You may get a different result due to the upgrading to Spark >= 3.0: Fail to "
            "recognize '%.*s' pattern in the DateTimeFormatter. 1) You can set "
            "\"spark.sql.legacy.timeParserPolicy\" to \"LEGACY\" to restore the behavior before "
            "Spark 3.0. 2) You can form a valid datetime pattern with the guide from "
            "'https://spark.apache.org/docs/latest/sql-ref-datetime-pattern.html'.",
            (int)len, (const char *)p);
    if (strcmp(cls, "WEEK") == 0)
        return cs_sql_error_set(
            err, CS_ETASK, "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN",
            "42K0B",
            "You may get a different result due to the upgrading to Spark >= 3.0: All "
            "week-based patterns are unsupported since Spark 3.0, detected week-based character: "
            "%c. Please use the SQL function EXTRACT instead.",
            c);
    if (strcmp(cls, "LENGTH") == 0)
        return cs_sql_error_set(err, CS_ETASK, "INVALID_DATETIME_PATTERN.LENGTH", "22007",
                                "Too many letters in datetime pattern: %c. Please reduce "
                                "pattern length.",
                                c);
    return cs_sql_error_set(err, CS_ETASK, "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER", "22007",
                            "Unrecognized datetime pattern: %.*s. Illegal pattern character "
                            "found in datetime pattern: %c. Please provide legal character.",
                            (int)len, (const char *)p, c);
}

/* Spark's checks of the unquoted parts (DateTimeFormatterHelper), in its order: week-based
 * letters, unsupported letters, too-long runs. */
static int spark_checks(const uint8_t *p, int32_t len, bool parsing, cs_error *err)
{
    for (int pass = 0; pass < 3; pass++) {
        bool quoted = false;
        for (int32_t i = 0; i < len; i++) {
            char c = (char)p[i];
            if (c == '\'') {
                quoted = !quoted;
                continue;
            }
            if (quoted) continue;
            if (pass == 0 && strchr("YWwuec", c) && c) return pattern_error(err, "WEEK", p, len, c);
            if (pass == 1 && c && (strchr("AcenNp", c) || (parsing && strchr("EFqQ", c))))
                return pattern_error(err, "", p, len, c);
            if (pass == 2 && c && strchr("GMLEQqy", c)) {
                int run = 1;
                while (i + run < len && p[i + run] == (uint8_t)c)
                    run++;
                if ((c == 'y' && run >= 7) || (c != 'y' && run >= 5))
                    return pattern_error(err, "LENGTH", p, len, c);
                i += run - 1;
            }
        }
    }
    return CS_OK;
}

/* The most letters java.time takes for each supported letter; 0: not a pattern letter. */
static int max_count(char c)
{
    switch (c) {
    case 'G':
    case 'M':
    case 'L':
    case 'Q':
    case 'q':
    case 'E':
        return 4;
    case 'y':
        return 6;
    case 'd':
    case 'h':
    case 'H':
    case 'k':
    case 'K':
    case 'm':
    case 's':
    case 'V':
        return 2;
    case 'D':
        return 3;
    case 'a':
    case 'F':
        return 1;
    case 'S':
        return 9;
    case 'z':
    case 'O':
        return 4;
    case 'X':
    case 'x':
    case 'Z':
        return 5;
    }
    return 0;
}

static void add_lit(dt_pattern *pt, const uint8_t *s, int len)
{
    if (pt->n > 0 && pt->t[pt->n - 1].letter == 0 &&
        pt->t[pt->n - 1].lit_off + pt->t[pt->n - 1].lit_len == pt->lit_used) {
        memcpy(pt->lit + pt->lit_used, s, (size_t)len);
        pt->lit_used += len;
        pt->t[pt->n - 1].lit_len = (uint16_t)(pt->t[pt->n - 1].lit_len + len);
        return;
    }
    memcpy(pt->lit + pt->lit_used, s, (size_t)len);
    pt->t[pt->n++] = (dt_tok){0, 0, (uint16_t)pt->lit_used, (uint16_t)len};
    pt->lit_used += len;
}

static int compile_pattern(const uint8_t *p, int32_t len, bool parsing, dt_pattern *pt,
                           cs_error *err)
{
    int rc = spark_checks(p, len, parsing, err);
    if (rc) return rc;
    pt->n = 0;
    pt->lit_used = 0;
    for (int32_t i = 0; i < len;) {
        if (pt->n >= MAX_TOKENS - 1 || pt->lit_used + len >= (int)sizeof pt->lit)
            return pattern_error(err, "LENGTH", p, len, (char)p[i]);
        char c = (char)p[i];
        if (c == '\'') {
            if (i + 1 < len && p[i + 1] == '\'') {
                add_lit(pt, p + i, 1);
                i += 2;
                continue;
            }
            int32_t j = i + 1;
            while (j < len) {
                if (p[j] == '\'' && j + 1 < len && p[j + 1] == '\'') {
                    add_lit(pt, p + j, 1);
                    j += 2;
                    continue;
                }
                if (p[j] == '\'') break;
                add_lit(pt, p + j, 1);
                j++;
            }
            if (j >= len) return pattern_error(err, "", p, len, '\'');
            i = j + 1;
            continue;
        }
        if (isalpha((unsigned char)c)) {
            int run = 1;
            while (i + run < len && p[i + run] == (uint8_t)c)
                run++;
            int mx = max_count(c);
            if (mx == 0) return pattern_error(err, "", p, len, c);
            if (run > mx || (c == 'V' && run != 2)) return pattern_error(err, "LENGTH", p, len, c);
            pt->t[pt->n++] = (dt_tok){c, (uint8_t)run, 0, 0};
            i += run;
            continue;
        }
        if (c == '[' || c == ']') {
            pt->t[pt->n++] = (dt_tok){c, 1, 0, 0};
            i++;
            continue;
        }
        if (c == '{' || c == '}' || c == '#') return pattern_error(err, "", p, len, c);
        add_lit(pt, p + i, 1);
        i++;
    }
    return CS_OK;
}

/* ---- formatting ---- */

typedef struct {
    char *buf;
    int len, cap;
} out_text;

static void put(out_text *o, const char *s, int n)
{
    if (o->len + n > o->cap) n = o->cap - o->len;
    memcpy(o->buf + o->len, s, (size_t)n);
    o->len += n;
}
static void put_num(out_text *o, int64_t v, int width)
{
    char tmp[32];
    int n = v < 0 ? snprintf(tmp, sizeof tmp, "-%0*lld", width, -(long long)v)
                  : snprintf(tmp, sizeof tmp, "%0*lld", width, (long long)v);
    put(o, tmp, n);
}
static void put_offset(out_text *o, int32_t off, char letter, int count)
{
    if (off == 0 && (letter == 'X' || (letter == 'Z' && count == 5))) {
        put(o, "Z", 1);
        return;
    }
    if (letter == 'O' || (letter == 'Z' && count == 4)) {
        put(o, "GMT", 3);
        if (off == 0) return;
    }
    char tmp[16];
    int a = off < 0 ? -off : off, h = a / 3600, m = a / 60 % 60;
    char sign = off < 0 ? '-' : '+';
    int n;
    if (letter == 'O' && count == 1)
        n = m ? snprintf(tmp, sizeof tmp, "%c%d:%02d", sign, h, m)
              : snprintf(tmp, sizeof tmp, "%c%d", sign, h);
    else if ((letter == 'X' || letter == 'x') && count == 1)
        n = m ? snprintf(tmp, sizeof tmp, "%c%02d%02d", sign, h, m)
              : snprintf(tmp, sizeof tmp, "%c%02d", sign, h);
    else if (((letter == 'X' || letter == 'x') && (count == 2 || count == 4)) ||
             (letter == 'Z' && count <= 3))
        n = snprintf(tmp, sizeof tmp, "%c%02d%02d", sign, h, m);
    else
        n = snprintf(tmp, sizeof tmp, "%c%02d:%02d", sign, h, m);
    put(o, tmp, n);
}

/* The text of the instant utc_us in zone (offset off seconds) as the pattern says. */
static int format_one(const dt_pattern *pt, int64_t local_us, int32_t off, const char *zone_id,
                      char *buf, int cap)
{
    out_text o = {buf, 0, cap};
    int64_t days = local_us >= 0 ? local_us / (86400 * US_PER_SEC)
                                 : -((-local_us - 1) / (86400 * US_PER_SEC)) - 1;
    int64_t us_of_day = local_us - days * 86400 * US_PER_SEC;
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    int hour = (int)(us_of_day / (3600 * US_PER_SEC)),
        minute = (int)(us_of_day / (60 * US_PER_SEC) % 60),
        second = (int)(us_of_day / US_PER_SEC % 60);
    int64_t nanos = us_of_day % US_PER_SEC * 1000;
    int dow = (int)(((days % 7) + 7 + 3) % 7); /* 1970-01-01 was a Thursday: 0 = Monday */
    int doy = (int)(days - cs_tv_days_from_civil(y, 1, 1)) + 1;
    int64_t yoe = y > 0 ? y : 1 - y;
    for (int i = 0; i < pt->n; i++) {
        const dt_tok *t = &pt->t[i];
        int c = t->count;
        switch (t->letter) {
        case 0:
            put(&o, pt->lit + t->lit_off, t->lit_len);
            break;
        case '[':
        case ']':
            break;
        case 'G':
            put(&o, c == 4 ? (y > 0 ? "Anno Domini" : "Before Christ") : (y > 0 ? "AD" : "BC"),
                c == 4 ? (y > 0 ? 11 : 13) : 2);
            break;
        case 'y':
            if (c == 2)
                put_num(&o, yoe % 100, 2);
            else if (c == 4 && yoe > 9999) {
                put(&o, "+", 1);
                put_num(&o, yoe, 4);
            } else
                put_num(&o, yoe, c);
            break;
        case 'M':
        case 'L':
            if (c <= 2)
                put_num(&o, m, c);
            else
                put(&o, MONTHS[m - 1], c == 3 ? 3 : (int)strlen(MONTHS[m - 1]));
            break;
        case 'd':
            put_num(&o, d, c);
            break;
        case 'D':
            put_num(&o, doy, c);
            break;
        case 'Q':
        case 'q': {
            int q = (m - 1) / 3 + 1;
            static const char *const QN[] = {"1st quarter", "2nd quarter", "3rd quarter",
                                             "4th quarter"};
            if (c <= 2)
                put_num(&o, q, c);
            else if (c == 3) {
                char tmp[4] = {'Q', (char)('0' + q), 0, 0};
                put(&o, tmp, 2);
            } else
                put(&o, QN[q - 1], (int)strlen(QN[q - 1]));
            break;
        }
        case 'E':
            put(&o, DAYS[dow], c == 4 ? (int)strlen(DAYS[dow]) : 3);
            break;
        case 'F':
            put_num(&o, (d - 1) % 7 + 1, 1);
            break;
        case 'a':
            put(&o, hour < 12 ? "AM" : "PM", 2);
            break;
        case 'h':
            put_num(&o, hour % 12 == 0 ? 12 : hour % 12, c);
            break;
        case 'K':
            put_num(&o, hour % 12, c);
            break;
        case 'k':
            put_num(&o, hour == 0 ? 24 : hour, c);
            break;
        case 'H':
            put_num(&o, hour, c);
            break;
        case 'm':
            put_num(&o, minute, c);
            break;
        case 's':
            put_num(&o, second, c);
            break;
        case 'S': {
            int64_t f = nanos;
            for (int k = 9; k > c; k--)
                f /= 10;
            put_num(&o, f, c);
            break;
        }
        case 'V':
        case 'z':
            put(&o, zone_id, (int)strlen(zone_id));
            break;
        default: /* X x Z O */
            put_offset(&o, off, t->letter, c);
        }
    }
    return o.len;
}

/* ---- parsing ---- */

typedef struct {
    int64_t year, month, day, doy, hour, minute, second, nanos, ampm, hour12;
    bool has_offset;
    int32_t offset;
    const cs_px_zone *zone;
} parsed;

static int match_name(const uint8_t *s, int32_t len, int32_t pos, const char *const *names, int n,
                      bool short_form, int *which)
{
    int best = -1, best_len = 0;
    for (int i = 0; i < n; i++) {
        int l = short_form ? 3 : (int)strlen(names[i]);
        if (pos + l <= len && strncasecmp((const char *)s + pos, names[i], (size_t)l) == 0 &&
            l > best_len)
            best = i, best_len = l;
    }
    *which = best;
    return best_len;
}

/* Width of the fixed numeric fields right after token i (java.time's adjacent value parsing). */
static int reserved_after(const dt_pattern *pt, int i)
{
    int w = 0;
    for (int j = i + 1; j < pt->n; j++) {
        const dt_tok *t = &pt->t[j];
        bool num = t->letter && strchr("yMLdDHhKkmsS", t->letter) &&
                   !((t->letter == 'M' || t->letter == 'L') && t->count >= 3);
        if (!num || (t->count < 2 && t->letter != 'S')) break;
        w += t->count;
    }
    return w;
}

static bool read_digits(const uint8_t *s, int32_t len, int32_t *pos, int min, int max, int64_t *v)
{
    int n = 0;
    int64_t x = 0;
    while (*pos + n < len && n < max && isdigit(s[*pos + n]))
        x = x * 10 + (s[*pos + n] - '0'), n++;
    if (n < min) return false;
    *pos += n;
    *v = x;
    return true;
}

static bool read_offset(const uint8_t *s, int32_t len, int32_t *pos, const dt_tok *t, parsed *r)
{
    int32_t p = *pos;
    if ((t->letter == 'O' || (t->letter == 'Z' && t->count == 4)) && p + 3 <= len &&
        strncasecmp((const char *)s + p, "GMT", 3) == 0)
        p += 3;
    if (p < len && (s[p] == 'Z' || s[p] == 'z') && t->letter != 'x') {
        r->has_offset = true, r->offset = 0, *pos = p + 1;
        return true;
    }
    if (p >= len || (s[p] != '+' && s[p] != '-')) {
        if (t->letter == 'O' && p > *pos) {
            r->has_offset = true, r->offset = 0, *pos = p;
            return true;
        }
        return false;
    }
    int sign = s[p] == '-' ? -1 : 1;
    p++;
    int64_t h = 0, mi = 0;
    if (!read_digits(s, len, &p, 1, 2, &h)) return false;
    if (p < len && s[p] == ':') p++;
    int32_t before = p;
    if (!read_digits(s, len, &p, 2, 2, &mi)) p = before, mi = 0;
    if (h > 18 || mi > 59) return false;
    r->has_offset = true;
    r->offset = (int32_t)(sign * (h * 3600 + mi * 60));
    *pos = p;
    return true;
}

/* Parses s from *pos through tokens [from, to); returns false at the first mismatch. */
static bool parse_range(const dt_pattern *pt, int from, int to, const uint8_t *s, int32_t len,
                        int32_t *pos, parsed *r)
{
    for (int i = from; i < to; i++) {
        const dt_tok *t = &pt->t[i];
        int c = t->count, which;
        int64_t v;
        if (t->letter == '[') { /* optional section up to its ']' */
            int depth = 1, j = i + 1;
            while (j < to && depth)
                depth += pt->t[j].letter == '[' ? 1 : pt->t[j].letter == ']' ? -1 : 0, j++;
            parsed save = *r;
            int32_t p = *pos;
            if (parse_range(pt, i + 1, j - 1, s, len, &p, r))
                *pos = p;
            else
                *r = save;
            i = j - 1;
            continue;
        }
        if (t->letter == ']') continue;
        if (t->letter == 0) {
            if (*pos + t->lit_len > len ||
                strncasecmp((const char *)s + *pos, pt->lit + t->lit_off, t->lit_len) != 0)
                return false;
            *pos += t->lit_len;
            continue;
        }
        int64_t *field = NULL;
        switch (t->letter) {
        case 'M':
        case 'L':
            if (c >= 3) {
                int l = match_name(s, len, *pos, MONTHS, 12, c == 3, &which);
                if (which < 0) return false;
                *pos += l;
                r->month = which + 1;
                continue;
            }
            field = &r->month;
            break;
        case 'G':
            if (*pos + 2 <= len && strncasecmp((const char *)s + *pos, "AD", 2) == 0) {
                *pos += 2;
                continue;
            }
            return false;
        case 'a':
            if (*pos + 2 > len) return false;
            if (strncasecmp((const char *)s + *pos, "AM", 2) == 0)
                r->ampm = 0;
            else if (strncasecmp((const char *)s + *pos, "PM", 2) == 0)
                r->ampm = 1;
            else
                return false;
            *pos += 2;
            continue;
        case 'y':
            field = &r->year;
            break;
        case 'd':
            field = &r->day;
            break;
        case 'D':
            field = &r->doy;
            break;
        case 'H':
        case 'k':
            field = &r->hour;
            break;
        case 'h':
        case 'K':
            field = &r->hour12;
            break;
        case 'm':
            field = &r->minute;
            break;
        case 's':
            field = &r->second;
            break;
        case 'S': {
            int32_t p0 = *pos;
            if (!read_digits(s, len, pos, 1, c, &v)) return false;
            for (int k = *pos - p0; k < 9; k++)
                v *= 10;
            r->nanos = v;
            continue;
        }
        case 'V':
        case 'z': {
            int32_t p = *pos;
            while (p < len && (isalnum(s[p]) || strchr("/_+-:", s[p])))
                p++;
            const cs_px_zone *z =
                p > *pos ? cs_px_zone_get((const char *)s + *pos, (size_t)(p - *pos)) : NULL;
            if (!z) return false;
            r->zone = z;
            *pos = p;
            continue;
        }
        default: /* X x Z O */
            if (!read_offset(s, len, pos, t, r)) return false;
            continue;
        }
        int min = c, max = c;
        if (c == 1 || (t->letter == 'y' && c != 2)) {
            int avail = 0;
            while (*pos + avail < len && isdigit(s[*pos + avail]))
                avail++;
            max = avail - reserved_after(pt, i);
            if (max > 10) max = 10;
            if (max < min) max = min;
        }
        if (!read_digits(s, len, pos, min, max, &v)) return false;
        if (t->letter == 'y' && c == 2) v += 2000;
        if (t->letter == 'k' && v == 24) v = 0;
        if (t->letter == 'h' && v == 12) v = 0;
        *field = v;
    }
    return true;
}

static const char *const MONTH_UPPER[] = {"JANUARY",   "FEBRUARY", "MARCH",    "APRIL",
                                          "MAY",       "JUNE",     "JULY",     "AUGUST",
                                          "SEPTEMBER", "OCTOBER",  "NOVEMBER", "DECEMBER"};

/* The instant (UTC micros) of s; a CANNOT_PARSE_TIMESTAMP error otherwise (the caller decides
 * whether it raises). */
static int parse_one(const dt_pattern *pt, const uint8_t *s, int32_t len, const cs_px_zone *sz,
                     bool ntz, int64_t *us, cs_error *err)
{
    parsed r = {.year = 1970, .month = 1, .day = 1, .doy = -1, .ampm = -1, .hour12 = -1};
    int32_t pos = 0;
    const char *why = NULL;
    char detail[96] = "";
    bool ok = parse_range(pt, 0, pt->n, s, len, &pos, &r);
    if (ok && pos < len) why = "unparsed text found at index", ok = false;
    if (ok) {
        if (r.hour12 >= 0) r.hour = r.hour12 + (r.ampm == 1 ? 12 : 0);
        static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
        bool leap = (r.year % 4 == 0 && r.year % 100 != 0) || r.year % 400 == 0;
        if (r.month < 1 || r.month > 12)
            snprintf(detail, sizeof detail, "Invalid value for MonthOfYear: %lld",
                     (long long)r.month);
        else if (r.day < 1 || r.day > 31)
            snprintf(detail, sizeof detail, "Invalid value for DayOfMonth: %lld", (long long)r.day);
        else if (r.day > md[r.month - 1] + (r.month == 2 && leap))
            snprintf(detail, sizeof detail, "Invalid date '%s %lld'", MONTH_UPPER[r.month - 1],
                     (long long)r.day);
        else if (r.hour > 23 || r.minute > 59 || r.second > 59 || r.hour12 > 11)
            snprintf(detail, sizeof detail, "Invalid value for a time field");
        else if (r.doy == 0 || r.doy > 365 + leap)
            snprintf(detail, sizeof detail, "Invalid value for DayOfYear: %lld", (long long)r.doy);
        if (detail[0]) ok = false;
    }
    if (!ok) {
        if (detail[0])
            return cs_sql_error_set(err, CS_ETASK, "CANNOT_PARSE_TIMESTAMP", "22007",
                                    "Text '%.*s' could not be parsed: %s. Use `try_to_timestamp` "
                                    "to tolerate invalid input string and return NULL instead.",
                                    (int)len, (const char *)s, detail);
        return cs_sql_error_set(err, CS_ETASK, "CANNOT_PARSE_TIMESTAMP", "22007",
                                "Text '%.*s' could not be parsed%s%s %d. Use `try_to_timestamp` "
                                "to tolerate invalid input string and return NULL instead.",
                                (int)len, (const char *)s, why ? ", " : " at index", why ? why : "",
                                (int)pos);
    }
    int64_t days = r.doy > 0 ? cs_tv_days_from_civil(r.year, 1, 1) + r.doy - 1
                             : cs_tv_days_from_civil(r.year, (int)r.month, (int)r.day);
    int64_t local =
        ((days * 86400 + r.hour * 3600 + r.minute * 60 + r.second) * US_PER_SEC) + r.nanos / 1000;
    if (ntz)
        *us = local;
    else if (r.has_offset)
        *us = local - (int64_t)r.offset * US_PER_SEC;
    else
        *us = cs_px_zone_local_to_utc_us(r.zone ? r.zone : sz, local);
    return CS_OK;
}

/* ---- kernels ---- */

typedef enum { K_FORMAT, K_FROM_UNIX, K_TO_TS, K_TRY_TS, K_TO_DATE, K_UNIX_TS } kind;

static kind kind_of(const char *fn)
{
    if (strcmp(fn, "date_format") == 0) return K_FORMAT;
    if (strcmp(fn, "from_unixtime") == 0) return K_FROM_UNIX;
    if (strcmp(fn, "to_timestamp") == 0) return K_TO_TS;
    if (strcmp(fn, "try_to_timestamp") == 0) return K_TRY_TS;
    if (strcmp(fn, "to_date") == 0) return K_TO_DATE;
    return K_UNIX_TS;
}

/* The pattern of row i: compiled once when the pattern is one literal row. */
typedef struct {
    dt_pattern pt;
    bool ready;
} pattern_cache;

static int pattern_at(const cs_px_kctx *k, const cs_column *fmt, int64_t i, bool parsing,
                      pattern_cache *pc)
{
    int64_t sf = cs_px_stride(fmt, k->n);
    if (pc->ready && sf == 0) return CS_OK;
    int32_t fl;
    const uint8_t *fp = cs_px_bytes(fmt, i, sf, &fl);
    int rc = compile_pattern(fp, fl, parsing, &pc->pt, k->err);
    pc->ready = rc == CS_OK;
    return rc;
}

static int format_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n);
    bool seconds = kind_of(k->e->fn) == K_FROM_UNIX;
    const cs_px_zone *zone = cs_px_session_zone(k);
    if (!zone) return CS_EINVAL;
    const char *zone_id = k->ctx && k->ctx->session_tz ? k->ctx->session_tz : "UTC";
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    pattern_cache *pc = cs_xcalloc(1, sizeof *pc);
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        if (!cs_px_valid(a[0], i, s0) || !cs_px_valid(a[1], i, s1)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        if ((rc = pattern_at(k, a[1], i, false, pc))) break;
        int64_t v = cs_sql_long_at(a[0], i * s0);
        int64_t utc = seconds ? v * US_PER_SEC : v;
        int64_t local =
            a[0]->type->id == CS_TYPE_TIMESTAMP_NTZ ? utc : cs_px_zone_utc_to_local_us(zone, utc);
        int64_t secs = utc >= 0 ? utc / US_PER_SEC : -((-utc - 1) / US_PER_SEC) - 1;
        char text[MAX_TEXT * 2];
        int l = format_one(&pc->pt, local, cs_px_zone_offset(zone, secs), zone_id, text,
                           (int)sizeof text);
        cs_col_builder_append_string(b, text, (size_t)l);
    }
    free(pc);
    cs_column *r = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

static int parse_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s0 = cs_px_stride(a[0], n);
    kind f = kind_of(k->e->fn);
    const cs_px_zone *zone = cs_px_session_zone(k);
    if (!zone) return CS_EINVAL;
    bool ntz = k->e->type->id == CS_TYPE_TIMESTAMP_NTZ;
    bool raise = f != K_TRY_TS && k->ctx && k->ctx->ansi;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_ensure_validity(r);
    pattern_cache *pc = cs_xcalloc(1, sizeof *pc);
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        bool valid =
            cs_px_valid(a[0], i, s0) && (na < 2 || cs_px_valid(a[1], i, cs_px_stride(a[1], n)));
        if (!valid) {
            cs_px_set_null(r, i);
            continue;
        }
        if ((rc = pattern_at(k, a[1], i, true, pc))) break;
        int32_t l;
        const uint8_t *s = cs_px_bytes(a[0], i, s0, &l);
        int64_t us = 0;
        if (parse_one(&pc->pt, s, l, zone, ntz, &us, raise ? k->err : NULL) != CS_OK) {
            if (raise) {
                rc = CS_ETASK;
                break;
            }
            cs_px_set_null(r, i);
            continue;
        }
        int64_t v = us;
        if (f == K_TO_DATE) {
            int64_t local = ntz ? us : cs_px_zone_utc_to_local_us(zone, us);
            int64_t day = 86400 * US_PER_SEC;
            v = local >= 0 ? local / day : -((-local - 1) / day) - 1;
        } else if (f == K_UNIX_TS)
            v = us >= 0 ? us / US_PER_SEC : -((-us - 1) / US_PER_SEC) - 1;
        cs_px_int_put(r, i, v);
    }
    free(pc);
    if (rc) {
        cs_column_unref(r);
        return rc;
    }
    *out = r;
    return CS_OK;
}

/* unix_timestamp(date | timestamp, fmt): the format is not used (Spark's UnixTimestamp). */
static int unix_of_time_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s0 = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    const cs_px_zone *zone = NULL;
    if (a[0]->type->id == CS_TYPE_DATE && !(zone = cs_px_session_zone(k))) {
        cs_column_unref(r);
        return CS_EINVAL;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t v = cs_sql_long_at(a[0], i * s0);
        if (a[0]->type->id == CS_TYPE_DATE)
            v = cs_px_zone_local_to_utc_us(zone, v * 86400 * US_PER_SEC);
        ((int64_t *)(void *)r->values)[i] = v >= 0 ? v / US_PER_SEC : -((-v - 1) / US_PER_SEC) - 1;
    }
    *out = r;
    return CS_OK;
}

/* a NULL (void) text: null on every row */
static int null_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)a, (void)na;
    *out = cs_px_all_null(k->alloc, k->e->type, k->n);
    return CS_OK;
}

/* try_to_timestamp(s): the string's cast, null where it does not read */
static int try_cast_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_pexpr node = *k->e;
    node.kind = CS_PX_CAST;
    node.cast_mode = CS_CAST_TRY;
    cs_px_kctx ck = *k;
    ck.e = &node;
    return cs_px_cast_lookup(a[0]->type, k->e->type)(&ck, a, na, out);
}

cs_px_kernel cs_px_datetime_format_lookup(const char *fn, const cs_col_type *const *t, int n,
                                          const cs_col_type *result)
{
    bool ts_in = n >= 1 && (t[0]->id == CS_TYPE_TIMESTAMP || t[0]->id == CS_TYPE_TIMESTAMP_NTZ);
    bool fmt_in = n == 2 && t[1]->id == CS_TYPE_STRING;
    bool str_in = n >= 1 && t[0]->id == CS_TYPE_STRING;
    bool ts_out = result->id == CS_TYPE_TIMESTAMP || result->id == CS_TYPE_TIMESTAMP_NTZ;
    if (strcmp(fn, "date_format") == 0)
        return ts_in && fmt_in && result->id == CS_TYPE_STRING ? format_kernel : NULL;
    if (strcmp(fn, "from_unixtime") == 0)
        return fmt_in && t[0]->id == CS_TYPE_LONG && result->id == CS_TYPE_STRING ? format_kernel
                                                                                  : NULL;
    if (strcmp(fn, "try_to_timestamp") == 0 && n == 1 && str_in && ts_out)
        return cs_px_cast_lookup(t[0], result) ? try_cast_kernel : NULL;
    if (!fmt_in) return NULL;
    if (t[0]->id == CS_TYPE_NULL && strcmp(fn, "date_format") != 0) return null_kernel;
    if ((strcmp(fn, "to_timestamp") == 0 || strcmp(fn, "try_to_timestamp") == 0) && str_in &&
        ts_out)
        return parse_kernel;
    if (strcmp(fn, "to_date") == 0 && str_in && result->id == CS_TYPE_DATE) return parse_kernel;
    if ((strcmp(fn, "unix_timestamp") == 0 || strcmp(fn, "to_unix_timestamp") == 0) &&
        result->id == CS_TYPE_LONG) {
        if (str_in) return parse_kernel;
        if (ts_in || t[0]->id == CS_TYPE_DATE) return unix_of_time_kernel;
    }
    return NULL;
}
