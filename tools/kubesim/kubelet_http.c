/*
 * kubelet_http.c — the kubelet over any Kubernetes API server (the node agent, `kubesim
 * --node-agent`): the kl_api_ops as HTTPS requests with libcurl, authenticated as the node
 * (client certificate system:node:<name>, or a bearer token), so the API server's Node authorizer
 * and NodeRestriction admission apply to it as to a real kubelet.
 *
 *  - pods: a LIST then WATCH of `fieldSelector=spec.nodeName=<node>` (bookmarks on; re-listed on
 *    410 Gone, with DELETED made up for pods that vanished meanwhile) feeding kl_enqueue();
 *  - status: PATCH pods/<name>/status (merge patch carrying metadata.uid as precondition), graceful
 *    deletion done: DELETE with gracePeriodSeconds 0 and a uid precondition, Events: POST; all
 *    three through one writer thread, in order, a pending status of a pod being replaced by a newer
 *    one (the kubelet's status manager does the same), so the worker thread never waits on them;
 *  - reads (ConfigMaps, Secrets, Services) and TokenRequests (serviceaccounts/<sa>/token bound to
 *    the pod) are synchronous, on the worker thread, at pod start;
 *  - the Node: created at start (409: its status is patched), the node's Lease in kube-node-lease
 *    renewed every 10 s (a server without coordination.k8s.io/v1 — kubesim — is told once in the
 *    log and not asked again).
 *
 * Called by node_agent.c (kl_http_new, kl_http_start_watch, kl_http_free) and by kubelet.c through
 * the ops. Ownership: the kl_http owns its threads, curl handles and queued requests; every JSON
 * passed to an op is borrowed unless the op says it is stolen.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_http.h"
#include "kubelet_int.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef struct wjob {
    struct wjob *next;
    char method[8];
    char *path;
    char *body;
    char key[600]; /* "ns/name" for a status (coalesced), "" otherwise */
} wjob;

struct kl_http {
    kl_http_options o;
    ks_kubelet *k;
    pthread_mutex_t sync_mu; /* the synchronous handle */
    CURL *sync;
    pthread_t writer, watcher, heart;
    int writer_started, watcher_started, heart_started;
    pthread_mutex_t mu; /* queue, stop */
    pthread_cond_t cv;
    wjob *qhead, *qtail;
    int stop;
    char node_uid[64];
    char **known; /* watch: "ns/name" of pods seen, for DELETED after a re-list */
    size_t n_known, cap_known;
};

/* ---------------- requests ---------------- */

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static size_t collect(char *data, size_t size, size_t n, void *arg)
{
    buf *b = arg;
    size_t len = size * n;
    if (b->n + len + 1 > b->cap) {
        size_t cap = (b->n + len + 1) * 2;
        char *np = realloc(b->p, cap);
        if (!np) return 0;
        b->p = np;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
    b->p[b->n] = 0;
    return len;
}

static void setup(kl_http *h, CURL *c, const char *method, const char *path, const char *ctype,
                  const char *body, struct curl_slist **hdrs)
{
    char url[4096];
    snprintf(url, sizeof url, "%s%s", h->o.server, path);
    curl_easy_reset(c);
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    if (h->o.ca_file) curl_easy_setopt(c, CURLOPT_CAINFO, h->o.ca_file);
    if (h->o.cert_file) curl_easy_setopt(c, CURLOPT_SSLCERT, h->o.cert_file);
    if (h->o.key_file) curl_easy_setopt(c, CURLOPT_SSLKEY, h->o.key_file);
    *hdrs = curl_slist_append(NULL, "Accept: application/json");
    char line[2048];
    if (h->o.token) {
        snprintf(line, sizeof line, "Authorization: Bearer %s", h->o.token);
        *hdrs = curl_slist_append(*hdrs, line);
    }
    if (body) {
        snprintf(line, sizeof line, "Content-Type: %s", ctype ? ctype : "application/json");
        *hdrs = curl_slist_append(*hdrs, line);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    }
    *hdrs = curl_slist_append(*hdrs, "User-Agent: kubesim-node-agent/1.0");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, *hdrs);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
}

