/* test_cron_schedule.c — unit tests for ScheduledSparkApplication schedules
 * (src/operator/cron_schedule.c): fields, lists, ranges, steps, names, descriptors, @every, the
 * either-day rule, and the one-line errors naming the field. The source is compiled into this
 * test (libcspark hides it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "operator/cron_schedule.c"

/* 2026-01-01T00:00:00Z, a Thursday */
#define T0 1767225600000LL
#define MIN 60000LL
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)

static int64_t next(const char *text, int64_t after)
{
    cron_schedule s;
    cs_error err = {0};
    assert_int_equal(cs_cron_parse(text, &s, &err), 0);
    return cs_cron_next(&s, after);
}

static void test_every_minute(void **state)
{
    assert_true(next("* * * * *", T0) == T0 + MIN);
    assert_true(next("* * * * *", T0 + 1) == T0 + MIN);
    assert_true(next("*/15 * * * *", T0 + MIN) == T0 + 15 * MIN);
    assert_true(next("5,10 * * * *", T0 + 6 * MIN) == T0 + 10 * MIN);
    assert_true(next("10-12 3 * * *", T0) == T0 + 3 * HOUR + 10 * MIN);
}

static void test_days_and_names(void **state)
{
    assert_true(next("0 0 * * MON", T0) == T0 + 4 * DAY);  /* Monday 5 January */
    assert_true(next("0 0 * * 7", T0) == T0 + 3 * DAY);    /* Sunday, as 7 */
    assert_true(next("0 0 1 FEB *", T0) == T0 + 31 * DAY); /* 1 February */
    assert_true(next("0 0 2 * SUN", T0) == T0 + 1 * DAY);  /* the 2nd or a Sunday */
    assert_true(next("@daily", T0) == T0 + DAY);
    assert_true(next("@hourly", T0 + 5 * MIN) == T0 + HOUR);
    assert_true(next("@every 1m30s", T0) == T0 + 90000);
}

static void test_errors(void **state)
{
    cron_schedule s;
    cs_error err = {0};
    assert_int_equal(cs_cron_parse("61 * * * *", &s, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "invalid minute field '61'"));
    assert_int_equal(cs_cron_parse("* * *", &s, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "expected five fields"));
    assert_int_equal(cs_cron_parse("@every 10ms", &s, &err), CS_EINVAL);
    assert_int_equal(cs_cron_parse("0 0 30 FEB *", &s, &err), 0);
    assert_true(cs_cron_next(&s, T0) == -1); /* never */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_minute),
        cmocka_unit_test(test_days_and_names),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
