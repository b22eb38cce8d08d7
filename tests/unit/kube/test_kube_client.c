/* test_kube_client.c — kube_client against a real kubesim (HTTPS, verification on): CRUD round
 * trips, label selectors, delete-collection, the 404/409/422/403/401 and missing-namespace
 * messages, an unreachable server, retries under injected 500s and 429s, and TLS with a wrong CA
 * (refused) unless spark.kubernetes.trust.certificates. kubesim is started per group and always
 * stopped in the group teardown. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include "kube/kube_internal.h"
#include "kubesim_proc.h"

static kubesim_proc ks;
static kube_client *kc;
static cs_conf *conf;

static int group_setup(void **state)
{
    if (kubesim_start(&ks, "--no-kubelet", (const char *)NULL)) return -1;
    conf = cs_conf_new();
    cs_error err = {0};
    kc = kubesim_client(&ks, conf, NULL, &err);
    if (!kc) fprintf(stderr, "client: %s\n", err.msg);
    return kc ? 0 : -1;
}

static int group_teardown(void **state)
{
    cs_kube_client_free(kc);
    cs_conf_free(conf);
    kubesim_stop(&ks);
    return 0;
}

static void set_faults(const char *json)
{
    cs_error err = {0};
    json_t *body = json_loads(json, 0, NULL);
    assert_non_null(body);
    int rc = cs_kube_request(kc, "other", body ? "POST" : "DELETE", "/kubesim/faults", body, NULL,
                             NULL, &err);
    json_decref(body);
    assert_int_equal(rc, 0);
}

static void clear_faults(void)
{
    cs_error err = {0};
    assert_int_equal(
        cs_kube_request(kc, "other", "DELETE", "/kubesim/faults", NULL, NULL, NULL, &err), 0);
}

static size_t list_len(json_t *list)
{
    return json_array_size(json_object_get(list, "items"));
}

static void test_crud_round_trip(void **state)
{
    cs_error err = {0};
    assert_string_equal(cs_kube_client_namespace(kc), "default");
    int64_t creates0 = cs_kube_client_requests(kc, "create");
    json_t *created = NULL;
    json_t *p = ks_pod("crud-a1", "a");
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, &created, &err), 0);
    json_decref(p);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(created, "metadata"), "name")),
        "crud-a1");
    assert_non_null(json_object_get(json_object_get(created, "metadata"), "uid"));
    json_decref(created);
    p = ks_pod("crud-a2", "a");
    assert_int_equal(cs_kube_create(kc, "pods", "default", p, NULL, &err), 0);
    json_decref(p);
    p = ks_pod("crud-b1", "b");
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, NULL, &err), 0);
    json_decref(p);
    assert_int_equal(cs_kube_client_requests(kc, "create") - creates0, 3);

    json_t *obj = NULL;
    assert_int_equal(cs_kube_get(kc, "pods", NULL, "crud-a1", &obj, &err), 0);
    assert_string_equal(json_string_value(json_object_get(obj, "kind")), "Pod");
    json_decref(obj);

    json_t *list = NULL;
    assert_int_equal(cs_kube_list(kc, "pods", NULL, "app=a", NULL, &list, &err), 0);
    assert_int_equal(list_len(list), 2);
    assert_non_null(
        json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion")));
    json_decref(list);
    assert_int_equal(cs_kube_list(kc, "pods", NULL, "app in (a,b),app!=a", NULL, &list, &err), 0);
    assert_int_equal(list_len(list), 1);
    json_decref(list);
    assert_int_equal(cs_kube_list(kc, "pods", NULL, NULL, "metadata.name=crud-a2", &list, &err), 0);
    assert_int_equal(list_len(list), 1);
    json_decref(list);
    assert_int_equal(cs_kube_list(kc, "pods", "", "app=a", NULL, &list, &err), 0); /* all ns */
    assert_int_equal(list_len(list), 2);
    json_decref(list);

    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "phase", "patched");
    json_t *out = NULL;
    assert_int_equal(cs_kube_patch_merge(kc, "pods", NULL, "crud-a1", patch, &out, &err), 0);
    json_decref(patch);
    json_t *labels = json_object_get(json_object_get(out, "metadata"), "labels");
    assert_string_equal(json_string_value(json_object_get(labels, "phase")), "patched");
    assert_string_equal(json_string_value(json_object_get(labels, "app")), "a");
    json_decref(out);

    /* configmaps and a cluster-scoped resource */
    json_t *cm = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                           "metadata", "name", "crud-cm", "data", "spark.properties", "a=b\n");
    assert_int_equal(cs_kube_create(kc, "configmaps", NULL, cm, NULL, &err), 0);
    json_decref(cm);
    assert_int_equal(cs_kube_get(kc, "configmaps", NULL, "crud-cm", &obj, &err), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(obj, "data"), "spark.properties")),
        "a=b\n");
    json_decref(obj);
    assert_int_equal(cs_kube_get(kc, "namespaces", NULL, "default", &obj, &err), 0);
    json_decref(obj);

    /* delete: the second delete of the same name is not an error */
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "crud-b1", 0, &err), 0);
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "crud-b1", 0, &err), 0);
    assert_int_equal(cs_kube_delete(kc, "configmaps", NULL, "crud-cm", -1, &err), 0);
    assert_int_equal(cs_kube_get(kc, "pods", NULL, "crud-b1", &obj, &err), CS_ENOTFOUND);
    assert_null(obj);
    assert_non_null(strstr(err.msg, "pods \"crud-b1\" not found"));
    assert_non_null(strstr(err.msg, "get pods \"crud-b1\" in namespace \"default\""));

    assert_int_equal(cs_kube_delete_collection(kc, "pods", NULL, "app=a", 0, &err), 0);
    assert_int_equal(cs_kube_list(kc, "pods", NULL, "app=a", NULL, &list, &err), 0);
    assert_int_equal(list_len(list), 0);
    json_decref(list);
    assert_true(cs_kube_client_requests(kc, "deletecollection") >= 1);
    assert_true(cs_kube_client_requests(kc, NULL) >=
                cs_kube_client_requests(kc, "get") + cs_kube_client_requests(kc, "list"));

    /* a subresource through the same path rules */
    p = ks_pod("crud-sub", "s");
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, NULL, &err), 0);
    json_decref(p);
    assert_int_equal(cs_kube_get(kc, "pods/status", NULL, "crud-sub", &obj, &err), 0);
    json_decref(obj);
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "crud-sub", 0, &err), 0);
    assert_int_equal(cs_kube_get(kc, "widgets", NULL, "x", &obj, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "unsupported Kubernetes resource 'widgets'"));
}

