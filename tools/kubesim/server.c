/* kubesim HTTP server and REST routing (see server.h). One request: collect the body, then
 * handle_request(): admin endpoints, authentication, path parsing, RBAC, faults, and the verb
 * handlers (get/list/watch/create/update/patch/delete/deletecollection) over the store. Errors are
 * metav1.Status bodies with the API server's reasons and messages. */
#define _GNU_SOURCE
#include "server.h"
#include "discovery.h"
#include "logs.h"
#include "patch.h"
#include "pb.h"
#include "selector.h"
#include "table.h"
#include "util.h"
#include "validate.h"
#include "watch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BODY (3 * 1024 * 1024)

struct ks_server {
    ks_server_opts o;
    struct MHD_Daemon *d;
    int port;
    char host_port[64];
    int stopping; /* set with __atomic_store_n, read with __atomic_load_n */
};

typedef struct req_ctx {
    char *body;
    size_t len, cap;
    int too_big;
    int64_t t0;
} req_ctx;

/* What a request is about, after path parsing. */
typedef struct route {
    const char *resource; /* static, from the resource table */
    const char *kind;
    int namespaced;
    char ns[256];
    int has_ns;
    char name[256];
    int has_name;
    char sub[32];
    const char *verb; /* RBAC verb */
} route;

/* ---------- responses ---------- */

/* HTTP code of the last response queued by this thread (for metrics and logs). */
static _Thread_local int tl_code;

static enum MHD_Result send_text(struct MHD_Connection *c, int code, const char *ctype, char *body,
                                 size_t len, const char *retry_after)
{
    tl_code = code;
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    if (retry_after) MHD_add_response_header(r, "Retry-After", retry_after);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result send_json(struct MHD_Connection *c, int code, json_t *j /* stolen */)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) return MHD_NO;
    return send_text(c, code, "application/json", s, strlen(s), NULL);
}

static enum MHD_Result send_status(struct MHD_Connection *c, int code, const char *reason,
                                   const char *msg, json_t *details)
{
    return send_json(c, code, ks_status(code, reason, msg, details));
}

static enum MHD_Result send_err(struct MHD_Connection *c, const route *rt, ks_err *e)
{
    json_t *details = NULL;
    if (rt && (e->code == 404 || e->code == 409 || e->code == 422 || e->code == 410)) {
        details = json_object();
        if (rt->has_name) json_object_set_new(details, "name", json_string(rt->name));
        if (e->code == 422 && rt->kind)
            json_object_set_new(details, "kind", json_string(rt->kind));
        else if (rt->resource)
            json_object_set_new(details, "kind", json_string(rt->resource));
        if (e->causes) {
            json_object_set(details, "causes", e->causes);
        }
        if (e->code == 404 && !strncmp(e->message, "namespaces \"", 12)) {
            json_object_set_new(details, "name", json_string(rt->ns));
            json_object_set_new(details, "kind", json_string("namespaces"));
        }
    }
    enum MHD_Result r = send_status(c, e->code ? e->code : 500, e->reason, e->message, details);
    ks_err_clear(e);
    return r;
}

/* ---------- helpers ---------- */

static const char *qarg(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

static const char *header(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, k);
}

static int qbool(struct MHD_Connection *c, const char *k)
{
    /* Go's strconv.ParseBool, as the API server */
    const char *v = qarg(c, k);
    return v && (!strcmp(v, "1") || !strcmp(v, "t") || !strcmp(v, "T") || !strcmp(v, "true") ||
                 !strcmp(v, "TRUE") || !strcmp(v, "True"));
}

/* Parses /api/v1/... into rt; returns 0, or an HTTP code (404) when the path is unknown. */
static int parse_path(const char *url, route *rt)
{
    memset(rt, 0, sizeof *rt);
    if (strncmp(url, "/api/v1/", 8)) return 404;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", url + 8);
    char *seg[8];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t && n < 8; t = strtok_r(NULL, "/", &save))
        seg[n++] = t;
    if (n == 0) return 404;
    int i = 0;
    if (!strcmp(seg[0], "namespaces") && n >= 3) {
        snprintf(rt->ns, sizeof rt->ns, "%s", seg[1]);
        rt->has_ns = 1;
        if (n == 3 && (!strcmp(seg[2], "status") || !strcmp(seg[2], "finalize"))) {
            /* namespace subresource */
            rt->has_ns = 0;
            snprintf(rt->name, sizeof rt->name, "%s", seg[1]);
            rt->has_name = 1;
            snprintf(rt->sub, sizeof rt->sub, "%s", seg[2]);
            ks_resource_info("namespaces", &rt->kind, &rt->namespaced);
            rt->resource = "namespaces";
            return 0;
        }
        i = 2;
    }
    const char *res = seg[i];
    static const char *names[] = {
        "namespaces", "pods",  "services",        "configmaps", "secrets", "persistentvolumeclaims",
        "events",     "nodes", "serviceaccounts", "endpoints"};
    rt->resource = NULL;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(names[k], res)) rt->resource = names[k];
    if (!rt->resource) return 404;
    ks_resource_info(rt->resource, &rt->kind, &rt->namespaced);
    if (rt->has_ns && !rt->namespaced) return 404;
    if (i + 1 < n) {
        snprintf(rt->name, sizeof rt->name, "%s", seg[i + 1]);
        rt->has_name = 1;
    }
    if (i + 2 < n) snprintf(rt->sub, sizeof rt->sub, "%s", seg[i + 2]);
    if (i + 3 < n) return 404;
    return 0;
}