/* One request; returns the HTTP status (0 when the server was not reached), the body in *out
 * (malloc'd, may be NULL) when out is given. */
static long request(kl_http *h, CURL *c, const char *method, const char *path, const char *ctype,
                    const char *body, char **out)
{
    struct curl_slist *hdrs = NULL;
    buf b = {0};
    setup(h, c, method, path, ctype, body, &hdrs);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    long code = 0;
    CURLcode rc = curl_easy_perform(c);
    if (rc == CURLE_OK) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(hdrs);
    if (code >= 400 && code != 404 && code != 409)
        kl_log("WARN", "request=\"%s %s\" code=%ld msg=\"%.300s\"", method, path, code,
               b.p ? b.p : curl_easy_strerror(rc));
    if (out)
        *out = b.p;
    else
        free(b.p);
    return code;
}

static long sync_request(kl_http *h, const char *method, const char *path, const char *ctype,
                         const char *body, char **out)
{
    pthread_mutex_lock(&h->sync_mu);
    long code = request(h, h->sync, method, path, ctype, body, out);
    pthread_mutex_unlock(&h->sync_mu);
    return code;
}

static char *esc(const char *s)
{
    char *e = curl_easy_escape(NULL, s ? s : "", 0);
    return e ? e : strdup("");
}

/* ---------------- writer thread ---------------- */

static void enqueue(kl_http *h, const char *method, char *path, char *body, const char *key)
{
    pthread_mutex_lock(&h->mu);
    if (key && *key)
        for (wjob *j = h->qhead; j; j = j->next)
            if (!strcmp(j->key, key) && !strcmp(j->method, method)) { /* a newer status */
                free(j->body);
                j->body = body;
                free(path);
                pthread_mutex_unlock(&h->mu);
                return;
            }
    wjob *j = calloc(1, sizeof *j);
    if (!j) {
        pthread_mutex_unlock(&h->mu);
        free(path);
        free(body);
        return;
    }
    snprintf(j->method, sizeof j->method, "%s", method);
    snprintf(j->key, sizeof j->key, "%s", key ? key : "");
    j->path = path;
    j->body = body;
    if (h->qtail)
        h->qtail->next = j;
    else
        h->qhead = j;
    h->qtail = j;
    pthread_cond_signal(&h->cv);
    pthread_mutex_unlock(&h->mu);
}

static void *writer_main(void *arg)
{
    kl_http *h = arg;
    CURL *c = curl_easy_init();
    for (;;) {
        pthread_mutex_lock(&h->mu);
        while (!h->qhead && !h->stop)
            pthread_cond_wait(&h->cv, &h->mu);
        wjob *j = h->qhead;
        if (!j) { /* stopping, queue drained */
            pthread_mutex_unlock(&h->mu);
            break;
        }
        h->qhead = j->next;
        if (!h->qhead) h->qtail = NULL;
        pthread_mutex_unlock(&h->mu);
        const char *ctype =
            !strcmp(j->method, "PATCH") ? "application/merge-patch+json" : "application/json";
        for (int attempt = 0; attempt < 5; attempt++) {
            long code = request(h, c, j->method, j->path, ctype, j->body, NULL);
            if ((code != 0 && code != 429 && code < 500) || h->stop) break;
            usleep(200000u << attempt); /* unreachable, throttled or a server error: retry */
        }
        free(j->path);
        free(j->body);
        free(j);
    }
    curl_easy_cleanup(c);
    return NULL;
}

/* ---------------- the ops ---------------- */

static json_t *parse(char *text)
{
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    return o;
}

