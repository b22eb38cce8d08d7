/* test_k8s_batch_scheduler.c — unit tests for the batch schedulers' feature steps
 * (k8s_step_batch_scheduler.c): Spark's VolcanoFeatureStep and YuniKornFeatureStep class names
 * accepted in spark.kubernetes.{driver,executor}.pod.featureSteps and any other class refused
 * naming the key; the Volcano PodGroup (name, namespace, template kept, minResources from the
 * driver and the initial executors unless the template sets them, no PodGroup without the step,
 * a template of another kind refused); the group-name annotation on driver and executor pods; the
 * YuniKorn app-id annotation and gang task groups, with the user's own task group winning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_pod_spec.h"
#include "pod_spec_fixture.h"

#define STEPS_PREFIX "org.apache.spark.deploy.k8s.features."
#define VOLCANO STEPS_PREFIX "VolcanoFeatureStep"
#define YUNIKORN STEPS_PREFIX "YuniKornFeatureStep"

static const char *annotation(const json_t *pod, const char *key)
{
    return json_string_value(
        json_object_get(json_object_get(json_object_get(pod, "metadata"), "annotations"), key));
}

static const char *path_str(const json_t *obj, const char *a, const char *b, const char *c)
{
    const json_t *v = json_object_get(obj, a);
    if (b) v = json_object_get(v, b);
    if (c) v = json_object_get(v, c);
    return json_string_value(v);
}

static void test_feature_step_classes(void **state)
{
    cs_conf *c = base_conf();
    cs_error err = {0};
    unsigned steps = 99;
    assert_int_equal(cs_k8s_feature_steps(c, "driver", &steps, &err), CS_OK);
    assert_int_equal(steps, 0);
    cs_conf_set(c, "spark.kubernetes.executor.pod.featureSteps", VOLCANO ", " YUNIKORN);
    assert_int_equal(cs_k8s_feature_steps(c, "executor", &steps, &err), CS_OK);
    assert_int_equal(steps, K8S_FEATURE_VOLCANO | K8S_FEATURE_YUNIKORN);
    cs_conf_set(c, "spark.kubernetes.driver.pod.featureSteps", YUNIKORN ",com.example.GpuStep");
    assert_int_equal(cs_k8s_feature_steps(c, "driver", &steps, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.driver.pod.featureSteps"));
    assert_non_null(strstr(err.msg, "'com.example.GpuStep'"));
    /* the driver pod build refuses it too, so cspark-submit stops before creating anything */
    k8s_app app;
    app_init_ok(&app, c);
    assert_null(cs_k8s_driver_pod(c, &app, &err));
    assert_non_null(strstr(err.msg, "com.example.GpuStep"));
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_no_step_no_pod_group(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.executor.pod.featureSteps", VOLCANO);
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *driver = cs_k8s_driver_pod(c, &app, &err), *pg = (json_t *)1;
    assert_non_null(driver);
    assert_null(annotation(driver, "scheduling.k8s.io/group-name"));
    assert_int_equal(cs_k8s_volcano_pod_group(c, &app, driver, &pg, &err), CS_OK);
    assert_null(pg); /* the PodGroup is the driver's step's (as Spark) */
    json_t *exec = cs_k8s_executor_pod(c, &app, 3, 1, NULL, NULL, &err);
    char want[300];
    snprintf(want, sizeof want, "%s-podgroup", app.app_id);
    assert_string_equal(annotation(exec, "scheduling.k8s.io/group-name"), want);
    json_decref(exec);
    json_decref(driver);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_pod_group_min_resources(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.pod.featureSteps", VOLCANO);
    cs_conf_set(c, "spark.driver.cores", "2");
    cs_conf_set(c, "spark.driver.memory", "2g");
    cs_conf_set(c, "spark.executor.instances", "3");
    cs_conf_set(c, "spark.executor.memory", "1g");
    cs_conf_set(c, "spark.kubernetes.executor.request.cores", "500m");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *driver = cs_k8s_driver_pod(c, &app, &err), *pg = NULL;
    assert_non_null(driver);
    char want[300];
    snprintf(want, sizeof want, "%s-podgroup", app.app_id);
    assert_string_equal(annotation(driver, "scheduling.k8s.io/group-name"), want);
    assert_int_equal(cs_k8s_volcano_pod_group(c, &app, driver, &pg, &err), CS_OK);
    assert_non_null(pg);
    assert_string_equal(path_str(pg, "apiVersion", NULL, NULL), "scheduling.volcano.sh/v1beta1");
    assert_string_equal(path_str(pg, "kind", NULL, NULL), "PodGroup");
    assert_string_equal(path_str(pg, "metadata", "name", NULL), want);
    assert_string_equal(path_str(pg, "metadata", "namespace", NULL), "jobs");
    /* driver 2 cores + 3 × 0.5; memory (2048 + 384) + 3 × (1024 + 384) MiB */
    json_t *min = json_object_get(json_object_get(pg, "spec"), "minResources");
    assert_string_equal(json_string_value(json_object_get(min, "cpu")), "3500m");
    assert_string_equal(json_string_value(json_object_get(min, "memory")), "6656Mi");
    json_decref(pg);
    json_decref(driver);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_pod_group_template(void **state)
{
    char *tpl = write_tmp("apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
                          "metadata:\n  name: ignored\n  labels:\n    team: etl\n"
                          "spec:\n  queue: q1\n  minMember: 2\n  priorityClassName: high\n"
                          "  minResources:\n    cpu: \"4\"\n    memory: 8Gi\n"
                          "status:\n  phase: Running\n");
    char *pod_tpl = write_tmp("apiVersion: v1\nkind: Pod\nspec: {}\n");
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.pod.featureSteps", VOLCANO);
    cs_conf_set(c, "spark.kubernetes.scheduler.volcano.podGroupTemplateFile", tpl);
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *driver = cs_k8s_driver_pod(c, &app, &err), *pg = NULL;
    assert_non_null(driver);
    assert_int_equal(cs_k8s_volcano_pod_group(c, &app, driver, &pg, &err), CS_OK);
    assert_non_null(strstr(path_str(pg, "metadata", "name", NULL), "-podgroup"));
    assert_string_equal(path_str(pg, "metadata", "labels", "team"), "etl");
    assert_string_equal(path_str(pg, "spec", "queue", NULL), "q1");
    assert_int_equal(json_integer_value(json_object_get(json_object_get(pg, "spec"), "minMember")),
                     2);
    assert_string_equal(path_str(pg, "spec", "minResources", "memory"), "8Gi");
    assert_null(json_object_get(pg, "status"));
    json_decref(pg);

    cs_conf_set(c, "spark.kubernetes.scheduler.volcano.podGroupTemplateFile", pod_tpl);
    pg = (json_t *)1;
    assert_int_equal(cs_k8s_volcano_pod_group(c, &app, driver, &pg, &err), CS_EINVAL);
    assert_null(pg);
    assert_non_null(strstr(err.msg, "spark.kubernetes.scheduler.volcano.podGroupTemplateFile"));
    assert_non_null(strstr(err.msg, "PodGroup"));
    json_decref(driver);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
    unlink(tpl);
    unlink(pod_tpl);
    free(tpl);
    free(pod_tpl);
}

static void test_yunikorn_annotations(void **state)
{
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.driver.pod.featureSteps", YUNIKORN);
    cs_conf_set(c, "spark.kubernetes.executor.pod.featureSteps", YUNIKORN);
    cs_conf_set(c, "spark.executor.instances", "4");
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *driver = cs_k8s_driver_pod(c, &app, &err);
    json_t *exec = cs_k8s_executor_pod(c, &app, 1, 1, NULL, NULL, &err);
    assert_non_null(driver);
    assert_non_null(exec);
    assert_string_equal(annotation(driver, "yunikorn.apache.org/app-id"), app.app_id);
    assert_string_equal(annotation(exec, "yunikorn.apache.org/app-id"), app.app_id);
    assert_string_equal(annotation(driver, "yunikorn.apache.org/task-group-name"), "spark-driver");
    assert_string_equal(annotation(exec, "yunikorn.apache.org/task-group-name"), "spark-executor");
    assert_null(annotation(exec, "yunikorn.apache.org/task-groups"));
    json_t *groups = json_loads(annotation(driver, "yunikorn.apache.org/task-groups"), 0, NULL);
    assert_int_equal(json_array_size(groups), 2);
    json_t *g = json_array_get(groups, 1);
    assert_string_equal(json_string_value(json_object_get(g, "name")), "spark-executor");
    assert_int_equal(json_integer_value(json_object_get(g, "minMember")), 4);
    assert_string_equal(path_str(g, "minResource", "cpu", NULL), "1000m");
    assert_string_equal(path_str(g, "minResource", "memory", NULL), "1408Mi");
    json_decref(groups);
    json_decref(driver);
    json_decref(exec);

    /* a user's own task group is kept, and no groups are made for it */
    cs_conf_set(c, "spark.kubernetes.driver.annotation.yunikorn.apache.org/task-group-name",
                "mine");
    driver = cs_k8s_driver_pod(c, &app, &err);
    assert_non_null(driver);
    assert_string_equal(annotation(driver, "yunikorn.apache.org/task-group-name"), "mine");
    assert_null(annotation(driver, "yunikorn.apache.org/task-groups"));
    json_decref(driver);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feature_step_classes),    cmocka_unit_test(test_no_step_no_pod_group),
        cmocka_unit_test(test_pod_group_min_resources), cmocka_unit_test(test_pod_group_template),
        cmocka_unit_test(test_yunikorn_annotations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