static json_t *parse_body(const req_ctx *rc, const route *rt, char *err, size_t errlen)
{
    json_error_t je;
    if (ks_pb_is_protobuf(rc->body, rc->len)) return ks_pb_decode(rc->body, rc->len, err, errlen);
    if (!rc->body || rc->len == 0) {
        snprintf(err, errlen,
                 "the body of the request was in an unknown format - accepted media types include: "
                 "application/json, application/yaml");
        return NULL;
    }
    json_t *j = json_loadb(rc->body, rc->len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        snprintf(
            err, errlen,
            "the object provided is unrecognized (must be of type %s): couldn't get version/kind; "
            "json parse error: %s (line %d, column %d)",
            rt && rt->kind ? rt->kind : "Object", je.text, je.line, je.column);
        return NULL;
    }
    return j;
}

/* ---------- list / get ---------- */

typedef struct list_filter {
    ks_selector *sel;
} list_filter;

static int sel_filter(const json_t *obj, void *arg)
{
    return ks_selector_match((const ks_selector *)arg, obj);
}

static char *encode_continue(uint64_t rv, const char *key)
{
    json_t *j = json_pack("{s:I,s:s}", "rv", (json_int_t)rv, "start", key);
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) return NULL;
    size_t n = strlen(s);
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    if (out) EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s, (int)n);
    free(s);
    return out;
}

static int decode_continue(const char *tok, uint64_t *rv, char *key, size_t keylen)
{
    size_t n = strlen(tok);
    if (n == 0 || n % 4 || n > 4096) return -1;
    unsigned char *raw = malloc(n);
    if (!raw) return -1;
    int len = EVP_DecodeBlock(raw, (const unsigned char *)tok, (int)n);
    if (len < 0) {
        free(raw);
        return -1;
    }
    while (len > 0 && raw[len - 1] == 0)
        len--;
    json_t *j = json_loadb((const char *)raw, (size_t)len, 0, NULL);
    free(raw);
    const char *k = json_string_value(json_object_get(j, "start"));
    int ok = k && json_is_integer(json_object_get(j, "rv"));
    if (ok) {
        *rv = (uint64_t)json_integer_value(json_object_get(j, "rv"));
        snprintf(key, keylen, "%s", k);
    }
    json_decref(j);
    return ok ? 0 : -1;
}

