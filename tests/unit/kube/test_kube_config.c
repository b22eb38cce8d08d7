/* test_kube_config.c — cs_kube_config_load_env without a server: kubeconfig merging, context
 * selection, token files, *-data fields, in-cluster service account, Spark key overrides,
 * namespace precedence, master URL forms and the error messages; exec credential plugins (their
 * bound, a stop request ending one, when a credential is fetched again). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/shutdown.h"
#include "kube/kube_config.h"
#include "kube/kube_exec.h"

static char tmpdir[256];

static void write_file(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpdir, name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char *tpath(const char *name)
{
    static char bufs[64][512]; /* a ring: each test uses fewer than 64 paths */
    static int i;
    char *b = bufs[i++ % 64];
    snprintf(b, 512, "%s/%s", tmpdir, name);
    return b;
}

static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kube-config-test-XXXXXX");
    assert_non_null(mkdtemp(tmpdir));
    return 0;
}

static int teardown(void **state)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* "hello CA\n" */
#define CA_B64 "aGVsbG8gQ0EK"

static const char *KC_A = "apiVersion: v1\n"
                          "kind: Config\n"
                          "current-context: a\n"
                          "clusters:\n"
                          "- name: ca\n"
                          "  cluster:\n"
                          "    server: https://10.1.1.1:6443\n"
                          "    certificate-authority-data: " CA_B64 "\n"
                          "contexts:\n"
                          "- name: a\n"
                          "  context: {cluster: ca, user: ua, namespace: team-a}\n"
                          "users:\n"
                          "- name: ua\n"
                          "  user:\n"
                          "    token: token-a\n";

static const char *KC_B = "apiVersion: v1\n"
                          "kind: Config\n"
                          "current-context: b\n"
                          "clusters:\n"
                          "- name: ca\n"
                          "  cluster: {server: 'https://10.9.9.9:1'}\n"
                          "- name: cb\n"
                          "  cluster:\n"
                          "    server: https://10.2.2.2:443/\n"
                          "    certificate-authority: certs/ca.pem\n"
                          "    insecure-skip-tls-verify: true\n"
                          "contexts:\n"
                          "- name: b\n"
                          "  context: {cluster: cb, user: ub}\n"
                          "- name: a\n"
                          "  context: {cluster: cb, user: ub, namespace: wrong}\n"
                          "- name: broken\n"
                          "  context: {cluster: nowhere, user: ub}\n"
                          "users:\n"
                          "- name: ub\n"
                          "  user:\n"
                          "    tokenFile: tok/b.token\n";

static void test_merge_first_wins(void **state)
{
    write_file("a.yaml", KC_A);
    write_file("b.yaml", KC_B);
    char list[1100];
    snprintf(list, sizeof list, "%s:%s:%s", tpath("missing.yaml"), tpath("a.yaml"),
             tpath("b.yaml"));
    kube_config_env env = {.kubeconfig = list, .sa_dir = tpath("nosa")};
    cs_conf *conf = cs_conf_new();
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, "spark.kubernetes.authenticate.submission",
                                             &env, &kc, &err),
                     0);
    assert_string_equal(kc.server, "https://10.1.1.1:6443"); /* cluster 'ca' from a.yaml */
    assert_string_equal(kc.context, "a");                    /* current-context of a.yaml */
    assert_string_equal(kc.namespace_, "team-a");
    assert_string_equal(kc.token, "token-a");
    assert_false(kc.insecure);
    assert_non_null(kc.ca_file);
    FILE *f = fopen(kc.ca_file, "r");
    assert_non_null(f);
    char buf[64] = {0};
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "hello CA\n");
    struct stat st;
    assert_int_equal(stat(kc.ca_file, &st), 0);
    assert_int_equal(st.st_mode & 077, 0); /* private */
    char *ca = strdup(kc.ca_file);
    cs_kube_config_free(&kc);
    assert_int_not_equal(access(ca, F_OK), 0); /* removed on free */
    free(ca);
    cs_conf_free(conf);
}

