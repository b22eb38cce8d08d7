/* kube_errors.c — one clear line for every failed Kubernetes API exchange.
 *
 * Reads the API server's Status body (message, reason, code, details) with jansson and adds what
 * the request was about: verb, resource, name, namespace. 403 names the user from the Status
 * message and points at deploy/rbac.yaml; a 404 caused by a missing namespace (the Status details
 * name it) says so; transport failures name the server URL and curl's reason; 401 names the
 * credential source. The error's kind comes from the Status's reason (else the HTTP status) and
 * its http_status from the answer: callers decide on those, never on the text. Called by
 * cs_kube_http_do and kube_watch. Pure function of its inputs; thread-safe.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "kube/kube_internal.h"

/* Copies the text between `User "` and the next quote of msg into buf. */
static bool user_from_message(const char *msg, char *buf, size_t cap)
{
    const char *p = msg ? strstr(msg, "User \"") : NULL;
    if (!p) return false;
    p += 6;
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) >= cap) return false;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = 0;
    return true;
}

/* The namespace a 404 is about, from the Status details ({"kind":"namespaces","name":"x"}, as
 * the API server sends for a request into a namespace that does not exist) → x */
static bool missing_namespace(json_t *details, char *buf, size_t cap)
{
    const char *kind = json_string_value(json_object_get(details, "kind"));
    const char *name = json_string_value(json_object_get(details, "name"));
    if (!kind || strcmp(kind, "namespaces") != 0 || !name) return false;
    snprintf(buf, cap, "%s", name);
    return true;
}

/* The Kubernetes API's StatusReason values (k8s.io/apimachinery metav1.StatusReason) and the
 * kind each becomes; a reason not listed, or a body without one, falls back on the status. */
static const struct {
    const char *name;
    cs_error_kind kind;
} REASONS[] = {
    {"BadRequest", CS_KIND_BAD_REQUEST},
    {"Unauthorized", CS_KIND_UNAUTHORIZED},
    {"Forbidden", CS_KIND_FORBIDDEN},
    {"NotFound", CS_KIND_NOT_FOUND},
    {"AlreadyExists", CS_KIND_ALREADY_EXISTS},
    {"Conflict", CS_KIND_CONFLICT},
    {"Gone", CS_KIND_EXPIRED},
    {"Expired", CS_KIND_EXPIRED},
    {"Invalid", CS_KIND_INVALID},
    {"TooManyRequests", CS_KIND_TOO_MANY_REQUESTS},
    {"InternalError", CS_KIND_SERVER_ERROR},
    {"ServiceUnavailable", CS_KIND_SERVER_ERROR},
    {"Timeout", CS_KIND_TIMEOUT},
    {"ServerTimeout", CS_KIND_TIMEOUT},
};

static cs_error_kind kind_of_status(long status)
{
    switch (status) {
    case 400:
        return CS_KIND_BAD_REQUEST;
    case 401:
        return CS_KIND_UNAUTHORIZED;
    case 403:
        return CS_KIND_FORBIDDEN;
    case 404:
        return CS_KIND_NOT_FOUND;
    case 409:
        return CS_KIND_CONFLICT;
    case 410:
        return CS_KIND_EXPIRED;
    case 422:
        return CS_KIND_INVALID;
    case 429:
        return CS_KIND_TOO_MANY_REQUESTS;
    case 504:
        return CS_KIND_TIMEOUT;
    default:
        return status >= 500 ? CS_KIND_SERVER_ERROR : CS_KIND_NONE;
    }
}

cs_error_kind cs_kube_error_kind(long status, const char *status_reason)
{
    for (size_t i = 0; status_reason && i < sizeof REASONS / sizeof REASONS[0]; i++)
        if (strcmp(status_reason, REASONS[i].name) == 0) return REASONS[i].kind;
    return kind_of_status(status);
}

/* "create pods \"x\" in namespace \"ns\"" (or the path when no resource is known) */
static void describe(const kube_req *q, char *buf, size_t cap)
{
    if (!q->resource) {
        snprintf(buf, cap, "%s %s", q->method, q->path);
        return;
    }
    int n = snprintf(buf, cap, "%s %s", q->verb, q->resource);
    if (n < 0 || (size_t)n >= cap) return;
    if (q->name) n += snprintf(buf + n, cap - (size_t)n, " \"%s\"", q->name);
    if (n < 0 || (size_t)n >= cap) return;
    if (q->ns && *q->ns) snprintf(buf + n, cap - (size_t)n, " in namespace \"%s\"", q->ns);
}

