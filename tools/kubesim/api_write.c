/* kubesim write handlers: create (POST), update (PUT, also of the status subresource), patch
 * (merge, strategic-merge and JSON patch) and pods/NAME/binding. Bodies are validated
 * (validate.c) before the store commits them. Called by server.c on the connection's thread. */
#define _GNU_SOURCE
#include "server_int.h"
#include "patch.h"
#include "util.h"
#include "validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- writes ---------- */

enum MHD_Result ks_api_create(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc)
{
    char msg[1024];
    json_t *obj = ks_parse_body(rc, rt, msg, sizeof msg);
    if (!obj) return ks_send_status(c, 400, "BadRequest", msg, NULL);
    if (!json_is_object(obj)) {
        snprintf(msg, sizeof msg,
                 "the object provided is unrecognized (must be of type %s): couldn't get "
                 "version/kind; json parse error: json: cannot unmarshal %s into Go value of type "
                 "struct",
                 rt->kind, json_is_array(obj) ? "array" : "value");
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
    }
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, rt->kind)) {
        snprintf(msg, sizeof msg,
                 "%s in version \"v1\" cannot be handled as a %s: no kind \"%s\" is registered for "
                 "version \"v1\"",
                 kind, rt->kind, kind);
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
    }
    json_t *meta = json_object_get(obj, "metadata");
    if (meta && !json_is_object(meta)) {
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest", "metadata must be an object", NULL);
    }
    ks_err e = {0};
    ks_route named = *rt; /* error details name the object being created */
    const char *nm = json_string_value(json_object_get(meta, "name"));
    if (!nm) nm = json_string_value(json_object_get(meta, "generateName"));
    if (nm) {
        snprintf(named.name, sizeof named.name, "%s", nm);
        named.has_name = 1;
    }
    if (ks_validate(rt->resource, obj, 1, &e) < 0) {
        json_decref(obj);
        return ks_send_err(c, &named, &e);
    }
    if (ks_qarg(c, "dryRun")) return ks_send_json(c, 201, obj);
    json_t *out = NULL;
    if (ks_store_create(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, obj, &out, &e) < 0)
        return ks_send_err(c, &named, &e);
    return ks_send_json(c, 201, out);
}

static int name_of_body_matches(json_t *obj, const ks_route *rt)
{
    const char *n = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
    return !n || !strcmp(n, rt->name);
}

enum MHD_Result ks_api_update(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc, int status_only)
{
    char msg[1024];
    json_t *obj = ks_parse_body(rc, rt, msg, sizeof msg);
    if (!obj) return ks_send_status(c, 400, "BadRequest", msg, NULL);
    if (!json_is_object(obj) ||
        (json_object_get(obj, "metadata") && !json_is_object(json_object_get(obj, "metadata")))) {
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest",
                              "the object provided is unrecognized: expected a JSON object", NULL);
    }
    if (!name_of_body_matches(obj, rt)) {
        snprintf(
            msg, sizeof msg, "the name of the object (%s) does not match the name on the URL (%s)",
            json_string_value(json_object_get(json_object_get(obj, "metadata"), "name")), rt->name);
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
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
            return ks_send_err(c, rt, &e);
        }
    }
    json_t *out = NULL;
    if (ks_store_update(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, obj,
                        status_only, &out, &e) < 0)
        return ks_send_err(c, rt, &e);
    return ks_send_json(c, 200, out);
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

enum MHD_Result ks_api_patch(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                             const ks_req_ctx *rc, int status_only)
{
    const char *ct = ks_header(c, "Content-Type");
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
        return ks_send_status(c, 415, "UnsupportedMediaType", msg, NULL);
    }
    char msg[1024];
    json_t *p = ks_parse_body(rc, rt, msg, sizeof msg);
    if (!p) return ks_send_status(c, 400, "BadRequest", msg, NULL);
    if ((type == 2 && !json_is_array(p)) || (type != 2 && !json_is_object(p))) {
        json_decref(p);
        return ks_send_status(
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
    if (r < 0) return ks_send_err(c, rt, &e);
    return ks_send_json(c, 200, out);
}

enum MHD_Result ks_api_binding(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                               const ks_req_ctx *rc)
{
    char msg[1024];
    json_t *b = ks_parse_body(rc, rt, msg, sizeof msg);
    if (!b) return ks_send_status(c, 400, "BadRequest", msg, NULL);
    const char *node = json_string_value(json_object_get(json_object_get(b, "target"), "name"));
    if (!node) {
        json_decref(b);
        return ks_send_status(c, 422, "Invalid",
                              "Binding \"\" is invalid: target.name: Required value", NULL);
    }
    int r = ks_store_bind_pod(s->o.store, rt->ns, rt->name, node);
    json_decref(b);
    if (r == -ENOENT) {
        snprintf(msg, sizeof msg, "pods \"%s\" not found", rt->name);
        return ks_send_status(c, 404, "NotFound", msg, NULL);
    }
    if (r < 0) {
        snprintf(msg, sizeof msg,
                 "Operation cannot be fulfilled on pods/binding \"%s\": pod %s is already assigned "
                 "to a node",
                 rt->name, rt->name);
        return ks_send_status(c, 409, "Conflict", msg, NULL);
    }
    return ks_send_json(c, 201, ks_status_success());
}
