/* kube_errors.c — one clear line for every failed Kubernetes API exchange.
 *
 * Reads the API server's Status body (message, reason, code, details) with jansson and adds what
 * the request was about: verb, resource, name, namespace. 403 names the user from the Status
 * message and points at deploy/rbac.yaml; a 404 caused by a missing namespace says so; transport
 * failures name the server URL and curl's reason; 401 names the credential source. Called by
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

/* "namespaces \"x\" not found" → x */
static bool missing_namespace(const char *msg, json_t *details, char *buf, size_t cap)
{
    const char *kind = json_string_value(json_object_get(details, "kind"));
    const char *name = json_string_value(json_object_get(details, "name"));
    if (kind && !strcmp(kind, "namespaces") && name) {
        snprintf(buf, cap, "%s", name);
        return true;
    }
    const char *p = msg ? strstr(msg, "namespaces \"") : NULL;
    if (!p || strncmp(msg, "namespaces \"", 12) != 0) return false;
    p += 12;
    const char *e = strchr(p, '"');
    if (!e || (size_t)(e - p) >= cap) return false;
    memcpy(buf, p, (size_t)(e - p));
    buf[e - p] = 0;
    return true;
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
            return cs_error_set(err, CS_ETIMEOUT,
                                "%s: the Kubernetes API server at %s did not answer in time (%s)",
                                what, c->server, r->curl_msg);
        }
        bool tls = r->curl_rc == CURLE_PEER_FAILED_VERIFICATION ||
                   r->curl_rc == CURLE_SSL_CACERT_BADFILE ||
                   r->curl_rc == CURLE_SSL_CONNECT_ERROR || r->curl_rc == CURLE_SSL_CERTPROBLEM;
        return cs_error_set(err, CS_EIO, "cannot reach the Kubernetes API server at %s: %s%s",
                            c->server, r->curl_msg,
                            tls ? " (check the CA certificate: caCertFile or the kubeconfig's "
                                  "certificate-authority; spark.kubernetes.trust.certificates=true "
                                  "skips verification)"
                                : "");
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
        if (missing_namespace(msg, details, buf, sizeof buf) &&
            !(q->resource && !strcmp(q->resource, "namespaces"))) {
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
    json_decref(st);
    return rc;
}
