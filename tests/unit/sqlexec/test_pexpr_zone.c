/*
 * test_pexpr_zone.c — time zones in the datetime kernels (src/sqlexec/kernels_tz.c,
 * kernels_zone.c, and the session zone in kernels_datetime.c / kernels_cast.c) against the
 * values Spark 4.0.1 gives: from_utc_timestamp, to_utc_timestamp, convert_timezone and
 * make_timestamp of tests/sql/golden/corpus/datetime.out (query 38 and 19); with the session
 * zone America/Los_Angeles: hour() and casts to string and date, strings without a zone read
 * as local time with java.time's gap (forward) and overlap (earlier offset) rules; a half-hour
 * zone's date_trunc; an instant past the tz file's last transition (the POSIX footer); an
 * unknown zone is INVALID_TIMEZONE.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "formats/text_values.h"
#include "px_test.h"

#define US 1000000LL

static int64_t ts(int64_t y, int m, int d, int hh, int mi, int ss)
{
    return ((cs_tv_days_from_civil(y, m, d) * 86400) + hh * 3600 + mi * 60 + ss) * US;
}

static cs_pexpr *lit_ts(cs_type_id id, int64_t v)
{
    return lit(col_fixed(T(id), &v, NULL, 1));
}

static cs_pexpr *lit_s(const char *s)
{
    return lit(col_str(&s, 1));
}

static int run_tz(cs_pexpr *e, const char *tz, cs_column **out, cs_error *err)
{
    cs_col_batch *b = batch_rows(1);
    memset(err, 0, sizeof *err);
    cs_pexpr_program *p = cs_pexpr_compile(e, b->schema, err);
    cs_pexpr_free(e);
    int rc = p ? CS_OK : -1;
    if (p) {
        cs_sql_exec_ctx ctx = test_ctx(true);
        ctx.session_tz = tz;
        rc = cs_pexpr_eval(p, b, &ctx, out, err);
        cs_pexpr_program_free(p);
    }
    cs_col_batch_unref(b);
    return rc;
}

static int64_t ts_of(cs_pexpr *e, const char *tz)
{
    cs_column *c = NULL;
    cs_error err;
    assert_int_equal(run_tz(e, tz, &c, &err), CS_OK);
    int64_t v = I64(c, 0);
    cs_column_unref(c);
    return v;
}

static void assert_text(cs_pexpr *e, const char *tz, const char *want)
{
    cs_column *c = NULL;
    cs_error err;
    assert_int_equal(run_tz(e, tz, &c, &err), CS_OK);
    int32_t len;
    const uint8_t *p = cs_column_bytes(c, 0, &len);
    char got[64];
    snprintf(got, sizeof got, "%.*s", (int)len, (const char *)p);
    assert_string_equal(got, want);
    cs_column_unref(c);
}

static void test_zone_functions(void **state)
{
    (void)state;
    int64_t noon = ts(2024, 7, 1, 12, 0, 0);
    /* datetime.out query 38: 2024-07-01 21:00:00, 10:00:00, 08:00:00 */
    assert_int_equal(ts_of(call2("from_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                                 lit_ts(CS_TYPE_TIMESTAMP, noon), lit_s("Asia/Tokyo")),
                           "UTC"),
                     ts(2024, 7, 1, 21, 0, 0));
    assert_int_equal(ts_of(call2("to_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                                 lit_ts(CS_TYPE_TIMESTAMP, noon), lit_s("Europe/Paris")),
                           "UTC"),
                     ts(2024, 7, 1, 10, 0, 0));
    cs_pexpr *conv = cs_pexpr_call("convert_timezone", T(CS_TYPE_TIMESTAMP_NTZ), true,
                                   (cs_pexpr *[]){lit_s("UTC"), lit_s("America/New_York"),
                                                  lit_ts(CS_TYPE_TIMESTAMP_NTZ, noon)},
                                   3);
    assert_int_equal(ts_of(conv, "UTC"), ts(2024, 7, 1, 8, 0, 0));
    /* the two-argument form converts from the session zone */
    conv = cs_pexpr_call("convert_timezone", T(CS_TYPE_TIMESTAMP_NTZ), true,
                         (cs_pexpr *[]){lit_s("UTC"), lit_ts(CS_TYPE_TIMESTAMP_NTZ, noon)}, 2);
    assert_int_equal(ts_of(conv, "Asia/Tokyo"), ts(2024, 7, 1, 3, 0, 0));
    /* past 2037, the last transition of the file: its POSIX footer's rule (EDT in July) */
    assert_int_equal(
        ts_of(call2("from_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                    lit_ts(CS_TYPE_TIMESTAMP, ts(2100, 7, 1, 12, 0, 0)), lit_s("America/New_York")),
              "UTC"),
        ts(2100, 7, 1, 8, 0, 0));
    /* fixed offsets as Spark's ZoneId.of takes them */
    assert_int_equal(ts_of(call2("from_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                                 lit_ts(CS_TYPE_TIMESTAMP, noon), lit_s("+05:30")),
                           "UTC"),
                     ts(2024, 7, 1, 17, 30, 0));
    assert_int_equal(ts_of(call2("from_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                                 lit_ts(CS_TYPE_TIMESTAMP, noon), lit_s("GMT-3")),
                           "UTC"),
                     ts(2024, 7, 1, 9, 0, 0));
    cs_column *c = NULL;
    cs_error err;
    assert_int_not_equal(run_tz(call2("from_utc_timestamp", T(CS_TYPE_TIMESTAMP),
                                      lit_ts(CS_TYPE_TIMESTAMP, noon), lit_s("Mars/Olympus")),
                                "UTC", &c, &err),
                         CS_OK);
    assert_string_equal(err.error_class, "INVALID_TIMEZONE");
    assert_int_not_equal(run_tz(call1("hour", T(CS_TYPE_INT), lit_ts(CS_TYPE_TIMESTAMP, noon)),
                                "../etc/passwd", &c, &err),
                         CS_OK);
    assert_string_equal(err.error_class, "INVALID_TIMEZONE");
}

static cs_pexpr *make_ts(int32_t y, int32_t m, int32_t d, int32_t h, int32_t mi, const char *sec,
                         const char *zone)
{
    cs_pexpr *args[7] = {lit_i32(y),
                         lit_i32(m),
                         lit_i32(d),
                         lit_i32(h),
                         lit_i32(mi),
                         lit(col_dec(16, 6, &sec, 1)),
                         zone ? lit_s(zone) : NULL};
    return cs_pexpr_call("make_timestamp", T(CS_TYPE_TIMESTAMP), true, args, zone ? 7 : 6);
}

static void test_make_timestamp(void **state)
{
    (void)state;
    /* datetime.out query 19: make_timestamp(2024, 1, 2, 3, 4, 5.5) = 2024-01-02 03:04:05.5 */
    assert_int_equal(ts_of(make_ts(2024, 1, 2, 3, 4, "5.5", NULL), "UTC"),
                     ts(2024, 1, 2, 3, 4, 5) + 500000);
    assert_int_equal(ts_of(make_ts(2024, 1, 2, 3, 4, "5.5", NULL), "America/Los_Angeles"),
                     ts(2024, 1, 2, 11, 4, 5) + 500000);
    assert_int_equal(ts_of(make_ts(2024, 7, 1, 12, 0, "0", "Asia/Tokyo"), "UTC"),
                     ts(2024, 7, 1, 3, 0, 0));
    assert_int_equal(ts_of(make_ts(2024, 1, 2, 3, 4, "60", NULL), "UTC"), ts(2024, 1, 2, 3, 5, 0));
    cs_column *c = NULL;
    cs_error err;
    assert_int_not_equal(run_tz(make_ts(2024, 13, 1, 0, 0, "0", NULL), "UTC", &c, &err), CS_OK);
    assert_string_equal(err.error_class, "DATETIME_FIELD_OUT_OF_BOUNDS");
}

static void test_session_zone(void **state)
{
    (void)state;
    const char *la = "America/Los_Angeles";
    int64_t midnight = ts(2024, 1, 1, 0, 0, 0);
    cs_column *c = NULL;
    cs_error err;
    assert_int_equal(
        run_tz(call1("hour", T(CS_TYPE_INT), lit_ts(CS_TYPE_TIMESTAMP, midnight)), la, &c, &err),
        CS_OK);
    assert_int_equal(I32(c, 0), 16);
    cs_column_unref(c);
    assert_text(cs_pexpr_cast(lit_ts(CS_TYPE_TIMESTAMP, midnight), T(CS_TYPE_STRING), CS_CAST_ANSI),
                la, "2023-12-31 16:00:00");
    assert_int_equal(
        run_tz(cs_pexpr_cast(lit_ts(CS_TYPE_TIMESTAMP, midnight), T(CS_TYPE_DATE), CS_CAST_ANSI),
               la, &c, &err),
        CS_OK);
    assert_int_equal(I32(c, 0), cs_tv_days_from_civil(2023, 12, 31));
    cs_column_unref(c);
    /* local text: 02:30 falls in the spring gap (03:30 PDT), 01:30 in the autumn overlap (PDT) */
    assert_int_equal(
        ts_of(cs_pexpr_cast(lit_s("2024-03-10 02:30:00"), T(CS_TYPE_TIMESTAMP), CS_CAST_ANSI), la),
        ts(2024, 3, 10, 10, 30, 0));
    assert_int_equal(
        ts_of(cs_pexpr_cast(lit_s("2024-11-03 01:30:00"), T(CS_TYPE_TIMESTAMP), CS_CAST_ANSI), la),
        ts(2024, 11, 3, 8, 30, 0));
    assert_int_equal(
        ts_of(cs_pexpr_cast(lit_s("2024-11-03 01:30:00Z"), T(CS_TYPE_TIMESTAMP), CS_CAST_ANSI), la),
        ts(2024, 11, 3, 1, 30, 0));
    /* date_trunc in a half-hour zone: 05:30 local truncates to 05:00 local = 23:30 UTC */
    assert_int_equal(ts_of(call2("date_trunc", T(CS_TYPE_TIMESTAMP), lit_s("HOUR"),
                                 lit_ts(CS_TYPE_TIMESTAMP, midnight)),
                           "Asia/Kolkata"),
                     ts(2023, 12, 31, 23, 30, 0));
    assert_int_equal(ts_of(call2("date_trunc", T(CS_TYPE_TIMESTAMP), lit_s("DAY"),
                                 lit_ts(CS_TYPE_TIMESTAMP, midnight)),
                           la),
                     ts(2023, 12, 31, 8, 0, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zone_functions),
        cmocka_unit_test(test_make_timestamp),
        cmocka_unit_test(test_session_zone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
