/*
 * kernels_datetime_more.c — Spark's date and time functions beyond kernels_datetime.c:
 * weekofyear (ISO 8601 weeks, as Spark's), dayname / monthname ("Thu", "Jul"), make_date and
 * make_timestamp (the session zone's local time; DATETIME_FIELD_OUT_OF_BOUNDS for a field out of
 * range under ANSI, else null), date_from_unix_date / unix_date, timestamp_seconds / _millis /
 * _micros and unix_seconds, next_day (ILLEGAL_DAY_OF_WEEK under ANSI), and to_date /
 * to_timestamp of one argument (Spark's Cast of the string, with the cast's errors). One loop
 * per batch over the column vectors. Called through cs_px_datetime_more_lookup (pexpr.c's
 * chain), which also hands out window() (kernels_time_window.c).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"
#include "sqlexec/sql_ops_internal.h" /* cs_sql_long_at */

static const char *const DAYS[] = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
static const char *const MONTHS[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const MONTH_NAMES[] = {"January",   "February", "March",    "April",
                                          "May",       "June",     "July",     "August",
                                          "September", "October",  "November", "December"};

/* Monday 0 .. Sunday 6 of a day number (1970-01-01 was a Thursday) */
static int weekday(int64_t d)
{
    int64_t w = (d + 3) % 7;
    return (int)(w < 0 ? w + 7 : w);
}

static int iso_week(int64_t d)
{
    int64_t thursday = d - weekday(d) + 3, y;
    int m, dd;
    cs_tv_civil_from_days(thursday, &y, &m, &dd);
    return (int)((thursday - cs_tv_days_from_civil(y, 1, 1)) / 7 + 1);
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* 0, or Spark's DATETIME_FIELD_OUT_OF_BOUNDS for a bad year / month / day */
static int check_date(const cs_px_kctx *k, int64_t y, int64_t m, int64_t d)
{
    static const char HINT[] =
        "If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error.";
    const char *cls = "DATETIME_FIELD_OUT_OF_BOUNDS", *st = "22023";
    if (y < -290307 || y > 294247)
        return cs_sql_error_set(k->err, CS_ETASK, cls, st,
                                "Invalid value for Year (valid values -999999999 - 999999999): "
                                "%lld. %s",
                                (long long)y, HINT);
    if (m < 1 || m > 12)
        return cs_sql_error_set(k->err, CS_ETASK, cls, st,
                                "Invalid value for MonthOfYear (valid values 1 - 12): %lld. %s",
                                (long long)m, HINT);
    if (d < 1 || d > 31)
        return cs_sql_error_set(k->err, CS_ETASK, cls, st,
                                "Invalid value for DayOfMonth (valid values 1 - 28/31): %lld. %s",
                                (long long)d, HINT);
    if (d > month_days(y, (int)m)) {
        if (m == 2 && d == 29)
            return cs_sql_error_set(k->err, CS_ETASK, cls, st,
                                    "Invalid date 'February 29' as '%lld' is not a leap year. %s",
                                    (long long)y, HINT);
        return cs_sql_error_set(k->err, CS_ETASK, cls, st, "Invalid date '%s %lld'. %s",
                                MONTH_NAMES[m - 1], (long long)d, HINT);
    }
    return CS_OK;
}

typedef enum {
    D_WEEKOFYEAR,
    D_DAYNAME,
    D_MONTHNAME,
    D_MAKE_DATE,
    D_MAKE_TIMESTAMP,
    D_FROM_UNIX_DATE,
    D_UNIX_DATE,
    D_TS_SECONDS,
    D_TS_MILLIS,
    D_TS_MICROS,
    D_UNIX_SECONDS,
    D_NEXT_DAY
} dfn;

static const struct {
    const char *name;
    dfn f;
} NAMES[] = {{"weekofyear", D_WEEKOFYEAR},         {"dayname", D_DAYNAME},
             {"monthname", D_MONTHNAME},           {"make_date", D_MAKE_DATE},
             {"make_timestamp", D_MAKE_TIMESTAMP}, {"date_from_unix_date", D_FROM_UNIX_DATE},
             {"unix_date", D_UNIX_DATE},           {"timestamp_seconds", D_TS_SECONDS},
             {"timestamp_millis", D_TS_MILLIS},    {"timestamp_micros", D_TS_MICROS},
             {"unix_seconds", D_UNIX_SECONDS},     {"next_day", D_NEXT_DAY}};

static int fn_of(const char *name)
{
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (strcmp(NAMES[i].name, name) == 0) return (int)NAMES[i].f;
    return -1;
}

/* the day of week named by s ("MO", "MON", "MONDAY"), -1 when none */
static int day_of_name(const uint8_t *s, int32_t l)
{
    static const char *const full[] = {"MONDAY", "TUESDAY",  "WEDNESDAY", "THURSDAY",
                                       "FRIDAY", "SATURDAY", "SUNDAY"};
    for (int d = 0; d < 7; d++)
        if ((l == 2 || l == 3 || l == (int32_t)strlen(full[d])) &&
            strncasecmp((const char *)s, full[d], (size_t)l) == 0)
            return d;
    return -1;
}

static int more_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    dfn f = (dfn)fn_of(k->e->fn);
    int64_t n = k->n;
    bool text = f == D_DAYNAME || f == D_MONTHNAME;
    cs_col_builder *b = text ? cs_col_builder_new(k->alloc, k->e->type) : NULL;
    cs_column *r = text ? NULL : cs_px_new_fixed(k->alloc, k->e->type, n);
    if (r) cs_px_and_validity(r, a, na, n);
    const cs_px_zone *zone = NULL;
    if (f == D_MAKE_TIMESTAMP && !(zone = cs_px_session_zone(k))) {
        cs_column_unref(r);
        return CS_EINVAL;
    }
    int rc = CS_OK;
    for (int64_t i = 0; i < n && rc == CS_OK; i++) {
        bool valid = true;
        for (int j = 0; j < na; j++)
            valid = valid && cs_column_is_valid(a[j], i * cs_px_stride(a[j], n));
        if (!valid) {
            if (b) cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int64_t x =
            a[0]->type->id == CS_TYPE_STRING ? 0 : cs_sql_long_at(a[0], i * cs_px_stride(a[0], n));
        int64_t y, v = 0;
        int m, d;
        bool null = false;
        switch (f) {
        case D_WEEKOFYEAR:
            v = iso_week(x);
            break;
        case D_DAYNAME:
            cs_col_builder_append_string(b, DAYS[weekday(x)], 3);
            continue;
        case D_MONTHNAME:
            cs_tv_civil_from_days(x, &y, &m, &d);
            cs_col_builder_append_string(b, MONTHS[m - 1], 3);
            continue;
        case D_MAKE_DATE:
        case D_MAKE_TIMESTAMP: {
            int64_t mo = cs_sql_long_at(a[1], i * cs_px_stride(a[1], n));
            int64_t dd = cs_sql_long_at(a[2], i * cs_px_stride(a[2], n));
            int frc = check_date(k, x, mo, dd);
            int64_t us = 0;
            if (frc == CS_OK && f == D_MAKE_TIMESTAMP) {
                int64_t h = cs_sql_long_at(a[3], i * cs_px_stride(a[3], n));
                int64_t mi = cs_sql_long_at(a[4], i * cs_px_stride(a[4], n));
                __int128 sec = cs_px_dec_get(a[5], i * cs_px_stride(a[5], n));
                int scale = a[5]->type->scale;
                __int128 sus =
                    scale <= 6 ? sec * cs_px_pow10(6 - scale) : sec / cs_px_pow10(scale - 6);
                if (h < 0 || h > 23 || mi < 0 || mi > 59 || sus < 0 || sus > 60000000)
                    frc =
                        cs_sql_error_set(k->err, CS_ETASK, "DATETIME_FIELD_OUT_OF_BOUNDS", "22023",
                                         "Invalid value for a time field: %lld:%lld. If "
                                         "necessary set \"spark.sql.ansi.enabled\" to "
                                         "\"false\" to bypass this error.",
                                         (long long)h, (long long)mi);
                us = ((int64_t)cs_tv_days_from_civil(x, (int)mo, (int)dd) * 86400 + h * 3600 +
                      mi * 60) *
                         1000000 +
                     (int64_t)sus;
            }
            if (frc != CS_OK) {
                if (k->ctx->ansi) {
                    rc = frc;
                    break;
                }
                null = true;
                break;
            }
            v = f == D_MAKE_DATE ? cs_tv_days_from_civil(x, (int)mo, (int)dd)
                                 : cs_px_zone_local_to_utc_us(zone, us);
            break;
        }
        case D_FROM_UNIX_DATE:
        case D_UNIX_DATE:
            v = x;
            break;
        case D_TS_SECONDS:
            if (__builtin_mul_overflow(x, (int64_t)1000000, &v))
                rc = cs_px_err_overflow(k->err, "long", NULL);
            break;
        case D_TS_MILLIS:
            if (__builtin_mul_overflow(x, (int64_t)1000, &v))
                rc = cs_px_err_overflow(k->err, "long", NULL);
            break;
        case D_TS_MICROS:
            v = x;
            break;
        case D_UNIX_SECONDS:
            v = x / 1000000 - (x % 1000000 < 0 ? 1 : 0);
            break;
        case D_NEXT_DAY: {
            int32_t l;
            const uint8_t *s = cs_column_bytes(a[1], i * cs_px_stride(a[1], n), &l);
            int want = day_of_name(s, l);
            if (want < 0) {
                if (k->ctx->ansi) {
                    rc = cs_sql_error_set(k->err, CS_ETASK, "ILLEGAL_DAY_OF_WEEK", "22009",
                                          "Illegal input for day of week: %.*s.", (int)l,
                                          (const char *)s);
                    break;
                }
                null = true;
                break;
            }
            int delta = (want - weekday(x) + 7) % 7;
            v = x + (delta ? delta : 7);
            break;
        }
        }
        if (rc) break;
        if (null) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        } else if (cs_col_type_width(r->type->id) == 4) {
            ((int32_t *)(void *)r->values)[i] = (int32_t)v;
        } else {
            ((int64_t *)(void *)r->values)[i] = v;
        }
    }
    if (b) {
        cs_column *c = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        if (rc)
            cs_column_unref(c);
        else
            *out = c;
        return rc;
    }
    if (rc)
        cs_column_unref(r);
    else
        *out = r;
    return rc;
}

/* to_date(s) / to_timestamp(s): the cast of the string, as Spark's parser-less form */
static int cast_fn_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    cs_pexpr node = *k->e;
    node.kind = CS_PX_CAST;
    node.cast_mode = CS_CAST_ANSI;
    cs_px_kctx ck = *k;
    ck.e = &node;
    return cs_px_cast_lookup(a[0]->type, k->e->type)(&ck, a, na, out);
}

