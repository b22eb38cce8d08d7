/* test_k8s_lifecycle_manager.c — unit tests for the rule that decides when an executor pod has
 * ended and how the lifecycle manager explains it (src/cluster/k8s/k8s_lifecycle_manager.c,
 * Spark's ExecutorPodsLifecycleManager): Failed and Succeeded phases, a Running pod whose
 * executor container terminated, a sidecar terminated non-zero with and without
 * spark.kubernetes.executor.checkAllContainers, and Spark's message naming the exit code, the
 * API's reason and message and every container's state. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_lifecycle_manager.h"

static json_t *pod(const char *phase, const char *containers_json)
{
    json_error_t e;
    json_t *cs = json_loads(containers_json, 0, &e);
    assert_non_null(cs);
    return json_pack("{s:{s:s},s:{s:s,s:s,s:o}}", "metadata", "name", "app-exec-3", "status",
                     "phase", phase, "reason", "OOMKilled", "containerStatuses", cs);
}

static void test_failed_pod_explained(void **state)
{
    (void)state;
    json_t *p = pod("Failed", "[{\"name\":\"spark-kubernetes-executor\",\"state\":{\"terminated\":"
                              "{\"exitCode\":137,\"reason\":\"OOMKilled\"}}}]");
    char why[1500];
    bool failed = false;
    assert_true(cs_k8s_pod_ended(true, 3, p, why, sizeof why, &failed));
    assert_true(failed);
    assert_non_null(strstr(why, "The executor with id 3 (pod app-exec-3, phase Failed) exited "
                                "with exit code 137"));
    assert_non_null(strstr(why, "brief reason: OOMKilled"));
    assert_non_null(strstr(why, "container statuses: spark-kubernetes-executor: terminated, "
                                "exitCode 137, reason OOMKilled"));
    json_decref(p);
}

static void test_succeeded_with_zero_is_no_failure(void **state)
{
    (void)state;
    json_t *p = pod("Succeeded", "[{\"name\":\"spark-kubernetes-executor\",\"state\":"
                                 "{\"terminated\":{\"exitCode\":0}}}]");
    char why[1500];
    bool failed = true;
    assert_true(cs_k8s_pod_ended(true, 3, p, why, sizeof why, &failed));
    assert_false(failed);
    json_decref(p);
}

static void test_running_pods(void **state)
{
    (void)state;
    char why[1500];
    bool failed = false;
    /* still running: not ended */
    json_t *p = pod("Running", "[{\"name\":\"spark-kubernetes-executor\",\"state\":"
                               "{\"running\":{}}}]");
    assert_false(cs_k8s_pod_ended(true, 3, p, why, sizeof why, &failed));
    json_decref(p);
    /* the executor container ended while the pod still shows Running */
    p = pod("Running", "[{\"name\":\"spark-kubernetes-executor\",\"state\":{\"terminated\":"
                       "{\"exitCode\":1}}},{\"name\":\"side\",\"state\":{\"running\":{}}}]");
    assert_true(cs_k8s_pod_ended(true, 3, p, why, sizeof why, &failed));
    assert_true(failed);
    assert_non_null(strstr(why, "side: running"));
    json_decref(p);
    /* a sidecar ended non-zero: ends the executor only with checkAllContainers */
    p = pod("Running", "[{\"name\":\"spark-kubernetes-executor\",\"state\":{\"running\":{}}},"
                       "{\"name\":\"side\",\"state\":{\"terminated\":{\"exitCode\":2}}}]");
    assert_true(cs_k8s_pod_ended(true, 3, p, why, sizeof why, &failed));
    assert_true(failed);
    assert_false(cs_k8s_pod_ended(false, 3, p, why, sizeof why, &failed));
    json_decref(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_pod_explained),
        cmocka_unit_test(test_succeeded_with_zero_is_no_failure),
        cmocka_unit_test(test_running_pods),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