static void test_error_messages(void **state)
{
    cs_error err = {0};
    json_t *p = ks_pod("dup", "d");
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, NULL, &err), 0);
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, NULL, &err), CS_EEXIST);
    assert_non_null(strstr(err.msg, "create pods \"dup\" in namespace \"default\": "));
    assert_non_null(strstr(err.msg, "already exists"));
    assert_int_equal(err.kind, CS_KIND_ALREADY_EXISTS);
    assert_int_equal(err.http_status, 409);
    json_decref(p);
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "dup", 0, &err), 0);

    p = ks_pod("Bad_Name", "d");
    assert_int_equal(cs_kube_create(kc, "pods", NULL, p, NULL, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "create pods \"Bad_Name\""));
    assert_non_null(strstr(err.msg, "Invalid"));
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(err.kind, CS_KIND_INVALID);
    assert_int_equal(err.http_status, 422);
    json_decref(p);

    json_t *obj = NULL;
    assert_int_equal(cs_kube_get(kc, "pods", "nosuchns", "x", &obj, &err), CS_ENOTFOUND);
    /* a pod get in a missing namespace may name either; a create must name the namespace */
    p = ks_pod("x", "d");
    assert_int_equal(cs_kube_create(kc, "pods", "nosuchns", p, NULL, &err), CS_ENOTFOUND);
    assert_string_equal(err.msg, "namespace \"nosuchns\" does not exist");
    assert_int_equal(err.kind, CS_KIND_NAMESPACE_NOT_FOUND);
    assert_int_equal(err.http_status, 404);
    json_decref(p);
    assert_int_equal(cs_kube_get(kc, "namespaces", NULL, "nosuchns", &obj, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "namespaces \"nosuchns\" not found"));
    assert_int_equal(err.kind, CS_KIND_NOT_FOUND); /* the namespace is the object asked for */
    /* a delete of what is already gone (NotFound) succeeds */
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "never-created", 0, &err), 0);
}

