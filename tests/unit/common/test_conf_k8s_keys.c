/* test_conf_k8s_keys.c — unit tests for the table of Spark 4.1's spark.kubernetes.* keys
 * (conf_k8s_keys.c) and the per-scope defaults (conf_entries.c). Regression (issue 28 item 1):
 * spark.kubernetes.allocation.pods.allocator=statefulset and spark.kubernetes.executor.rollInterval
 * were accepted and ignored; now each refused key is refused in one line naming it, its value and
 * why, unless it is set to Spark's default; families (excludedFeatureSteps) too. The statefulset
 * allocator is implemented since (k8s_statefulset.c): only an allocator class is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/conf_entries.h"
#include "common/conf_k8s_keys.h"

static int validate(const char *key, const char *value, cs_error *err)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, key, value);
    cs_error_clear(err);
    int rc = cs_conf_validate(c, err);
    cs_conf_free(c);
    return rc;
}

static void expect_refused(const char *key, const char *value, const char *message)
{
    cs_error err;
    int rc = validate(key, value, &err);
    if (rc != CS_EINVAL || strcmp(err.msg, message) != 0)
        fail_msg("%s=%s: rc %d, message '%s', want '%s'", key, value, rc, err.msg, message);
}

static void expect_accepted(const char *key, const char *value)
{
    cs_error err;
    if (validate(key, value, &err) != CS_OK) fail_msg("%s=%s refused: %s", key, value, err.msg);
}

static void test_accepted_and_ignored_keys_are_refused(void **state)
{
    (void)state;
    expect_refused("spark.kubernetes.allocation.pods.allocator", "org.example.MyAllocator",
                   "spark.kubernetes.allocation.pods.allocator: 'org.example.MyAllocator' is not "
                   "supported by cspark (allocator classes are JVM classes); use direct or "
                   "statefulset");
    expect_accepted("spark.kubernetes.allocation.pods.allocator", "statefulset");
    /* executor rolling is implemented: it needs decommissioning (k8s_executor_roll.h) */
    expect_refused("spark.kubernetes.executor.rollInterval", "60s",
                   "spark.kubernetes.executor.rollInterval: '60s' rolls executors by "
                   "decommissioning them; set spark.decommission.enabled=true, or remove it");
    /* Spark's default, in any spelling, changes nothing */
    expect_accepted("spark.kubernetes.allocation.pods.allocator", "direct");
    expect_accepted("spark.kubernetes.executor.rollInterval", "0");
    expect_accepted("spark.kubernetes.executor.rollInterval", "0ms");
    expect_accepted("spark.kubernetes.executor.enablePollingWithResourceVersion", "FALSE");
}

static void test_families_values_and_keys_without_default(void **state)
{
    (void)state;
    expect_refused("spark.kubernetes.driver.pod.excludedFeatureSteps", "org.example.Step",
                   "spark.kubernetes.driver.pod.excludedFeatureSteps: 'org.example.Step' is not "
                   "supported by cspark (JVM feature step classes: cspark's feature steps are "
                   "built in); remove it");
    /* Spark's Volcano and YuniKorn steps run as cspark's own; another class is refused when the
     * pods are built (tests/unit/k8s/test_k8s_batch_scheduler.c) */
    expect_accepted("spark.kubernetes.driver.pod.featureSteps",
                    "org.apache.spark.deploy.k8s.features.VolcanoFeatureStep");
    expect_refused("spark.kubernetes.kerberos.krb5.path", "/etc/krb5.conf",
                   "spark.kubernetes.kerberos.krb5.path: '/etc/krb5.conf' is not supported by "
                   "cspark (Kerberos and Hadoop delegation tokens belong to the JVM's Hadoop "
                   "client); remove it");
    expect_accepted("spark.kubernetes.driver.master", "local[*]"); /* driver-pod-only mode */
    /* implemented keys and families pass */
    expect_accepted("spark.kubernetes.driver.label.team", "blue");
    expect_accepted("spark.kubernetes.allocation.maxPendingPodsPerRp", "1");
    expect_accepted("spark.kubernetes.pyspark.pythonVersion", "3");
    /* a control byte is not echoed */
    cs_error err;
    assert_int_equal(validate("spark.kubernetes.executor.rollPolicy", "ID\n", &err), CS_EINVAL);
    assert_null(strchr(err.msg, '\n'));
}

