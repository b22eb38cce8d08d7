/*
 * kernels_interval_calendar.c — Spark's CalendarIntervalType values (months, days and
 * microseconds, kept in Arrow's month_day_nano layout: int32 months, int32 days, int64
 * nanoseconds): make_interval(years, months, weeks, days, hours, mins, secs) as Spark's
 * MakeInterval (secs a decimal(18,6), so its unscaled value is microseconds; the analyzer gives
 * the missing arguments as 0; a null argument gives null; a total beyond int or long is Spark's
 * ARITHMETIC_OVERFLOW), and CAST(interval AS STRING) as CalendarInterval.toString ("1 years 2
 * months 3 days 4 hours 5 minutes 6.5 seconds", "0 seconds" for the zero interval). One loop
 * per batch. Called through cs_px_interval_make_lookup and cs_px_cast_calendar_lookup.
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdio.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static int64_t int_at(const cs_column *c, int64_t i)
{
    return ((const int32_t *)(const void *)c->values)[i];
}

static int make_interval_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s[7];
    for (int j = 0; j < na; j++)
        s[j] = cs_px_stride(a[j], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        int64_t months = int_at(a[0], i * s[0]) * 12 + int_at(a[1], i * s[1]);
        int64_t days = int_at(a[2], i * s[2]) * 7 + int_at(a[3], i * s[3]);
        __int128 us = (__int128)int_at(a[4], i * s[4]) * 3600000000LL +
                      (__int128)int_at(a[5], i * s[5]) * 60000000LL + cs_px_dec_get(a[6], i * s[6]);
        if (months < INT32_MIN || months > INT32_MAX || days < INT32_MIN || days > INT32_MAX) {
            cs_column_unref(r);
            return cs_px_err_overflow(k->err, "integer", NULL);
        }
        if (us < INT64_MIN || us > INT64_MAX || us * 1000 < INT64_MIN || us * 1000 > INT64_MAX) {
            cs_column_unref(r);
            return cs_px_err_overflow(k->err, "long", NULL);
        }
        uint8_t *v = r->values + 16 * i;
        int32_t m32 = (int32_t)months, d32 = (int32_t)days;
        int64_t ns = (int64_t)us * 1000;
        memcpy(v, &m32, 4);
        memcpy(v + 4, &d32, 4);
        memcpy(v + 8, &ns, 8);
    }
    *out = r;
    return CS_OK;
}

static void append_unit(cs_sbuf *sb, int64_t value, const char *unit)
{
    if (value != 0) cs_sbuf_printf(sb, "%lld %s ", (long long)value, unit);
}

/* CalendarInterval.toString of (months, days, microseconds) into sb. */
static void calendar_text(int32_t months, int32_t days, int64_t us, cs_sbuf *sb)
{
    if (months == 0 && days == 0 && us == 0) {
        cs_sbuf_puts(sb, "0 seconds");
        return;
    }
    size_t start = sb->len;
    if (months != 0) {
        append_unit(sb, months / 12, "years");
        append_unit(sb, months % 12, "months");
    }
    append_unit(sb, days, "days");
    if (us != 0) {
        append_unit(sb, us / 3600000000LL, "hours");
        us %= 3600000000LL;
        append_unit(sb, us / 60000000LL, "minutes");
        us %= 60000000LL;
        if (us != 0) { /* BigDecimal.valueOf(us, 6).stripTrailingZeros().toPlainString() */
            uint64_t u = us < 0 ? (uint64_t)(-us) : (uint64_t)us;
            char frac[8];
            snprintf(frac, sizeof frac, "%06llu", (unsigned long long)(u % 1000000));
            int fl = 6;
            while (fl > 0 && frac[fl - 1] == '0')
                frac[--fl] = 0;
            cs_sbuf_printf(sb, "%s%llu%s%s seconds ", us < 0 ? "-" : "",
                           (unsigned long long)(u / 1000000), fl ? "." : "", frac);
        }
    }
    if (sb->len > start) sb->len--; /* the last space */
}

static int calendar_to_string(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_sbuf sb = CS_SBUF_INIT;
    for (int64_t i = 0; i < k->n; i++) {
        if (!cs_column_is_valid(a[0], i)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        const uint8_t *v = a[0]->values + 16 * i;
        int32_t months, days;
        int64_t ns;
        memcpy(&months, v, 4);
        memcpy(&days, v + 4, 4);
        memcpy(&ns, v + 8, 8);
        sb.len = 0;
        calendar_text(months, days, ns / 1000, &sb);
        cs_col_builder_append_string(b, sb.data, sb.len);
    }
    cs_sbuf_free(&sb);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

cs_px_kernel cs_px_calendar_make_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result)
{
    if (strcmp(fn, "make_interval") != 0 || n != 7 || result->id != CS_TYPE_INTERVAL_CAL)
        return NULL;
    for (int i = 0; i < 6; i++)
        if (t[i]->id != CS_TYPE_INT) return NULL;
    if (t[6]->id != CS_TYPE_DECIMAL || t[6]->scale != 6) return NULL;
    return make_interval_kernel;
}

cs_px_kernel cs_px_cast_calendar_lookup(const cs_col_type *from, const cs_col_type *to)
{
    if (from->id == CS_TYPE_INTERVAL_CAL && to->id == CS_TYPE_STRING) return calendar_to_string;
    return NULL;
}
