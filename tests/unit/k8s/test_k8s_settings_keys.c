/* test_k8s_settings_keys.c — the allocator and lifecycle keys no created object shows, from a conf
 * to the policy they change (tests/k8s/conf_keys.sh names this file for them): each key is set to
 * a value other than Spark's default, read by cs_k8s_settings_read (src/cluster/k8s/
 * k8s_settings.c) as the backend reads it, and the pure policy given those settings is checked —
 * spark.kubernetes.allocation.batch.size (pods per allocation round),
 * spark.kubernetes.dynamicAllocation.deleteGracePeriod (when a removed executor's pod is deleted),
 * spark.kubernetes.executor.missingPodDetectDelta (when an executor absent from a full snapshot
 * is removed), spark.kubernetes.executor.deletedExecutorsCacheTimeout (how long a removed
 * executor is remembered) and spark.kubernetes.driver.waitToReusePersistentVolumeClaim (once
 * as many claims exist as executors may, a replacement waits for a free claim instead of a new
 * one: no pod is created). Every time is explicit: nothing here reads a clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_allocator.h"
#include "cluster/k8s/k8s_claims.h"
#include "cluster/k8s/k8s_lifecycle_manager.h"
#include "cluster/k8s/k8s_settings.h"
#include "cluster/k8s/k8s_snapshots_store.h"
#include "common/conf.h"

/* The settings of a conf holding key=value (and no other key). */
static k8s_settings settings_with(const char *key, const char *value)
{
    cs_conf *c = cs_conf_new();
    if (key) cs_conf_set(c, key, value);
    k8s_settings s;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_k8s_settings_read(c, &s, &err), 0);
    cs_conf_free(c);
    return s;
}

static void request(k8s_pod_table *t, int id, int64_t at)
{
    char name[32];
    snprintf(name, sizeof name, "app-exec-%d", id);
    cs_k8s_pods_add(t, id, name, at);
}

static void test_batch_size_sets_pods_per_round(void **state)
{
    (void)state;
    k8s_settings dflt = settings_with(NULL, NULL);
    assert_int_equal(dflt.batch_size, 10); /* Spark 4.1's default */
    k8s_settings s = settings_with("spark.kubernetes.allocation.batch.size", "3");
    assert_int_equal(s.batch_size, 3);
    k8s_pod_table t = {0};
    k8s_alloc_round r;
    cs_k8s_allocator_round(&s, 8, false, false, &t, 0, &r);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 3);
    cs_k8s_allocator_round(&dflt, 8, false, false, &t, 0, &r);
    assert_int_equal(r.create, 8);
    cs_k8s_pods_free(&t);
    cs_k8s_settings_free(&s);
    cs_k8s_settings_free(&dflt);
}

static void test_delete_grace_period_delays_deletion(void **state)
{
    (void)state;
    k8s_settings s = settings_with("spark.kubernetes.dynamicAllocation.deleteGracePeriod", "12s");
    assert_int_equal(s.delete_grace_ms, 12000);
    k8s_pod_table t = {0};
    request(&t, 1, 0);
    request(&t, 2, 0);
    for (int id = 1; id <= 2; id++) {
        k8s_exec_pod *p = cs_k8s_pods_find(&t, id);
        p->seen_ms = 100;
        p->state = K8S_POD_RUNNING;
    }
    cs_k8s_allocator_removing(&s, cs_k8s_pods_find(&t, 2), 1000);
    k8s_alloc_round r;
    cs_k8s_allocator_round(&s, 1, false, false, &t, 1000 + 11999, &r);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* the default 5s is long past: the key counts */
    cs_k8s_allocator_round(&s, 1, false, false, &t, 1000 + 12000, &r);
    assert_int_equal(r.kind, K8S_ALLOC_DELETE_REMOVED);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ids[0], 2);
    cs_k8s_alloc_round_free(&r);
    cs_k8s_pods_free(&t);
    cs_k8s_settings_free(&s);
}

