/* test_k8s_executor_roll.c — unit tests for executor rolling's decisions
 * (src/cluster/k8s/k8s_executor_roll.c), pure functions of the executors' figures and the times
 * given: each of Spark's policies picks the executor ExecutorRollDriverPlugin picks for the same
 * ExecutorSummary figures, minTasksPerExecutorBeforeRolling excludes executors, OUTLIER falls
 * back to TOTAL_DURATION and OUTLIER_NO_FALLBACK does not, the JVM-only policies are refused, the
 * rounds come at a fixed rate. Nothing here reads a clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_executor_roll.h"
#include "common/conf.h"
#include "common/conf_k8s_keys.h"

static coarse_exec_stats exec(const char *id, int64_t add, int64_t tasks, int64_t failed,
                              int64_t duration)
{
    coarse_exec_stats e;
    memset(&e, 0, sizeof e);
    snprintf(e.id, sizeof e.id, "%s", id);
    e.add_time_ms = add;
    e.total_tasks = tasks;
    e.failed_tasks = failed;
    e.total_duration_ms = duration;
    return e;
}

static const char *chosen(const coarse_exec_stats *x, int n, k8s_roll_policy p, int64_t min_tasks)
{
    int i = cs_k8s_roll_choose(x, n, p, min_tasks);
    return i < 0 ? "none" : x[i].id;
}

static void test_each_policy_picks_as_spark(void **state)
{
    (void)state;
    /* registration order 3, 10, 2: the ID policy compares numbers, not strings */
    coarse_exec_stats x[3] = {exec("3", 1000, 10, 0, 5000), exec("10", 500, 4, 3, 4000),
                              exec("2", 2000, 1, 0, 3000)};
    x[0].peak_rss_bytes = 100 << 20;
    x[1].peak_rss_bytes = 300 << 20;
    x[2].peak_rss_bytes = 200 << 20;
    x[0].total_shuffle_write = 10;
    x[1].total_shuffle_write = 5;
    x[2].total_shuffle_write = 70;
    x[0].active_tasks = 2;
    x[1].active_tasks = 1;
    x[2].active_tasks = 1;
    assert_string_equal(chosen(x, 3, K8S_ROLL_ID, 0), "2");
    assert_string_equal(chosen(x, 3, K8S_ROLL_ADD_TIME, 0), "10");
    assert_string_equal(chosen(x, 3, K8S_ROLL_TOTAL_DURATION, 0), "3");
    /* 5000/10 = 500, 4000/4 = 1000, 3000/1 = 3000 */
    assert_string_equal(chosen(x, 3, K8S_ROLL_AVERAGE_DURATION, 0), "2");
    assert_string_equal(chosen(x, 3, K8S_ROLL_FAILED_TASKS, 0), "10");
    assert_string_equal(chosen(x, 3, K8S_ROLL_PEAK_MEMORY, 0), "10");
    assert_string_equal(chosen(x, 3, K8S_ROLL_TOTAL_SHUFFLE_WRITE, 0), "2");
    /* fewest running tasks, then the earliest added: 10 (added at 500) before 2 */
    assert_string_equal(chosen(x, 3, K8S_ROLL_ACTIVE_TASKS, 0), "10");
}

static void test_min_tasks_excludes_executors(void **state)
{
    (void)state;
    coarse_exec_stats x[3] = {exec("1", 1000, 10, 0, 5000), exec("2", 500, 4, 3, 4000),
                              exec("3", 2000, 1, 0, 3000)};
    assert_string_equal(chosen(x, 3, K8S_ROLL_ID, 5), "1");
    assert_string_equal(chosen(x, 3, K8S_ROLL_ADD_TIME, 4), "2");
    assert_string_equal(chosen(x, 3, K8S_ROLL_AVERAGE_DURATION, 2), "2");
    assert_string_equal(chosen(x, 3, K8S_ROLL_ID, 11), "none");
    assert_string_equal(chosen(x, 0, K8S_ROLL_OUTLIER, 0), "none");
    /* the driver is never rolled */
    coarse_exec_stats d[2] = {exec("driver", 0, 100, 0, 1), exec("4", 10, 1, 0, 1)};
    assert_string_equal(chosen(d, 2, K8S_ROLL_ADD_TIME, 0), "4");
}

/* Ties go to the earliest registered, as Spark's stable sorts of the same list. */
static void test_ties_keep_registration_order(void **state)
{
    (void)state;
    coarse_exec_stats x[3] = {exec("5", 10, 2, 0, 100), exec("6", 10, 2, 0, 100),
                              exec("7", 10, 2, 0, 100)};
    assert_string_equal(chosen(x, 3, K8S_ROLL_TOTAL_DURATION, 0), "5");
    assert_string_equal(chosen(x, 3, K8S_ROLL_ADD_TIME, 0), "5");
    assert_string_equal(chosen(x, 3, K8S_ROLL_OUTLIER, 0), "5");
}

/* Ten executors with figures spread evenly (no outlier) until one lies beyond two standard
 * deviations in one of the dimensions. */
