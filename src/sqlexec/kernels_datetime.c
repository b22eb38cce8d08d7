/*
 * kernels_datetime.c — date and time kernels over Spark's date (int32 days) and timestamp
 * (int64 microseconds, UTC) columns: year, month, day/dayofmonth, dayofweek (1 = Sunday),
 * weekday, quarter, dayofyear, hour, minute, second, date_add, date_sub, datediff, add_months
 * (clamped to the month's last day, as Spark), last_day, trunc(date, fmt) and
 * date_trunc(fmt, timestamp) with a literal format, unix_timestamp(timestamp), and date +/-
 * interval year to month, timestamp +/- interval day to second. EXTRACT is the analyzer's
 * rewrite into these; current_date is a literal the planner binds. Fields and truncation of
 * timestamps (with local time zone) are taken in the session time zone (ctx->session_tz,
 * kernels_tz.c); timestamp_ntz values are local already. from_utc_timestamp,
 * to_utc_timestamp, convert_timezone and make_timestamp are here too, and months_between. Called
 * through cs_px_datetime_lookup.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "sqlexec/pexpr_internal.h"

#define US_PER_DAY 86400000000LL

static int month_days(int64_t y, int m)
{
    static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return md[m - 1] + (m == 2 && leap);
}

static inline int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int64_t add_months_days(int64_t days, int64_t months)
{
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    int64_t total = y * 12 + (m - 1) + months;
    int64_t ny = floor_div(total, 12);
    int nm = (int)(total - ny * 12) + 1;
    int md = month_days(ny, nm);
    return cs_tv_days_from_civil(ny, nm, d > md ? md : d);
}

typedef enum {
    F_YEAR,
    F_MONTH,
    F_DAY,
    F_DOW,
    F_WEEKDAY,
    F_QUARTER,
    F_DOY,
    F_HOUR,
    F_MINUTE,
    F_SECOND,
    F_LAST_DAY
} field;

/* a field of a date (days) or of a timestamp (taken to its day) */
static int64_t date_field(int64_t days, field f)
{
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    switch (f) {
    case F_YEAR:
        return y;
    case F_MONTH:
        return m;
    case F_DAY:
        return d;
    case F_DOW:
        return floor_div(days + 4, 7) * -7 + days + 4 + 1; /* 1970-01-01 was a Thursday */
    case F_WEEKDAY:
        return (days + 4 - floor_div(days + 4, 7) * 7 + 6) % 7;
    case F_QUARTER:
        return (m - 1) / 3 + 1;
    case F_DOY:
        return days - cs_tv_days_from_civil(y, 1, 1) + 1;
    case F_LAST_DAY:
        return cs_tv_days_from_civil(y, m, month_days(y, m));
    default:
        return 0;
    }
}

static field field_of(const char *fn)
{
    static const struct {
        const char *name;
        field f;
    } names[] = {{"year", F_YEAR},       {"month", F_MONTH},   {"day", F_DAY},
                 {"dayofmonth", F_DAY},  {"dayofweek", F_DOW}, {"weekday", F_WEEKDAY},
                 {"quarter", F_QUARTER}, {"dayofyear", F_DOY}, {"hour", F_HOUR},
                 {"minute", F_MINUTE},   {"second", F_SECOND}, {"last_day", F_LAST_DAY}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(fn, names[i].name) == 0) return names[i].f;
    return (field)-1;
}

static int field_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    field f = field_of(k->e->fn);
    bool ts = a[0]->type->id != CS_TYPE_DATE;
    const cs_px_zone *zone = NULL;
    if (a[0]->type->id == CS_TYPE_TIMESTAMP && !(zone = cs_px_session_zone(k))) return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    int32_t *z = (int32_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = ts ? ((const int64_t *)(const void *)a[0]->values)[i * sa]
                       : ((const int32_t *)(const void *)a[0]->values)[i * sa];
        if (!ts) {
            z[i] = (int32_t)date_field(v, f);
            continue;
        }
        if (zone) v = cs_px_zone_utc_to_local_us(zone, v);
        int64_t day = floor_div(v, US_PER_DAY), us = v - day * US_PER_DAY;
        switch (f) {
        case F_HOUR:
            z[i] = (int32_t)(us / 3600000000LL);
            break;
        case F_MINUTE:
            z[i] = (int32_t)(us / 60000000LL % 60);
            break;
        case F_SECOND:
            z[i] = (int32_t)(us / 1000000 % 60);
            break;
        default:
            z[i] = (int32_t)date_field(day, f);
        }
    }
    *out = r;
    return CS_OK;
}