static enum MHD_Result do_list(ks_server *s, struct MHD_Connection *c, const route *rt,
                               ks_selector *sel)
{
    const char *limit_s = qarg(c, "limit");
    const char *cont = qarg(c, "continue");
    const char *rvq = qarg(c, "resourceVersion");
    const char *rvmatch = qarg(c, "resourceVersionMatch");
    char start[600] = "";
    size_t limit = limit_s ? strtoul(limit_s, NULL, 10) : 0;
    if (cont && *cont) {
        uint64_t crv;
        if (decode_continue(cont, &crv, start, sizeof start) < 0) {
            ks_selector_free(sel);
            return send_status(c, 400, "BadRequest",
                               "continue key is not valid: illegal base64 data", NULL);
        }
        if (ks_store_rv_expired(s->o.store, crv)) {
            ks_selector_free(sel);
            return send_status(c, 410, "Expired",
                               "The provided continue parameter is too old to display a consistent "
                               "list result. You "
                               "can start a new list without the continue parameter.",
                               NULL);
        }
    } else if (rvq && *rvq && strcmp(rvq, "0") && rvmatch && !strcmp(rvmatch, "Exact")) {
        uint64_t want = strtoull(rvq, NULL, 10);
        if (ks_store_rv_expired(s->o.store, want)) {
            ks_selector_free(sel);
            return send_status(c, 410, "Expired",
                               "The resourceVersion for the provided list is too old.", NULL);
        }
    }
    uint64_t rv = 0;
    char *next = NULL;
    int table = ks_wants_table(header(c, "Accept"));
    json_t *items = (table ? ks_store_list_refs : ks_store_list_serialized)(
        s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, sel ? sel_filter : NULL, sel,
        *start ? start : NULL, limit, &rv, limit ? &next : NULL);
    ks_selector_free(sel);
    char rvs[32];
    snprintf(rvs, sizeof rvs, "%llu", (unsigned long long)rv);
    char *ctok = next ? encode_continue(rv, next) : NULL;
    free(next);
    json_t *out;
    if (table) {
        out = ks_table(rt->resource, items, rvs, ctok, qarg(c, "includeObject"), 1);
        json_decref(items);
    } else {
        /* splice the stored serializations into the list envelope */
        char kind[64];
        snprintf(kind, sizeof kind, "%sList", rt->kind);
        json_t *meta = json_pack("{s:s}", "resourceVersion", rvs);
        if (ctok) json_object_set_new(meta, "continue", json_string(ctok));
        json_t *env =
            json_pack("{s:s,s:s,s:o}", "kind", kind, "apiVersion", "v1", "metadata", meta);
        char *head = json_dumps(env, JSON_COMPACT);
        json_decref(env);
        free(ctok);
        size_t hl = head ? strlen(head) : 0, total = hl + 16, i;
        json_t *it;
        json_array_foreach(items, i, it) total += json_string_length(it) + 1;
        char *buf = head ? malloc(total) : NULL;
        if (!buf) {
            free(head);
            json_decref(items);
            return MHD_NO;
        }
        memcpy(buf, head, hl - 1); /* drop the closing brace */
        size_t off = hl - 1;
        memcpy(buf + off, ",\"items\":[", 10);
        off += 10;
        json_array_foreach(items, i, it)
        {
            if (i) buf[off++] = ',';
            memcpy(buf + off, json_string_value(it), json_string_length(it));
            off += json_string_length(it);
        }
        memcpy(buf + off, "]}", 2);
        off += 2;
        free(head);
        json_decref(items);
        return send_text(c, 200, "application/json", buf, off, NULL);
    }
    free(ctok);
    return send_json(c, 200, out);
}

static enum MHD_Result do_get(ks_server *s, struct MHD_Connection *c, const route *rt)
{
    json_t *obj = ks_store_get(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name);
    if (!obj) {
        ks_err e = {.code = 404};
        snprintf(e.reason, sizeof e.reason, "NotFound");
        snprintf(e.message, sizeof e.message, "%s \"%s\" not found", rt->resource, rt->name);
        return send_err(c, rt, &e);
    }
    if (ks_wants_table(header(c, "Accept"))) {
        json_t *items = json_pack("[o]", obj);
        json_t *t =
            ks_table(rt->resource, items,
                     json_string_value(json_object_get(
                         json_object_get(json_array_get(items, 0), "metadata"), "resourceVersion")),
                     NULL, qarg(c, "includeObject"), 1);
        json_decref(items);
        return send_json(c, 200, t);
    }
    return send_json(c, 200, obj);
}

static enum MHD_Result do_log(ks_server *s, struct MHD_Connection *c, const route *rt)
{
    json_t *pod = ks_store_get(s->o.store, "pods", rt->ns, rt->name);
    if (!pod) {
        ks_err e = {.code = 404};
        snprintf(e.reason, sizeof e.reason, "NotFound");
        snprintf(e.message, sizeof e.message, "pods \"%s\" not found", rt->name);
        return send_err(c, rt, &e);
    }
    const char *container = qarg(c, "container");
    json_t *cs = json_object_get(json_object_get(pod, "spec"), "containers");
    if (!container && json_array_size(cs) > 1) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "a container name must be specified for pod %s, choose one of: [...]", rt->name);
        json_decref(pod);
        return send_status(c, 400, "BadRequest", msg, NULL);
    }
    char cname[256];
    snprintf(cname, sizeof cname, "%s",
             container ? container
             : json_string_value(json_object_get(json_array_get(cs, 0), "name"))
                 ? json_string_value(json_object_get(json_array_get(cs, 0), "name"))
                 : "");
    json_decref(pod);
    size_t len = 0;
    char *text = s->o.log_fn ? s->o.log_fn(s->o.log_arg, rt->ns, rt->name, cname, &len) : NULL;
    if (!text) {
        char msg[600];
        if (s->o.log_fn)
            snprintf(msg, sizeof msg,
                     "container \"%s\" in pod \"%s\" is waiting to start: ContainerCreating", cname,
                     rt->name);
        else
            snprintf(msg, sizeof msg,
                     "container \"%s\" in pod \"%s\" has no logs: kubesim runs without a kubelet",
                     cname, rt->name);
        return send_status(c, 400, "BadRequest", msg, NULL);
    }
    const char *tail = qarg(c, "tailLines");
    size_t skip = 0;
    if (tail) {
        long want = strtol(tail, NULL, 10);
        size_t p = len;
        long lines = 0;
        if (p && text[p - 1] == '\n') p--;
        while (p > 0) {
            if (text[p - 1] == '\n' && ++lines >= want) break;
            p--;
        }
        if (want <= 0) p = len;
        skip = p;
    }
    if (qbool(c, "follow")) {
        free(text);
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct MHD_Response *r =
            ks_log_follow_response(s->o.store, s->o.log_fn, s->o.log_arg, rt->ns, rt->name, cname,
                                   skip, &s->stopping, ci ? ci->connect_fd : -1);
        if (!r) return MHD_NO;
        tl_code = 200;
        enum MHD_Result ret = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
        return ret;
    }
    memmove(text, text + skip, len - skip);
    return send_text(c, 200, "text/plain", text, len - skip, NULL);
}

