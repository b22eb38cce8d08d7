/* kube_client.c — client construction and the CRUD calls.
 *
 * Builds REST paths (/api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]], or /apis/GROUP/VERSION/... for
 * the resources of an API group, from the table below) and query strings (escaped by
 * libcurl), serialises bodies with jansson, and hands each request to cs_kube_http_do (retries,
 * rate limit, counters, errors). Called by cspark-submit and the driver's k8s backend; see
 * kube_client.h for the contract.
 */
#include "kube/kube_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/conf_entries.h"
#include "kube/kube_exec.h"
#include "common/log.h"
#include "kube/kube_internal.h"

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init_once(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static const char *const namespaced[] = {"pods",
                                         "services",
                                         "configmaps",
                                         "secrets",
                                         "persistentvolumeclaims",
                                         "events",
                                         "serviceaccounts",
                                         "endpoints",
                                         "leases",
                                         "sparkapplications",
                                         "scheduledsparkapplications",
                                         "statefulsets",
                                         "podgroups",
                                         NULL};
/* The namespaced resources outside core/v1 and their group/version (the rest are core/v1). */
static const struct {
    const char *resource, *group_version;
} grouped[] = {
    {"leases", "coordination.k8s.io/v1"},
    {"sparkapplications", "sparkoperator.k8s.io/v1beta2"},
    {"scheduledsparkapplications", "sparkoperator.k8s.io/v1beta2"},
    {"statefulsets", "apps/v1"},
    {"podgroups", "scheduling.volcano.sh/v1beta1"},
};
static const char *const cluster_scoped[] = {"namespaces", "nodes", NULL};

static bool in_list(const char *const *l, const char *s, size_t n)
{
    for (; *l; l++) {
        if (strlen(*l) == n && !strncmp(*l, s, n)) return true;
    }
    return false;
}

static int load_blob(const char *path, kube_blob *b, cs_error *err)
{
    if (!path) return CS_OK;
    FILE *f = fopen(path, "rb");
    if (!f) return cs_error_set(err, CS_EINVAL, "cannot read %s: %s", path, strerror(errno));
    size_t cap = 8192, len = 0, n;
    char *buf = cs_xmalloc(cap);
    while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            if (cap > (1u << 24)) break;
            cap *= 2;
            buf = cs_xrealloc(buf, cap);
        }
    }
    fclose(f);
    b->data = buf;
    b->len = len;
    return CS_OK;
}

static void free_blob(kube_blob *b)
{
    if (b->data) {
        memset(b->data, 0, b->len);
        free(b->data);
    }
    b->data = NULL;
    b->len = 0;
}

