/* test_k8s_failures.c — unit tests for the executor failures counted toward
 * spark.executor.maxNumFailures (src/cluster/k8s/k8s_failures.c): without
 * spark.executor.failuresValidityInterval every failure counts; with it, failures older than the
 * interval stop counting (Spark's ExecutorFailureTracker); the interval read from a conf reaches
 * the backend's settings. Every time is explicit: nothing here reads a clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_failures.h"
#include "cluster/k8s/k8s_settings.h"
#include "common/conf.h"

static void test_every_failure_counts_without_interval(void **state)
{
    (void)state;
    k8s_failures f = {0};
    assert_int_equal(cs_k8s_failures_add(&f, 1000), 1);
    assert_int_equal(cs_k8s_failures_add(&f, 1000 + 86400000), 2);
    assert_int_equal(cs_k8s_failures_count(&f, INT64_MAX / 2), 2);
    cs_k8s_failures_free(&f);
}

static void test_old_failures_stop_counting(void **state)
{
    (void)state;
    k8s_failures f = {.validity_ms = 60000};
    assert_int_equal(cs_k8s_failures_add(&f, 0), 1);
    assert_int_equal(cs_k8s_failures_add(&f, 30000), 2);
    /* 60 s after the first it still counts (older than the interval: not yet) */
    assert_int_equal(cs_k8s_failures_count(&f, 60000), 2);
    assert_int_equal(cs_k8s_failures_count(&f, 60001), 1);
    /* a third failure later: the limit of 3 is not reached, the first is forgotten */
    assert_int_equal(cs_k8s_failures_add(&f, 80000), 2);
    assert_int_equal(cs_k8s_failures_add(&f, 85000), 3);
    assert_int_equal(cs_k8s_failures_count(&f, 200000), 0);
    cs_k8s_failures_free(&f);
}

static void test_many_failures_grow(void **state)
{
    (void)state;
    k8s_failures f = {.validity_ms = 1000};
    for (int i = 0; i < 100; i++)
        cs_k8s_failures_add(&f, i * 100);
    assert_int_equal(cs_k8s_failures_count(&f, 9900), 11); /* 8900 .. 9900 */
    cs_k8s_failures_free(&f);
}

static void test_interval_read_from_conf(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    k8s_settings s;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_true(s.failures_validity_ms <= 0); /* unset: every failure counts */
    cs_k8s_settings_free(&s);
    cs_conf_set(c, "spark.executor.failuresValidityInterval", "2min");
    cs_conf_set(c, "spark.executor.maxNumFailures", "2");
    assert_int_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_int_equal(s.failures_validity_ms, 120000);
    assert_int_equal(s.max_failures, 2);
    k8s_failures f = {.validity_ms = s.failures_validity_ms};
    assert_int_equal(cs_k8s_failures_add(&f, 0), 1);
    assert_true(cs_k8s_failures_add(&f, 120001) < s.max_failures); /* the first expired */
    assert_true(cs_k8s_failures_add(&f, 120002) >= s.max_failures);
    cs_k8s_failures_free(&f);
    cs_k8s_settings_free(&s);
    cs_conf_set(c, "spark.executor.failuresValidityInterval", "soon");
    assert_int_not_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_non_null(strstr(err.msg, "spark.executor.failuresValidityInterval"));
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_failure_counts_without_interval),
        cmocka_unit_test(test_old_failures_stop_counting),
        cmocka_unit_test(test_many_failures_grow),
        cmocka_unit_test(test_interval_read_from_conf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
