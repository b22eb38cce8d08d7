/*
 * kernels_cast_interval.c — CAST(string AS INTERVAL ...) for Spark's ANSI interval types, as
 * Spark's IntervalUtils.castStringToYMInterval / castStringToDTInterval read them: the text is
 * trimmed, then either the bare form of the target's fields ('1', '3-4', '1 02:03:04.5',
 * '10:30', ...) or the literal form (INTERVAL [+|-]'<bare form>' <the target's units>), case
 * insensitive. Every field but the first is bounded (month 0..11, hour 0..23, minute and second
 * 0..59); seconds take up to 9 fraction digits (kept to microseconds). A text of another shape
 * is Spark's INVALID_INTERVAL_FORMAT error naming the formats the target accepts (NULL under
 * try_cast). Called through cs_px_cast_interval_lookup (kernels_cast_complex.c's lookup).
 *
 * Ownership: the argument is borrowed; the result is one new reference.
 */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "sqlexec/pexpr_internal.h"

static const char *const YM_UNITS[] = {"YEAR", "MONTH"};
static const char *const DT_UNITS[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
static const char *const YM_LETTERS[] = {"y", "m"};
static const char *const DT_LETTERS[] = {"d", "h", "m", "s.n"};
static const int64_t DT_MICROS[] = {86400000000LL, 3600000000LL, 60000000LL, 1000000LL};
static const int64_t DT_BOUND[] = {0, 23, 59, 59}; /* the largest value of a non-leading field */

typedef struct span {
    bool ym;
    int start, end;
} span;

/* the text cursor over [p, e) */
typedef struct cursor {
    const char *p, *e;
} cursor;

static bool at_end(const cursor *c)
{
    return c->p == c->e;
}

static bool take_char(cursor *c, char ch)
{
    if (c->p < c->e && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool take_sign(cursor *c)
{
    if (take_char(c, '-')) return true;
    take_char(c, '+');
    return false;
}

/* digits as a non-negative number (false: none, or over 18 digits) */
static bool take_number(cursor *c, int64_t *v)
{
    int n = 0;
    *v = 0;
    while (c->p < c->e && isdigit((unsigned char)*c->p)) {
        if (++n > 18) return false;
        *v = *v * 10 + (*c->p++ - '0');
    }
    return n > 0;
}

static bool take_space(cursor *c)
{
    const char *s = c->p;
    while (c->p < c->e && isspace((unsigned char)*c->p))
        c->p++;
    return c->p > s;
}

static bool take_word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if ((size_t)(c->e - c->p) < n || strncasecmp(c->p, w, n) != 0) return false;
    c->p += n;
    return true;
}

/* the bare form of sp: [+|-]f1<sep>f2...; *out months or microseconds, sign applied */
static bool parse_bare(cursor *c, span sp, int64_t *out)
{
    bool neg = take_sign(c);
    __int128 total = 0;
    for (int f = sp.start; f <= sp.end; f++) {
        if (f > sp.start) {
            char sep = sp.ym ? '-' : f == CS_INTERVAL_HOUR ? ' ' : ':';
            if (!take_char(c, sep)) return false;
        }
        int64_t v;
        if (!take_number(c, &v)) return false;
        if (f > sp.start && v > (sp.ym ? 11 : DT_BOUND[f])) return false;
        if (sp.ym) {
            total += (__int128)v * (f == CS_INTERVAL_YEAR ? 12 : 1);
            continue;
        }
        total += (__int128)v * DT_MICROS[f];
        if (f == CS_INTERVAL_SECOND && take_char(c, '.')) {
            int64_t scale = 100000;
            int digits = 0;
            while (c->p < c->e && isdigit((unsigned char)*c->p)) {
                if (++digits > 9) return false;
                total += (*c->p++ - '0') * scale;
                scale /= 10;
            }
            if (!digits) return false;
        }
    }
    if (neg) total = -total;
    __int128 lim = sp.ym ? INT32_MAX : INT64_MAX;
    if (total > lim || total < -lim) return false;
    *out = (int64_t)total;
    return true;
}

/* INTERVAL [+|-]'<bare>' UNIT [TO UNIT], the units those of sp */
static bool parse_literal(cursor *c, span sp, int64_t *out)
{
    if (!take_word(c, "INTERVAL") || !take_space(c)) return false;
    bool neg = take_sign(c);
    if (!take_char(c, '\'')) return false;
    const char *close = memchr(c->p, '\'', (size_t)(c->e - c->p));
    if (!close) return false;
    cursor in = {c->p, close};
    if (!parse_bare(&in, sp, out) || !at_end(&in)) return false;
    c->p = close + 1;
    const char *const *units = sp.ym ? YM_UNITS : DT_UNITS;
    if (!take_space(c) || !take_word(c, units[sp.start])) return false;
    if (sp.end != sp.start &&
        (!take_space(c) || !take_word(c, "TO") || !take_space(c) || !take_word(c, units[sp.end])))
        return false;
    if (!at_end(c)) return false;
    if (neg) *out = -*out;
    return true;
}

static bool parse_interval(const uint8_t *s, int32_t len, span sp, int64_t *out)
{
    const char *p = (const char *)s, *e = p + len;
    while (p < e && (isspace((unsigned char)*p) || (unsigned char)*p < 32))
        p++;
    while (e > p && (isspace((unsigned char)e[-1]) || (unsigned char)e[-1] < 32))
        e--;
    cursor c = {p, e};
    if (parse_bare(&c, sp, out) && at_end(&c)) return true;
    c.p = p;
    return parse_literal(&c, sp, out);
}

static int format_error(const cs_px_kctx *k, const uint8_t *s, int32_t len, span sp)
{
    cs_sbuf bare = CS_SBUF_INIT, units = CS_SBUF_INIT, type = CS_SBUF_INIT;
    const char *const *letters = sp.ym ? YM_LETTERS : DT_LETTERS;
    const char *const *names = sp.ym ? YM_UNITS : DT_UNITS;
    cs_sbuf_puts(&bare, "[+|-]");
    for (int f = sp.start; f <= sp.end; f++) {
        if (f > sp.start) cs_sbuf_puts(&bare, sp.ym ? "-" : f == CS_INTERVAL_HOUR ? " " : ":");
        cs_sbuf_puts(&bare, letters[f]);
    }
    cs_sbuf_puts(&units, names[sp.start]);
    if (sp.end != sp.start) cs_sbuf_printf(&units, " TO %s", names[sp.end]);
    cs_col_type_simple_string(k->e->type, &type);
    int rc = cs_sql_error_set(
        k->err, CS_ETASK,
        sp.ym ? "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING"
              : "INVALID_INTERVAL_FORMAT.UNMATCHED_FORMAT_STRING_WITH_NOTICE",
        "22006",
        "Error parsing '%.*s' to interval. Please ensure that the value provided is in a valid "
        "format for defining an interval. You can reference the documentation for the correct "
        "format. Interval string does not match %s format of `%s`, `INTERVAL [+|-]'%s' %s` when "
        "cast to %s: %.*s.%s",
        (int)len, (const char *)s, sp.ym ? "year-month" : "day-time", cs_sbuf_str(&bare),
        cs_sbuf_str(&bare), cs_sbuf_str(&units), cs_sbuf_str(&type), (int)len, (const char *)s,
        sp.ym ? ""
              : " Set \"spark.sql.legacy.fromDayTimeString.enabled\" to \"true\" to restore the "
                "behavior before Spark 3.0.");
    cs_sbuf_free(&bare);
    cs_sbuf_free(&units);
    cs_sbuf_free(&type);
    return rc;
}

static int string_to_interval(const cs_px_kctx *k, cs_column *const *args, int na, cs_column **out)
{
    (void)na;
    const cs_column *a = args[0];
    const cs_col_type *to = k->e->type;
    span sp = {to->id == CS_TYPE_INTERVAL_YM, to->precision, to->scale};
    int64_t n = k->n, sa = cs_px_stride(a, n);
    cs_column *r = cs_px_new_fixed(k->alloc, to, n);
    cs_px_and_validity(r, args, 1, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a, i * sa)) continue;
        int32_t len;
        const uint8_t *s = cs_px_bytes(a, i, sa, &len);
        int64_t v;
        if (!parse_interval(s, len, sp, &v)) {
            if (k->e->cast_mode == CS_CAST_TRY) {
                cs_px_ensure_validity(r);
                cs_px_set_null(r, i);
                continue;
            }
            int rc = format_error(k, s, len, sp);
            cs_column_unref(r);
            return rc;
        }
        if (sp.ym)
            ((int32_t *)(void *)r->values)[i] = (int32_t)v;
        else
            ((int64_t *)(void *)r->values)[i] = v;
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_cast_interval_lookup(const cs_col_type *from, const cs_col_type *to)
{
    if (from->id == CS_TYPE_STRING &&
        (to->id == CS_TYPE_INTERVAL_YM || to->id == CS_TYPE_INTERVAL_DT))
        return string_to_interval;
    return cs_px_cast_calendar_lookup(from, to);
}