static void test_missing_pod_detect_delta(void **state)
{
    (void)state;
    k8s_settings s = settings_with("spark.kubernetes.executor.missingPodDetectDelta", "90s");
    assert_int_equal(s.missing_delta_ms, 90000);
    k8s_pod_table t = {0};
    request(&t, 1, 0);
    k8s_exec_pod *p = cs_k8s_pods_find(&t, 1);
    assert_false(cs_k8s_pod_missing(&s, p, 2, 500000)); /* never seen: not missing */
    p->seen_ms = 1000;
    p->state = K8S_POD_RUNNING;
    p->snapshot = 1; /* listed by full snapshot 1, not by 2 */
    /* 60 s after it was first seen: past Spark's default 30s, within the key's 90s */
    assert_false(cs_k8s_pod_missing(&s, p, 2, 1000 + 60000));
    assert_false(cs_k8s_pod_missing(&s, p, 2, 1000 + 90000));
    assert_true(cs_k8s_pod_missing(&s, p, 2, 1000 + 90001));
    assert_false(cs_k8s_pod_missing(&s, p, 1, 1000 + 90001)); /* listed by that snapshot */
    cs_k8s_pods_free(&t);
    cs_k8s_settings_free(&s);
}

static void test_deleted_executors_cache_timeout(void **state)
{
    (void)state;
    /* a bare number is seconds, as Spark */
    k8s_settings s = settings_with("spark.kubernetes.executor.deletedExecutorsCacheTimeout", "60");
    assert_int_equal(s.deleted_cache_ms, 60000);
    k8s_pod_table t = {0};
    request(&t, 1, 0);
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 1), 1000);
    cs_k8s_pods_expire(&t, 1000 + 60000, s.deleted_cache_ms);
    assert_non_null(cs_k8s_pods_find(&t, 1)); /* still remembered */
    cs_k8s_pods_expire(&t, 1000 + 60001, s.deleted_cache_ms);
    assert_null(cs_k8s_pods_find(&t, 1)); /* forgotten well before the default 180 s */
    cs_k8s_pods_free(&t);
    cs_k8s_settings_free(&s);
}

static void test_wait_to_reuse_claims(void **state)
{
    (void)state;
    /* two executors, their two claims created, executor 2 gone and no claim free yet */
    k8s_pod_table t = {0};
    request(&t, 1, 0);
    request(&t, 2, 0);
    for (int id = 1; id <= 2; id++) {
        k8s_exec_pod *p = cs_k8s_pods_find(&t, id);
        p->seen_ms = 100;
        p->state = K8S_POD_RUNNING;
    }
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 2), 200);
    k8s_settings dflt = settings_with(NULL, NULL);
    k8s_settings s =
        settings_with("spark.kubernetes.driver.waitToReusePersistentVolumeClaim", "true");
    assert_false(dflt.wait_to_reuse_pvc);
    assert_true(s.wait_to_reuse_pvc);
    assert_int_equal(s.max_pvcs, 2); /* spark.executor.instances */
    /* by default a new claim is made for the replacement at once */
    bool wait = cs_k8s_claims_must_wait(&dflt, true, 0, 2);
    assert_false(wait);
    k8s_alloc_round r;
    cs_k8s_allocator_round(&dflt, 2, false, wait, &t, 300, &r);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 1);
    /* with the key the replacement waits while no claim is free... */
    wait = cs_k8s_claims_must_wait(&s, true, 0, 2);
    assert_true(wait);
    cs_k8s_allocator_round(&s, 2, false, wait, &t, 300, &r);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT);
    /* ...and is made once one is (it then takes that claim) */
    wait = cs_k8s_claims_must_wait(&s, true, 1, 2);
    assert_false(wait);
    cs_k8s_allocator_round(&s, 2, false, wait, &t, 400, &r);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 1);
    cs_k8s_pods_free(&t);
    cs_k8s_settings_free(&s);
    cs_k8s_settings_free(&dflt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch_size_sets_pods_per_round),
        cmocka_unit_test(test_delete_grace_period_delays_deletion),
        cmocka_unit_test(test_missing_pod_detect_delta),
        cmocka_unit_test(test_deleted_executors_cache_timeout),
        cmocka_unit_test(test_wait_to_reuse_claims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
