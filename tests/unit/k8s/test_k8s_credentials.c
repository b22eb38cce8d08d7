/* test_k8s_credentials.c — unit tests for the driver's shipped API-server credentials
 * (k8s_step_credentials.c): the Secret's name, keys and contents, the driver pod's volume and
 * mount (executors get none), the mounted.* properties in the driver's ConfigMap with the token's
 * value left out, a user's mounted.* key winning, and the errors for a missing file and for a
 * token given twice. */
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

#define MOUNTED "spark.kubernetes.authenticate.driver.mounted."

static json_t *named(json_t *arr, const char *field, const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e)
    {
        const char *v = json_string_value(json_object_get(e, field));
        if (v && !strcmp(v, value)) return e;
    }
    return NULL;
}

static json_t *container0(json_t *pod)
{
    return json_array_get(json_object_get(json_object_get(pod, "spec"), "containers"), 0);
}

static void test_no_credentials_no_secret(void **state)
{
    cs_conf *c = base_conf();
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *secret = (json_t *)1;
    assert_int_equal(cs_k8s_driver_credentials_secret(c, &app, &secret, &err), CS_OK);
    assert_null(secret);
    json_t *pod = cs_k8s_driver_pod(c, &app, &err);
    assert_non_null(pod);
    assert_null(named(json_object_get(json_object_get(pod, "spec"), "volumes"), "name",
                      "kubernetes-credentials"));
    json_decref(pod);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_secret_pod_and_properties(void **state)
{
    char *ca = write_tmp("CA PEM\n"), *key = write_tmp("KEY PEM\n");
    cs_conf *c = base_conf();
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.caCertFile", ca);
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.clientKeyFile", key);
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.oauthToken", "tok-value-1");
    cs_conf_set(c, MOUNTED "clientKeyFile", "/etc/mine/key.pem"); /* the user's mount wins */
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};

    json_t *secret = NULL;
    assert_int_equal(cs_k8s_driver_credentials_secret(c, &app, &secret, &err), CS_OK);
    assert_non_null(secret);
    char want[300];
    snprintf(want, sizeof want, "%s-kubernetes-credentials", app.prefix);
    json_t *meta = json_object_get(secret, "metadata");
    assert_string_equal(json_string_value(json_object_get(meta, "name")), want);
    assert_string_equal(json_string_value(json_object_get(meta, "namespace")), "jobs");
    json_t *data = json_object_get(secret, "data");
    assert_string_equal(json_string_value(json_object_get(data, "ca-cert")), "Q0EgUEVNCg==");
    assert_string_equal(json_string_value(json_object_get(data, "client-key")), "S0VZIFBFTQo=");
    assert_string_equal(json_string_value(json_object_get(data, "oauth-token")),
                        "dG9rLXZhbHVlLTE=");
    assert_null(json_object_get(data, "client-cert"));
    json_decref(secret);

    json_t *pod = cs_k8s_driver_pod(c, &app, &err);
    assert_non_null(pod);
    json_t *vol = named(json_object_get(json_object_get(pod, "spec"), "volumes"), "name",
                        "kubernetes-credentials");
    assert_non_null(vol);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(vol, "secret"), "secretName")), want);
    json_t *mnt =
        named(json_object_get(container0(pod), "volumeMounts"), "mountPath", K8S_CREDENTIALS_DIR);
    assert_non_null(mnt);
    assert_string_equal(json_string_value(json_object_get(mnt, "name")), "kubernetes-credentials");
    json_decref(pod);

    json_t *exec = cs_k8s_executor_pod(c, &app, 1, 1, NULL, NULL, &err);
    assert_non_null(exec);
    assert_null(named(json_object_get(json_object_get(exec, "spec"), "volumes"), "name",
                      "kubernetes-credentials"));
    json_decref(exec);

    cs_k8s_add_driver_system_properties(c, &app);
    json_t *cm = cs_k8s_driver_configmap(c, &app, NULL, 0, &err);
    assert_non_null(cm);
    const char *props =
        json_string_value(json_object_get(json_object_get(cm, "data"), "spark.properties"));
    assert_non_null(strstr(props, MOUNTED "caCertFile=" K8S_CREDENTIALS_DIR "/ca-cert"));
    assert_non_null(strstr(props, MOUNTED "oauthTokenFile=" K8S_CREDENTIALS_DIR "/oauth-token"));
    assert_non_null(strstr(props, MOUNTED "clientKeyFile=/etc/mine/key.pem"));
    assert_null(strstr(props, "tok-value-1"));
    json_decref(cm);

    unlink(ca);
    unlink(key);
    free(ca);
    free(key);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

static void test_errors_name_the_key(void **state)
{
    cs_conf *c = base_conf();
    k8s_app app;
    app_init_ok(&app, c);
    cs_error err = {0};
    json_t *secret = NULL;
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.clientCertFile", "/nonexistent/c.pem");
    assert_int_equal(cs_k8s_driver_credentials_secret(c, &app, &secret, &err), CS_ENOTFOUND);
    assert_null(secret);
    assert_non_null(strstr(err.msg, "spark.kubernetes.authenticate.driver.clientCertFile"));
    assert_non_null(strstr(err.msg, "/nonexistent/c.pem"));

    char *tok = write_tmp("t\n");
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.clientCertFile", tok);
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.oauthTokenFile", tok);
    cs_conf_set(c, "spark.kubernetes.authenticate.driver.oauthToken", "t");
    assert_int_equal(cs_k8s_driver_credentials_secret(c, &app, &secret, &err), CS_EINVAL);
    assert_null(secret);
    assert_non_null(strstr(err.msg, "spark.kubernetes.authenticate.driver.oauthTokenFile"));
    assert_non_null(strstr(err.msg, "spark.kubernetes.authenticate.driver.oauthToken "));
    unlink(tok);
    free(tok);
    cs_k8s_app_free(&app);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_credentials_no_secret),
        cmocka_unit_test(test_secret_pod_and_properties),
        cmocka_unit_test(test_errors_name_the_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
