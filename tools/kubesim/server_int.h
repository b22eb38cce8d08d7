/* kubesim HTTP layer internals, shared by the files that serve requests: server.c (daemon, body
 * collection, authentication, RBAC, faults, dispatch), http_io.c (responses, query and header
 * access, request bodies), route.c (REST paths), api_read.c (get, list, log), api_write.c
 * (create, update, patch, binding), api_delete.c (delete, deletecollection) and admin.c
 * (/metrics, /healthz, /kubesim/...). Every function runs on the connection's own thread
 * (libmicrohttpd thread-per-connection mode); the server object is shared read-only. */
#ifndef KUBESIM_SERVER_INT_H
#define KUBESIM_SERVER_INT_H

#include "selector.h"
#include "server.h"

#include <microhttpd.h>
#include <stdint.h>

struct ks_server {
    ks_server_opts o;
    struct MHD_Daemon *d;
    int port;
    char host_port[64];
    int stopping; /* set with __atomic_store_n, read with __atomic_load_n */
};

/* One request's collected body; owned by the connection (freed when the request completes). */
typedef struct ks_req_ctx {
    char *body;
    size_t len, cap;
    int too_big;
    int64_t t0;
} ks_req_ctx;

/* What a request is about, after path parsing. */
typedef struct ks_route {
    const char *resource; /* static, from the resource table */
    const char *kind;
    const char *api_version; /* "v1", "coordination.k8s.io/v1", ... (static) */
    const char *group;       /* "" for core, else the API group (static) */
    const char *version;     /* "v1" (static) */
    int namespaced;
    char ns[256];
    int has_ns;
    char name[256];
    int has_name;
    char sub[32];
    const char *verb; /* RBAC verb */
} ks_route;

/* ---- http_io.c ---- */

/* HTTP code of the last response queued by this thread (for metrics and logs). */
extern _Thread_local int ks_tl_code;
/* Queues a response; body (malloc'd) is stolen. */
enum MHD_Result ks_send_text(struct MHD_Connection *c, int code, const char *ctype, char *body,
                             size_t len, const char *retry_after);
enum MHD_Result ks_send_json(struct MHD_Connection *c, int code, json_t *j /* stolen */);
/* A metav1.Status body; details stolen (may be NULL). */
enum MHD_Result ks_send_status(struct MHD_Connection *c, int code, const char *reason,
                               const char *msg, json_t *details);
/* The Status for a store or validation error (details name, kind and causes); clears e. */
enum MHD_Result ks_send_err(struct MHD_Connection *c, const ks_route *rt, ks_err *e);
const char *ks_qarg(struct MHD_Connection *c, const char *k);
const char *ks_header(struct MHD_Connection *c, const char *k);
/* The request body as JSON (or decoded protobuf); NULL with a message in err. */
json_t *ks_parse_body(const ks_req_ctx *rc, const ks_route *rt, char *err, size_t errlen);
/* The same, but a duplicate object key is accepted (the last value wins, as Go decodes) and its
 * name is written into dup ("" when there is none). */
json_t *ks_parse_body_dup(const ks_req_ctx *rc, const ks_route *rt, char *dup, size_t duplen,
                          char *err, size_t errlen);

/* Adds a warning (Warning: 299 - "text" response header) to this thread's response. */
void ks_warn(const char *text);
/* Drops this thread's warnings (at the start of a request). */
void ks_warn_reset(void);

/* ---- query.c ---- */

/* A flag as the API server's parameter codec reads one: true when present and not "0" or "false"
 * (any case). */
int ks_qbool(struct MHD_Connection *c, const char *k);
/* An integer parameter (strconv.ParseInt); 0, or -1 with the strconv message in err. */
int ks_query_int64(struct MHD_Connection *c, const char *key, long long *out, int *present,
                   char *err, size_t errlen);
/* fieldValidation of CreateOptions/UpdateOptions/PatchOptions (opts_kind): a KS_FIELD_* value, or
 * -1 with the 422 message in err. */
enum { KS_FIELD_IGNORE, KS_FIELD_WARN, KS_FIELD_STRICT };
int ks_query_field_validation(struct MHD_Connection *c, const char *opts_kind, char *err,
                              size_t errlen);
/* dryRun: *dry_run = 1 for "All"; -1 with the 422 message in err for another value. */
int ks_query_dry_run(struct MHD_Connection *c, const char *opts_kind, int *dry_run, char *err,
                     size_t errlen);

/* ---- route.c ---- */

/* 1 for a path naming resources (/api/v1/..., /apis/GROUP/VERSION/RESOURCE...), 0 for discovery
 * and anything else. */
int ks_is_resource_path(const char *url);
/* Parses /api/v1/... or /apis/GROUP/VERSION/... into rt; returns 0, or 404 when the path is
 * unknown (also a resource asked for in another group than its own). */
int ks_parse_path(const char *url, ks_route *rt);
/* The RBAC verb of a request ("" for an unsupported method). */
const char *ks_verb_for(const char *method, const ks_route *rt, int watch);
/* The verb kube-apiserver's metrics give a request: GET, LIST, WATCH, POST, PUT, PATCH, DELETE,
 * DELETECOLLECTION. */
const char *ks_metric_verb(const char *method, const ks_route *rt, int watch);
/* The metrics' scope of a request: resource (a named object, or a create), namespace or
 * cluster. */
const char *ks_metric_scope(const ks_route *rt, const char *method);

/* ---- handlers (api_read.c, api_write.c, api_delete.c, admin.c) ---- */

/* Selector filter for the store's list functions (arg: ks_selector *). */
int ks_sel_filter(const json_t *obj, void *arg);
enum MHD_Result ks_api_list(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                            ks_selector *sel);
enum MHD_Result ks_api_get(ks_server *s, struct MHD_Connection *c, const ks_route *rt);
enum MHD_Result ks_api_log(ks_server *s, struct MHD_Connection *c, const ks_route *rt);
enum MHD_Result ks_api_create(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc);
enum MHD_Result ks_api_update(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc, int status_only);
enum MHD_Result ks_api_patch(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                             const ks_req_ctx *rc, int status_only);
/* POST serviceaccounts/NAME/token (TokenRequest) */
enum MHD_Result ks_api_token_request(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                                     const ks_req_ctx *rc);
enum MHD_Result ks_api_binding(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                               const ks_req_ctx *rc);
enum MHD_Result ks_api_delete(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc);
enum MHD_Result ks_api_delete_collection(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                                         const ks_req_ctx *rc, ks_selector *sel);
/* /metrics, /healthz, /livez, /readyz, /kubesim/...; *code gets the HTTP code. */
enum MHD_Result ks_admin_handle(ks_server *s, struct MHD_Connection *c, const char *url,
                                const char *method, const ks_req_ctx *rc, int *code);

#endif