static bool integral(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT || id == CS_TYPE_LONG;
}

cs_px_kernel cs_px_datetime_more_lookup(const char *fn, const cs_col_type *const *t, int n,
                                        const cs_col_type *result)
{
    cs_px_kernel window = cs_px_time_window_lookup(fn, t, n, result);
    if (window) return window;
    if (n == 1 && t[0]->id == CS_TYPE_STRING &&
        ((strcmp(fn, "to_date") == 0 && result->id == CS_TYPE_DATE) ||
         (strcmp(fn, "to_timestamp") == 0 &&
          (result->id == CS_TYPE_TIMESTAMP || result->id == CS_TYPE_TIMESTAMP_NTZ))))
        return cs_px_cast_lookup(t[0], result) ? cast_fn_kernel : NULL;
    int f = fn_of(fn);
    if (f < 0) return NULL;
    switch ((dfn)f) {
    case D_WEEKOFYEAR:
    case D_DAYNAME:
    case D_MONTHNAME:
    case D_UNIX_DATE:
        return n == 1 && t[0]->id == CS_TYPE_DATE ? more_kernel : NULL;
    case D_MAKE_DATE:
        return n == 3 && integral(t[0]->id) && integral(t[1]->id) && integral(t[2]->id)
                   ? more_kernel
                   : NULL;
    case D_MAKE_TIMESTAMP:
        return n == 6 && t[5]->id == CS_TYPE_DECIMAL && result->id == CS_TYPE_TIMESTAMP
                   ? more_kernel
                   : NULL;
    case D_FROM_UNIX_DATE:
    case D_TS_SECONDS:
    case D_TS_MILLIS:
    case D_TS_MICROS:
        return n == 1 && integral(t[0]->id) ? more_kernel : NULL;
    case D_UNIX_SECONDS:
        return n == 1 && t[0]->id == CS_TYPE_TIMESTAMP ? more_kernel : NULL;
    case D_NEXT_DAY:
        return n == 2 && t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_STRING ? more_kernel
                                                                                : NULL;
    }
    return NULL;
}