kube_client *cs_kube_client_new(const kube_config *cfg, const cs_conf *conf,
                                const char *timeout_prefix, cs_error *err)
{
    pthread_once(&curl_once, curl_init_once);
    if (!cfg || !cfg->server) {
        cs_error_set(err, CS_EINVAL, "cs_kube_client_new: no API server in the configuration");
        return NULL;
    }
    kube_client *c = cs_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->token_mu, NULL);
    cs_curl_pool_init(&c->pool, KUBE_POOL_MAX);
    pthread_mutex_init(&c->rl_mu, NULL);
    c->server = cs_xstrdup(cfg->server);
    c->ns = cs_xstrdup(cfg->namespace_ ? cfg->namespace_ : "default");
    c->auth_source = cs_xstrdup(cfg->auth_source ? cfg->auth_source : "no credentials");
    c->token = cs_xstrdup(cfg->token);
    c->token_file = cs_xstrdup(cfg->token_file);
    c->exec_json = cs_xstrdup(cfg->exec_json);
    c->exec_dir = cs_xstrdup(cfg->exec_dir);
    c->exec_refresh_at_ms = cs_kube_exec_refresh_at(cfg->exec_expires_ms, cs_now_ms());
    c->token_read_ms = cs_mono_ms();
    c->insecure = cfg->insecure;
    c->max_tries = 5;
    c->backoff_ms = 100;
    c->backoff_max_ms = 10000;

    int64_t v;
    double d;
    char key[256];
    const char *pfx =
        timeout_prefix && *timeout_prefix ? timeout_prefix : "spark.kubernetes.submission";
    snprintf(key, sizeof key, "%s.requestTimeout", pfx);
    if (cs_conf_entry_int(conf, key, &v, err)) goto fail;
    if (v < 0) {
        cs_error_set(err, CS_EINVAL, "invalid value for %s: '%lld' (expected milliseconds >= 0)",
                     key, (long long)v);
        goto fail;
    }
    c->timeout_ms = (long)v;
    snprintf(key, sizeof key, "%s.connectionTimeout", pfx);
    if (cs_conf_entry_int(conf, key, &v, err)) goto fail;
    if (v < 0) {
        cs_error_set(err, CS_EINVAL, "invalid value for %s: '%lld' (expected milliseconds >= 0)",
                     key, (long long)v);
        goto fail;
    }
    c->connect_timeout_ms = (long)v;
    if (cs_conf_get_double(conf, "cspark.kubernetes.client.qps", "50", &d, err)) goto fail;
    if (cs_conf_get_int(conf, "cspark.kubernetes.client.burst", "100", &v, err)) goto fail;
    cs_token_bucket_init(&c->rl, d, (double)(v < 1 ? 1 : v), cs_mono_ms());
    if (cs_conf_get_int(conf, "cspark.kubernetes.client.maxAttempts", "5", &v, err)) goto fail;
    if (v < 1 || v > 100) {
        cs_error_set(err, CS_EINVAL,
                     "invalid value for cspark.kubernetes.client.maxAttempts: '%lld' (expected "
                     "1..100)",
                     (long long)v);
        goto fail;
    }
    c->max_tries = (int)v;
    const char *fv = cs_conf_get(conf, "cspark.kubernetes.fieldValidation");
    if (!fv) fv = "Warn";
    if (strcmp(fv, "Strict") && strcmp(fv, "Warn") && strcmp(fv, "Ignore")) {
        cs_error_set(err, CS_EINVAL,
                     "invalid value for cspark.kubernetes.fieldValidation: '%s' (expected Strict, "
                     "Warn or Ignore)",
                     fv);
        goto fail;
    }
    snprintf(c->field_validation, sizeof c->field_validation, "%s", fv);

    if (load_blob(cfg->ca_file, &c->ca, err) || load_blob(cfg->client_cert_file, &c->cert, err) ||
        load_blob(cfg->client_key_file, &c->key, err)) {
        goto fail;
    }
    for (int i = 0; i < KV_COUNT; i++)
        atomic_init(&c->counts[i], 0);
    return c;
fail:
    cs_kube_client_free(c);
    return NULL;
}

void cs_kube_client_free(kube_client *c)
{
    if (!c) return;
    cs_curl_pool_destroy(&c->pool);
    free_blob(&c->ca);
    free_blob(&c->cert);
    free_blob(&c->key);
    if (c->token) memset(c->token, 0, strlen(c->token));
    free(c->token);
    free(c->token_file);
    free(c->exec_json);
    free(c->exec_dir);
    free(c->server);
    free(c->ns);
    free(c->auth_source);
    pthread_mutex_destroy(&c->token_mu);
    pthread_mutex_destroy(&c->rl_mu);
    free(c);
}

const char *cs_kube_client_field_validation(const kube_client *c)
{
    return c->field_validation;
}

const char *cs_kube_client_namespace(const kube_client *c)
{
    return c->ns;
}

const char *cs_kube_client_server(const kube_client *c)
{
    return c->server;
}

int64_t cs_kube_client_requests(const kube_client *c, const char *verb)
{
    if (verb) {
        for (int i = 0; i < KV_COUNT; i++) {
            if (cs_kube_verb_index(verb) == i) return atomic_load(&c->counts[i]);
        }
        return 0;
    }
    int64_t t = 0;
    for (int i = 0; i < KV_COUNT; i++)
        t += atomic_load(&c->counts[i]);
    return t;
}

/* ---------------------------------------------------------------- paths */

/* Resolves the effective namespace for messages: NULL → client's; cluster-scoped → NULL. */
static const char *eff_ns(const kube_client *c, const char *resource, const char *ns)
{
    size_t n = strcspn(resource, "/");
    if (in_list(cluster_scoped, resource, n)) return NULL;
    return ns ? ns : c->ns;
}