static json_t *ht_get(void *ctx, const char *resource, const char *ns, const char *name)
{
    kl_http *h = ctx;
    char path[2048], *n = esc(name), *s = esc(ns), *body = NULL;
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/%s/%s", s, resource, n);
    free(n);
    free(s);
    long code = sync_request(h, "GET", path, NULL, NULL, &body);
    if (code != 200) {
        free(body);
        return NULL;
    }
    return parse(body);
}

static json_t *ht_list(void *ctx, const char *resource, const char *ns)
{
    kl_http *h = ctx;
    char path[2048], *s = esc(ns), *body = NULL;
    if (ns)
        snprintf(path, sizeof path, "/api/v1/namespaces/%s/%s", s, resource);
    else
        snprintf(path, sizeof path, "/api/v1/%s", resource);
    free(s);
    long code = sync_request(h, "GET", path, NULL, NULL, &body);
    json_t *list = code == 200 ? parse(body) : (free(body), NULL); /* parse frees body */
    json_t *items = json_incref(json_object_get(list, "items"));
    json_decref(list);
    return json_is_array(items) ? items : (json_decref(items), json_array());
}

static void ht_put_node(void *ctx, const json_t *node)
{
    kl_http *h = ctx;
    json_t *copy = json_deep_copy(node);
    json_t *spec = json_object_get(copy, "spec");
    json_object_del(spec, "podCIDR"); /* the controller manager's to assign */
    json_object_del(spec, "podCIDRs");
    char *body = json_dumps(copy, JSON_COMPACT), *resp = NULL;
    long code = sync_request(h, "POST", "/api/v1/nodes", NULL, body, &resp);
    free(body);
    if (code == 409) { /* registered before (an agent restart): refresh the status */
        char path[512], *n = esc(h->o.node_name);
        snprintf(path, sizeof path, "/api/v1/nodes/%s/status", n);
        free(n);
        json_t *patch = json_pack("{s:O}", "status", json_object_get(copy, "status"));
        body = json_dumps(patch, JSON_COMPACT);
        json_decref(patch);
        free(resp);
        resp = NULL;
        pthread_mutex_lock(&h->sync_mu);
        code = request(h, h->sync, "PATCH", path, "application/merge-patch+json", body, &resp);
        pthread_mutex_unlock(&h->sync_mu);
        free(body);
    }
    json_t *o = parse(resp);
    const char *uid = json_string_value(json_object_get(json_object_get(o, "metadata"), "uid"));
    if (uid) snprintf(h->node_uid, sizeof h->node_uid, "%s", uid);
    if (code >= 300)
        kl_log("ERROR", "node=%s code=%ld msg=\"registering the Node failed\"", h->o.node_name,
               code);
    json_decref(o);
    json_decref(copy);
}

static void ht_set_pod_status(void *ctx, const char *ns, const char *name, const char *uid,
                              json_t *status)
{
    kl_http *h = ctx;
    char *path = NULL, *n = esc(name), *s = esc(ns), key[600];
    json_t *patch = json_pack("{s:{s:s},s:o}", "metadata", "uid", uid, "status", status);
    char *body = json_dumps(patch, JSON_COMPACT);
    json_decref(patch);
    if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s/status", s, n) < 0) path = NULL;
    free(n);
    free(s);
    snprintf(key, sizeof key, "%s/%s", ns, name);
    if (path && body)
        enqueue(h, "PATCH", path, body, key);
    else {
        free(path);
        free(body);
    }
}

static void ht_finalize_pod(void *ctx, const char *ns, const char *name, const char *uid)
{
    kl_http *h = ctx;
    char *path = NULL, *n = esc(name), *s = esc(ns);
    json_t *opts = json_pack("{s:s,s:s,s:i,s:{s:s}}", "kind", "DeleteOptions", "apiVersion", "v1",
                             "gracePeriodSeconds", 0, "preconditions", "uid", uid);
    char *body = json_dumps(opts, JSON_COMPACT);
    json_decref(opts);
    if (asprintf(&path, "/api/v1/namespaces/%s/pods/%s", s, n) < 0) path = NULL;
    free(n);
    free(s);
    if (path && body)
        enqueue(h, "DELETE", path, body, NULL);
    else {
        free(path);
        free(body);
    }
}