static void test_context_selection_and_token_file(void **state)
{
    write_file("a.yaml", KC_A);
    write_file("b.yaml", KC_B);
    mkdir(tpath("tok"), 0700);
    write_file("tok/b.token", "token-from-file\n");
    char list[1100];
    snprintf(list, sizeof list, "%s:%s", tpath("a.yaml"), tpath("b.yaml"));
    kube_config_env env = {.kubeconfig = list, .sa_dir = tpath("nosa")};
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.kubernetes.context", "b");
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, "spark.kubernetes.authenticate.submission",
                                             &env, &kc, &err),
                     0);
    assert_string_equal(kc.server, "https://10.2.2.2:443");
    assert_string_equal(kc.namespace_, "default");
    assert_string_equal(kc.token, "token-from-file");
    assert_string_equal(kc.token_file, tpath("tok/b.token")); /* relative to b.yaml */
    assert_string_equal(kc.ca_file, tpath("certs/ca.pem"));
    assert_true(kc.insecure);
    assert_non_null(strstr(kc.auth_source, "tok/b.token"));
    cs_kube_config_free(&kc);

    /* unknown context */
    cs_conf_set(conf, "spark.kubernetes.context", "prod");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "context 'prod' not found"));
    assert_non_null(strstr(err.msg, "a.yaml"));
    assert_null(kc.server);

    /* context naming a missing cluster */
    cs_conf_set(conf, "spark.kubernetes.context", "broken");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "cluster 'nowhere'"));
    cs_conf_free(conf);
}

static void test_master_overrides_and_keys(void **state)
{
    write_file("a.yaml", KC_A);
    write_file("ca.pem", "x");
    write_file("sub.token", "sub-token\n");
    kube_config_env env = {.kubeconfig = tpath("a.yaml"), .sa_dir = tpath("nosa")};
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.kubernetes.namespace", "spark");
    cs_conf_set(conf, "spark.kubernetes.authenticate.submission.oauthTokenFile",
                tpath("sub.token"));
    cs_conf_set(conf, "spark.kubernetes.authenticate.submission.caCertFile", tpath("ca.pem"));
    cs_conf_set(conf, "spark.kubernetes.authenticate.driver.oauthToken", "not-mine");
    cs_conf_set(conf, "spark.kubernetes.trust.certificates", "true");
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, "k8s://api.example:6443",
                                             "spark.kubernetes.authenticate.submission", &env, &kc,
                                             &err),
                     0);
    assert_string_equal(kc.server, "https://api.example:6443");
    assert_string_equal(kc.namespace_, "spark");
    assert_string_equal(kc.token, "sub-token");
    assert_string_equal(kc.ca_file, tpath("ca.pem"));
    assert_true(kc.insecure);
    cs_kube_config_free(&kc);

    assert_int_equal(cs_kube_config_load_env(conf, "k8s://http://127.0.0.1:8001",
                                             "spark.kubernetes.authenticate.driver", &env, &kc,
                                             &err),
                     0);
    assert_string_equal(kc.server, "http://127.0.0.1:8001");
    assert_string_equal(kc.token, "not-mine");
    assert_string_equal(kc.auth_source, "spark.kubernetes.authenticate.driver.oauthToken");
    cs_kube_config_free(&kc);

    cs_conf_set(conf, "spark.kubernetes.authenticate.submission.oauthToken", "t");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, "spark.kubernetes.authenticate.submission",
                                             &env, &kc, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "cannot both be set"));
    cs_conf_unset(conf, "spark.kubernetes.authenticate.submission.oauthToken");

    cs_conf_set(conf, "spark.kubernetes.authenticate.submission.clientCertFile",
                "/nonexistent/c.pem");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, "spark.kubernetes.authenticate.submission",
                                             &env, &kc, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.kubernetes.authenticate.submission.clientCertFile"));
    assert_non_null(strstr(err.msg, "/nonexistent/c.pem"));
    cs_conf_free(conf);
}