/* cspark.kubernetes.fieldValidation: Strict, Warn (default) or Ignore; anything else is refused
 * naming the key. (The server side — a 400 naming an unknown field — is k8s_rbac_real's.) */
static void test_field_validation_values(void **state)
{
    (void)state;
    cs_error err = {0};
    assert_string_equal(cs_kube_client_field_validation(kc), "Warn");
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "cspark.kubernetes.fieldValidation", "Strict");
    kube_client *c = kubesim_client(&ks, c2, NULL, &err);
    assert_non_null(c);
    assert_string_equal(cs_kube_client_field_validation(c), "Strict");
    json_t *created = NULL;
    json_t *cm = json_pack("{s:s,s:s,s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap", "metadata",
                           "name", "strict-cm");
    assert_int_equal(cs_kube_create(c, "configmaps", NULL, cm, &created, &err), CS_OK);
    json_decref(created);
    json_decref(cm);
    assert_int_equal(cs_kube_delete(c, "configmaps", NULL, "strict-cm", 0, &err), CS_OK);
    cs_kube_client_free(c);
    cs_conf_set(c2, "cspark.kubernetes.fieldValidation", "strict");
    assert_null(kubesim_client(&ks, c2, NULL, &err));
    assert_non_null(strstr(err.msg, "cspark.kubernetes.fieldValidation: 'strict' (expected Strict, "
                                    "Warn or Ignore)"));
    cs_conf_free(c2);
}

static void test_unreachable_server(void **state)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    socklen_t al = sizeof a;
    assert_int_equal(getsockname(s, (struct sockaddr *)&a, &al), 0);
    close(s); /* nothing listens there now */
    char master[64];
    snprintf(master, sizeof master, "k8s://https://127.0.0.1:%d", ntohs(a.sin_port));
    cs_error err = {0};
    kube_client *c = kubesim_client(&ks, conf, master, &err);
    assert_non_null(c);
    json_t *obj = NULL;
    assert_int_equal(cs_kube_get(c, "pods", NULL, "x", &obj, &err), CS_EIO);
    assert_int_equal(err.kind, CS_KIND_UNREACHABLE);
    assert_int_equal(err.http_status, 0);
    char want[128];
    snprintf(want, sizeof want,
             "cannot reach the Kubernetes API server at https://127.0.0.1:%d: ", ntohs(a.sin_port));
    assert_non_null(strstr(err.msg, want));
    assert_int_equal(cs_kube_client_requests(c, "get"), 5); /* connection errors are retried */
    cs_kube_client_free(c);
}