static void test_outlier_and_fallback(void **state)
{
    (void)state;
    coarse_exec_stats x[10];
    for (int i = 0; i < 10; i++) {
        char id[8];
        snprintf(id, sizeof id, "%d", i + 1);
        x[i] = exec(id, 100 + i, 10, 0, 1000 + 20 * i); /* averages 100 .. 118: sd 5.7 */
    }
    /* no outlier: OUTLIER falls back to TOTAL_DURATION, OUTLIER_NO_FALLBACK rolls none */
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER, 0), "10");
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER_NO_FALLBACK, 0), "none");
    /* executor 7 failed many tasks: an outlier of FAILED_TASKS, though 10 has the longest total */
    x[6].failed_tasks = 9;
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER_NO_FALLBACK, 0), "7");
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER, 0), "7");
    assert_string_equal(chosen(x, 10, K8S_ROLL_TOTAL_DURATION, 0), "10");
    /* the average duration comes first: executor 9 ran 10 tasks of 10 s each */
    x[8].total_duration_ms = 100000;
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER, 0), "9");
    /* and none passes minTasks = 11 */
    assert_string_equal(chosen(x, 10, K8S_ROLL_OUTLIER, 11), "none");
}

static void test_fixed_rate(void **state)
{
    (void)state;
    assert_int_equal(cs_k8s_roll_next_ms(1000, 60000, 1000), 61000);
    assert_int_equal(cs_k8s_roll_next_ms(1000, 60000, 60999), 61000);
    assert_int_equal(cs_k8s_roll_next_ms(1000, 60000, 61000), 121000);
    /* a late round does not move the next one */
    assert_int_equal(cs_k8s_roll_next_ms(1000, 60000, 75000), 121000);
    assert_int_equal(cs_k8s_roll_next_ms(1000, 60000, 500), 61000);
    assert_true(cs_k8s_roll_next_ms(1000, 0, 500) == INT64_MAX);
}

static void test_policy_names(void **state)
{
    (void)state;
    assert_int_equal(cs_k8s_roll_policy_parse("outlier"), K8S_ROLL_OUTLIER);
    assert_int_equal(cs_k8s_roll_policy_parse("PEAK_JVM_ONHEAP_MEMORY"), K8S_ROLL_PEAK_MEMORY);
    assert_int_equal(cs_k8s_roll_policy_parse("TOTAL_GC_TIME"), -1);
    assert_int_equal(cs_k8s_roll_policy_parse("NOPE"), -1);
}

static int check(const char *const *kv, cs_error *err)
{
    cs_conf *c = cs_conf_new();
    for (int i = 0; kv[i]; i += 2)
        cs_conf_set(c, kv[i], kv[i + 1]);
    cs_error_clear(err);
    int rc = cs_conf_k8s_check(c, err);
    if (rc == 0) {
        k8s_roll_settings s;
        rc = cs_k8s_roll_settings_read(c, &s, err);
    }
    cs_conf_free(c);
    return rc;
}

static void test_settings_refusals(void **state)
{
    (void)state;
    cs_error err;
    const char *ok[] = {"spark.kubernetes.executor.rollInterval",
                        "30s",
                        "spark.decommission.enabled",
                        "true",
                        "spark.kubernetes.executor.rollPolicy",
                        "id",
                        NULL};
    assert_int_equal(check(ok, &err), 0);
    const char *no_decom[] = {"spark.kubernetes.executor.rollInterval", "30s", NULL};
    assert_int_equal(check(no_decom, &err), CS_EINVAL);
    assert_string_equal(err.msg,
                        "spark.kubernetes.executor.rollInterval: '30s' rolls executors by "
                        "decommissioning them; set spark.decommission.enabled=true, or remove it");
    const char *gc[] = {"spark.kubernetes.executor.rollPolicy", "TOTAL_GC_TIME", NULL};
    assert_int_equal(check(gc, &err), CS_EINVAL);
    assert_string_equal(err.msg, "spark.kubernetes.executor.rollPolicy: 'TOTAL_GC_TIME' is not "
                                 "supported by cspark (a cspark executor has no garbage "
                                 "collector to measure); choose another value");
    const char *offheap[] = {"spark.kubernetes.executor.rollPolicy", "peak_jvm_offheap_memory",
                             NULL};
    assert_int_equal(check(offheap, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "'PEAK_JVM_OFFHEAP_MEMORY' is not supported by cspark"));
    const char *bad[] = {"spark.kubernetes.executor.rollPolicy", "OLDEST", NULL};
    assert_int_equal(check(bad, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.executor.rollPolicy"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_policy_picks_as_spark),
        cmocka_unit_test(test_min_tasks_excludes_executors),
        cmocka_unit_test(test_ties_keep_registration_order),
        cmocka_unit_test(test_outlier_and_fallback),
        cmocka_unit_test(test_fixed_rate),
        cmocka_unit_test(test_policy_names),
        cmocka_unit_test(test_settings_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
