/* test_kube_spark_keys.c — the Spark keys that give the Kubernetes client its credentials and
 * timeouts, for each of the three who connect: cspark-submit (spark.kubernetes.authenticate.
 * submission.*, spark.kubernetes.submission.*Timeout), the driver in its pod
 * (spark.kubernetes.authenticate.driver.mounted.*, spark.kubernetes.driver.*Timeout) and a
 * client-mode driver (spark.kubernetes.authenticate.*). Each key set to a value other than its
 * default changes the client (tests/k8s/conf_keys.sh points here for them):
 *   spark.kubernetes.authenticate.submission.clientKeyFile (the other submission keys: also
 *   test_kube_config.c), spark.kubernetes.authenticate.driver.mounted.caCertFile,
 *   spark.kubernetes.authenticate.driver.mounted.clientCertFile,
 *   spark.kubernetes.authenticate.driver.mounted.clientKeyFile,
 *   spark.kubernetes.authenticate.driver.mounted.oauthToken,
 *   spark.kubernetes.authenticate.driver.mounted.oauthTokenFile,
 *   spark.kubernetes.authenticate.caCertFile, spark.kubernetes.authenticate.clientCertFile,
 *   spark.kubernetes.authenticate.clientKeyFile, spark.kubernetes.authenticate.oauthToken,
 *   spark.kubernetes.authenticate.oauthTokenFile; spark.kubernetes.submission.requestTimeout,
 *   spark.kubernetes.submission.connectionTimeout, spark.kubernetes.driver.requestTimeout,
 *   spark.kubernetes.driver.connectionTimeout. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_internal.h"

static char dir[64];

static const char *path(const char *name)
{
    static char bufs[16][128];
    static int i;
    char *b = bufs[i++ % 16];
    snprintf(b, 128, "%s/%s", dir, name);
    return b;
}

static void write_file(const char *name, const char *text)
{
    FILE *f = fopen(path(name), "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kube-keys-test-XXXXXX");
    assert_non_null(mkdtemp(dir));
    write_file("kubeconfig", "apiVersion: v1\nkind: Config\ncurrent-context: a\nclusters:\n"
                             "- name: c\n  cluster: {server: 'https://10.1.1.1:6443'}\n"
                             "contexts:\n- name: a\n  context: {cluster: c, user: u}\n"
                             "users:\n- name: u\n  user: {token: from-kubeconfig}\n");
    write_file("ca.pem", "ca");
    write_file("client.crt", "crt");
    write_file("client.key", "key");
    write_file("token", "from-file\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* every credential key of one prefix, with files, then the token itself */
static void check_prefix(const char *prefix)
{
    kube_config_env env = {.kubeconfig = path("kubeconfig"), .sa_dir = path("nosa")};
    cs_conf *conf = cs_conf_new();
    char key[160];
    static const struct {
        const char *suffix, *file;
    } files[] = {{"caCertFile", "ca.pem"},
                 {"clientCertFile", "client.crt"},
                 {"clientKeyFile", "client.key"},
                 {"oauthTokenFile", "token"}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(key, sizeof key, "%s.%s", prefix, files[i].suffix);
        cs_conf_set(conf, key, path(files[i].file));
    }
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, prefix, &env, &kc, &err), 0);
    assert_string_equal(kc.ca_file, path("ca.pem"));
    assert_string_equal(kc.client_cert_file, path("client.crt"));
    assert_string_equal(kc.client_key_file, path("client.key"));
    assert_string_equal(kc.token, "from-file");
    cs_kube_config_free(&kc);
    snprintf(key, sizeof key, "%s.oauthTokenFile", prefix);
    cs_conf_unset(conf, key);
    snprintf(key, sizeof key, "%s.oauthToken", prefix);
    cs_conf_set(conf, key, "from-conf");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, prefix, &env, &kc, &err), 0);
    assert_string_equal(kc.token, "from-conf");
    assert_string_equal(kc.auth_source, key);
    cs_kube_config_free(&kc);
    cs_conf_free(conf);
}

static void test_credentials_of_each_client(void **state)
{
    (void)state;
    check_prefix("spark.kubernetes.authenticate.submission");
    check_prefix("spark.kubernetes.authenticate.driver.mounted");
    check_prefix("spark.kubernetes.authenticate"); /* client mode */
}

static void check_timeouts(const char *prefix)
{
    kube_config_env env = {.kubeconfig = path("kubeconfig"), .sa_dir = path("nosa")};
    cs_conf *conf = cs_conf_new();
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), 0);
    kube_client *c = cs_kube_client_new(&kc, conf, prefix, &err);
    assert_non_null(c);
    assert_int_equal(c->timeout_ms, 10000); /* Spark's defaults */
    assert_int_equal(c->connect_timeout_ms, 10000);
    cs_kube_client_free(c);
    char key[128];
    snprintf(key, sizeof key, "%s.requestTimeout", prefix);
    cs_conf_set(conf, key, "1234");
    snprintf(key, sizeof key, "%s.connectionTimeout", prefix);
    cs_conf_set(conf, key, "567");
    c = cs_kube_client_new(&kc, conf, prefix, &err);
    assert_non_null(c);
    assert_int_equal(c->timeout_ms, 1234);
    assert_int_equal(c->connect_timeout_ms, 567);
    cs_kube_client_free(c);
    cs_kube_config_free(&kc);
    cs_conf_free(conf);
}

/* spark.kubernetes.submission.requestTimeout, spark.kubernetes.submission.connectionTimeout,
 * spark.kubernetes.driver.requestTimeout, spark.kubernetes.driver.connectionTimeout */
static void test_timeouts_of_each_client(void **state)
{
    (void)state;
    check_timeouts("spark.kubernetes.submission");
    check_timeouts("spark.kubernetes.driver");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_credentials_of_each_client),
        cmocka_unit_test(test_timeouts_of_each_client),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