static void rfc3339(char *out, size_t len, int micro)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    gmtime_r(&tv.tv_sec, &tm);
    char base[32];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    if (micro)
        snprintf(out, len, "%s.%06ldZ", base, (long)tv.tv_usec);
    else
        snprintf(out, len, "%sZ", base);
}

static void ht_record_event(void *ctx, const char *ns, const json_t *pod, const char *type,
                            const char *reason, const char *message, const char *component)
{
    kl_http *h = ctx;
    const json_t *md = json_object_get(pod, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    char ts[40], evname[400], *path = NULL, *s = esc(ns);
    rfc3339(ts, sizeof ts, 0);
    struct timeval tv;
    gettimeofday(&tv, NULL);
    snprintf(evname, sizeof evname, "%.250s.%llx", name ? name : "pod",
             (unsigned long long)tv.tv_sec * 1000000ULL + (unsigned long long)tv.tv_usec);
    json_t *ev = json_pack(
        "{s:s,s:s,s:{s:s,s:s},s:{s:s,s:s,s:s,s:s?,s:s?,s:s?},s:s,s:s,s:s,s:{s:s,s:s},s:s,s:s,s:"
        "i,s:s,s:s}",
        "apiVersion", "v1", "kind", "Event", "metadata", "name", evname, "namespace", ns,
        "involvedObject", "kind", "Pod", "apiVersion", "v1", "namespace", ns, "name", name, "uid",
        json_string_value(json_object_get(md, "uid")), "resourceVersion",
        json_string_value(json_object_get(md, "resourceVersion")), "type", type, "reason", reason,
        "message", message, "source", "component", component, "host", h->o.node_name,
        "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "reportingComponent", component,
        "reportingInstance", h->o.node_name);
    char *body = ev ? json_dumps(ev, JSON_COMPACT) : NULL;
    json_decref(ev);
    if (asprintf(&path, "/api/v1/namespaces/%s/events", s) < 0) path = NULL;
    free(s);
    if (path && body)
        enqueue(h, "POST", path, body, NULL);
    else {
        free(path);
        free(body);
    }
}

static char *ht_sa_token(void *ctx, const char *ns, const char *sa, const char *pod,
                         const char *uid, const char *audience, long long expiration_s)
{
    kl_http *h = ctx;
    char path[2048], *s = esc(ns), *a = esc(sa), *resp = NULL;
    snprintf(path, sizeof path, "/api/v1/namespaces/%s/serviceaccounts/%s/token", s, a);
    free(s);
    free(a);
    json_t *req =
        json_pack("{s:s,s:s,s:{s:I,s:{s:s,s:s,s:s,s:s}}}", "apiVersion", "authentication.k8s.io/v1",
                  "kind", "TokenRequest", "spec", "expirationSeconds",
                  (json_int_t)(expiration_s > 0 ? expiration_s : 3607), "boundObjectRef", "kind",
                  "Pod", "apiVersion", "v1", "name", pod, "uid", uid);
    if (audience && *audience)
        json_object_set_new(json_object_get(req, "spec"), "audiences", json_pack("[s]", audience));
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    long code = sync_request(h, "POST", path, NULL, body, &resp);
    free(body);
    json_t *o = code == 201 || code == 200 ? parse(resp) : (free(resp), NULL);
    const char *tok = json_string_value(json_object_get(json_object_get(o, "status"), "token"));
    char *out = tok ? strdup(tok) : NULL;
    json_decref(o);
    if (!out)
        kl_log("WARN", "pod=%s/%s serviceaccount=%s code=%ld msg=\"TokenRequest failed\"", ns, pod,
               sa, code);
    return out;
}

static const kl_api_ops g_http_ops = {
    .get = ht_get,
    .list = ht_list,
    .put_node = ht_put_node,
    .set_pod_status = ht_set_pod_status,
    .finalize_pod = ht_finalize_pod,
    .record_event = ht_record_event,
    .bind_pod = NULL, /* the cluster's scheduler binds */
    .sa_token = ht_sa_token,
};

const kl_api_ops *kl_http_ops(void)
{
    return &g_http_ops;
}

/* ---------------- watch ---------------- */

typedef struct wstate {
    kl_http *h;
    buf line;
    char rv[64];
    int gone; /* 410: re-list */
} wstate;

static int known_index(kl_http *h, const char *key)
{
    for (size_t i = 0; i < h->n_known; i++)
        if (!strcmp(h->known[i], key)) return (int)i;
    return -1;
}

static void known_set(kl_http *h, const json_t *pod, int present)
{
    const json_t *md = json_object_get(pod, "metadata");
    char key[600];
    snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(md, "namespace")),
             json_string_value(json_object_get(md, "name")));
    int i = known_index(h, key);
    if (present && i < 0) {
        if (h->n_known == h->cap_known) {
            size_t cap = h->cap_known ? h->cap_known * 2 : 64;
            char **nk = realloc(h->known, cap * sizeof *nk);
            if (!nk) return;
            h->known = nk;
            h->cap_known = cap;
        }
        h->known[h->n_known++] = strdup(key);
    } else if (!present && i >= 0) {
        free(h->known[i]);
        h->known[i] = h->known[--h->n_known];
    }
}