static void test_retries_under_faults(void **state)
{
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "cspark.kubernetes.client.maxAttempts", "14");
    kube_client *c = kubesim_client(&ks, c2, NULL, &err);
    assert_non_null(c);
    set_faults("{\"errorRate\":0.3}");
    char name[32];
    int ops = 0;
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "retry-%d", i);
        json_t *p = ks_pod(name, "retry");
        int rc = cs_kube_create(c, "pods", NULL, p, NULL, &err);
        json_decref(p);
        if (rc) fprintf(stderr, "create: %s\n", err.msg);
        assert_int_equal(rc, 0);
        json_t *obj = NULL;
        assert_int_equal(cs_kube_get(c, "pods", NULL, name, &obj, &err), 0);
        json_decref(obj);
        ops += 2;
    }
    for (int i = 0; i < 20; i++) {
        json_t *list = NULL;
        assert_int_equal(cs_kube_list(c, "pods", NULL, "app=retry", NULL, &list, &err), 0);
        assert_int_equal(list_len(list), 6);
        json_decref(list);
        ops++;
    }
    /* with 30% of all requests failing, 32 operations needed more attempts (p = 1 - 0.7^32) */
    assert_true(cs_kube_client_requests(c, NULL) > ops);

    set_faults("{\"errorRate\":0,\"throttleRate\":0.3,\"retryAfterSeconds\":1}");
    int64_t before = cs_kube_client_requests(c, NULL);
    json_t *o429 = NULL;
    assert_int_equal(cs_kube_get(c, "pods", NULL, "retry-0", &o429, &err), 0);
    json_decref(o429);
    assert_true(cs_kube_client_requests(c, NULL) - before >= 1);
    clear_faults();
    assert_int_equal(cs_kube_delete_collection(c, "pods", NULL, "app=retry", 0, &err), 0);
    cs_kube_client_free(c);

    /* a permanent 500 ends after maxAttempts with the server's message */
    cs_conf *c3 = cs_conf_new();
    cs_conf_set(c3, "cspark.kubernetes.client.maxAttempts", "3");
    c = kubesim_client(&ks, c3, NULL, &err);
    set_faults("{\"errorRate\":1}");
    json_t *obj = NULL;
    int rc = cs_kube_get(c, "pods", NULL, "x", &obj, &err);
    clear_faults();
    assert_int_equal(rc, CS_EIO);
    assert_non_null(strstr(err.msg, "HTTP 500"));
    assert_int_equal(cs_kube_client_requests(c, "get"), 3);
    cs_kube_client_free(c);

    /* 429 with Retry-After: 1 s: retried (the wait it takes: test_retry_delay) */
    cs_conf_set(c3, "cspark.kubernetes.client.maxAttempts", "2");
    c = kubesim_client(&ks, c3, NULL, &err);
    set_faults("{\"errorRate\":0,\"throttleRate\":1,\"retryAfterSeconds\":1}");
    rc = cs_kube_get(c, "pods", NULL, "x", &obj, &err);
    clear_faults();
    assert_int_equal(rc, CS_EIO);
    assert_non_null(strstr(err.msg, "HTTP 429"));
    assert_int_equal(cs_kube_client_requests(c, "get"), 2);
    cs_kube_client_free(c);
    cs_conf_free(c3);
    cs_conf_free(c2);
}

/* The wait between attempts: exponential backoff, the server's Retry-After when longer, capped. */
static void test_retry_delay(void **state)
{
    assert_int_equal(cs_kube_retry_delay_ms(100, -1, 10000), 100);
    assert_int_equal(cs_kube_retry_delay_ms(800, -1, 10000), 800);
    assert_int_equal(cs_kube_retry_delay_ms(100, 1, 10000), 1000); /* Retry-After: 1 */
    assert_int_equal(cs_kube_retry_delay_ms(3200, 1, 10000), 3200);
    assert_int_equal(cs_kube_retry_delay_ms(100, 60, 10000), 10000);
    assert_int_equal(cs_kube_retry_delay_ms(12800, -1, 10000), 10000);
}

static void test_tls_wrong_ca(void **state)
{
    const char *bundle = "/etc/ssl/certs/ca-certificates.crt";
    if (access(bundle, R_OK) != 0) skip();
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "spark.kubernetes.authenticate.submission.caCertFile", bundle);
    cs_conf_set(c2, "cspark.kubernetes.client.maxAttempts", "1");
    kube_client *c = kubesim_client(&ks, c2, NULL, &err);
    assert_non_null(c);
    json_t *obj = NULL;
    assert_int_equal(cs_kube_get(c, "namespaces", NULL, "default", &obj, &err), CS_EIO);
    assert_non_null(
        strstr(err.msg, "cannot reach the Kubernetes API server at https://127.0.0.1:"));
    assert_non_null(strstr(err.msg, "spark.kubernetes.trust.certificates"));
    cs_kube_client_free(c);

    cs_conf_set(c2, "spark.kubernetes.trust.certificates", "true");
    c = kubesim_client(&ks, c2, NULL, &err);
    assert_int_equal(cs_kube_get(c, "namespaces", NULL, "default", &obj, &err), 0);
    json_decref(obj);
    cs_kube_client_free(c);
    cs_conf_free(c2);
}

/* ---------------------------------------------------------------- RBAC (own kubesim) */

