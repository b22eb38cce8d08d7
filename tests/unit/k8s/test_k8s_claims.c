/* test_k8s_claims.c — unit tests for the choice of executors' on-demand claims
 * (src/cluster/k8s/k8s_claims.c, the claim half of Spark's ExecutorPodsAllocator), pure functions
 * of the pod table, the listed claims and the settings: a pod holds its claims until the
 * snapshots say it is gone or finished; claims held, or being deleted, are not reusable; a new
 * pod takes a free claim of the same storage class and size (as quantities) in place of a new
 * one, and never one claim twice; claims are reused only when the driver owns them and there is
 * a driver pod; waitToReusePersistentVolumeClaim holds new executors once as many claims exist as
 * executors may. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_claims.h"

/* A PersistentVolumeClaim as the API server lists it. */
static json_t *claim(const char *name, const char *storage_class, const char *size)
{
    json_t *c =
        json_pack("{s:{s:s}, s:{s:[s], s:{s:{s:s}}}}", "metadata", "name", name, "spec",
                  "accessModes", "ReadWriteOncePod", "resources", "requests", "storage", size);
    if (storage_class)
        json_object_set_new(json_object_get(c, "spec"), "storageClassName",
                            json_string(storage_class));
    return c;
}

/* An executor pod mounting claim names (NULL-terminated). */
static json_t *pod_with(const char *const *claims)
{
    json_t *vols = json_array();
    for (int i = 0; claims[i]; i++)
        json_array_append_new(vols, json_pack("{s:s, s:{s:s}}", "name", "v",
                                              "persistentVolumeClaim", "claimName", claims[i]));
    json_array_append_new(vols, json_pack("{s:s, s:{}}", "name", "scratch", "emptyDir"));
    return json_pack("{s:{s:o}}", "spec", "volumes", vols);
}

/* Executor id requested with its pod mounting claims. */
static k8s_exec_pod *add(k8s_pod_table *t, int id, const char *const *claims)
{
    k8s_exec_pod *p = cs_k8s_pods_add(t, id, "app-exec", 0);
    json_t *pod = pod_with(claims);
    cs_k8s_pod_set_claims(p, pod);
    json_decref(pod);
    return p;
}

static const char *name_at(const json_t *arr, size_t i)
{
    return json_string_value(
        json_object_get(json_object_get(json_array_get(arr, i), "metadata"), "name"));
}

static void test_held_until_released(void **state)
{
    (void)state;
    k8s_pod_table t = {0};
    add(&t, 1, (const char *[]){"a-exec-1-pvc-0", "shared", NULL});
    add(&t, 2, (const char *[]){"a-exec-2-pvc-0", NULL});
    assert_int_equal(cs_k8s_pods_find(&t, 1)->nclaims, 2); /* the emptyDir is no claim */
    assert_true(cs_k8s_claim_held(&t, "a-exec-1-pvc-0"));
    assert_true(cs_k8s_claim_held(&t, "shared"));
    assert_false(cs_k8s_claim_held(&t, "a-exec-3-pvc-0"));
    /* removed from Spark but its pod still terminating: still held */
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 1), 10);
    assert_true(cs_k8s_claim_held(&t, "a-exec-1-pvc-0"));
    cs_k8s_pods_find(&t, 1)->released = true; /* DELETED, finished, or absent from a full list */
    assert_false(cs_k8s_claim_held(&t, "a-exec-1-pvc-0"));
    /* forgotten after the removed-executors cache: nothing holds them either */
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 2), 10);
    cs_k8s_pods_expire(&t, 200000, 180000);
    assert_false(cs_k8s_claim_held(&t, "a-exec-2-pvc-0"));
    cs_k8s_pods_free(&t);
}

static void test_reusable_are_free_and_not_deleted(void **state)
{
    (void)state;
    k8s_pod_table t = {0};
    add(&t, 2, (const char *[]){"a-exec-2-pvc-0", NULL});
    add(&t, 3, (const char *[]){"a-exec-3-pvc-0", NULL})->released = true;
    json_t *items = json_array();
    json_array_append_new(items, claim("a-exec-1-pvc-0", "fast", "10Gi"));
    json_array_append_new(items, claim("a-exec-2-pvc-0", "fast", "10Gi")); /* held by 2 */
    json_array_append_new(items, claim("a-exec-3-pvc-0", "fast", "10Gi"));
    json_t *deleting = claim("a-exec-4-pvc-0", "fast", "10Gi");
    json_object_set_new(json_object_get(deleting, "metadata"), "deletionTimestamp",
                        json_string("2026-01-01T00:00:00Z"));
    json_array_append_new(items, deleting);
    json_t *r = cs_k8s_claims_reusable_new(items, &t);
    assert_int_equal(json_array_size(r), 2);
    assert_string_equal(name_at(r, 0), "a-exec-1-pvc-0");
    assert_string_equal(name_at(r, 1), "a-exec-3-pvc-0");
    json_decref(r);
    json_decref(items);
    cs_k8s_pods_free(&t);
}