static void watch_line(wstate *w, char *text)
{
    json_t *ev = json_loads(text, 0, NULL);
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    const char *rv =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    if (!type) {
    } else if (!strcmp(type, "ERROR")) {
        w->gone = 1; /* 410 Expired (or another error): list again */
    } else {
        if (rv) snprintf(w->rv, sizeof w->rv, "%s", rv);
        if (strcmp(type, "BOOKMARK")) {
            known_set(w->h, obj, strcmp(type, "DELETED") != 0);
            kl_enqueue(w->h->k, type, obj, 0);
        }
    }
    json_decref(ev);
}

static size_t watch_data(char *data, size_t size, size_t n, void *arg)
{
    wstate *w = arg;
    size_t len = size * n;
    if (w->h->stop) return 0; /* aborts the transfer */
    if (collect(data, 1, len, &w->line) != len) return 0;
    char *start = w->line.p, *nl;
    while ((nl = memchr(start, '\n', w->line.n - (size_t)(start - w->line.p)))) {
        *nl = 0;
        if (nl > start) watch_line(w, start);
        start = nl + 1;
    }
    size_t rest = w->line.n - (size_t)(start - w->line.p);
    memmove(w->line.p, start, rest);
    w->line.n = rest;
    return len;
}

static int watch_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a, (void)b, (void)c, (void)d;
    return ((wstate *)arg)->h->stop; /* non-zero aborts a watch waiting for events */
}