int cs_kube_resource_path(const kube_client *c, const char *resource, const char *ns,
                          const char *name, char *buf, size_t cap, cs_error *err)
{
    if (!resource) return cs_error_set(err, CS_EINVAL, "no Kubernetes resource given");
    size_t n = strcspn(resource, "/");
    const char *sub = resource[n] == '/' ? resource + n + 1 : NULL;
    bool cl = in_list(cluster_scoped, resource, n);
    if (!cl && !in_list(namespaced, resource, n)) {
        return cs_error_set(err, CS_EINVAL, "unsupported Kubernetes resource '%s'", resource);
    }
    if (sub && !name) {
        return cs_error_set(err, CS_EINVAL, "subresource '%s' needs an object name", resource);
    }
    const char *e_ns = cl ? NULL : (ns ? ns : c->ns);
    char root[64] = "/api/v1";
    for (size_t i = 0; i < sizeof grouped / sizeof grouped[0]; i++)
        if (strlen(grouped[i].resource) == n && !strncmp(grouped[i].resource, resource, n))
            snprintf(root, sizeof root, "/apis/%s", grouped[i].group_version);
    int w;
    if (e_ns && *e_ns) {
        w = snprintf(buf, cap, "%s/namespaces/%s/%.*s", root, e_ns, (int)n, resource);
    } else {
        w = snprintf(buf, cap, "%s/%.*s", root, (int)n, resource);
    }
    if (w >= 0 && (size_t)w < cap && name) w += snprintf(buf + w, cap - (size_t)w, "/%s", name);
    if (w >= 0 && (size_t)w < cap && sub) w += snprintf(buf + w, cap - (size_t)w, "/%s", sub);
    if (w < 0 || (size_t)w >= cap) return cs_error_set(err, CS_EINVAL, "request path too long");
    return CS_OK;
}

/* Appends "&key=escaped(value)" (or "?..." for the first parameter) to buf. */
static int add_query(char *buf, size_t cap, const char *key, const char *value, cs_error *err)
{
    if (!value) return CS_OK;
    char *esc = curl_easy_escape(NULL, value, 0);
    if (!esc) return cs_error_set(err, CS_ENOMEM, "out of memory");
    size_t len = strlen(buf);
    int w = snprintf(buf + len, cap - len, "%c%s=%s", strchr(buf, '?') ? '&' : '?', key, esc);
    curl_free(esc);
    if (w < 0 || (size_t)w >= cap - len)
        return cs_error_set(err, CS_EINVAL, "request path too long");
    return CS_OK;
}

/* ---------------------------------------------------------------- calls */

static int parse_body(const kube_resp *r, json_t **out)
{
    if (!out) return CS_OK;
    *out = NULL;
    if (r->body.len == 0) {
        *out = json_object();
        return CS_OK;
    }
    json_t *j = json_loadb(r->body.data, r->body.len, 0, NULL);
    *out = j ? j : json_stringn(r->body.data, r->body.len);
    return CS_OK;
}

static int run(kube_client *c, kube_req *q, const json_t *body, json_t **out, cs_error *err)
{
    if (out) *out = NULL;
    char *text = NULL;
    if (body) {
        text = json_dumps(body, JSON_COMPACT);
        if (!text) return cs_error_set(err, CS_EINVAL, "request body is not serialisable JSON");
        q->body = text;
        q->body_len = strlen(text);
    }
    kube_resp r;
    int rc = cs_kube_http_do(c, q, &r, err);
    if (rc == CS_OK) parse_body(&r, out);
    cs_kube_resp_free(&r);
    free(text);
    return rc;
}

int cs_kube_request(kube_client *c, const char *verb, const char *method, const char *path,
                    const json_t *body, const char *content_type, json_t **out, cs_error *err)
{
    char full[4096];
    if (body && strcmp(method, "GET") && strcmp(method, "DELETE") &&
        !strstr(path, "fieldValidation=")) {
        /* writes carry the field validation of creates and patches */
        if (snprintf(full, sizeof full, "%s", path) >= (int)sizeof full)
            return cs_error_set(err, CS_EINVAL, "request path too long");
        int rc = add_query(full, sizeof full, "fieldValidation", c->field_validation, err);
        if (rc) return rc;
        path = full;
    }
    kube_req q = {
        .verb = verb ? verb : "get", .method = method, .path = path, .content_type = content_type};
    return run(c, &q, body, out, err);
}

