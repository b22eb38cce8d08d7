/*
 * kernels_zone.c — the kernels that move timestamps between time zones (kernels_tz.c's zone
 * cache over the system tz database): from_utc_timestamp(ts, zone), to_utc_timestamp(ts,
 * zone), convert_timezone([source,] target, timestamp_ntz) and make_timestamp(y, m, d, h, mi,
 * sec [, zone]). A zone argument that is a literal is resolved once per batch; a zone column
 * once per distinct run of equal values. An unknown zone raises Spark's INVALID_TIMEZONE.
 * Called through cs_px_zone_lookup (pexpr.c's chain).
 */
#include <string.h>

#include "sqlexec/pexpr_internal.h"

typedef struct zone_reader {
    const cs_column *c;
    int64_t stride;
    const uint8_t *last;
    int32_t last_len;
    const cs_px_zone *zone;
} zone_reader;

/* The zone of row i (the column is valid there); NULL + err when unknown. */
static const cs_px_zone *zone_at(zone_reader *zr, int64_t i, cs_error *err)
{
    int32_t len;
    const uint8_t *p = cs_px_bytes(zr->c, i, zr->stride, &len);
    if (zr->zone && len == zr->last_len && memcmp(p, zr->last, (size_t)len) == 0) return zr->zone;
    zr->zone = cs_px_zone_get((const char *)p, (size_t)len);
    zr->last = p;
    zr->last_len = len;
    if (!zr->zone) cs_px_err_invalid_zone(err, (const char *)p, (size_t)len);
    return zr->zone;
}

static const int64_t *i64(const cs_column *c)
{
    return (const int64_t *)(const void *)c->values;
}

/* from_utc_timestamp / to_utc_timestamp */
static int utc_shift_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    bool from = strcmp(k->e->fn, "from_utc_timestamp") == 0;
    int64_t n = k->n, st = cs_px_stride(a[0], n);
    zone_reader zr = {.c = a[1], .stride = cs_px_stride(a[1], n)};
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 2, n);
    int64_t *v = (int64_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        const cs_px_zone *z = zone_at(&zr, i, k->err);
        if (!z) {
            cs_column_unref(r);
            return CS_EINVAL;
        }
        int64_t t = i64(a[0])[i * st];
        v[i] = from ? cs_px_zone_utc_to_local_us(z, t) : cs_px_zone_local_to_utc_us(z, t);
    }
    *out = r;
    return CS_OK;
}

/* convert_timezone(source, target, ntz) or (target, ntz) from the session zone */
static int convert_tz_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    const cs_column *ts = a[na - 1];
    int64_t st = cs_px_stride(ts, n);
    zone_reader src = {.c = a[0], .stride = cs_px_stride(a[0], n)};
    zone_reader tgt = {.c = a[na - 2], .stride = cs_px_stride(a[na - 2], n)};
    const cs_px_zone *session = NULL;
    if (na == 2 && !(session = cs_px_session_zone(k))) return CS_EINVAL;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    int64_t *v = (int64_t *)(void *)r->values;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        const cs_px_zone *zs = session ? session : zone_at(&src, i, k->err);
        const cs_px_zone *zt = zs ? zone_at(&tgt, i, k->err) : NULL;
        if (!zt) {
            cs_column_unref(r);
            return CS_EINVAL;
        }
        v[i] = cs_px_zone_utc_to_local_us(zt, cs_px_zone_local_to_utc_us(zs, i64(ts)[i * st]));
    }
    *out = r;
    return CS_OK;
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int field_error(const cs_px_kctx *k, const char *field, int64_t v, const char *range)
{
    return cs_sql_error_set(k->err, CS_ETASK, "DATETIME_FIELD_OUT_OF_BOUNDS", "22023",
                            "Invalid value for %s (valid values %s): %lld. If necessary set "
                            "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error.",
                            field, range, (long long)v);
}

/* make_timestamp(year, month, day, hour, min, sec decimal(16,6) [, zone]): the local time in
 * the zone (the session's by default); sec 60 with no fraction is the next minute (Spark). */
static int make_ts_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, s[7];
    for (int j = 0; j < na; j++)
        s[j] = cs_px_stride(a[j], n);
    zone_reader zr = {.c = na > 6 ? a[6] : NULL, .stride = na > 6 ? s[6] : 0};
    const cs_px_zone *session = NULL;
    if (na == 6 && !(session = cs_px_session_zone(k))) return CS_EINVAL;
    bool ansi = k->ctx->ansi;
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, na, n);
    int64_t *v = (int64_t *)(void *)r->values;
    static const int md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(r, i)) continue;
        int64_t f[5];
        for (int j = 0; j < 5; j++)
            f[j] = ((const int32_t *)(const void *)a[j]->values)[i * s[j]];
        __int128 sec = cs_px_dec_get(a[5], i * s[5]); /* micros at scale 6 */
        const char *bad = NULL, *range = NULL;
        int64_t badv = 0;
        if (f[1] < 1 || f[1] > 12)
            bad = "MonthOfYear", range = "1 - 12", badv = f[1];
        else if (f[2] < 1 || f[2] > md[f[1] - 1] + (f[1] == 2 && leap(f[0])))
            bad = "DayOfMonth", range = "1 - 28/31", badv = f[2];
        else if (f[3] < 0 || f[3] > 23)
            bad = "HourOfDay", range = "0 - 23", badv = f[3];
        else if (f[4] < 0 || f[4] > 59)
            bad = "MinuteOfHour", range = "0 - 59", badv = f[4];
        else if (sec < 0 || sec > 60000000 || (sec > 59999999 && sec != 60000000))
            bad = "SecondOfMinute", range = "0 - 59", badv = (int64_t)(sec / 1000000);
        if (bad) {
            if (ansi) {
                cs_column_unref(r);
                return field_error(k, bad, badv, range);
            }
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
            continue;
        }
        const cs_px_zone *z = session ? session : zone_at(&zr, i, k->err);
        if (!z) {
            cs_column_unref(r);
            return CS_EINVAL;
        }
        int64_t days = cs_tv_days_from_civil(f[0], (int)f[1], (int)f[2]);
        int64_t local = (days * 86400 + f[3] * 3600 + f[4] * 60) * 1000000 + (int64_t)sec;
        v[i] = cs_px_zone_local_to_utc_us(z, local);
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_zone_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    (void)result;
    if ((strcmp(fn, "from_utc_timestamp") == 0 || strcmp(fn, "to_utc_timestamp") == 0) && n == 2 &&
        t[0]->id == CS_TYPE_TIMESTAMP && t[1]->id == CS_TYPE_STRING)
        return utc_shift_kernel;
    if (strcmp(fn, "convert_timezone") == 0 && (n == 2 || n == 3) &&
        t[n - 1]->id == CS_TYPE_TIMESTAMP_NTZ && t[0]->id == CS_TYPE_STRING &&
        t[n - 2]->id == CS_TYPE_STRING)
        return convert_tz_kernel;
    if (strcmp(fn, "make_timestamp") == 0 && (n == 6 || n == 7)) {
        for (int i = 0; i < 5; i++)
            if (t[i]->id != CS_TYPE_INT) return NULL;
        if (t[5]->id != CS_TYPE_DECIMAL || t[5]->scale != 6) return NULL;
        if (n == 7 && t[6]->id != CS_TYPE_STRING) return NULL;
        return make_ts_kernel;
    }
    return NULL;
}
