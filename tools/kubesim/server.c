/* kubesim HTTP server (see server.h): the libmicrohttpd daemon (thread per connection, HTTP or
 * HTTPS), request body collection, and per request: admin endpoints, authentication, path parsing,
 * RBAC, injected faults, then dispatch to the verb handlers (api_read.c, api_write.c,
 * api_delete.c) or the watch stream (watch.c). Errors are metav1.Status bodies with the API
 * server's reasons and messages. Called by main.c. */
#define _GNU_SOURCE
#include "server_int.h"
#include "authz.h"
#include "discovery.h"
#include "selector.h"
#include "table.h"
#include "util.h"
#include "watch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BODY (3 * 1024 * 1024)

static enum MHD_Result forbidden(struct MHD_Connection *c, const ks_route *rt, const char *user,
                                 const char *rbac_res)
{
    char msg[1024];
    char what[420], q[128];
    ks_qualified(rt->resource, rt->resource, q, sizeof q);
    if (rt->has_name)
        snprintf(what, sizeof what, "%s \"%s\"", q, rt->name);
    else
        snprintf(what, sizeof what, "%s", q);
    if (rt->has_ns)
        snprintf(msg, sizeof msg,
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" in "
                 "the namespace \"%s\"",
                 what, user, rt->verb, rbac_res, rt->group, rt->ns);
    else
        snprintf(msg, sizeof msg,
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"%s\" at "
                 "the cluster scope",
                 what, user, rt->verb, rbac_res, rt->group);
    json_t *details = json_pack("{s:s}", "kind", rt->resource);
    if (rt->has_name) json_object_set_new(details, "name", json_string(rt->name));
    return ks_send_status(c, 403, "Forbidden", msg, details);
}

/* The ListOptions of a list or watch as the API server decodes and uses them: integers through
 * strconv (400), a resourceVersion the storage cannot parse (500 without a reason: what
 * kube-apiserver answers, kubernetes/kubernetes#139485). Returns 0 or the HTTP code, with the
 * message in err. */
static int list_options_check(struct MHD_Connection *c, long long *timeout_s, char *err,
                              size_t errlen)
{
    long long limit;
    if (ks_query_int64(c, "timeoutSeconds", timeout_s, NULL, err, errlen) < 0 ||
        ks_query_int64(c, "limit", &limit, NULL, err, errlen) < 0)
        return 400;
    const char *rv = ks_qarg(c, "resourceVersion");
    if (!rv || !*rv) return 0;
    int digits = 1;
    for (const char *p = rv; *p; p++)
        digits = digits && *p >= '0' && *p <= '9';
    errno = 0;
    if (digits) strtoull(rv, NULL, 10);
    if (digits && errno != ERANGE) return 0;
    snprintf(err, errlen,
             "resourceVersion: Invalid value: \"%s\": strconv.ParseUint: parsing \"%s\": %s", rv,
             rv, digits ? "value out of range" : "invalid syntax");
    return 500;
}