/* LIST: every pod of this node is (re)announced; pods known before and gone now are DELETED. */
static int relist(kl_http *h, CURL *c, wstate *w)
{
    char path[1024], *sel = NULL, *body = NULL;
    char fs[300];
    snprintf(fs, sizeof fs, "spec.nodeName=%s", h->o.node_name);
    sel = esc(fs);
    snprintf(path, sizeof path, "/api/v1/pods?fieldSelector=%s", sel);
    free(sel);
    if (request(h, c, "GET", path, NULL, NULL, &body) != 200) {
        free(body);
        return -1;
    }
    json_t *list = parse(body);
    const char *rv =
        json_string_value(json_object_get(json_object_get(list, "metadata"), "resourceVersion"));
    snprintf(w->rv, sizeof w->rv, "%s", rv ? rv : "0");
    json_t *items = json_object_get(list, "items");
    /* vanished pods first */
    for (size_t i = 0; i < h->n_known;) {
        int found = 0;
        size_t j;
        json_t *it;
        json_array_foreach(items, j, it)
        {
            const json_t *md = json_object_get(it, "metadata");
            char key[600];
            snprintf(key, sizeof key, "%s/%s", json_string_value(json_object_get(md, "namespace")),
                     json_string_value(json_object_get(md, "name")));
            if (!strcmp(key, h->known[i])) found = 1;
        }
        if (found) {
            i++;
            continue;
        }
        char *slash = strchr(h->known[i], '/');
        if (slash) {
            *slash = 0;
            json_t *gone =
                json_pack("{s:{s:s,s:s}}", "metadata", "namespace", h->known[i], "name", slash + 1);
            kl_enqueue(h->k, "DELETED", gone, 0);
            json_decref(gone);
        }
        free(h->known[i]);
        h->known[i] = h->known[--h->n_known];
    }
    size_t j;
    json_t *it;
    json_array_foreach(items, j, it)
    {
        known_set(h, it, 1);
        kl_enqueue(h->k, "ADDED", it, 0);
    }
    json_decref(list);
    return 0;
}

static void *watcher_main(void *arg)
{
    kl_http *h = arg;
    CURL *c = curl_easy_init();
    wstate w = {.h = h, .gone = 1};
    while (!h->stop) {
        if (w.gone) {
            if (relist(h, c, &w) != 0) {
                sleep(1);
                continue;
            }
            w.gone = 0;
        }
        char path[1024], fs[300], *sel;
        snprintf(fs, sizeof fs, "spec.nodeName=%s", h->o.node_name);
        sel = esc(fs);
        snprintf(path, sizeof path,
                 "/api/v1/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=300&"
                 "resourceVersion=%s&fieldSelector=%s",
                 w.rv, sel);
        free(sel);
        struct curl_slist *hdrs = NULL;
        setup(h, c, "GET", path, NULL, NULL, &hdrs);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, watch_data);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, &w);
        curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, watch_progress);
        curl_easy_setopt(c, CURLOPT_XFERINFODATA, &w);
        CURLcode rc = curl_easy_perform(c);
        long code = 0;
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        curl_slist_free_all(hdrs);
        w.line.n = 0;
        if (h->stop) break;
        if (code == 410 || (code >= 400 && code != 429)) w.gone = 1;
        if (rc != CURLE_OK || code != 200) sleep(1);
    }
    free(w.line.p);
    curl_easy_cleanup(c);
    return NULL;
}

/* ---------------- heartbeat (Lease) ---------------- */

static void *heart_main(void *arg)
{
    kl_http *h = arg;
    CURL *c = curl_easy_init();
    char path[512], *n = esc(h->o.node_name), ts[40];
    int created = 0;
    for (int tick = 0; !h->stop; tick++) {
        if (tick % 100 == 0) { /* every 10 s */
            rfc3339(ts, sizeof ts, 1);
            long code;
            if (!created) {
                json_t *lease = json_pack(
                    "{s:s,s:s,s:{s:s,s:s,s:[{s:s,s:s,s:s,s:s}]},s:{s:s,s:i,s:s}}", "apiVersion",
                    "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name", h->o.node_name,
                    "namespace", "kube-node-lease", "ownerReferences", "apiVersion", "v1", "kind",
                    "Node", "name", h->o.node_name, "uid", h->node_uid, "spec", "holderIdentity",
                    h->o.node_name, "leaseDurationSeconds", 40, "renewTime", ts);
                char *body = json_dumps(lease, JSON_COMPACT);
                json_decref(lease);
                code = request(h, c, "POST",
                               "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
                               NULL, body, NULL);
                free(body);
                if (code == 404) {
                    kl_log("INFO",
                           "node=%s msg=\"the API server has no coordination.k8s.io/v1 "
                           "Leases: no heartbeat\"",
                           h->o.node_name);
                    break;
                }
                created = code == 201 || code == 409;
            } else {
                snprintf(path, sizeof path,
                         "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/%s", n);
                char body[128];
                snprintf(body, sizeof body, "{\"spec\":{\"renewTime\":\"%s\"}}", ts);
                code = request(h, c, "PATCH", path, "application/merge-patch+json", body, NULL);
                if (code == 404) created = 0;
            }
        }
        usleep(100000);
    }
    free(n);
    curl_easy_cleanup(c);
    return NULL;
}

