/* kube_client.h — Kubernetes REST client for core/v1 and a few API groups' resources (libcurl +
 * jansson).
 *
 * One kube_client talks to one API server with the credentials of a kube_config. Each call is
 * one logical request: it passes a client-side token-bucket rate limit
 * (cspark.kubernetes.client.qps, default 50; cspark.kubernetes.client.burst, default 100; qps<=0
 * disables it), borrows a pooled CURL handle (connections are kept alive between calls), and is
 * retried with exponential backoff (100 ms doubling, capped at 10 s, honouring Retry-After; at
 * most cspark.kubernetes.client.maxAttempts attempts, default 5)
 * on 429, 500, 502, 503, 504 and connection errors. Timeouts: <timeout_prefix>.requestTimeout and
 * <timeout_prefix>.connectionTimeout (Spark's spark.kubernetes.{submission,driver}.*; default
 * 10000 ms). Every HTTP attempt is counted by verb (get, list, watch, create, patch, delete,
 * deletecollection) for cs_kube_client_requests.
 *
 * Creates and patches carry fieldValidation=<cspark.kubernetes.fieldValidation> (Strict: a field
 * the server does not know fails the request with 400; Warn, the default: the server drops it and
 * answers with a Warning header; Ignore); every Warning header is logged at WARN.
 *
 * Errors: every non-2xx answer becomes one line from the Status body plus context, and a code:
 * 404 CS_ENOTFOUND (a missing namespace reads `namespace "x" does not exist`), 409 CS_EEXIST,
 * 400/422 CS_EINVAL, 401/403 CS_EAUTH (403 names verb, resource, namespace and user and points at
 * deploy/rbac.yaml), unreachable server CS_EIO `cannot reach the Kubernetes API server at URL:
 * reason`, timeouts CS_ETIMEOUT, other statuses CS_EIO. The error's kind says more and is what
 * callers decide on (never the text): the Status body's reason (CS_KIND_FORBIDDEN,
 * CS_KIND_NOT_FOUND, CS_KIND_ALREADY_EXISTS, CS_KIND_CONFLICT, CS_KIND_INVALID,
 * CS_KIND_TOO_MANY_REQUESTS, ...; the HTTP status's when the body has none),
 * CS_KIND_NAMESPACE_NOT_FOUND for a 404 whose details name a namespace, CS_KIND_UNREACHABLE and
 * CS_KIND_TIMEOUT without an answer; http_status holds the answer's status code. cs_kube_delete
 * of an object already gone (CS_KIND_NOT_FOUND) succeeds.
 *
 * Resources: "pods", "services", "configmaps", "secrets", "persistentvolumeclaims", "events",
 * "serviceaccounts", "endpoints", "leases" (coordination.k8s.io/v1), "sparkapplications" and
 * "scheduledsparkapplications" (sparkoperator.k8s.io/v1beta2, the operator's resources)
 * (namespaced) and "namespaces", "nodes" (cluster-scoped). A
 * subresource is written "pods/status", "pods/log", "pods/binding" (get/patch/create on NAME).
 * Namespace arguments: NULL means the client's namespace; "" (list/watch/delete_collection only)
 * means all namespaces; ignored for cluster-scoped resources.
 *
 * Threads: a kube_client is safe to use from any number of threads at once. Used by
 * cspark-submit, the driver's k8s backend (src/cluster/k8s) and kube_watch.
 *
 * Ownership: cs_kube_client_new copies what it needs from cfg and conf (both may be freed after).
 * json_t arguments are borrowed; json_t results (*created, *obj, *list, *out) are new references
 * the caller releases with json_decref; they are set to NULL on error. Output pointers may be
 * NULL when the caller does not want the body.
 */
#ifndef CSPARK_KUBE_CLIENT_H
#define CSPARK_KUBE_CLIENT_H

#include <jansson.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "kube/kube_config.h"

typedef struct kube_client kube_client;

kube_client *cs_kube_client_new(const kube_config *cfg, const cs_conf *conf,
                                const char *timeout_prefix, cs_error *err);
void cs_kube_client_free(kube_client *c);
/* Borrowed, valid until cs_kube_client_free. */
const char *cs_kube_client_namespace(const kube_client *c);
const char *cs_kube_client_server(const kube_client *c);
/* "Strict", "Warn" or "Ignore" (cspark.kubernetes.fieldValidation); borrowed. */
const char *cs_kube_client_field_validation(const kube_client *c);

int cs_kube_create(kube_client *c, const char *resource, const char *ns, const json_t *obj,
                   json_t **created, cs_error *err);
/* CS_ENOTFOUND on 404. */
int cs_kube_get(kube_client *c, const char *resource, const char *ns, const char *name,
                json_t **obj, cs_error *err);
/* Selectors may be NULL. The list keeps metadata.resourceVersion; pages (limit/continue) are
 * not used: one list holds every item. */
int cs_kube_list(kube_client *c, const char *resource, const char *ns, const char *label_selector,
                 const char *field_selector, json_t **list, cs_error *err);
/* application/merge-patch+json (RFC 7386). */
int cs_kube_patch_merge(kube_client *c, const char *resource, const char *ns, const char *name,
                        const json_t *patch, json_t **out, cs_error *err);
/* grace_seconds -1 = the object's default. 404 is not an error (returns CS_OK). */
int cs_kube_delete(kube_client *c, const char *resource, const char *ns, const char *name,
                   int grace_seconds, cs_error *err);
int cs_kube_delete_collection(kube_client *c, const char *resource, const char *ns,
                              const char *label_selector, int grace_seconds, cs_error *err);

/* Escape hatch for anything else under the API server: method "GET"/"POST"/"PUT"/"PATCH"/
 * "DELETE", path starting with '/' (query included, already escaped), optional JSON body with its
 * content type (NULL = application/json). `verb` is the counter/RBAC verb used in messages and
 * cs_kube_client_requests. Same retries and error mapping as above. *out gets the parsed JSON body
 * (or a JSON string holding a non-JSON body, e.g. pod logs). */
int cs_kube_request(kube_client *c, const char *verb, const char *method, const char *path,
                    const json_t *body, const char *content_type, json_t **out, cs_error *err);

/* HTTP attempts made so far (retries included) with this verb; NULL = all verbs. */
int64_t cs_kube_client_requests(const kube_client *c, const char *verb);

/* Builds "/api/v1[/namespaces/NS]/RESOURCE[/NAME[/SUB]]" (/apis/GROUP/VERSION/... for a group's
 * resource) for the client (ns rules above) into
 * buf; returns CS_EINVAL for an unknown resource or an oversize path. Used by kube_watch. */
int cs_kube_resource_path(const kube_client *c, const char *resource, const char *ns,
                          const char *name, char *buf, size_t cap, cs_error *err);

#endif /* CSPARK_KUBE_CLIENT_H */