static inline int64_t int_arg(const cs_column *c, int64_t i)
{
    switch (c->type->id) {
    case CS_TYPE_BYTE:
        return ((const int8_t *)c->values)[i];
    case CS_TYPE_SHORT:
        return ((const int16_t *)(const void *)c->values)[i];
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_INTERVAL_DT:
        return ((const int64_t *)(const void *)c->values)[i];
    default:
        return ((const int32_t *)(const void *)c->values)[i];
    }
}

typedef enum {
    A_DATE_ADD,
    A_DATE_SUB,
    A_DATEDIFF,
    A_ADD_MONTHS,
    A_DATE_YM,
    A_DATE_DT, /* date +/- a day interval: Spark's DateAdd of the interval's whole days */
    A_TS_DT,
    A_TS_YM
} aop;

static int binary_kernel(const cs_px_kctx *k, cs_column *const *a, cs_column **out, aop op,
                         int sign)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    bool wide = k->e->type->id == CS_TYPE_TIMESTAMP || k->e->type->id == CS_TYPE_TIMESTAMP_NTZ;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = int_arg(a[0], i * sa), y = int_arg(a[1], i * sb), v = 0;
        switch (op) {
        /* date_add, date_sub, datediff: Java int arithmetic, wrapping as Spark's DateAdd */
        case A_DATE_ADD:
            v = (int32_t)(uint32_t)((uint32_t)x + (uint32_t)y);
            break;
        case A_DATE_SUB:
        case A_DATEDIFF:
            v = (int32_t)(uint32_t)((uint32_t)x - (uint32_t)y);
            break;
        case A_ADD_MONTHS:
        case A_DATE_YM:
            v = add_months_days(x, sign * y);
            break;
        case A_DATE_DT:
            v = x + sign * (y / US_PER_DAY);
            break;
        case A_TS_DT:
            v = x + sign * y;
            break;
        case A_TS_YM: {
            int64_t day = floor_div(x, US_PER_DAY);
            v = add_months_days(day, sign * y) * US_PER_DAY + (x - day * US_PER_DAY);
            break;
        }
        }
        if (!wide && (v > INT32_MAX || v < INT32_MIN) &&
            (!r->validity || cs_bit_get(r->validity, i))) {
            if (k->ctx->ansi) {
                cs_column_unref(r);
                return cs_px_err_overflow(k->err, "integer", NULL);
            }
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
            continue;
        }
        if (wide)
            ((int64_t *)(void *)r->values)[i] = v;
        else
            ((int32_t *)(void *)r->values)[i] = (int32_t)v;
    }
    *out = r;
    return CS_OK;
}

#define BIN(NAME, OP, SIGN)                                                                        \
    static int NAME(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)             \
    {                                                                                              \
        (void)na;                                                                                  \
        return binary_kernel(k, a, out, OP, SIGN);                                                 \
    }
BIN(date_add_kernel, A_DATE_ADD, 1)
BIN(date_sub_kernel, A_DATE_SUB, 1)
BIN(datediff_kernel, A_DATEDIFF, 1)
BIN(add_months_kernel, A_ADD_MONTHS, 1)
BIN(date_plus_ym, A_DATE_YM, 1)
BIN(date_minus_ym, A_DATE_YM, -1)
BIN(date_plus_days, A_DATE_DT, 1)
BIN(date_minus_days, A_DATE_DT, -1)
BIN(ts_plus_dt, A_TS_DT, 1)
BIN(ts_minus_dt, A_TS_DT, -1)
BIN(ts_plus_ym, A_TS_YM, 1)
BIN(ts_minus_ym, A_TS_YM, -1)

/* trunc(date, fmt) and date_trunc(fmt, ts): the unit from a literal format */
typedef enum { U_YEAR, U_QUARTER, U_MONTH, U_WEEK, U_DAY, U_HOUR, U_MINUTE, U_SECOND, U_BAD } unit;

static unit unit_of(const cs_column *fmt)
{
    if (!cs_column_is_valid(fmt, 0)) return U_BAD;
    int32_t len;
    const uint8_t *p = cs_column_bytes(fmt, 0, &len);
    char u[16];
    if (len <= 0 || len >= (int32_t)sizeof u) return U_BAD;
    memcpy(u, p, (size_t)len);
    u[len] = '\0';
    static const struct {
        const char *name;
        unit u;
    } units[] = {{"YEAR", U_YEAR},    {"YYYY", U_YEAR}, {"YY", U_YEAR},   {"QUARTER", U_QUARTER},
                 {"MONTH", U_MONTH},  {"MM", U_MONTH},  {"MON", U_MONTH}, {"WEEK", U_WEEK},
                 {"DAY", U_DAY},      {"DD", U_DAY},    {"HOUR", U_HOUR}, {"MINUTE", U_MINUTE},
                 {"SECOND", U_SECOND}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(u, units[i].name) == 0) return units[i].u;
    return U_BAD;
}