static void test_every_row_is_documented(void **state)
{
    (void)state;
    int n;
    const cs_conf_k8s_key *keys = cs_conf_k8s_keys(&n);
    assert_true(n > 100);
    for (int i = 0; i < n; i++) {
        const cs_conf_k8s_key *k = &keys[i];
        if (strncmp(k->key, "spark.kubernetes.", 17) != 0 || !k->meaning || !*k->meaning)
            fail_msg("row %d (%s): not a spark.kubernetes key, or no meaning", i, k->key);
        char key[256]; /* a family's row is found by a key under it */
        snprintf(key, sizeof key, "%s%s", k->key, k->key[strlen(k->key) - 1] == '.' ? "x" : "");
        if (cs_conf_k8s_key_find(key) != k) fail_msg("%s is in the table twice", k->key);
        const cs_conf_entry *e = cs_conf_entry_find(k->key);
        if (k->refused && e && e->dflt) {
            cs_conf *c = cs_conf_new(); /* its default is accepted */
            cs_conf_set(c, k->key, e->dflt);
            cs_error err;
            cs_error_clear(&err);
            if (cs_conf_k8s_check(c, &err) != CS_OK) fail_msg("%s: %s", k->key, err.msg);
            cs_conf_free(c);
        }
    }
    assert_non_null(
        cs_conf_k8s_key_find("spark.kubernetes.executor.volumes.hostPath.x.mount.path"));
    assert_null(cs_conf_k8s_key_find("spark.kubernetes.driver.label."));
}

static void test_scoped_defaults(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    cs_error err;
    cs_error_clear(&err);
    int64_t v;
    assert_int_equal(cs_conf_entry_int(c, "spark.driver.port", &v, &err), CS_OK);
    assert_int_equal(v, 0); /* Spark's general default: any free port */
    assert_int_equal(cs_conf_entry_int_in(c, "spark.driver.port", CS_CONF_IN_DRIVER_POD, &v, &err),
                     CS_OK);
    assert_int_equal(v, 7078);
    assert_int_equal(
        cs_conf_entry_int_in(c, "spark.driver.blockManager.port", CS_CONF_IN_DRIVER_POD, &v, &err),
        CS_OK);
    assert_int_equal(v, 7079);
    assert_int_equal(cs_conf_entry_int_in(c, "spark.ui.port", CS_CONF_IN_DRIVER_POD, &v, &err),
                     CS_OK);
    assert_int_equal(v, 4040);
    cs_conf_set(c, "spark.driver.port", "7000");
    cs_conf_entry_set_defaults_in(c, CS_CONF_IN_CLUSTER);
    assert_string_equal(cs_conf_get(c, "spark.authenticate"), "true");
    assert_null(cs_conf_get(c, "spark.driver.blockManager.port")); /* not in that scope */
    cs_conf_entry_set_defaults_in(c, CS_CONF_IN_DRIVER_POD);
    assert_null(cs_conf_get(c, "spark.blockManager.port"));           /* the executors' */
    assert_string_equal(cs_conf_get(c, "spark.driver.port"), "7000"); /* a set key stays */
    assert_string_equal(cs_conf_get(c, "spark.driver.blockManager.port"), "7079");
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_and_ignored_keys_are_refused),
        cmocka_unit_test(test_families_values_and_keys_without_default),
        cmocka_unit_test(test_every_row_is_documented),
        cmocka_unit_test(test_scoped_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
