/* kubesim write handlers: create (POST), update (PUT, also of the status subresource), patch
 * (merge, strategic-merge and JSON patch) and pods/NAME/binding. Bodies are validated
 * (validate.c) before the store commits them. Called by server.c on the connection's thread. */
#define _GNU_SOURCE
#include "server_int.h"
#include "decode.h"
#include "patch.h"
#include "rbac.h"
#include "util.h"
#include "validate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- decoding ---------- */

/* A decode failure as the API server reports it: "<Kind> in version "v1" cannot be handled as a
 * <Kind>: <decoder message>". */
static void cannot_handle(const char *kind, const char *what, char *msg, size_t len)
{
    snprintf(msg, len, "%s in version \"v1\" cannot be handled as a %s: %s", kind, kind, what);
}

/* Applies fieldValidation to the unknown (and duplicate) fields found while decoding: Strict
 * refuses them with one "strict decoding error", Warn turns each into a Warning header, Ignore
 * drops them. Returns -1 (message in msg, without the kind prefix) when refused. */
static int unknown_fields(json_t *unknown, int mode, char *msg, size_t len)
{
    size_t n = json_array_size(unknown), off, i;
    if (!n || mode == KS_FIELD_IGNORE) return 0;
    json_t *u;
    if (mode == KS_FIELD_WARN) {
        json_array_foreach(unknown, i, u) ks_warn(json_string_value(u));
        return 0;
    }
    off = (size_t)snprintf(msg, len, "strict decoding error: ");
    json_array_foreach(unknown, i, u)
    {
        if (off >= len) break;
        off += (size_t)snprintf(msg + off, len - off, "%s%s", i ? ", " : "", json_string_value(u));
    }
    return -1;
}

/* The body of a create or update decoded as kube-apiserver decodes it into rt->kind: JSON (or
 * protobuf), the kind it names, field types (decode.c), unknown and duplicate fields per mode.
 * NULL with the 400 message in msg when it does not decode. */
static json_t *decode_object(const ks_route *rt, const ks_req_ctx *rc, int mode, char *msg,
                             size_t len)
{
    char dup[128];
    json_t *obj = ks_parse_body_dup(rc, rt, dup, sizeof dup, msg, len);
    if (!obj) return NULL;
    if (!json_is_object(obj)) {
        snprintf(msg, len,
                 "the object provided is unrecognized (must be of type %s): couldn't get "
                 "version/kind; json parse error: json: cannot unmarshal %s into Go value of type "
                 "struct",
                 rt->kind, json_is_array(obj) ? "array" : "value");
        json_decref(obj);
        return NULL;
    }
    const char *kind = json_string_value(json_object_get(obj, "kind"));
    if (kind && strcmp(kind, rt->kind)) {
        snprintf(msg, len,
                 "%s in version \"v1\" cannot be handled as a %s: no kind \"%s\" is registered for "
                 "version \"v1\"",
                 kind, rt->kind, kind);
        json_decref(obj);
        return NULL;
    }
    char gotype[80], derr[768];
    snprintf(gotype, sizeof gotype, "v1.%s", rt->kind);
    json_t *unknown = json_array();
    if (*dup) json_array_append_new(unknown, json_sprintf("duplicate field \"%s\"", dup));
    if (ks_decode_check(gotype, obj, derr, sizeof derr, unknown) < 0 ||
        unknown_fields(unknown, mode, derr, sizeof derr) < 0) {
        cannot_handle(rt->kind, derr, msg, len);
        json_decref(unknown);
        json_decref(obj);
        return NULL;
    }
    json_decref(unknown);
    return obj;
}

/* fieldValidation and dryRun of a write (opts_kind: CreateOptions, UpdateOptions, PatchOptions);
 * -1 with the 422 message in msg. */
static int write_options(struct MHD_Connection *c, const char *opts_kind, int *mode, int *dry_run,
                         char *msg, size_t len)
{
    if ((*mode = ks_query_field_validation(c, opts_kind, msg, len)) < 0) return -1;
    return ks_query_dry_run(c, opts_kind, dry_run, msg, len);
}