static int64_t trunc_days(int64_t days, unit u)
{
    int64_t y;
    int m, d;
    cs_tv_civil_from_days(days, &y, &m, &d);
    switch (u) {
    case U_YEAR:
        return cs_tv_days_from_civil(y, 1, 1);
    case U_QUARTER:
        return cs_tv_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1);
    case U_MONTH:
        return cs_tv_days_from_civil(y, m, 1);
    case U_WEEK:
        return days - date_field(days, F_WEEKDAY); /* back to Monday */
    default:
        return days;
    }
}

static int trunc_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool is_date_trunc = strcmp(k->e->fn, "date_trunc") == 0;
    const cs_column *v = is_date_trunc ? a[1] : a[0], *fmt = is_date_trunc ? a[0] : a[1];
    int64_t n = k->n, sv = cs_px_stride(v, n);
    unit u = unit_of(fmt);
    /* trunc(date) knows year/quarter/month/week only; an unknown unit is null, as Spark */
    if (u == U_BAD || (!is_date_trunc && u >= U_DAY)) {
        *out = cs_px_all_null(k->alloc, k->e->type, n);
        return CS_OK;
    }
    const cs_px_zone *zone = NULL;
    if (v->type->id == CS_TYPE_TIMESTAMP && !(zone = cs_px_session_zone(k))) return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_column *const only[1] = {(cs_column *)v};
    cs_px_and_validity(r, only, 1, n);
    for (int64_t i = 0; i < n; i++) {
        if (!is_date_trunc) {
            ((int32_t *)(void *)r->values)[i] =
                (int32_t)trunc_days(((const int32_t *)(const void *)v->values)[i * sv], u);
            continue;
        }
        int64_t t = ((const int64_t *)(const void *)v->values)[i * sv];
        if (zone) t = cs_px_zone_utc_to_local_us(zone, t);
        int64_t day = floor_div(t, US_PER_DAY), us = t - day * US_PER_DAY;
        int64_t res;
        switch (u) {
        case U_HOUR:
            res = day * US_PER_DAY + us / 3600000000LL * 3600000000LL;
            break;
        case U_MINUTE:
            res = day * US_PER_DAY + us / 60000000LL * 60000000LL;
            break;
        case U_SECOND:
            res = day * US_PER_DAY + us / 1000000 * 1000000;
            break;
        default:
            res = trunc_days(day, u) * US_PER_DAY;
        }
        ((int64_t *)(void *)r->values)[i] = zone ? cs_px_zone_local_to_utc_us(zone, res) : res;
    }
    *out = r;
    return CS_OK;
}

static int unix_ts_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    bool date = a[0]->type->id == CS_TYPE_DATE;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = int_arg(a[0], i * sa);
        ((int64_t *)(void *)r->values)[i] = date ? v * 86400 : floor_div(v, 1000000);
    }
    *out = r;
    return CS_OK;
}

/* months_between(t1, t2, round_off): whole months when the days of month agree or both are
 * month ends, else the day and time difference over 31-day months (Spark's monthsBetween),
 * rounded to 8 digits unless round_off is false; fields in the session zone */
static int months_between_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s0 = cs_px_stride(a[0], n), s1 = cs_px_stride(a[1], n),
            s2 = cs_px_stride(a[2], n);
    const cs_px_zone *zone = cs_px_session_zone(k);
    if (!zone) return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    double *v = (double *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        if (r->validity && !cs_bit_get(r->validity, i)) continue;
        int64_t t[2] = {int_arg(a[0], i * s0), int_arg(a[1], i * s1)}, y[2], days[2], sec[2];
        int m[2], d[2];
        for (int j = 0; j < 2; j++) {
            int64_t local =
                a[j]->type->id == CS_TYPE_TIMESTAMP ? cs_px_zone_utc_to_local_us(zone, t[j]) : t[j];
            days[j] = floor_div(local, US_PER_DAY);
            sec[j] = (local - days[j] * US_PER_DAY) / 1000000;
            cs_tv_civil_from_days(days[j], &y[j], &m[j], &d[j]);
        }
        double diff = (double)((y[0] * 12 + m[0]) - (y[1] * 12 + m[1]));
        bool ends = d[0] == month_days(y[0], m[0]) && d[1] == month_days(y[1], m[1]);
        if (d[0] != d[1] && !ends) {
            diff += (double)((int64_t)(d[0] - d[1]) * 86400 + sec[0] - sec[1]) / 2678400.0;
            if (cs_bit_get(a[2]->values, i * s2)) diff = round(diff * 1e8) / 1e8;
        }
        v[i] = diff;
    }
    *out = r;
    return CS_OK;
}

