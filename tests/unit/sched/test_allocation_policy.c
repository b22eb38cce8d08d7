/* test_allocation_policy.c — unit tests for dynamic allocation's policy and settings
 * (allocation_manager.c): the target grows 1, 2, 4, 8 per sustained backlog round up to what the
 * tasks need and maxExecutors, waits for the backlog timeout first, restarts growth at 1 when the
 * queue empties, falls at once (not below minExecutors) when the need falls, is kept while no
 * stage has run; and the settings are validated as Spark validates them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sched/allocation_manager.h"

static alloc_settings settings(int min, int max, int initial)
{
    alloc_settings st;
    memset(&st, 0, sizeof st);
    st.enabled = true;
    st.min_executors = min;
    st.max_executors = max;
    st.initial_executors = initial;
    st.backlog_timeout_ms = 1000;
    st.sustained_backlog_timeout_ms = 1000;
    st.idle_timeout_ms = 60000;
    st.allocation_ratio = 1.0;
    st.shuffle_tracking = true;
    st.shuffle_tracking_timeout_ms = INT64_MAX;
    st.tasks_per_executor = 1;
    return st;
}

/* The acceptance scenario of sleep.so 64 200 with maxExecutors=8: one task first, then 64. */
static void test_ramp_1_2_4_8(void **state)
{
    (void)state;
    alloc_settings st = settings(0, 8, 0);
    alloc_policy p;
    cs_alloc_policy_init(&p, &st);
    assert_int_equal(p.target, 0);
    assert_int_equal(cs_alloc_policy_update(&p, 0, 1, 0, 0), 0); /* initializing: kept */
    cs_alloc_policy_stage_submitted(&p);
    cs_alloc_policy_backlog(&p, true, 0);
    assert_int_equal(cs_alloc_policy_update(&p, 999, 1, 0, 0), 0); /* backlog not 1 s old yet */
    assert_int_equal(cs_alloc_policy_update(&p, 1000, 1, 0, 0), 1);
    cs_alloc_policy_backlog(&p, false, 1500); /* the task started: queue empty */
    assert_int_equal(cs_alloc_policy_update(&p, 1600, 0, 1, 1), 1);
    /* stage 2: 64 tasks wait */
    cs_alloc_policy_backlog(&p, true, 2000);
    assert_int_equal(cs_alloc_policy_update(&p, 2500, 64, 0, 1), 1);
    assert_int_equal(cs_alloc_policy_update(&p, 3000, 64, 0, 1), 2);
    assert_int_equal(cs_alloc_policy_update(&p, 3500, 63, 1, 2), 2);
    assert_int_equal(cs_alloc_policy_update(&p, 4000, 62, 2, 2), 4);
    assert_int_equal(cs_alloc_policy_update(&p, 5000, 60, 4, 4), 8);
    assert_int_equal(cs_alloc_policy_update(&p, 6000, 50, 8, 8), 8); /* capped at max */
    /* the backlog clears and the need falls: the target follows at once */
    cs_alloc_policy_backlog(&p, false, 6500);
    assert_int_equal(cs_alloc_policy_update(&p, 6600, 0, 5, 8), 5);
    assert_int_equal(cs_alloc_policy_update(&p, 6700, 0, 0, 8), 0);
}

/* Regression (issue 10 item 12): with a backlog that never empties, Spark adds 1, 2, 4, 8
 * executors per sustained round (numExecutorsToAdd doubles when the whole step was taken), so
 * the target goes 1, 3, 7, 15 from zero; the end-to-end test had assumed 1, 2, 4, 8. */
static void test_ramp_from_zero_without_a_pause_1_3_7_15(void **state)
{
    (void)state;
    alloc_settings st = settings(0, 100, 0);
    alloc_policy p;
    cs_alloc_policy_init(&p, &st);
    cs_alloc_policy_stage_submitted(&p);
    cs_alloc_policy_backlog(&p, true, 0);
    assert_int_equal(cs_alloc_policy_update(&p, 1000, 64, 0, 0), 1);
    assert_int_equal(cs_alloc_policy_update(&p, 1999, 64, 0, 1), 1); /* sustained: 1 s apart */
    assert_int_equal(cs_alloc_policy_update(&p, 2000, 63, 1, 1), 3);
    assert_int_equal(cs_alloc_policy_update(&p, 3000, 61, 3, 3), 7);
    assert_int_equal(cs_alloc_policy_update(&p, 4000, 57, 7, 7), 15);
    assert_int_equal(p.to_add, 16);
    /* a step the need cuts short restarts the doubling at 1 */
    assert_int_equal(cs_alloc_policy_update(&p, 5000, 5, 15, 15), 20);
    assert_int_equal(p.to_add, 1);
}