static void test_rbac_forbidden_and_unauthorized(void **state)
{
    kubesim_proc rk;
    char rules[512];
    snprintf(rules, sizeof rules, "/tmp/kube-rbac-%d.txt", (int)getpid());
    FILE *f = fopen(rules, "w");
    assert_non_null(f);
    fputs("token s3cr3t system:serviceaccount:spark:spark\n"
          "allow system:serviceaccount:spark:spark get,list,watch pods default\n",
          f);
    fclose(f);
    int rc = kubesim_start(&rk, "--no-kubelet", "--rbac", rules, (const char *)NULL);
    unlink(rules);
    assert_int_equal(rc, 0);
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "spark.kubernetes.authenticate.submission.oauthToken", "s3cr3t");
    kube_client *c = kubesim_client(&rk, c2, NULL, &err);
    if (!c) kubesim_stop(&rk);
    assert_non_null(c);
    json_t *list = NULL;
    rc = cs_kube_list(c, "pods", NULL, NULL, NULL, &list, &err);
    json_decref(list);
    json_t *p = ks_pod("denied", "x");
    int rc2 = cs_kube_create(c, "pods", NULL, p, NULL, &err);
    json_decref(p);
    cs_error err2 = {0};
    int rc3 = cs_kube_delete_collection(c, "configmaps", "spark", "a=b", -1, &err2);
    cs_kube_client_free(c);

    cs_conf_set(c2, "spark.kubernetes.authenticate.submission.oauthToken", "wrong-token");
    c = kubesim_client(&rk, c2, NULL, &err);
    cs_error err3 = {0};
    json_t *obj = NULL;
    int rc4 = cs_kube_get(c, "pods", NULL, "x", &obj, &err3);
    cs_kube_client_free(c);
    cs_conf_free(c2);
    kubesim_stop(&rk);

    assert_int_equal(rc, 0);
    assert_int_equal(rc2, CS_EAUTH);
    assert_int_equal(err.kind, CS_KIND_FORBIDDEN);
    assert_int_equal(err.http_status, 403);
    assert_string_equal(err.msg, "cannot create pods in namespace \"default\": forbidden for "
                                 "system:serviceaccount:spark:spark; grant the verbs in "
                                 "deploy/rbac.yaml");
    assert_int_equal(rc3, CS_EAUTH);
    assert_string_equal(err2.msg, "cannot deletecollection configmaps in namespace \"spark\": "
                                  "forbidden for system:serviceaccount:spark:spark; grant the "
                                  "verbs in deploy/rbac.yaml");
    assert_int_equal(rc4, CS_EAUTH);
    assert_int_equal(err3.kind, CS_KIND_UNAUTHORIZED);
    assert_int_equal(err3.http_status, 401);
    assert_non_null(strstr(err3.msg, "401 Unauthorized"));
    assert_non_null(strstr(err3.msg, "spark.kubernetes.authenticate.submission.oauthToken"));
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Requests go through the rate limiter (burst 1 at 20 qps; its pacing is checked with explicit
 * times in tests/unit/common/test_token_bucket.c) and without it. Also prints the latency of
 * sequential GETs over one kept-alive HTTPS connection (not asserted). */
static void test_rate_limit_and_latency(void **state)
{
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "cspark.kubernetes.client.qps", "20");
    cs_conf_set(c2, "cspark.kubernetes.client.burst", "1");
    kube_client *c = kubesim_client(&ks, c2, NULL, &err);
    assert_non_null(c);
    for (int i = 0; i < 11; i++) {
        json_t *obj = NULL;
        assert_int_equal(cs_kube_get(c, "namespaces", NULL, "default", &obj, &err), 0);
        json_decref(obj);
    }
    assert_int_equal(cs_kube_client_requests(c, "get"), 11);
    cs_kube_client_free(c);

    cs_conf_set(c2, "cspark.kubernetes.client.qps", "0"); /* no limit */
    c = kubesim_client(&ks, c2, NULL, &err);
    int64_t t0 = now_ms();
    int n = 300;
    for (int i = 0; i < n; i++) {
        json_t *obj = NULL;
        assert_int_equal(cs_kube_get(c, "namespaces", NULL, "default", &obj, &err), 0);
        json_decref(obj);
    }
    int64_t dt = now_ms() - t0;
    fprintf(stderr, "kube_client: %d sequential GETs over HTTPS in %lld ms (%.3f ms each)\n", n,
            (long long)dt, (double)dt / n);
    assert_int_equal(cs_kube_client_requests(c, "get"), n);
    cs_kube_client_free(c);
    cs_conf_free(c2);
}

