/* test_k8s_statefulset.c — unit tests for the StatefulSet allocator's pure parts
 * (k8s_statefulset.c, k8s_snapshots_store.c): the StatefulSet built from the executor pod (name,
 * replicas, selector on Spark's labels, owner, a template without per-pod fields and with
 * SPARK_EXECUTOR_ID=EXECID), and the executor id of a StatefulSet's pod (pod-index + 1). The set
 * running on a real control plane: tests/k8s/statefulset_allocator.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_snapshots_store.h"
#include "cluster/k8s/k8s_statefulset.h"
#include "pod_spec_fixture.h"

static const char *env_value(const json_t *container, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(container, "env"), i, e)
    {
        if (!strcmp(json_string_value(json_object_get(e, "name")), name))
            return json_string_value(json_object_get(e, "value"));
    }
    return NULL;
}

static void test_statefulset_from_the_executor_pod(void **state)
{
    (void)state;
    cs_conf *c = base_conf();
    k8s_app app;
    app_init_ok(&app, c);
    json_t *driver = json_pack("{s:{s:s, s:s}}", "metadata", "name", "pi-driver", "uid", "u-1");
    cs_error err = {0};
    json_t *set = cs_k8s_statefulset_new(c, &app, 3, 2, driver, NULL, &err);
    if (!set) fail_msg("cs_k8s_statefulset_new: %s", err.msg);
    char name[K8S_STATEFULSET_NAME_SIZE], want[128];
    cs_k8s_statefulset_name(&app, name);
    snprintf(want, sizeof want, "spark-s-%s-0", app.app_id);
    assert_string_equal(name, want);
    json_t *md = json_object_get(set, "metadata"), *spec = json_object_get(set, "spec");
    assert_string_equal(json_string_value(json_object_get(set, "kind")), "StatefulSet");
    assert_string_equal(json_string_value(json_object_get(md, "name")), want);
    assert_string_equal(json_string_value(json_object_get(md, "namespace")), "jobs");
    json_t *owner = json_array_get(json_object_get(md, "ownerReferences"), 0);
    assert_string_equal(json_string_value(json_object_get(owner, "name")), "pi-driver");
    assert_int_equal(json_integer_value(json_object_get(spec, "replicas")), 3);
    assert_string_equal(json_string_value(json_object_get(spec, "podManagementPolicy")),
                        "Parallel");
    json_t *sel = json_object_get(json_object_get(spec, "selector"), "matchLabels");
    assert_int_equal(json_object_size(sel), 3);
    assert_string_equal(json_string_value(json_object_get(sel, "spark-app-selector")), app.app_id);
    assert_string_equal(json_string_value(json_object_get(sel, "spark-role")), "executor");
    /* the template: Spark's labels matching the selector, nothing that differs per pod */
    json_t *tmpl = json_object_get(spec, "template");
    json_t *tmd = json_object_get(tmpl, "metadata"), *tspec = json_object_get(tmpl, "spec");
    json_t *labels = json_object_get(tmd, "labels");
    const char *k;
    json_t *v;
    json_object_foreach(sel, k, v)
    {
        assert_non_null(json_object_get(labels, k));
        assert_string_equal(json_string_value(json_object_get(labels, k)), json_string_value(v));
    }
    assert_non_null(json_object_get(labels, "spark-app-name"));
    assert_null(json_object_get(labels, "spark-exec-id"));
    assert_null(json_object_get(tmd, "name"));
    assert_null(json_object_get(tmd, "ownerReferences"));
    assert_null(json_object_get(tspec, "hostname"));
    assert_string_equal(json_string_value(json_object_get(tspec, "restartPolicy")), "Always");
    json_t *ctr = json_array_get(json_object_get(tspec, "containers"), 0);
    assert_string_equal(env_value(ctr, "SPARK_EXECUTOR_ID"), "EXECID");
    assert_null(env_value(ctr, "SPARK_EXECUTOR_ATTRIBUTE_EXECUTOR_ID"));
    json_decref(set);
    json_decref(driver);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_exec_id_of_a_statefulset_pod(void **state)
{
    (void)state;
    json_t *pod =
        json_pack("{s:{s:{s:s}}}", "metadata", "labels", "apps.kubernetes.io/pod-index", "0");
    assert_int_equal(cs_k8s_pod_exec_id(pod), 1);
    json_object_set_new(json_object_get(json_object_get(pod, "metadata"), "labels"),
                        "apps.kubernetes.io/pod-index", json_string("4"));
    assert_int_equal(cs_k8s_pod_exec_id(pod), 5);
    json_object_set_new(json_object_get(json_object_get(pod, "metadata"), "labels"),
                        "apps.kubernetes.io/pod-index", json_string("x"));
    assert_int_equal(cs_k8s_pod_exec_id(pod), -1);
    /* a pod the direct allocator made keeps its own id */
    json_object_set_new(json_object_get(json_object_get(pod, "metadata"), "labels"),
                        "spark-exec-id", json_string("7"));
    assert_int_equal(cs_k8s_pod_exec_id(pod), 7);
    json_decref(pod);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_statefulset_from_the_executor_pod),
        cmocka_unit_test(test_exec_id_of_a_statefulset_pod),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