static enum MHD_Result handle_api(ks_server *s, struct MHD_Connection *c, const char *url,
                                  const char *method, const ks_req_ctx *rc, ks_route *rt, int *code)
{
    int watch = ks_qbool(c, "watch");
    if (ks_parse_path(url, rt) != 0) {
        *code = 404;
        return ks_send_status(c, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    }
    rt->verb = ks_verb_for(method, rt, watch);
    if (!*rt->verb) {
        *code = 405;
        return ks_send_status(c, 405, "MethodNotAllowed",
                              "the server does not allow this method on the requested "
                              "resource",
                              NULL);
    }
    const char *user = ks_rbac_authenticate(s->o.rbac, ks_header(c, "Authorization"));
    if (!user) {
        *code = 401;
        return ks_send_status(c, 401, "Unauthorized", "Unauthorized", NULL);
    }
    char rbac_res[96];
    snprintf(rbac_res, sizeof rbac_res, "%s%s%s", rt->resource, *rt->sub ? "/" : "", rt->sub);
    ks_authz_request az = {.user = user,
                           .verb = rt->verb,
                           .group = rt->group,
                           .resource = rt->resource,
                           .sub = rt->sub,
                           .name = rt->has_name ? rt->name : "",
                           .namespace = rt->has_ns ? rt->ns : ""};
    if (!ks_rbac_allowed(s->o.rbac, user, rt->verb, rbac_res, rt->has_ns ? rt->ns : NULL) &&
        !ks_authz_allowed(s->o.store, &az)) {
        *code = 403;
        return forbidden(c, rt, user, rbac_res);
    }
    /* faults: /api requests only */
    ks_faults_cfg f;
    ks_faults_get(s->o.faults, &f);
    if (f.latency_ms > 0) usleep((useconds_t)f.latency_ms * 1000);
    if (f.throttle_rate > 0 && ks_random01() < f.throttle_rate) {
        char ra[16];
        snprintf(ra, sizeof ra, "%d", f.retry_after_s);
        json_t *st = ks_status(429, "TooManyRequests", "Too many requests, please try again later.",
                               json_pack("{s:i}", "retryAfterSeconds", f.retry_after_s));
        char *body = json_dumps(st, JSON_COMPACT);
        json_decref(st);
        *code = 429;
        return ks_send_text(c, 429, "application/json", body, strlen(body), ra);
    }
    if (f.error_rate > 0 && ks_random01() < f.error_rate) {
        *code = 500;
        return ks_send_status(c, 500, "InternalError",
                              "Internal error occurred: injected fault (kubesim errorRate)",
                              json_pack("{s:[{s:s}]}", "causes", "message", "injected fault"));
    }
    const char *ls = ks_qarg(c, "labelSelector"), *fs = ks_qarg(c, "fieldSelector");
    ks_selector *sel = NULL;
    if ((ls && *ls) || (fs && *fs)) {
        char err[512];
        sel = ks_selector_parse(rt->resource, ls, fs, err, sizeof err);
        if (!sel) {
            *code = 400;
            return ks_send_status(c, 400, "BadRequest", err, NULL);
        }
    }
    const char *v = rt->verb;
    if (*rt->sub && strcmp(rt->sub, "status") && strcmp(rt->sub, "log") &&
        strcmp(rt->sub, "binding") && strcmp(rt->sub, "token")) {
        ks_selector_free(sel);
        *code = 404;
        return ks_send_status(c, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
    }
    if (!strcmp(rt->sub, "log")) {
        ks_selector_free(sel);
        if (strcmp(v, "get") || strcmp(rt->resource, "pods")) {
            *code = 405;
            return ks_send_status(c, 405, "MethodNotAllowed", "log supports GET only", NULL);
        }
        return ks_api_log(s, c, rt);
    }
    if (!strcmp(rt->sub, "token")) {
        ks_selector_free(sel);
        if (strcmp(method, "POST") || strcmp(rt->resource, "serviceaccounts") || !rt->has_ns) {
            *code = 405;
            return ks_send_status(c, 405, "MethodNotAllowed", "token supports POST only", NULL);
        }
        return ks_api_token_request(s, c, rt, rc);
    }
    if (!strcmp(rt->sub, "binding")) {
        ks_selector_free(sel);
        if (strcmp(method, "POST") || strcmp(rt->resource, "pods")) {
            *code = 405;
            return ks_send_status(c, 405, "MethodNotAllowed", "binding supports POST only", NULL);
        }
        return ks_api_binding(s, c, rt, rc);
    }
    int status_only = !strcmp(rt->sub, "status");
    long long timeout_s = 0;
    if (!strcmp(v, "watch") || !strcmp(v, "list")) {
        char qerr[512];
        int qcode = list_options_check(c, &timeout_s, qerr, sizeof qerr);
        if (qcode) {
            ks_selector_free(sel);
            *code = qcode;
            return ks_send_status(c, qcode, qcode == 400 ? "BadRequest" : "", qerr, NULL);
        }
    }
    if (!strcmp(v, "watch")) {
        if (rt->has_name) {
            /* watch of one object: fieldSelector metadata.name */
            char fsel[300];
            snprintf(fsel, sizeof fsel, "metadata.name=%s", rt->name);
            ks_selector_free(sel);
            char err[256];
            sel = ks_selector_parse(rt->resource, ls, fsel, err, sizeof err);
        }
        ks_watch_params wp = {
            .store = s->o.store,
            .metrics = s->o.metrics,
            .resource = rt->resource,
            .ns = rt->has_ns ? rt->ns : NULL,
            .sel = sel,
            .rv = ks_qarg(c, "resourceVersion"),
            .timeout_s = timeout_s < 0             ? -1
                         : timeout_s > 86400 * 365 ? 86400 * 365
                                                   : (int)timeout_s,
            .bookmarks = ks_qbool(c, "allowWatchBookmarks"),
            .send_initial = ks_qbool(c, "sendInitialEvents"),
            .table = ks_wants_table(ks_header(c, "Accept")),
            .include = ks_qarg(c, "includeObject"),
            .bookmark_ms = s->o.bookmark_ms,
            .faults = s->o.faults,
            .stopping = &s->stopping,
            .fd = -1,
        };
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (ci) wp.fd = ci->connect_fd;
        struct MHD_Response *r = ks_watch_response(&wp);
        if (!r) return MHD_NO;
        enum MHD_Result ret = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
        return ret;
    }
    if (!strcmp(v, "list")) return ks_api_list(s, c, rt, sel);
    if (!strcmp(v, "deletecollection")) return ks_api_delete_collection(s, c, rt, rc, sel);
    ks_selector_free(sel);
    if (!strcmp(v, "get")) return ks_api_get(s, c, rt);
    if (!strcmp(v, "create")) {
        if (rt->has_name) {
            *code = 405;
            return ks_send_status(c, 405, "MethodNotAllowed",
                                  "the server does not allow this method on the requested "
                                  "resource",
                                  NULL);
        }
        if (rt->namespaced && !rt->has_ns) {
            *code = 404;
            return ks_send_status(c, 404, "NotFound",
                                  "the server could not find the requested resource", NULL);
        }
        return ks_api_create(s, c, rt, rc);
    }
    if (!strcmp(v, "update")) return ks_api_update(s, c, rt, rc, status_only);
    if (!strcmp(v, "patch")) return ks_api_patch(s, c, rt, rc, status_only);
    if (!strcmp(v, "delete")) return ks_api_delete(s, c, rt, rc);
    *code = 405;
    return ks_send_status(c, 405, "MethodNotAllowed", "method not allowed", NULL);
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
    ks_server *s = cls;
    ks_req_ctx *rc = *con_cls;
    if (!rc) {
        rc = calloc(1, sizeof *rc);
        if (!rc) return MHD_NO;
        rc->t0 = ks_mono_ms();
        *con_cls = rc;
        return MHD_YES;
    }
    if (*upload_size) {
        if (rc->len + *upload_size > MAX_BODY) {
            rc->too_big = 1;
        } else {
            if (rc->len + *upload_size + 1 > rc->cap) {
                size_t nc = rc->cap ? rc->cap : 4096;
                while (nc < rc->len + *upload_size + 1)
                    nc *= 2;
                char *nb = realloc(rc->body, nc);
                if (!nb) return MHD_NO;
                rc->body = nb;
                rc->cap = nc;
            }
            memcpy(rc->body + rc->len, upload, *upload_size);
            rc->len += *upload_size;
            rc->body[rc->len] = 0;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    int code = 200;
    enum MHD_Result ret;
    ks_tl_code = 0;
    ks_warn_reset();
    ks_route rt;
    memset(&rt, 0, sizeof rt);
    const char *mverb = NULL;
    if (rc->too_big) {
        code = 413;
        ret = ks_send_status(c, 413, "RequestEntityTooLarge",
                             "Request entity too large: limit is 3145728", NULL);
    } else if (!strcmp(url, "/metrics") || !strncmp(url, "/kubesim/", 9) ||
               !strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz")) {
        ret = ks_admin_handle(s, c, url, method, rc, &code);
    } else if (ks_is_resource_path(url)) {
        ret = handle_api(s, c, url, method, rc, &rt, &code);
        code = ks_tl_code ? ks_tl_code : 200;
        if (rt.resource) /* as kube-apiserver, requests for unknown resources are not counted */
            mverb = ks_metric_verb(method, &rt, ks_qbool(c, "watch"));
    } else {
        json_t *doc = ks_discovery(url, s->host_port);
        if (doc && strcmp(url, "/version") &&
            !ks_rbac_authenticate(s->o.rbac, ks_header(c, "Authorization"))) {
            json_decref(doc);
            code = 401;
            ret = ks_send_status(c, 401, "Unauthorized", "Unauthorized", NULL);
        } else if (doc) {
            ret = ks_send_json(c, 200, doc);
        } else {
            code = 404;
            ret = ks_send_status(c, 404, "NotFound",
                                 "the server could not find the requested resource", NULL);
        }
    }
    (void)version;
    if (mverb && s->o.metrics) {
        const char *dry = ks_qarg(c, "dryRun");
        ks_metric_labels l = {.verb = mverb,
                              .group = rt.group,
                              .version = rt.version,
                              .resource = rt.resource,
                              .subresource = rt.sub,
                              .scope = ks_metric_scope(&rt, method),
                              .dry_run = dry && !strcmp(dry, "All")};
        ks_metrics_observe(s->o.metrics, &l, code, (double)(ks_mono_ms() - rc->t0) / 1000.0);
    }
    if (s->o.verbose)
        fprintf(stderr, "info %lld kubesim method=%s path=%s code=%d ms=%lld\n",
                (long long)ks_now_ms(), method, url, code, (long long)(ks_mono_ms() - rc->t0));
    return ret;
}

static void completed_cb(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    ks_req_ctx *rc = *con_cls;
    if (rc) {
        free(rc->body);
        free(rc);
        *con_cls = NULL;
    }
}

ks_server *ks_server_start(const ks_server_opts *o, char *err, size_t errlen)
{
    ks_server *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->o = *o;
    /* bind here so that the port (and host_port, read by request threads) is known before MHD
     * starts */
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)o->port);
    sa.sin_addr.s_addr = htonl(o->all_addresses ? INADDR_ANY : INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    socklen_t sl = sizeof sa;
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 1024) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
        snprintf(err, errlen, "cannot listen on 127.0.0.1:%d: %s", o->port, strerror(errno));
        if (fd >= 0) close(fd);
        free(s);
        return NULL;
    }
    s->port = ntohs(sa.sin_port);
    snprintf(s->host_port, sizeof s->host_port, "127.0.0.1:%d", s->port);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
    int tls = o->tls_cert_pem && o->tls_key_pem;
    if (tls) flags |= MHD_USE_TLS;
    if (tls)
        s->d = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                MHD_OPTION_NOTIFY_COMPLETED, completed_cb, s,
                                MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_CONNECTION_LIMIT,
                                4000u, MHD_OPTION_HTTPS_MEM_KEY, o->tls_key_pem,
                                MHD_OPTION_HTTPS_MEM_CERT, o->tls_cert_pem, MHD_OPTION_END);
    else
        s->d = MHD_start_daemon(flags, 0, NULL, NULL, access_cb, s, MHD_OPTION_LISTEN_SOCKET, fd,
                                MHD_OPTION_NOTIFY_COMPLETED, completed_cb, s,
                                MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_CONNECTION_LIMIT,
                                4000u, MHD_OPTION_END);
    if (!s->d) {
        snprintf(err, errlen, "cannot serve on 127.0.0.1:%d%s", s->port,
                 tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES
                     ? " (libmicrohttpd has no TLS support)"
                     : "");
        close(fd);
        free(s);
        return NULL;
    }
    return s;
}

int ks_server_port(const ks_server *s)
{
    return s->port;
}

void ks_server_stop(ks_server *s)
{
    if (!s) return;
    __atomic_store_n(&s->stopping, 1, __ATOMIC_RELEASE);
    ks_store_shutdown(s->o.store);
    MHD_stop_daemon(s->d);
    free(s);
}