/* ---------- writes ---------- */

static enum MHD_Result do_create(ks_server *s, struct MHD_Connection *c, const route *rt,
                                 const req_ctx *rc)
{
    char msg[1024];
    json_t *obj = parse_body(rc, rt, msg, sizeof msg);
    if (!obj) return send_status(c, 400, "BadRequest", msg, NULL);
    if (!json_is_object(obj)) {
        snprintf(msg, sizeof msg,
                 "the object provided is unrecognized (must be of type %s): couldn't get "
                 "version/kind; json parse error: json: cannot unmarshal %s into Go value of type "
                 "struct",
                 rt->kind, json_is_array(obj) ? "array" : "value");
        json_decref(obj);
        return send_status(c, 400, "BadRequest", msg, NULL);
    }
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, rt->kind)) {
        snprintf(msg, sizeof msg,
                 "%s in version \"v1\" cannot be handled as a %s: no kind \"%s\" is registered for "
                 "version \"v1\"",
                 kind, rt->kind, kind);
        json_decref(obj);
        return send_status(c, 400, "BadRequest", msg, NULL);
    }
    json_t *meta = json_object_get(obj, "metadata");
    if (meta && !json_is_object(meta)) {
        json_decref(obj);
        return send_status(c, 400, "BadRequest", "metadata must be an object", NULL);
    }
    ks_err e = {0};
    route named = *rt; /* error details name the object being created */
    const char *nm = json_string_value(json_object_get(meta, "name"));
    if (!nm) nm = json_string_value(json_object_get(meta, "generateName"));
    if (nm) {
        snprintf(named.name, sizeof named.name, "%s", nm);
        named.has_name = 1;
    }
    if (ks_validate(rt->resource, obj, 1, &e) < 0) {
        json_decref(obj);
        return send_err(c, &named, &e);
    }
    if (qarg(c, "dryRun")) return send_json(c, 201, obj);
    json_t *out = NULL;
    if (ks_store_create(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, obj, &out, &e) < 0)
        return send_err(c, &named, &e);
    return send_json(c, 201, out);
}

static int name_of_body_matches(json_t *obj, const route *rt)
{
    const char *n = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    return !n || !strcmp(n, rt->name);
}

static enum MHD_Result do_update(ks_server *s, struct MHD_Connection *c, const route *rt,
                                 const req_ctx *rc, int status_only)
{
    char msg[1024];
    json_t *obj = parse_body(rc, rt, msg, sizeof msg);
    if (!obj) return send_status(c, 400, "BadRequest", msg, NULL);
    if (!json_is_object(obj) ||
        (json_object_get(obj, "metadata") && !json_is_object(json_object_get(obj, "metadata")))) {
        json_decref(obj);
        return send_status(c, 400, "BadRequest",
                           "the object provided is unrecognized: expected a JSON object", NULL);
    }
    if (!name_of_body_matches(obj, rt)) {
        snprintf(
            msg, sizeof msg, "the name of the object (%s) does not match the name on the URL (%s)",
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "name")), rt->name);
        json_decref(obj);
        return send_status(c, 400, "BadRequest", msg, NULL);
    }
    ks_err e = {0};
    if (!status_only) {
        json_t *meta = json_object_get(obj, "metadata");
        if (!meta) {
            meta = json_object();
            json_object_set_new(obj, "metadata", meta);
        }
        if (!json_object_get(meta, "name"))
            json_object_set_new(meta, "name", json_string(rt->name));
        if (ks_validate(rt->resource, obj, 0, &e) < 0) {
            json_decref(obj);
            return send_err(c, rt, &e);
        }
    }
    json_t *out = NULL;
    if (ks_store_update(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, obj,
                        status_only, &out, &e) < 0)
        return send_err(c, rt, &e);
    return send_json(c, 200, out);
}

typedef struct patch_arg {
    const json_t *patch;
    int type; /* 0 merge, 1 strategic, 2 json */
    const char *resource;
    int status_only;
} patch_arg;