/* date_part('SECOND', ts) / EXTRACT(SECOND FROM ts): seconds with their fraction, decimal(8,6),
 * in the session zone (the analyzer types only a literal SECOND field so) */
static int second_fraction_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, s1 = cs_px_stride(a[1], n);
    const cs_px_zone *zone = cs_px_session_zone(k);
    if (!zone) return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    for (int64_t i = 0; i < n; i++) {
        int64_t v = int_arg(a[1], i * s1);
        if (a[1]->type->id == CS_TYPE_TIMESTAMP) v = cs_px_zone_utc_to_local_us(zone, v);
        cs_px_dec_put(r, i, (__int128)(v - floor_div(v, 60000000LL) * 60000000LL));
    }
    *out = r;
    return CS_OK;
}

static bool is_ts(cs_type_id id)
{
    return id == CS_TYPE_TIMESTAMP || id == CS_TYPE_TIMESTAMP_NTZ;
}
static bool is_int(cs_type_id id)
{
    return id == CS_TYPE_BYTE || id == CS_TYPE_SHORT || id == CS_TYPE_INT;
}

cs_px_kernel cs_px_datetime_lookup(const char *fn, const cs_col_type *const *t, int n,
                                   const cs_col_type *result)
{
    if (n == 1 && (int)field_of(fn) >= 0) {
        field f = field_of(fn);
        if (f == F_HOUR || f == F_MINUTE || f == F_SECOND)
            return is_ts(t[0]->id) ? field_kernel : NULL;
        if (f == F_LAST_DAY) return t[0]->id == CS_TYPE_DATE ? field_kernel : NULL;
        return t[0]->id == CS_TYPE_DATE || is_ts(t[0]->id) ? field_kernel : NULL;
    }
    if (n == 1 && strcmp(fn, "unix_timestamp") == 0 &&
        (t[0]->id == CS_TYPE_DATE || is_ts(t[0]->id)))
        return unix_ts_kernel;
    if (n == 3 && strcmp(fn, "months_between") == 0 && is_ts(t[0]->id) && is_ts(t[1]->id) &&
        t[2]->id == CS_TYPE_BOOLEAN && result->id == CS_TYPE_DOUBLE)
        return months_between_kernel;
    if (n != 2) return NULL;
    if (strcmp(fn, "date_part") == 0 && t[0]->id == CS_TYPE_STRING && is_ts(t[1]->id) &&
        result->id == CS_TYPE_DECIMAL && result->scale == 6)
        return second_fraction_kernel;
    if (t[0]->id == CS_TYPE_DATE && is_int(t[1]->id)) {
        if (strcmp(fn, "date_add") == 0) return date_add_kernel;
        if (strcmp(fn, "date_sub") == 0) return date_sub_kernel;
        if (strcmp(fn, "add_months") == 0) return add_months_kernel;
    }
    if (strcmp(fn, "datediff") == 0 && t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_DATE)
        return datediff_kernel;
    if (strcmp(fn, "trunc") == 0 && t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_STRING)
        return trunc_kernel;
    if (strcmp(fn, "date_trunc") == 0 && t[0]->id == CS_TYPE_STRING && is_ts(t[1]->id))
        return trunc_kernel;
    bool plus = strcmp(fn, "+") == 0, minus = strcmp(fn, "-") == 0;
    if (!plus && !minus) return NULL;
    if (t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_INTERVAL_YM)
        return plus ? date_plus_ym : date_minus_ym;
    if (t[0]->id == CS_TYPE_DATE && t[1]->id == CS_TYPE_INTERVAL_DT && result &&
        result->id == CS_TYPE_DATE)
        return plus ? date_plus_days : date_minus_days;
    if (is_ts(t[0]->id) && t[1]->id == CS_TYPE_INTERVAL_DT) return plus ? ts_plus_dt : ts_minus_dt;
    if (is_ts(t[0]->id) && t[1]->id == CS_TYPE_INTERVAL_YM) return plus ? ts_plus_ym : ts_minus_ym;
    return NULL;
}
