/*
 * test_connect_session_expiry.c — the Spark Connect session manager's rules over explicit times
 * (connect/connect_session_expiry.h, connect/connect_tombstones.h), as Spark 4's
 * SparkConnectSessionManager: a session idle for the timeout is expired (lastAccess + timeout <=
 * now), a request or the end of a work starts its idle time again, a session with work queued or
 * running is never expired however long the work takes, -1 never expires; the maintenance round
 * runs at a fixed rate and once after a long pause; the tombstones keep the last N closed keys,
 * the oldest dropped first, found by lookup.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "connect/connect_session_expiry.h"
#include "connect/connect_tombstones.h"

#define MIN (60 * 1000)

static void test_idle_session_expires_at_the_timeout(void **state)
{
    (void)state;
    cs_connect_activity a;
    cs_connect_activity_init(&a, 1000);
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 1000));
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 1000 + 60 * MIN - 1));
    assert_true(cs_connect_activity_expired(&a, 60 * MIN, 1000 + 60 * MIN));
    assert_true(cs_connect_activity_expired(&a, 60 * MIN, 1000 + 600 * MIN));
}

static void test_a_request_starts_the_idle_time_again(void **state)
{
    (void)state;
    cs_connect_activity a;
    cs_connect_activity_init(&a, 0);
    cs_connect_activity_request(&a, 50 * MIN);
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 60 * MIN));
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 110 * MIN - 1));
    assert_true(cs_connect_activity_expired(&a, 60 * MIN, 110 * MIN));
    /* a request seen late (an older time) does not move the clock back */
    cs_connect_activity_request(&a, 10 * MIN);
    assert_true(cs_connect_activity_expired(&a, 60 * MIN, 110 * MIN));
}

static void test_a_session_with_work_never_expires(void **state)
{
    (void)state;
    cs_connect_activity a;
    cs_connect_activity_init(&a, 0);
    cs_connect_activity_work_queued(&a, 1 * MIN);
    cs_connect_activity_work_queued(&a, 2 * MIN); /* a second one behind it */
    /* the works run for hours: never idle */
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 62 * MIN));
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 600 * MIN));
    cs_connect_activity_work_ended(&a, 600 * MIN);
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 700 * MIN));
    /* idle from the end of its last work */
    cs_connect_activity_work_ended(&a, 650 * MIN);
    assert_false(cs_connect_activity_expired(&a, 60 * MIN, 710 * MIN - 1));
    assert_true(cs_connect_activity_expired(&a, 60 * MIN, 710 * MIN));
}

static void test_a_timeout_of_minus_one_never_expires(void **state)
{
    (void)state;
    cs_connect_activity a;
    cs_connect_activity_init(&a, 0);
    assert_false(cs_connect_activity_expired(&a, CS_CONNECT_NEVER_EXPIRE, INT64_MAX / 2));
    /* 0: expired at the first round after its last request */
    assert_true(cs_connect_activity_expired(&a, 0, 0));
}

static void test_maintenance_runs_at_a_fixed_rate(void **state)
{
    (void)state;
    cs_connect_maintenance m;
    cs_connect_maintenance_init(&m, 30000, 5000);
    assert_false(cs_connect_maintenance_due(&m, 5000));
    assert_false(cs_connect_maintenance_due(&m, 34999));
    assert_true(cs_connect_maintenance_due(&m, 35000));
    assert_false(cs_connect_maintenance_due(&m, 35100));
    /* checked late (the watchdog's period): the next is still on the original grid */
    assert_true(cs_connect_maintenance_due(&m, 65090));
    assert_false(cs_connect_maintenance_due(&m, 94999));
    assert_true(cs_connect_maintenance_due(&m, 95000));
    /* a pause of ten intervals: one round, then the grid starts from now */
    assert_true(cs_connect_maintenance_due(&m, 400000));
    assert_false(cs_connect_maintenance_due(&m, 400001));
    assert_false(cs_connect_maintenance_due(&m, 429999));
    assert_true(cs_connect_maintenance_due(&m, 430000));
}

static void test_tombstones_keep_the_last_closed_keys(void **state)
{
    (void)state;
    cs_connect_tombstones t;
    cs_connect_tombstones_init(&t, 3);
    cs_connect_tombstones_add(&t, "a/u");
    cs_connect_tombstones_add(&t, "b/u");
    cs_connect_tombstones_add(&t, "c/u");
    assert_true(cs_connect_tombstones_has(&t, "a/u"));
    assert_false(cs_connect_tombstones_has(&t, "a/v")); /* another user's */
    cs_connect_tombstones_add(&t, "b/u");               /* kept already: nothing moves */
    cs_connect_tombstones_add(&t, "d/u");               /* full: the oldest goes */
    assert_false(cs_connect_tombstones_has(&t, "a/u"));
    assert_true(cs_connect_tombstones_has(&t, "b/u"));
    assert_true(cs_connect_tombstones_has(&t, "c/u"));
    assert_true(cs_connect_tombstones_has(&t, "d/u"));
    assert_int_equal(t.count, 3);
    cs_connect_tombstones_free(&t);
}

static void test_tombstones_stay_bounded_under_churn(void **state)
{
    (void)state;
    cs_connect_tombstones t;
    cs_connect_tombstones_init(&t, 1000);
    char key[64];
    for (int i = 0; i < 100000; i++) {
        snprintf(key, sizeof key, "%08d-session/user", i);
        cs_connect_tombstones_add(&t, key);
    }
    assert_int_equal(t.count, 1000);
    assert_int_equal(cs_hmap_size(&t.set), 1000);
    assert_true(t.set.cap <= 4096); /* the map does not grow with the keys that went */
    snprintf(key, sizeof key, "%08d-session/user", 98999);
    assert_false(cs_connect_tombstones_has(&t, key));
    snprintf(key, sizeof key, "%08d-session/user", 99000);
    assert_true(cs_connect_tombstones_has(&t, key));
    cs_connect_tombstones_free(&t);
}

static void test_no_tombstones_when_the_size_is_zero(void **state)
{
    (void)state;
    cs_connect_tombstones t;
    cs_connect_tombstones_init(&t, 0);
    cs_connect_tombstones_add(&t, "a/u");
    assert_false(cs_connect_tombstones_has(&t, "a/u"));
    cs_connect_tombstones_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_session_expires_at_the_timeout),
        cmocka_unit_test(test_a_request_starts_the_idle_time_again),
        cmocka_unit_test(test_a_session_with_work_never_expires),
        cmocka_unit_test(test_a_timeout_of_minus_one_never_expires),
        cmocka_unit_test(test_maintenance_runs_at_a_fixed_rate),
        cmocka_unit_test(test_tombstones_keep_the_last_closed_keys),
        cmocka_unit_test(test_tombstones_stay_bounded_under_churn),
        cmocka_unit_test(test_no_tombstones_when_the_size_is_zero),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