/* kubectl-proxy style plain HTTP master, k8s://http://127.0.0.1:PORT */
static void test_plain_http_master(void **state)
{
    kubesim_proc hk;
    assert_int_equal(kubesim_start(&hk, "--no-kubelet", "--http", (const char *)NULL), 0);
    kube_config_env env = {.kubeconfig = hk.kubeconfig, .sa_dir = "/nonexistent-sa"};
    kube_config cfg;
    cs_error err = {0};
    int rc = cs_kube_config_load_env(conf, NULL, NULL, &env, &cfg, &err);
    char master[300] = "";
    if (rc == 0) snprintf(master, sizeof master, "k8s://%s", cfg.server);
    cs_kube_config_free(&cfg);
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "spark.kubernetes.namespace", "kube-system");
    kube_client *c = NULL;
    json_t *list = NULL;
    int rc2 = -1;
    if (rc == 0 && !strncmp(master, "k8s://http://", 13)) {
        kube_config_env none = {.home = "/nonexistent-home", .sa_dir = "/nonexistent-sa"};
        if (cs_kube_config_load_env(c2, master, NULL, &none, &cfg, &err) == 0) {
            c = cs_kube_client_new(&cfg, c2, NULL, &err);
            cs_kube_config_free(&cfg);
        }
        if (c) rc2 = cs_kube_list(c, "pods", NULL, NULL, NULL, &list, &err);
    }
    const char *ns = c ? cs_kube_client_namespace(c) : "";
    bool ns_ok = !strcmp(ns, "kube-system");
    json_decref(list);
    cs_kube_client_free(c);
    cs_conf_free(c2);
    kubesim_stop(&hk);
    assert_int_equal(rc, 0);
    assert_int_equal(rc2, 0);
    assert_true(ns_ok);
}

typedef struct conc_arg {
    kube_client *c;
    int id, failures;
} conc_arg;

static void *conc_main(void *p)
{
    conc_arg *a = p;
    char name[32];
    for (int i = 0; i < 25; i++) {
        cs_error err = {0};
        snprintf(name, sizeof name, "conc-%d-%d", a->id, i);
        json_t *pod = ks_pod(name, "conc");
        json_t *obj = NULL;
        if (cs_kube_create(a->c, "pods", NULL, pod, NULL, &err) ||
            cs_kube_get(a->c, "pods", NULL, name, &obj, &err)) {
            a->failures++;
        }
        json_decref(obj);
        json_decref(pod);
    }
    return NULL;
}