static void test_in_cluster(void **state)
{
    mkdir(tpath("sa"), 0700);
    write_file("sa/token", "sa-token\n");
    write_file("sa/ca.crt", "CA");
    write_file("sa/namespace", "spark-jobs");
    kube_config_env env = {.home = tpath("nohome"),
                           .service_host = "10.96.0.1",
                           .service_port = "443",
                           .sa_dir = tpath("sa")};
    cs_conf *conf = cs_conf_new();
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, "spark.kubernetes.authenticate.driver",
                                             &env, &kc, &err),
                     0);
    assert_string_equal(kc.server, "https://10.96.0.1:443");
    assert_string_equal(kc.token, "sa-token");
    assert_string_equal(kc.ca_file, tpath("sa/ca.crt"));
    assert_string_equal(kc.namespace_, "spark-jobs");
    assert_non_null(strstr(kc.auth_source, "service account token"));
    cs_kube_config_free(&kc);

    /* the driver's master URL form (no k8s:// prefix) */
    assert_int_equal(cs_kube_config_load_env(conf, "https://kubernetes.default.svc",
                                             "spark.kubernetes.authenticate.driver", &env, &kc,
                                             &err),
                     0);
    assert_string_equal(kc.server, "https://kubernetes.default.svc");
    cs_kube_config_free(&kc);

    /* IPv6 service host */
    env.service_host = "fd00::1";
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), 0);
    assert_string_equal(kc.server, "https://[fd00::1]:443");
    cs_kube_config_free(&kc);
    cs_conf_free(conf);
}

static void test_no_server_and_bad_yaml(void **state)
{
    kube_config_env env = {.home = tpath("nohome"), .sa_dir = tpath("nosa")};
    cs_conf *conf = cs_conf_new();
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), CS_EINVAL);
    assert_string_equal(err.msg, "no Kubernetes API server: give --master k8s://https://host:port "
                                 "or set KUBECONFIG");

    assert_int_equal(cs_kube_config_load_env(conf, "k8s://nohost", NULL, &env, &kc, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "k8s://nohost"));
    assert_int_equal(cs_kube_config_load_env(conf, "spark://x:1", NULL, &env, &kc, &err),
                     CS_EINVAL);

    write_file("bad.yaml", "clusters:\n  - name: x\n   bad: [\n");
    env.kubeconfig = tpath("bad.yaml");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "bad.yaml"));
    assert_non_null(strstr(err.msg, "line"));

    write_file("data.yaml", "current-context: c\n"
                            "clusters: [{name: k, cluster: {server: 'https://h:1', "
                            "certificate-authority-data: '!!!notbase64'}}]\n"
                            "contexts: [{name: c, context: {cluster: k}}]\n");
    env.kubeconfig = tpath("data.yaml");
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "certificate-authority-data is not valid base64"));

    /* home kubeconfig */
    mkdir(tpath("home"), 0700);
    mkdir(tpath("home/.kube"), 0700);
    write_file("home/.kube/config", KC_A);
    kube_config_env env2 = {.home = tpath("home"), .sa_dir = tpath("nosa")};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env2, &kc, &err), 0);
    assert_string_equal(kc.server, "https://10.1.1.1:6443");
    cs_kube_config_free(&kc);
    cs_kube_config_free(&kc); /* idempotent */
    cs_conf_free(conf);
}