/* ---------------- life cycle ---------------- */

kl_http *kl_http_new(const kl_http_options *o)
{
    kl_http *h = calloc(1, sizeof *h);
    if (!h) return NULL;
    h->o = *o;
    h->sync = curl_easy_init();
    pthread_mutex_init(&h->sync_mu, NULL);
    pthread_mutex_init(&h->mu, NULL);
    pthread_cond_init(&h->cv, NULL);
    if (!h->sync || pthread_create(&h->writer, NULL, writer_main, h) != 0) {
        kl_http_free(h);
        return NULL;
    }
    h->writer_started = 1;
    return h;
}

char *kl_http_wait_pod_cidr(kl_http *h, int timeout_s)
{
    char path[512], *n = esc(h->o.node_name);
    snprintf(path, sizeof path, "/api/v1/nodes/%s", n);
    free(n);
    for (int i = 0; i < timeout_s * 5; i++) {
        char *body = NULL;
        if (sync_request(h, "GET", path, NULL, NULL, &body) == 200) {
            json_t *o = parse(body);
            const char *cidr =
                json_string_value(json_object_get(json_object_get(o, "spec"), "podCIDR"));
            char *out = cidr && *cidr ? strdup(cidr) : NULL;
            json_decref(o);
            if (out) return out;
        } else {
            free(body);
        }
        usleep(200000);
    }
    return NULL;
}

void kl_http_register_minimal(kl_http *h)
{
    json_t *node =
        json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s,s:s}}}", "apiVersion", "v1", "kind", "Node",
                  "metadata", "name", h->o.node_name, "labels", "kubernetes.io/hostname",
                  h->o.node_name, "kubernetes.io/os", "linux", "kubernetes.io/arch", "amd64");
    char *body = json_dumps(node, JSON_COMPACT), *resp = NULL;
    json_decref(node);
    sync_request(h, "POST", "/api/v1/nodes", NULL, body, &resp);
    free(body);
    free(resp);
}

int kl_http_start_watch(kl_http *h, ks_kubelet *k)
{
    h->k = k;
    if (pthread_create(&h->watcher, NULL, watcher_main, h) != 0) return -1;
    h->watcher_started = 1;
    if (pthread_create(&h->heart, NULL, heart_main, h) == 0) h->heart_started = 1;
    return 0;
}

void kl_http_stop_watch(kl_http *h)
{
    if (!h) return;
    pthread_mutex_lock(&h->mu);
    h->stop = 1;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
    if (h->watcher_started) pthread_join(h->watcher, NULL);
    if (h->heart_started) pthread_join(h->heart, NULL);
    h->watcher_started = h->heart_started = 0;
}

void kl_http_free(void *ctx)
{
    kl_http *h = ctx;
    if (!h) return;
    kl_http_stop_watch(h);
    if (h->writer_started) pthread_join(h->writer, NULL); /* drains the queue first */
    for (wjob *j = h->qhead, *nx; j; j = nx) {
        nx = j->next;
        free(j->path);
        free(j->body);
        free(j);
    }
    for (size_t i = 0; i < h->n_known; i++)
        free(h->known[i]);
    free(h->known);
    if (h->sync) curl_easy_cleanup(h->sync);
    pthread_mutex_destroy(&h->sync_mu);
    pthread_mutex_destroy(&h->mu);
    pthread_cond_destroy(&h->cv);
    free(h);
}