/* The options and the decoded body of a create or update; NULL after queueing the error (*sent). */
static json_t *write_body(struct MHD_Connection *c, const ks_route *rt, const ks_req_ctx *rc,
                          const char *opts_kind, int *dry_run, enum MHD_Result *sent)
{
    char msg[1024];
    int mode;
    if (write_options(c, opts_kind, &mode, dry_run, msg, sizeof msg) < 0) {
        *sent = ks_send_status(c, 422, "Invalid", msg, NULL);
        return NULL;
    }
    json_t *obj = decode_object(rt, rc, mode, msg, sizeof msg);
    if (!obj) *sent = ks_send_status(c, 400, "BadRequest", msg, NULL);
    return obj;
}

/* ---------- writes ---------- */

enum MHD_Result ks_api_create(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc)
{
    int dry_run;
    enum MHD_Result sent;
    json_t *obj = write_body(c, rt, rc, "CreateOptions", &dry_run, &sent);
    if (!obj) return sent;
    json_t *meta = json_object_get(obj, "metadata");
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
    json_t *out = NULL;
    if (ks_store_create_opts(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, obj,
                             dry_run ? KS_WRITE_DRY_RUN : 0, &out, &e) < 0)
        return ks_send_err(c, &named, &e);
    return ks_send_json(c, 201, out);
}

enum MHD_Result ks_api_update(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc, int status_only)
{
    char msg[1024];
    int dry_run;
    enum MHD_Result sent;
    json_t *obj = write_body(c, rt, rc, "UpdateOptions", &dry_run, &sent);
    if (!obj) return sent;
    json_t *meta = json_object_get(obj, "metadata");
    const char *bname = json_string_value(json_object_get(meta, "name"));
    const char *bns = json_string_value(json_object_get(meta, "namespace"));
    if (bname && strcmp(bname, rt->name)) {
        snprintf(msg, sizeof msg,
                 "the name of the object (%s) does not match the name on the URL (%s)", bname,
                 rt->name);
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
    }
    if (rt->has_ns && bns && *bns && strcmp(bns, rt->ns)) {
        json_decref(obj);
        return ks_send_status(c, 400, "BadRequest",
                              "the namespace of the provided object does not match the namespace "
                              "sent on the request",
                              NULL);
    }
    ks_err e = {0};
    if (!status_only) {
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
    unsigned flags = (status_only ? KS_WRITE_STATUS_ONLY : 0) | (dry_run ? KS_WRITE_DRY_RUN : 0);
    if (ks_store_update(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, obj, flags,
                        &out, &e) < 0)
        return ks_send_err(c, rt, &e);
    return ks_send_json(c, 200, out);
}

typedef struct patch_arg {
    const json_t *patch;
    int type; /* 0 merge, 1 strategic, 2 json */
    const char *resource, *kind;
    int status_only, mode;
} patch_arg;

/* The patched object decoded as the API server decodes it: a type error, or with
 * fieldValidation=Strict an unknown field, is a 422 on "patch" with the patched object as its
 * value (kube-apiserver: ` "" is invalid: patch: Invalid value: "{...}": strict decoding error:
 * unknown field "spec.foo"`); with Warn or Ignore unknown fields are warnings or dropped. */
/* v as Go's fmt %v prints the interface{} encoding/json decoded it into: map[k:v ...] with sorted
 * keys, [a b], numbers as float64 (1, 1.5), <nil> */
static void go_value(FILE *f, const json_t *v)
{
    if (json_is_object(v)) {
        const char **keys = calloc(json_object_size(v) + 1, sizeof *keys);
        size_t n = 0;
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)v, k, x) keys[n++] = k;
        for (size_t i = 1; i < n; i++) /* insertion sort: patches are small */
            for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
                const char *t = keys[j];
                keys[j] = keys[j - 1];
                keys[j - 1] = t;
            }
        fputs("map[", f);
        for (size_t i = 0; i < n; i++) {
            fprintf(f, "%s%s:", i ? " " : "", keys[i]);
            go_value(f, json_object_get(v, keys[i]));
        }
        fputc(']', f);
        free(keys);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        fputc('[', f);
        json_array_foreach(v, i, x)
        {
            if (i) fputc(' ', f);
            go_value(f, x);
        }
        fputc(']', f);
    } else if (json_is_string(v)) {
        fputs(json_string_value(v), f);
    } else if (json_is_number(v)) {
        double d = json_number_value(v);
        if (d == (double)(long long)d && d > -1e21 && d < 1e21)
            fprintf(f, "%lld", (long long)d);
        else
            fprintf(f, "%g", d);
    } else if (json_is_boolean(v)) {
        fputs(json_is_true(v) ? "true" : "false", f);
    } else {
        fputs("<nil>", f);
    }
}