static void test_client_cert_data(void **state)
{
    /* "CERT\n" and "KEY\n" */
    write_file("cert.yaml", "current-context: c\n"
                            "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
                            "contexts: [{name: c, context: {cluster: k, user: u, namespace: n1}}]\n"
                            "users:\n- name: u\n  user:\n"
                            "    client-certificate-data: Q0VSVAo=\n"
                            "    client-key-data: |\n      S0VZ\n      Cg==\n");
    kube_config_env env = {.kubeconfig = tpath("cert.yaml"), .sa_dir = tpath("nosa")};
    cs_conf *conf = cs_conf_new();
    kube_config kc;
    cs_error err = {0};
    assert_int_equal(cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err), 0);
    assert_string_equal(kc.namespace_, "n1");
    assert_null(kc.token);
    char buf[32] = {0};
    FILE *f = fopen(kc.client_cert_file, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "CERT\n");
    f = fopen(kc.client_key_file, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    assert_string_equal(buf, "KEY\n");
    assert_non_null(strstr(kc.auth_source, "client certificate"));
    cs_kube_config_free(&kc);
    cs_conf_free(conf);
}

/* users[].user.exec: the plugin (relative to the kubeconfig's directory) gets its args, its env
 * and KUBERNETES_EXEC_INFO; its ExecCredential's token is used; a failing plugin, a wrong kind or
 * apiVersion are refused naming the plugin (the plugin was once only warned about, never run). */
static void test_exec_credential_plugin(void **state)
{
    write_file("plugin.sh",
               "#!/bin/sh\n"
               "echo \"$1 $GREETING $KUBERNETES_EXEC_INFO\" > \"$(dirname \"$0\")/seen\"\n"
               "case \"$MODE\" in\n"
               "fail) echo 'first line' >&2; echo 'token expired: run aws sso login' >&2; "
               "exit 3 ;;\n"
               "wrongkind) echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
               "\"kind\":\"Nope\"}' ;;\n"
               "*) echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
               "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-from-plugin\","
               "\"expirationTimestamp\":\"2030-01-02T03:04:05Z\"}}' ;;\n"
               "esac\n");
    assert_int_equal(chmod(tpath("plugin.sh"), 0755), 0);
    const char *kc_fmt = "current-context: c\n"
                         "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
                         "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
                         "users:\n- name: u\n  user:\n    exec:\n"
                         "      apiVersion: client.authentication.k8s.io/v1\n"
                         "      command: ./plugin.sh\n      args: [eks-token]\n"
                         "      env: [{name: GREETING, value: hi}, {name: MODE, value: %s}]\n"
                         "      interactiveMode: Never\n";
    char text[1024];
    const char *modes[] = {"ok", "fail", "wrongkind"};
    for (int m = 0; m < 3; m++) {
        snprintf(text, sizeof text, kc_fmt, modes[m]);
        write_file("exec.yaml", text);
        kube_config_env env = {.kubeconfig = tpath("exec.yaml"), .sa_dir = tpath("nosa")};
        cs_conf *conf = cs_conf_new();
        kube_config kc;
        cs_error err = {0};
        int rc = cs_kube_config_load_env(conf, NULL, NULL, &env, &kc, &err);
        if (m == 0) {
            assert_int_equal(rc, 0);
            assert_string_equal(kc.token, "tok-from-plugin");
            assert_non_null(strstr(kc.auth_source, "exec plugin ./plugin.sh"));
            assert_true(kc.exec_expires_ms == 1893553445000LL);
            char seen[512] = {0};
            FILE *f = fopen(tpath("seen"), "r");
            assert_non_null(f);
            assert_non_null(fgets(seen, sizeof seen, f));
            fclose(f);
            assert_non_null(strstr(seen,
                                   "eks-token hi {\"apiVersion\":\"client.authentication.k8s.io/"
                                   "v1\",\"kind\":\"ExecCredential\""));
            cs_kube_config_free(&kc);
        } else if (m == 1) {
            assert_int_equal(rc, CS_EAUTH);
            assert_non_null(strstr(err.msg, "user 'u'"));
            assert_non_null(strstr(err.msg, "exec plugin ./plugin.sh exited with status 3: token "
                                            "expired: run aws sso login"));
        } else {
            assert_int_equal(rc, CS_EAUTH);
            assert_non_null(strstr(err.msg, "exec plugin ./plugin.sh did not print an "
                                            "ExecCredential"));
        }
        cs_conf_free(conf);
    }
}