int cs_kube_error_from(const kube_client *c, const kube_req *q, const kube_resp *r, cs_error *err)
{
    char what[600];
    describe(q, what, sizeof what);
    if (!r->status) {
        if (r->curl_rc == CURLE_OPERATION_TIMEDOUT) {
            cs_error_set(err, CS_ETIMEOUT,
                         "%s: the Kubernetes API server at %s did not answer in time (%s)", what,
                         c->server, r->curl_msg);
            return cs_error_set_kind(err, CS_KIND_TIMEOUT, 0);
        }
        bool tls = r->curl_rc == CURLE_PEER_FAILED_VERIFICATION ||
                   r->curl_rc == CURLE_SSL_CACERT_BADFILE ||
                   r->curl_rc == CURLE_SSL_CONNECT_ERROR || r->curl_rc == CURLE_SSL_CERTPROBLEM;
        cs_error_set(err, CS_EIO, "cannot reach the Kubernetes API server at %s: %s%s", c->server,
                     r->curl_msg,
                     tls ? " (check the CA certificate: caCertFile or the kubeconfig's "
                           "certificate-authority; spark.kubernetes.trust.certificates=true "
                           "skips verification)"
                         : "");
        return cs_error_set_kind(err, CS_KIND_UNREACHABLE, 0);
    }

    json_t *st = r->body.len ? json_loadb(r->body.data, r->body.len, 0, NULL) : NULL;
    const char *msg = json_string_value(json_object_get(st, "message"));
    const char *reason = json_string_value(json_object_get(st, "reason"));
    json_t *details = json_object_get(st, "details");
    char text[700];
    if (msg && *msg) {
        snprintf(text, sizeof text, "%s", msg);
    } else if (r->body.len > 0 && !st) {
        snprintf(text, sizeof text, "%.200s", r->body.data);
        for (char *p = text; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
    } else {
        snprintf(text, sizeof text, "HTTP %ld%s%s", r->status, reason ? " " : "",
                 reason ? reason : "");
    }

    int rc;
    char buf[256];
    cs_error_kind kind = cs_kube_error_kind(r->status, reason);
    bool namespace_missing = r->status == 404 && missing_namespace(details, buf, sizeof buf) &&
                             !(q->resource && !strcmp(q->resource, "namespaces"));
    if (namespace_missing) kind = CS_KIND_NAMESPACE_NOT_FOUND;
    switch (r->status) {
    case 401:
        rc = cs_error_set(err, CS_EAUTH,
                          "%s: authentication to the Kubernetes API server at %s failed (401 "
                          "Unauthorized) with %s",
                          what, c->server, c->auth_source);
        break;
    case 403: {
        char who[256];
        if (!user_from_message(msg, who, sizeof who))
            snprintf(who, sizeof who, "%s", c->auth_source);
        const char *res = q->resource ? q->resource : q->path;
        if (q->ns && *q->ns) {
            rc = cs_error_set(err, CS_EAUTH,
                              "cannot %s %s in namespace \"%s\": forbidden for %s; grant the verbs "
                              "in deploy/rbac.yaml",
                              q->verb, res, q->ns, who);
        } else {
            rc = cs_error_set(err, CS_EAUTH,
                              "cannot %s %s: forbidden for %s; grant the verbs in deploy/rbac.yaml",
                              q->verb, res, who);
        }
        break;
    }
    case 404:
        if (namespace_missing) {
            rc = cs_error_set(err, CS_ENOTFOUND, "namespace \"%s\" does not exist", buf);
        } else {
            rc = cs_error_set(err, CS_ENOTFOUND, "%s: %s", what, text);
        }
        break;
    case 409:
        rc = cs_error_set(err, CS_EEXIST, "%s: %s", what, text);
        break;
    case 400:
    case 422:
        rc = cs_error_set(err, CS_EINVAL, "%s: %s", what, text);
        break;
    case 410:
        rc = cs_error_set(err, CS_EPROTO, "%s: %s", what, text);
        break;
    case 504:
        rc = cs_error_set(err, CS_ETIMEOUT, "%s: %s (HTTP 504)", what, text);
        break;
    default:
        rc = cs_error_set(err, CS_EIO, "%s: %s (HTTP %ld from %s)", what, text, r->status,
                          c->server);
        break;
    }
    cs_error_set_kind(err, kind, (int)r->status);
    json_decref(st);
    return rc;
}