static int patched_object_decodes(const patch_arg *pa, const json_t *obj, ks_err *err)
{
    char gotype[80], derr[768];
    snprintf(gotype, sizeof gotype, "v1.%s", pa->kind);
    json_t *unknown = json_array();
    int rc = ks_decode_check(gotype, obj, derr, sizeof derr, unknown);
    if (rc == 0 && unknown_fields(unknown, pa->mode, derr, sizeof derr) < 0) rc = -1;
    if (rc < 0) {
        /* a strategic merge patch is checked against the kind before it applies: the value shown
         * is the patch, as Go prints a map; merge and JSON patches show the patched object */
        char *js = NULL;
        size_t jl = 0;
        if (pa->type == 1) {
            FILE *f = open_memstream(&js, &jl);
            if (f) {
                go_value(f, pa->patch);
                fclose(f);
            }
        } else {
            js = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS);
        }
        char cause[1300];
        snprintf(cause, sizeof cause, "Invalid value: \"%.400s\": %s", js ? js : "", derr);
        free(js);
        err->code = 422;
        snprintf(err->reason, sizeof err->reason, "Invalid");
        snprintf(err->message, sizeof err->message, " \"\" is invalid: patch: %.990s", cause);
        err->causes = json_pack("[{s:s,s:s,s:s}]", "reason", "FieldValueInvalid", "message", cause,
                                "field", "patch");
    }
    json_decref(unknown);
    return rc < 0 ? -EINVAL : 0;
}

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
    if (patched_object_decodes(pa, obj, err) < 0) return -EINVAL;
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
    int mode, dry_run;
    if (write_options(c, "PatchOptions", &mode, &dry_run, msg, sizeof msg) < 0)
        return ks_send_status(c, 422, "Invalid", msg, NULL);
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
    patch_arg pa = {p, type, rt->resource, rt->kind, status_only, mode};
    ks_err e = {0};
    json_t *out = NULL;
    int r = ks_store_mutate(
        s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, patch_fn, &pa,
        (status_only ? KS_WRITE_STATUS_ONLY : 0) | (dry_run ? KS_WRITE_DRY_RUN : 0), &out, &e);
    json_decref(p);
    if (r < 0) return ks_send_err(c, rt, &e);
    return ks_send_json(c, 200, out);
}