static int patch_fn(json_t *obj, void *arg, ks_err *err)
{
    patch_arg *pa = arg;
    char msg[512] = "";
    json_t *before_meta = json_deep_copy(json_object_get(obj, "metadata"));
    int rc = pa->type == 2   ? ks_json_patch(obj, pa->patch, msg, sizeof msg)
             : pa->type == 1 ? ks_strategic_patch(obj, pa->patch, msg, sizeof msg)
                             : ks_merge_patch(obj, pa->patch, msg, sizeof msg);
    if (rc < 0) {
        json_decref(before_meta);
        err->code = pa->type == 2 ? 422 : 400;
        snprintf(err->reason, sizeof err->reason, pa->type == 2 ? "Invalid" : "BadRequest");
        snprintf(err->message, sizeof err->message, "%s", msg);
        return -EINVAL;
    }
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(meta)) {
        json_decref(before_meta);
        err->code = 400;
        snprintf(err->reason, sizeof err->reason, "BadRequest");
        snprintf(err->message, sizeof err->message, "metadata must be an object");
        return -EINVAL;
    }
    /* name and namespace cannot change */
    json_object_set(meta, "name", json_object_get(before_meta, "name"));
    if (json_object_get(before_meta, "namespace"))
        json_object_set(meta, "namespace", json_object_get(before_meta, "namespace"));
    json_decref(before_meta);
    if (!pa->status_only && ks_validate(pa->resource, obj, 0, err) < 0) return -EINVAL;
    return 0;
}

static enum MHD_Result do_patch(ks_server *s, struct MHD_Connection *c, const route *rt,
                                const req_ctx *rc, int status_only)
{
    const char *ct = header(c, "Content-Type");
    int type;
    if (!ct) ct = "";
    if (!strncmp(ct, "application/merge-patch+json", 28))
        type = 0;
    else if (!strncmp(ct, "application/strategic-merge-patch+json", 38))
        type = 1;
    else if (!strncmp(ct, "application/json-patch+json", 27))
        type = 2;
    else {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "the body of the request was in an unknown format - accepted media types include: "
                 "application/json-patch+json, application/merge-patch+json, "
                 "application/strategic-merge-patch+json");
        (void)ct;
        return send_status(c, 415, "UnsupportedMediaType", msg, NULL);
    }
    char msg[1024];
    json_t *p = parse_body(rc, rt, msg, sizeof msg);
    if (!p) return send_status(c, 400, "BadRequest", msg, NULL);
    if ((type == 2 && !json_is_array(p)) || (type != 2 && !json_is_object(p))) {
        json_decref(p);
        return send_status(
            c, 400, "BadRequest",
            type == 2
                ? "json: cannot unmarshal object into Go value of type jsonpatch.Patch"
                : "json: cannot unmarshal array into Go value of type map[string]interface {}",
            NULL);
    }
    patch_arg pa = {p, type, rt->resource, status_only};
    ks_err e = {0};
    json_t *out = NULL;
    int r = ks_store_mutate(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name,
                            patch_fn, &pa, status_only, &out, &e);
    json_decref(p);
    if (r < 0) return send_err(c, rt, &e);
    return send_json(c, 200, out);
}