/* A plugin that closes its output and keeps running (issue 21 item 5): before, cspark-submit
 * waited for its exit for good; now its bound covers it, it is killed, and the error names it. */
static void test_exec_plugin_closes_output_and_stays(void **state)
{
    write_file("stay.sh", "#!/bin/sh\nexec >&- 2>&-\nexec sleep 600\n");
    assert_int_equal(chmod(tpath("stay.sh"), 0755), 0);
    json_t *exec = json_pack("{s:s, s:s}", "command", "./stay.sh", "apiVersion",
                             "client.authentication.k8s.io/v1");
    kube_exec_cred cred;
    cs_error err = {0};
    int64_t t0 = cs_mono_ms();
    assert_int_equal(cs_kube_exec_run(exec, tmpdir, 1500, &cred, &err), CS_ETIMEOUT);
    assert_true(cs_mono_ms() - t0 < 60000); /* bounded by its 1.5 s, not by sleep 600 */
    assert_non_null(strstr(err.msg, "exec plugin ./stay.sh: no answer within 1 s (it closed its "
                                    "output but did not exit)"));
    json_decref(exec);
}

/* The plugin writes its pid, then hangs; the main thread's stop request must end it at once. */
static void *request_stop_when_started(void *arg)
{
    const char *pidfile = arg;
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (access(pidfile, F_OK) != 0)
        nanosleep(&ts, NULL);
    cs_shutdown_request(SIGTERM);
    return NULL;
}

static void test_exec_plugin_stopped_by_signal(void **state)
{
    write_file("hang.sh", "#!/bin/sh\necho $$ > \"$(dirname \"$0\")/hang.pid\"\nexec sleep 600\n");
    assert_int_equal(chmod(tpath("hang.sh"), 0755), 0);
    json_t *exec = json_pack("{s:s, s:s}", "command", "./hang.sh", "apiVersion",
                             "client.authentication.k8s.io/v1");
    pthread_t th;
    char *pidfile = strdup(tpath("hang.pid"));
    assert_int_equal(pthread_create(&th, NULL, request_stop_when_started, pidfile), 0);
    kube_exec_cred cred;
    cs_error err = {0};
    /* a day's bound: only the stop request can end this run */
    assert_int_equal(cs_kube_exec_run(exec, tmpdir, 86400000, &cred, &err), CS_ECANCELLED);
    pthread_join(th, NULL);
    assert_non_null(strstr(err.msg, "exec plugin ./hang.sh: stopped by signal 15"));
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int pid = 0;
    assert_int_equal(fscanf(f, "%d", &pid), 1);
    fclose(f);
    assert_int_equal(kill(pid, 0), -1); /* killed and reaped */
    free(pidfile);
    json_decref(exec);
}

/* When the credential is fetched again (explicit times): a minute before it expires, never
 * sooner than 30 s after a fetch (an expired answer was fetched again before every request:
 * 9 plugin runs for one job). */
static void test_exec_refresh_times(void **state)
{
    const int64_t now = 1700000000000LL;
    assert_true(cs_kube_exec_refresh_at(0, now) == 0);
    assert_true(cs_kube_exec_refresh_at(now + 15 * 60000, now) == now + 14 * 60000);
    assert_true(cs_kube_exec_refresh_at(now - 5000, now) == now + 30000); /* already expired */
    assert_true(cs_kube_exec_refresh_at(now + 70000, now) == now + 30000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_merge_first_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_context_selection_and_token_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_master_overrides_and_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_in_cluster, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_server_and_bad_yaml, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_cert_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exec_credential_plugin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exec_plugin_closes_output_and_stays, setup, teardown),
        cmocka_unit_test_setup_teardown(test_exec_plugin_stopped_by_signal, setup, teardown),
        cmocka_unit_test(test_exec_refresh_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