/* one client shared by 8 threads: every request succeeds and is counted once */
static void test_concurrent_use(void **state)
{
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "cspark.kubernetes.client.qps", "0"); /* 400 requests: not the limiter's test */
    kube_client *c = kubesim_client(&ks, c2, NULL, &err);
    cs_conf_free(c2);
    assert_non_null(c);
    pthread_t th[8];
    conc_arg args[8];
    for (int i = 0; i < 8; i++) {
        args[i] = (conc_arg){.c = c, .id = i};
        assert_int_equal(pthread_create(&th[i], NULL, conc_main, &args[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(args[i].failures, 0);
    }
    assert_int_equal(cs_kube_client_requests(c, "create"), 200);
    assert_int_equal(cs_kube_client_requests(c, "get"), 200);
    json_t *list = NULL;
    assert_int_equal(cs_kube_list(c, "pods", NULL, "app=conc", NULL, &list, &err), 0);
    assert_int_equal(list_len(list), 200);
    json_decref(list);
    assert_int_equal(cs_kube_delete_collection(c, "pods", NULL, "app=conc", 0, &err), 0);
    cs_kube_client_free(c);
}

/* Sum of the apiserver_request_total series of an RBAC verb in kubesim's /metrics text, which
 * labels requests as kube-apiserver does (verb="POST" for a create, "LIST" for a list, ...). */
static long server_count(kube_client *c, const char *verb)
{
    static const char *const map[][2] = {{"create", "POST"},
                                         {"get", "GET"},
                                         {"list", "LIST"},
                                         {"patch", "PATCH"},
                                         {"delete", "DELETE"}};
    const char *mverb = verb;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (!strcmp(map[i][0], verb)) mverb = map[i][1];
    json_t *text = NULL;
    cs_error err = {0};
    if (cs_kube_request(c, "other", "GET", "/metrics", NULL, NULL, &text, &err)) return -1;
    const char *t = json_string_value(text);
    char pat[64];
    snprintf(pat, sizeof pat, "verb=\"%s\",", mverb);
    long sum = 0;
    for (const char *p = t ? strstr(t, "\napiserver_request_total{") : NULL; p;
         p = strstr(p + 1, "\napiserver_request_total{")) {
        const char *end = strchr(p, '}');
        const char *v = strstr(p, pat);
        if (end && v && v < end) sum += strtol(end + 1, NULL, 10);
    }
    json_decref(text);
    return sum;
}

/* The client's per-verb counts (the "API requests per executor" figures) are what the server saw,
 * retries included. */
static void test_counts_match_server(void **state)
{
    kubesim_proc mk;
    assert_int_equal(kubesim_start(&mk, "--no-kubelet", (const char *)NULL), 0);
    cs_error err = {0};
    cs_conf *c2 = cs_conf_new();
    cs_conf_set(c2, "cspark.kubernetes.client.maxAttempts", "20");
    kube_client *c = kubesim_client(&mk, c2, NULL, &err);
    bool ok = c != NULL;
    char name[32];
    if (ok) {
        json_t *body = json_pack("{s:f}", "errorRate", 0.2);
        ok = cs_kube_request(c, "other", "POST", "/kubesim/faults", body, NULL, NULL, &err) == 0;
        json_decref(body);
    }
    for (int i = 0; ok && i < 10; i++) {
        snprintf(name, sizeof name, "m-%d", i);
        json_t *pod = ks_pod(name, "m"), *obj = NULL, *list = NULL;
        json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "x", "y");
        ok = cs_kube_create(c, "pods", NULL, pod, NULL, &err) == 0 &&
             cs_kube_get(c, "pods", NULL, name, &obj, &err) == 0 &&
             cs_kube_list(c, "pods", NULL, "app=m", NULL, &list, &err) == 0 &&
             cs_kube_patch_merge(c, "pods", NULL, name, patch, NULL, &err) == 0 &&
             cs_kube_delete(c, "pods", NULL, name, 0, &err) == 0;
        json_decref(pod);
        json_decref(obj);
        json_decref(list);
        json_decref(patch);
    }
    if (ok)
        ok = cs_kube_request(c, "other", "DELETE", "/kubesim/faults", NULL, NULL, NULL, &err) == 0;
    static const char *const verbs[] = {"create", "get", "list", "patch", "delete"};
    long client_n[5] = {0}, server_n[5] = {0};
    for (int v = 0; ok && v < 5; v++) {
        client_n[v] = (long)cs_kube_client_requests(c, verbs[v]);
        server_n[v] = server_count(c, verbs[v]);
    }
    cs_kube_client_free(c);
    cs_conf_free(c2);
    kubesim_stop(&mk);
    if (!ok) fprintf(stderr, "%s\n", err.msg);
    assert_true(ok);
    long total = 0;
    for (int v = 0; v < 5; v++) {
        assert_int_equal(client_n[v], server_n[v]);
        assert_true(client_n[v] >= 10);
        total += client_n[v];
    }
    assert_true(total > 50); /* retries happened and were counted */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crud_round_trip),
        cmocka_unit_test(test_error_messages),
        cmocka_unit_test(test_unreachable_server),
        cmocka_unit_test(test_retries_under_faults),
        cmocka_unit_test(test_retry_delay),
        cmocka_unit_test(test_tls_wrong_ca),
        cmocka_unit_test(test_rbac_forbidden_and_unauthorized),
        cmocka_unit_test(test_rate_limit_and_latency),
        cmocka_unit_test(test_plain_http_master),
        cmocka_unit_test(test_concurrent_use),
        cmocka_unit_test(test_counts_match_server),
        cmocka_unit_test(test_field_validation_values),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