static int delete_opts(struct MHD_Connection *c, const req_ctx *rc, ks_delete_opts *o,
                       json_t **body, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->grace_seconds = -1;
    *body = NULL;
    const char *g = qarg(c, "gracePeriodSeconds");
    if (g) o->grace_seconds = strtoll(g, NULL, 10);
    o->propagation = qarg(c, "propagationPolicy");
    if (qarg(c, "orphanDependents") && qbool(c, "orphanDependents")) o->propagation = "Orphan";
    if (rc->body && rc->len) {
        json_error_t je;
        json_t *j = json_loadb(rc->body, rc->len, 0, &je);
        if (!j || !json_is_object(j)) {
            snprintf(err, errlen, "json parse error in DeleteOptions: %s",
                     j ? "expected an object" : je.text);
            json_decref(j);
            return -1;
        }
        *body = j;
        json_t *gv = json_object_get(j, "gracePeriodSeconds");
        if (json_is_integer(gv)) o->grace_seconds = json_integer_value(gv);
        const char *pp = json_string_value(json_object_get(j, "propagationPolicy"));
        if (pp) o->propagation = pp;
        if (json_is_true(json_object_get(j, "orphanDependents"))) o->propagation = "Orphan";
        json_t *pre = json_object_get(j, "preconditions");
        o->precondition_uid = json_string_value(json_object_get(pre, "uid"));
        o->precondition_rv = json_string_value(json_object_get(pre, "resourceVersion"));
    }
    if (o->propagation && strcmp(o->propagation, "Background") &&
        strcmp(o->propagation, "Foreground") && strcmp(o->propagation, "Orphan")) {
        snprintf(err, errlen,
                 "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: "
                 "\"%s\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                 o->propagation);
        return -2;
    }
    if (o->grace_seconds < -1) {
        snprintf(
            err, errlen,
            "DeleteOptions.meta.k8s.io \"\" is invalid: gracePeriodSeconds: Invalid value: %lld: "
            "must be greater than or equal to 0",
            o->grace_seconds);
        return -2;
    }
    return 0;
}

static enum MHD_Result do_delete(ks_server *s, struct MHD_Connection *c, const route *rt,
                                 const req_ctx *rc)
{
    ks_delete_opts o;
    json_t *body;
    char msg[512];
    int r = delete_opts(c, rc, &o, &body, msg, sizeof msg);
    if (r < 0)
        return send_status(c, r == -1 ? 400 : 422, r == -1 ? "BadRequest" : "Invalid", msg, NULL);
    ks_err e = {0};
    json_t *out = NULL;
    int gone = 0;
    r = ks_store_delete(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, &o, &out,
                        &gone, &e);
    json_decref(body);
    if (r < 0) return send_err(c, rt, &e);
    return send_json(c, 200, out ? out : ks_status_success());
}

static enum MHD_Result do_delete_collection(ks_server *s, struct MHD_Connection *c, const route *rt,
                                            const req_ctx *rc, ks_selector *sel)
{
    ks_delete_opts o;
    json_t *body;
    char msg[512];
    int r = delete_opts(c, rc, &o, &body, msg, sizeof msg);
    if (r < 0) {
        ks_selector_free(sel);
        return send_status(c, r == -1 ? 400 : 422, r == -1 ? "BadRequest" : "Invalid", msg, NULL);
    }
    uint64_t rv = 0;
    json_t *items = ks_store_list_refs(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL,
                                       sel ? sel_filter : NULL, sel, NULL, 0, &rv, NULL);
    ks_selector_free(sel);
    json_t *deleted = json_array();
    size_t i;
    json_t *it;
    json_array_foreach(items, i, it)
    {
        json_t *m = json_object_get(it, "metadata");
        json_t *out = NULL;
        ks_err e = {0};
        if (ks_store_delete(
                s->o.store, rt->resource, json_string_value(json_object_get(m, "namespace")),
                json_string_value(json_object_get(m, "name")), &o, &out, NULL, &e) == 0 &&
            out)
            json_array_append_new(deleted, out);
        ks_err_clear(&e);
    }
    json_decref(items);
    json_decref(body);
    char kind[64], rvs[32];
    snprintf(kind, sizeof kind, "%sList", rt->kind);
    snprintf(rvs, sizeof rvs, "%llu", (unsigned long long)ks_store_rv(s->o.store));
    return send_json(c, 200,
                     json_pack("{s:s,s:s,s:{s:s},s:o}", "kind", kind, "apiVersion", "v1",
                               "metadata", "resourceVersion", rvs, "items", deleted));
}

static enum MHD_Result do_binding(ks_server *s, struct MHD_Connection *c, const route *rt,
                                  const req_ctx *rc)
{
    char msg[1024];
    json_t *b = parse_body(rc, rt, msg, sizeof msg);
    if (!b) return send_status(c, 400, "BadRequest", msg, NULL);
    const char *node = json_string_value(json_object_get(json_object_get(b, "target"), "name"));
    if (!node) {
        json_decref(b);
        return send_status(c, 422, "Invalid",
                           "Binding \"\" is invalid: target.name: Required value", NULL);
    }
    int r = ks_store_bind_pod(s->o.store, rt->ns, rt->name, node);
    json_decref(b);
    if (r == -ENOENT) {
        snprintf(msg, sizeof msg, "pods \"%s\" not found", rt->name);
        return send_status(c, 404, "NotFound", msg, NULL);
    }
    if (r < 0) {
        snprintf(msg, sizeof msg,
                 "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is already assigned "
                 "to a node",
                 rt->name, rt->name);
        return send_status(c, 409, "Conflict", msg, NULL);
    }
    return send_json(c, 201, ks_status_success());
}

/* ---------- admin ---------- */

static enum MHD_Result handle_admin(ks_server *s, struct MHD_Connection *c, const char *url,
                                    const char *method, const req_ctx *rc, int *code)
{
    *code = 200;
    if (!strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz"))
        return send_text(c, 200, "text/plain", strdup("ok"), 2, NULL);
    if (!strcmp(url, "/metrics")) {
        char *m = ks_metrics_render(s->o.metrics);
        return send_text(c, 200, "text/plain; version=0.0.4", m, m ? strlen(m) : 0, NULL);
    }
    if (!strcmp(url, "/kubesim/pod-history"))
        return send_json(c, 200, ks_store_pod_history(s->o.store));
    if (!strcmp(url, "/kubesim/faults")) {
        if (!strcmp(method, "GET")) return send_json(c, 200, ks_faults_json(s->o.faults));
        if (!strcmp(method, "DELETE")) {
            ks_faults_cfg z = {.retry_after_s = 1};
            ks_faults_set(s->o.faults, &z);
            return send_json(c, 200, ks_faults_json(s->o.faults));
        }
        if (!strcmp(method, "POST") || !strcmp(method, "PUT")) {
            json_error_t je;
            json_t *j = rc->body ? json_loadb(rc->body, rc->len, 0, &je) : NULL;
            char err[512];
            int expire = 0;
            if (!j || ks_faults_apply_json(s->o.faults, j, &expire, err, sizeof err) < 0) {
                if (!j)
                    snprintf(err, sizeof err, "json parse error: %s",
                             rc->body ? je.text : "empty body");
                json_decref(j);
                *code = 400;
                return send_status(c, 400, "BadRequest", err, NULL);
            }
            json_decref(j);
            if (expire) ks_store_expire_all(s->o.store);
            return send_json(c, 200, ks_faults_json(s->o.faults));
        }
        *code = 405;
        return send_status(c, 405, "MethodNotAllowed", "use GET, POST, PUT or DELETE", NULL);
    }
    *code = 404;
    return send_status(c, 404, "NotFound", "the server could not find the requested resource",
                       NULL);
}

/* ---------- main dispatch ---------- */

static const char *verb_for(const char *method, const route *rt, int watch)
{
    if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        return watch ? "watch" : rt->has_name ? "get" : "list";
    if (!strcmp(method, "POST")) return "create";
    if (!strcmp(method, "PUT")) return "update";
    if (!strcmp(method, "PATCH")) return "patch";
    if (!strcmp(method, "DELETE")) return rt->has_name ? "delete" : "deletecollection";
    return "";
}

static enum MHD_Result forbidden(struct MHD_Connection *c, const route *rt, const char *user,
                                 const char *rbac_res)
{
    char msg[1024];
    char what[320];
    if (rt->has_name)
        snprintf(what, sizeof what, "%s \"%s\"", rt->resource, rt->name);
    else
        snprintf(what, sizeof what, "%s", rt->resource);
    if (rt->has_ns)
        snprintf(msg, sizeof msg,
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"\" in the "
                 "namespace \"%s\"",
                 what, user, rt->verb, rbac_res, rt->ns);
    else
        snprintf(msg, sizeof msg,
                 "%s is forbidden: User \"%s\" cannot %s resource \"%s\" in API group \"\" at the "
                 "cluster scope",
                 what, user, rt->verb, rbac_res);
    json_t *details = json_pack("{s:s}", "kind", rt->resource);
    if (rt->has_name) json_object_set_new(details, "name", json_string(rt->name));
    return send_status(c, 403, "Forbidden", msg, details);
}

static enum MHD_Result handle_api(ks_server *s, struct MHD_Connection *c, const char *url,
                                  const char *method, const req_ctx *rc, route *rt, int *code)
{
    int watch = qbool(c, "watch");
    if (parse_path(url, rt) != 0) {
        *code = 404;
        return send_status(c, 404, "NotFound", "the server could not find the requested resource",
                           NULL);
    }
    rt->verb = verb_for(method, rt, watch);
    if (!*rt->verb) {
        *code = 405;
        return send_status(c, 405, "MethodNotAllowed",
                           "the server does not allow this method on the requested "
                           "resource",
                           NULL);
    }
    const char *user = ks_rbac_authenticate(s->o.rbac, header(c, "Authorization"));
    if (!user) {
        *code = 401;
        return send_status(c, 401, "Unauthorized", "Unauthorized", NULL);
    }
    char rbac_res[96];
    snprintf(rbac_res, sizeof rbac_res, "%s%s%s", rt->resource, *rt->sub ? "/" : "", rt->sub);
    if (!ks_rbac_allowed(s->o.rbac, user, rt->verb, rbac_res, rt->has_ns ? rt->ns : NULL)) {
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
        return send_text(c, 429, "application/json", body, strlen(body), ra);
    }
    if (f.error_rate > 0 && ks_random01() < f.error_rate) {
        *code = 500;
        return send_status(c, 500, "InternalError",
                           "Internal error occurred: injected fault (kubesim errorRate)",
                           json_pack("{s:[{s:s}]}", "causes", "message", "injected fault"));
    }
    const char *ls = qarg(c, "labelSelector"), *fs = qarg(c, "fieldSelector");
    ks_selector *sel = NULL;
    if ((ls && *ls) || (fs && *fs)) {
        char err[512];
        sel = ks_selector_parse(rt->resource, ls, fs, err, sizeof err);
        if (!sel) {
            *code = 400;
            return send_status(c, 400, "BadRequest", err, NULL);
        }
    }
    const char *v = rt->verb;
    if (*rt->sub && strcmp(rt->sub, "status") && strcmp(rt->sub, "log") &&
        strcmp(rt->sub, "binding")) {
        ks_selector_free(sel);
        *code = 404;
        return send_status(c, 404, "NotFound", "the server could not find the requested resource",
                           NULL);
    }
    if (!strcmp(rt->sub, "log")) {
        ks_selector_free(sel);
        if (strcmp(v, "get") || strcmp(rt->resource, "pods")) {
            *code = 405;
            return send_status(c, 405, "MethodNotAllowed", "log supports GET only", NULL);
        }
        return do_log(s, c, rt);
    }
    if (!strcmp(rt->sub, "binding")) {
        ks_selector_free(sel);
        if (strcmp(method, "POST") || strcmp(rt->resource, "pods")) {
            *code = 405;
            return send_status(c, 405, "MethodNotAllowed", "binding supports POST only", NULL);
        }
        return do_binding(s, c, rt, rc);
    }
    int status_only = !strcmp(rt->sub, "status");
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
            .rv = qarg(c, "resourceVersion"),
            .timeout_s = qarg(c, "timeoutSeconds") ? atoi(qarg(c, "timeoutSeconds")) : 0,
            .bookmarks = qbool(c, "allowWatchBookmarks"),
            .send_initial = qbool(c, "sendInitialEvents"),
            .table = ks_wants_table(header(c, "Accept")),
            .include = qarg(c, "includeObject"),
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
    if (!strcmp(v, "list")) return do_list(s, c, rt, sel);
    if (!strcmp(v, "deletecollection")) return do_delete_collection(s, c, rt, rc, sel);
    ks_selector_free(sel);
    if (!strcmp(v, "get")) return do_get(s, c, rt);
    if (!strcmp(v, "create")) {
        if (rt->has_name) {
            *code = 405;
            return send_status(c, 405, "MethodNotAllowed",
                               "the server does not allow this method on the requested "
                               "resource",
                               NULL);
        }
        if (rt->namespaced && !rt->has_ns) {
            *code = 404;
            return send_status(c, 404, "NotFound",
                               "the server could not find the requested resource", NULL);
        }
        return do_create(s, c, rt, rc);
    }
    if (!strcmp(v, "update")) return do_update(s, c, rt, rc, status_only);
    if (!strcmp(v, "patch")) return do_patch(s, c, rt, rc, status_only);
    if (!strcmp(v, "delete")) return do_delete(s, c, rt, rc);
    *code = 405;
    return send_status(c, 405, "MethodNotAllowed", "method not allowed", NULL);
}

static enum MHD_Result access_cb(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
    ks_server *s = cls;
    req_ctx *rc = *con_cls;
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
    tl_code = 0;
    route rt;
    memset(&rt, 0, sizeof rt);
    const char *mverb = NULL, *mres = NULL;
    if (rc->too_big) {
        code = 413;
        ret = send_status(c, 413, "RequestEntityTooLarge",
                          "Request entity too large: limit is 3145728", NULL);
    } else if (!strcmp(url, "/metrics") || !strncmp(url, "/kubesim/", 9) ||
               !strcmp(url, "/healthz") || !strcmp(url, "/livez") || !strcmp(url, "/readyz")) {
        ret = handle_admin(s, c, url, method, rc, &code);
    } else if (!strncmp(url, "/api/v1/", 8)) {
        ret = handle_api(s, c, url, method, rc, &rt, &code);
        mverb = rt.verb && *rt.verb ? rt.verb : "unknown";
        mres = rt.resource ? rt.resource : "unknown";
        code = tl_code ? tl_code : 200;
    } else {
        json_t *doc = ks_discovery(url, s->host_port);
        if (doc && strcmp(url, "/version") &&
            !ks_rbac_authenticate(s->o.rbac, header(c, "Authorization"))) {
            json_decref(doc);
            code = 401;
            ret = send_status(c, 401, "Unauthorized", "Unauthorized", NULL);
        } else if (doc) {
            ret = send_json(c, 200, doc);
        } else {
            code = 404;
            ret = send_status(c, 404, "NotFound",
                              "the server could not find the requested resource", NULL);
        }
        mverb = "get";
        mres = "discovery";
    }
    (void)version;
    if (mverb && s->o.metrics) {
        char full[80];
        snprintf(full, sizeof full, "%s%s%s", mres, *rt.sub ? "/" : "", rt.sub);
        ks_metrics_observe(s->o.metrics, mverb, full, code,
                           (double)(ks_mono_ms() - rc->t0) / 1000.0);
    }
    if (s->o.verbose)
        fprintf(stderr, "info %lld kubesim method=%s path=%s code=%d ms=%lld\n",
                (long long)ks_now_ms(), method, url, code, (long long)(ks_mono_ms() - rc->t0));
    return ret;
}

static void completed_cb(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    req_ctx *rc = *con_cls;
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
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
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
