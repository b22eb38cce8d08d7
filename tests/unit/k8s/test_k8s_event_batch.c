/* test_k8s_event_batch.c — unit tests for the queue between the lifecycle manager's rounds
 * (src/cluster/k8s/k8s_event_batch.c; spark.kubernetes.executor.eventProcessingInterval): a
 * round is due only once something waits and the interval passed since the previous round; a
 * round takes every pod update in arrival order, each holding its own reference to its pod, and
 * the latest full snapshot only; the interval read from a conf reaches the backend's settings.
 * Every time is explicit: nothing here reads a clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_event_batch.h"
#include "cluster/k8s/k8s_settings.h"
#include "common/conf.h"

static k8s_snapshot_update pod_update(k8s_exec_pod *entry, json_t *pod, k8s_pod_state state,
                                      int64_t at)
{
    k8s_snapshot_update u = {.entry = entry, .pod = pod, .at_ms = at, .source = "watch"};
    u.status.state = state;
    return u;
}

static k8s_snapshot_update full_update(unsigned snapshot, int64_t at)
{
    k8s_snapshot_update u = {.snapshot = snapshot, .at_ms = at, .source = "full poll"};
    return u;
}

static void test_round_due_after_interval(void **state)
{
    (void)state;
    k8s_event_batch q = {.interval_ms = 2000};
    int64_t wait;
    assert_false(cs_k8s_event_batch_due(&q, 1000, &wait)); /* nothing waits */
    assert_int_equal(wait, -1);
    k8s_exec_pod e = {.id = 1};
    json_t *pod = json_object();
    k8s_snapshot_update u = pod_update(&e, pod, K8S_POD_FAILED, 1000);
    cs_k8s_event_batch_add(&q, &u);
    assert_true(cs_k8s_event_batch_due(&q, 1000, &wait)); /* no round yet: at once */
    k8s_event_batch got = {0};
    cs_k8s_event_batch_take(&q, 1000, &got);
    assert_int_equal(got.npods, 1);
    assert_false(cs_k8s_event_batch_due(&q, 1500, &wait)); /* empty again */
    u.at_ms = 1500;
    cs_k8s_event_batch_add(&q, &u);
    assert_false(cs_k8s_event_batch_due(&q, 1500, &wait));
    assert_int_equal(wait, 1500); /* the previous round began at 1000 */
    assert_false(cs_k8s_event_batch_due(&q, 2999, &wait));
    assert_int_equal(wait, 1);
    assert_true(cs_k8s_event_batch_due(&q, 3000, &wait));
    cs_k8s_event_batch_take(&q, 3000, &got); /* frees what got held */
    assert_int_equal(got.npods, 1);
    assert_int_equal(got.pods[0].at_ms, 1500);
    cs_k8s_event_batch_free(&got);
    cs_k8s_event_batch_free(&q);
    json_decref(pod);
}

static void test_round_takes_updates_in_order(void **state)
{
    (void)state;
    k8s_event_batch q = {.interval_ms = 1000};
    k8s_exec_pod e[3] = {{.id = 4}, {.id = 2}, {.id = 9}};
    json_t *pods[3];
    for (int i = 0; i < 3; i++) {
        pods[i] = json_pack("{s:{s:i}}", "metadata", "n", i);
        k8s_snapshot_update u = pod_update(&e[i], pods[i], K8S_POD_SUCCEEDED, 100 + i);
        cs_k8s_event_batch_add(&q, &u);
        if (i == 1) {
            k8s_snapshot_update f = full_update(7, 150);
            cs_k8s_event_batch_add(&q, &f);
        }
    }
    k8s_snapshot_update f = full_update(8, 160);
    cs_k8s_event_batch_add(&q, &f);
    for (int i = 0; i < 3; i++) { /* the queue holds references of its own */
        assert_int_equal(pods[i]->refcount, 2);
        json_decref(pods[i]);
    }
    k8s_event_batch got = {0};
    cs_k8s_event_batch_take(&q, 200, &got);
    assert_int_equal(got.npods, 3);
    assert_int_equal(got.pods[0].id, 4);
    assert_int_equal(got.pods[1].id, 2);
    assert_int_equal(got.pods[2].id, 9);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(got.pods[2].pod, "metadata"), "n")), 2);
    assert_true(got.full); /* the latest full snapshot stands for the earlier one */
    assert_int_equal(got.full_snapshot, 8);
    assert_int_equal(got.full_at_ms, 160);
    assert_false(q.full);
    assert_int_equal(q.npods, 0);
    cs_k8s_event_batch_free(&got);
}

static void test_interval_read_from_conf(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    k8s_settings s;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_int_equal(s.event_interval_ms, 1000); /* Spark's default */
    cs_k8s_settings_free(&s);
    cs_conf_set(c, "spark.kubernetes.executor.eventProcessingInterval", "2s");
    assert_int_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_int_equal(s.event_interval_ms, 2000);
    cs_k8s_settings_free(&s);
    cs_conf_set(c, "spark.kubernetes.executor.eventProcessingInterval", "0");
    assert_int_not_equal(cs_k8s_settings_read(c, &s, &err), 0);
    assert_non_null(strstr(err.msg, "spark.kubernetes.executor.eventProcessingInterval: '0'"));
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_due_after_interval),
        cmocka_unit_test(test_round_takes_updates_in_order),
        cmocka_unit_test(test_interval_read_from_conf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