static void test_growth_capped_by_need_and_min(void **state)
{
    (void)state;
    alloc_settings st = settings(2, 100, 2);
    alloc_policy p;
    cs_alloc_policy_init(&p, &st);
    assert_int_equal(p.target, 2);
    cs_alloc_policy_stage_submitted(&p);
    cs_alloc_policy_backlog(&p, true, 0);
    /* 3 tasks need 3 executors: 2 + 1 = 3, then no further growth */
    assert_int_equal(cs_alloc_policy_update(&p, 1000, 3, 0, 2), 3);
    assert_int_equal(cs_alloc_policy_update(&p, 2000, 3, 0, 3), 3);
    assert_int_equal(p.to_add, 1); /* a round that added nothing restarts at 1 */
    /* no work: down to minExecutors, not below */
    cs_alloc_policy_backlog(&p, false, 2500);
    assert_int_equal(cs_alloc_policy_update(&p, 2600, 0, 0, 3), 2);
}

static void test_ratio_and_cores(void **state)
{
    (void)state;
    alloc_settings st = settings(0, 100, 0);
    st.tasks_per_executor = 4;
    st.allocation_ratio = 0.5;
    alloc_policy p;
    cs_alloc_policy_init(&p, &st);
    assert_int_equal(cs_alloc_policy_max_needed(&p, 64), 8); /* 64 * 0.5 / 4 */
    assert_int_equal(cs_alloc_policy_max_needed(&p, 1), 1);  /* rounded up */
    assert_int_equal(cs_alloc_policy_max_needed(&p, 0), 0);
}

static int read_with(const char *const *kv, alloc_settings *st, cs_error *err)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.dynamicAllocation.enabled", "true");
    for (int i = 0; kv[i]; i += 2)
        cs_conf_set(c, kv[i], kv[i + 1]);
    int rc = cs_alloc_settings_read(c, false, 1, st, err);
    cs_conf_free(c);
    return rc;
}

static void test_settings(void **state)
{
    (void)state;
    alloc_settings st;
    cs_error err;
    const char *ok[] = {"spark.dynamicAllocation.minExecutors",
                        "1",
                        "spark.dynamicAllocation.maxExecutors",
                        "8",
                        "spark.executor.instances",
                        "3",
                        NULL};
    assert_int_equal(read_with(ok, &st, &err), 0);
    assert_true(st.enabled);
    assert_int_equal(cs_alloc_initial_target(&st), 3); /* max(initial, min, instances) */
    assert_int_equal(st.idle_timeout_ms, 60000);
    assert_int_equal(st.backlog_timeout_ms, 1000);
    assert_int_equal(st.sustained_backlog_timeout_ms, 1000);
    assert_true(st.shuffle_tracking);

    const char *min_gt_max[] = {"spark.dynamicAllocation.minExecutors", "5",
                                "spark.dynamicAllocation.maxExecutors", "2", NULL};
    assert_true(read_with(min_gt_max, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "spark.dynamicAllocation.minExecutors (5) must be less than "
                                    "or equal to spark.dynamicAllocation.maxExecutors (2)"));

    const char *initial_gt_max[] = {"spark.dynamicAllocation.initialExecutors", "9",
                                    "spark.dynamicAllocation.maxExecutors", "4", NULL};
    assert_true(read_with(initial_gt_max, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "spark.dynamicAllocation.initialExecutors (9)"));

    /* initial below min: Spark warns and ignores it */
    const char *initial_lt_min[] = {"spark.dynamicAllocation.initialExecutors", "1",
                                    "spark.dynamicAllocation.minExecutors", "3", NULL};
    assert_int_equal(read_with(initial_lt_min, &st, &err), 0);
    assert_int_equal(cs_alloc_initial_target(&st), 3);

    const char *no_tracking[] = {"spark.dynamicAllocation.shuffleTracking.enabled", "false", NULL};
    assert_true(read_with(no_tracking, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "spark.dynamicAllocation.shuffleTracking.enabled"));

    const char *decom[] = {"spark.dynamicAllocation.shuffleTracking.enabled",
                           "false",
                           "spark.decommission.enabled",
                           "true",
                           "spark.storage.decommission.enabled",
                           "true",
                           NULL};
    assert_int_equal(read_with(decom, &st, &err), 0);
    assert_true(st.decommission);

    const char *zero_max[] = {"spark.dynamicAllocation.maxExecutors", "0", NULL};
    assert_true(read_with(zero_max, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "spark.dynamicAllocation.maxExecutors cannot be 0"));

    const char *ratio[] = {"spark.dynamicAllocation.executorAllocationRatio", "1.5", NULL};
    assert_true(read_with(ratio, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "executorAllocationRatio"));

    const char *backlog[] = {"spark.dynamicAllocation.schedulerBacklogTimeout", "0", NULL};
    assert_true(read_with(backlog, &st, &err) < 0);
    assert_non_null(strstr(err.msg, "schedulerBacklogTimeout must be > 0"));

    /* local mode: off, with Spark's warning, whatever else is set */
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.dynamicAllocation.enabled", "true");
    cs_conf_set(c, "spark.dynamicAllocation.minExecutors", "5");
    cs_conf_set(c, "spark.dynamicAllocation.maxExecutors", "2");
    assert_int_equal(cs_alloc_settings_read(c, true, 1, &st, &err), 0);
    assert_false(st.enabled);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ramp_1_2_4_8),
        cmocka_unit_test(test_ramp_from_zero_without_a_pause_1_3_7_15),
        cmocka_unit_test(test_growth_capped_by_need_and_min),
        cmocka_unit_test(test_ratio_and_cores),
        cmocka_unit_test(test_settings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