int cs_kube_create(kube_client *c, const char *resource, const char *ns, const json_t *obj,
                   json_t **created, cs_error *err)
{
    char path[2048];
    if (created) *created = NULL;
    int rc = cs_kube_resource_path(c, resource, ns, NULL, path, sizeof path, err);
    if (rc || (rc = add_query(path, sizeof path, "fieldValidation", c->field_validation, err)))
        return rc;
    json_t *md = json_object_get(obj, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    if (!name) name = json_string_value(json_object_get(md, "generateName"));
    kube_req q = {.verb = "create",
                  .method = "POST",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns),
                  .name = name};
    return run(c, &q, obj, created, err);
}

int cs_kube_get(kube_client *c, const char *resource, const char *ns, const char *name,
                json_t **obj, cs_error *err)
{
    char path[2048];
    if (obj) *obj = NULL;
    int rc = cs_kube_resource_path(c, resource, ns, name, path, sizeof path, err);
    if (rc) return rc;
    kube_req q = {.verb = "get",
                  .method = "GET",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns),
                  .name = name};
    return run(c, &q, NULL, obj, err);
}

int cs_kube_list(kube_client *c, const char *resource, const char *ns, const char *label_selector,
                 const char *field_selector, json_t **list, cs_error *err)
{
    char path[4096];
    if (list) *list = NULL;
    int rc = cs_kube_resource_path(c, resource, ns, NULL, path, sizeof path, err);
    if (rc || (rc = add_query(path, sizeof path, "labelSelector", label_selector, err)) ||
        (rc = add_query(path, sizeof path, "fieldSelector", field_selector, err))) {
        return rc;
    }
    kube_req q = {.verb = "list",
                  .method = "GET",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns)};
    return run(c, &q, NULL, list, err);
}

int cs_kube_patch_merge(kube_client *c, const char *resource, const char *ns, const char *name,
                        const json_t *patch, json_t **out, cs_error *err)
{
    char path[2048];
    if (out) *out = NULL;
    int rc = cs_kube_resource_path(c, resource, ns, name, path, sizeof path, err);
    if (rc || (rc = add_query(path, sizeof path, "fieldValidation", c->field_validation, err)))
        return rc;
    if (!patch) return cs_error_set(err, CS_EINVAL, "patch of %s \"%s\": no patch", resource, name);
    kube_req q = {.verb = "patch",
                  .method = "PATCH",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns),
                  .name = name,
                  .content_type = "application/merge-patch+json"};
    return run(c, &q, patch, out, err);
}

int cs_kube_delete(kube_client *c, const char *resource, const char *ns, const char *name,
                   int grace_seconds, cs_error *err)
{
    char path[2048], g[32];
    if (!name) return cs_error_set(err, CS_EINVAL, "delete of %s: no name", resource);
    int rc = cs_kube_resource_path(c, resource, ns, name, path, sizeof path, err);
    if (rc) return rc;
    if (grace_seconds >= 0) {
        snprintf(g, sizeof g, "%d", grace_seconds);
        if ((rc = add_query(path, sizeof path, "gracePeriodSeconds", g, err))) return rc;
    }
    kube_req q = {.verb = "delete",
                  .method = "DELETE",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns),
                  .name = name};
    cs_error e2;
    rc = run(c, &q, NULL, NULL, &e2);
    if (rc == CS_ENOTFOUND && e2.kind == CS_KIND_NOT_FOUND) return CS_OK; /* already gone */
    if (rc) {
        if (err) *err = e2;
        return rc;
    }
    return CS_OK;
}

int cs_kube_delete_collection(kube_client *c, const char *resource, const char *ns,
                              const char *label_selector, int grace_seconds, cs_error *err)
{
    char path[4096], g[32];
    if (ns && !*ns) {
        return cs_error_set(err, CS_EINVAL, "delete collection of %s: a namespace is required",
                            resource);
    }
    int rc = cs_kube_resource_path(c, resource, ns, NULL, path, sizeof path, err);
    if (rc || (rc = add_query(path, sizeof path, "labelSelector", label_selector, err))) return rc;
    if (grace_seconds >= 0) {
        snprintf(g, sizeof g, "%d", grace_seconds);
        if ((rc = add_query(path, sizeof path, "gracePeriodSeconds", g, err))) return rc;
    }
    kube_req q = {.verb = "deletecollection",
                  .method = "DELETE",
                  .path = path,
                  .resource = resource,
                  .ns = eff_ns(c, resource, ns)};
    return run(c, &q, NULL, NULL, err);
}