enum MHD_Result ks_api_binding(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                               const ks_req_ctx *rc)
{
    char msg[1024], derr[768];
    json_t *b = ks_parse_body(rc, rt, msg, sizeof msg);
    if (!b) return ks_send_status(c, 400, "BadRequest", msg, NULL);
    if (ks_decode_check("v1.Binding", b, derr, sizeof derr, NULL) < 0) {
        json_decref(b);
        cannot_handle("Binding", derr, msg, sizeof msg);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
    }
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

/* POST serviceaccounts/NAME/token: a TokenRequest (the body decoded as one) for an existing service
 * account answers with a token authenticating as system:serviceaccount:NS:NAME for
 * spec.expirationSeconds (default 3600, at least 600 as kube-apiserver demands), bound to a pod
 * that must exist when boundObjectRef names one. */
enum MHD_Result ks_api_token_request(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                                     const ks_req_ctx *rc)
{
    ks_route tr = *rt;
    tr.kind = "TokenRequest";
    int dry_run;
    enum MHD_Result sent;
    json_t *req = write_body(c, &tr, rc, "CreateOptions", &dry_run, &sent);
    if (!req) return sent;
    json_t *sa = ks_store_get(s->o.store, "serviceaccounts", rt->ns, rt->name);
    char msg[512];
    if (!sa) {
        json_decref(req);
        snprintf(msg, sizeof msg, "serviceaccounts \"%s\" not found", rt->name);
        return ks_send_status(c, 404, "NotFound", msg,
                              json_pack("{s:s,s:s}", "name", rt->name, "kind", "serviceaccounts"));
    }
    json_decref(sa);
    json_t *spec = json_object_get(req, "spec");
    json_t *exp = json_object_get(spec, "expirationSeconds");
    long long secs = json_is_integer(exp) ? json_integer_value(exp) : 3600;
    if (secs < 600) {
        snprintf(msg, sizeof msg,
                 "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: "
                 "Invalid value: %lld: may not specify a duration less than 10 minutes",
                 secs);
        json_decref(req);
        return ks_send_status(
            c, 422, "Invalid", msg,
            json_pack("{s:s,s:s,s:s,s:[{s:s,s:s,s:s}]}", "name", "", "group",
                      "authentication.k8s.io", "kind", "TokenRequest", "causes", "reason",
                      "FieldValueInvalid", "message",
                      "Invalid value: may not specify a duration less than 10 minutes", "field",
                      "spec.expirationSeconds"));
    }
    const json_t *bound = json_object_get(spec, "boundObjectRef");
    const char *bkind = json_string_value(json_object_get(bound, "kind"));
    const char *bname = json_string_value(json_object_get(bound, "name"));
    if (bkind && !strcmp(bkind, "Pod") && bname) {
        json_t *pod = ks_store_get(s->o.store, "pods", rt->ns, bname);
        const char *buid = json_string_value(json_object_get(bound, "uid"));
        const char *puid =
            json_string_value(json_object_get(json_object_get(pod, "metadata"), "uid"));
        int ok = pod && (!buid || !*buid || (puid && !strcmp(buid, puid)));
        json_decref(pod);
        if (!ok) {
            json_decref(req);
            snprintf(msg, sizeof msg, "pods \"%s\" not found", bname);
            return ks_send_status(c, 404, "NotFound", msg,
                                  json_pack("{s:s,s:s}", "name", bname, "kind", "pods"));
        }
    }
    char user[600], now[40], expires[40];
    snprintf(user, sizeof user, "system:serviceaccount:%s:%s", rt->ns, rt->name);
    char *token = dry_run ? strdup("") : ks_rbac_issue_token(s->o.rbac, user, secs);
    if (!token) {
        json_decref(req);
        return ks_send_status(c, 500, "InternalError", "cannot issue a token", NULL);
    }
    int64_t t = ks_now_ms() / 1000;
    ks_rfc3339(t, now, sizeof now);
    ks_rfc3339(t + secs, expires, sizeof expires);
    json_t *out = json_pack(
        "{s:s,s:s,s:{s:s,s:s,s:s},s:{s:o,s:I,s:O},s:{s:s,s:s}}", "kind", "TokenRequest",
        "apiVersion", "authentication.k8s.io/v1", "metadata", "name", rt->name, "namespace", rt->ns,
        "creationTimestamp", now, "spec", "audiences",
        json_array_size(json_object_get(spec, "audiences"))
            ? json_deep_copy(json_object_get(spec, "audiences"))
            : json_pack("[s]", "https://kubernetes.default.svc.cluster.local"),
        "expirationSeconds", (json_int_t)secs, "boundObjectRef", bound ? bound : json_null(),
        "status", "token", token, "expirationTimestamp", expires);
    free(token);
    json_decref(req);
    return ks_send_json(c, 201, out);
}