static void test_reuse_matches_class_and_size(void **state)
{
    (void)state;
    json_t *reusable = json_array();
    json_array_append_new(reusable, claim("old-slow", "slow", "10Gi"));
    json_array_append_new(reusable, claim("old-small", "fast", "5Gi"));
    json_array_append_new(reusable, claim("old-fast", "fast", "10240Mi")); /* = 10Gi */
    json_array_append_new(reusable, claim("old-default", NULL, "1Gi"));
    /* executor 7 wants two claims: fast 10Gi (reusable) and default-class 2Gi (none fits) */
    json_t *pod = pod_with((const char *[]){"a-exec-7-pvc-0", "a-exec-7-pvc-1", NULL});
    json_t *want = json_array();
    json_array_append_new(want, claim("a-exec-7-pvc-0", "fast", "10Gi"));
    json_array_append_new(want, claim("a-exec-7-pvc-1", NULL, "2Gi"));
    assert_int_equal(cs_k8s_claims_reuse(pod, want, reusable), 1);
    const json_t *vols = json_object_get(json_object_get(pod, "spec"), "volumes");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_array_get(vols, 0), "persistentVolumeClaim"), "claimName")),
        "old-fast");
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_array_get(vols, 1), "persistentVolumeClaim"), "claimName")),
        "a-exec-7-pvc-1");
    assert_int_equal(json_array_size(want), 1); /* only the 2Gi claim is still to create */
    assert_string_equal(name_at(want, 0), "a-exec-7-pvc-1");
    assert_int_equal(json_array_size(reusable), 3); /* old-fast is taken: never twice */
    for (size_t i = 0; i < json_array_size(reusable); i++)
        assert_string_not_equal(name_at(reusable, i), "old-fast");
    /* the next executor finds no fast 10Gi claim left */
    json_t *pod8 = pod_with((const char *[]){"a-exec-8-pvc-0", NULL});
    json_t *want8 = json_array();
    json_array_append_new(want8, claim("a-exec-8-pvc-0", "fast", "10Gi"));
    assert_int_equal(cs_k8s_claims_reuse(pod8, want8, reusable), 0);
    assert_int_equal(json_array_size(want8), 1);
    /* a default-class claim matches a default-class one only */
    json_t *pod9 = pod_with((const char *[]){"a-exec-9-pvc-0", NULL});
    json_t *want9 = json_array();
    json_array_append_new(want9, claim("a-exec-9-pvc-0", NULL, "1024Mi"));
    assert_int_equal(cs_k8s_claims_reuse(pod9, want9, reusable), 1);
    assert_int_equal(json_array_size(want9), 0);
    json_decref(pod9);
    json_decref(want9);
    json_decref(pod8);
    json_decref(want8);
    json_decref(pod);
    json_decref(want);
    json_decref(reusable);
}

static void test_reuse_and_wait_rules(void **state)
{
    (void)state;
    k8s_settings s;
    memset(&s, 0, sizeof s);
    s.own_pvc = s.reuse_pvc = true;
    s.max_pvcs = 2;
    assert_true(cs_k8s_claims_reusing(&s, true));
    assert_false(cs_k8s_claims_reusing(&s, false)); /* no driver pod: claims go with executors */
    s.own_pvc = false;
    assert_false(cs_k8s_claims_reusing(&s, true));
    s.own_pvc = true;
    s.reuse_pvc = false;
    assert_false(cs_k8s_claims_reusing(&s, true));
    s.reuse_pvc = true;
    /* waitToReusePersistentVolumeClaim off (Spark's default): never wait */
    assert_false(cs_k8s_claims_must_wait(&s, true, 0, 100));
    s.wait_to_reuse_pvc = true;
    assert_false(cs_k8s_claims_must_wait(&s, true, 0, 1)); /* fewer claims than executors */
    assert_true(cs_k8s_claims_must_wait(&s, true, 0, 2));
    assert_false(cs_k8s_claims_must_wait(&s, true, 1, 2)); /* one is free: take it */
    assert_false(cs_k8s_claims_must_wait(&s, false, 0, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_held_until_released),
        cmocka_unit_test(test_reusable_are_free_and_not_deleted),
        cmocka_unit_test(test_reuse_matches_class_and_size),
        cmocka_unit_test(test_reuse_and_wait_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
