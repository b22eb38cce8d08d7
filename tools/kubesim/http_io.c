/* kubesim HTTP I/O helpers (see server_int.h): queueing responses and metav1.Status bodies, query
 * arguments and headers, and reading request bodies (JSON, or protobuf from kubectl's typed
 * clients). Called by every request handler. */
#define _GNU_SOURCE
#include "server_int.h"
#include "pb.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- responses ---------- */

/* HTTP code of the last response queued by this thread (for metrics and logs). */
_Thread_local int ks_tl_code;
/* Warnings for this thread's response (Warning headers), at most a few per request. */
#define MAX_WARNINGS 16
static _Thread_local char *tl_warnings[MAX_WARNINGS];
static _Thread_local int tl_nwarnings;

void ks_warn_reset(void)
{
    for (int i = 0; i < tl_nwarnings; i++)
        free(tl_warnings[i]);
    tl_nwarnings = 0;
}

void ks_warn(const char *text)
{
    if (tl_nwarnings >= MAX_WARNINGS) return;
    /* RFC 7234 warn-text: a quoted string, '"' and '\\' escaped */
    size_t n = strlen(text);
    char *h = malloc(2 * n + 16);
    if (!h) return;
    size_t o = (size_t)sprintf(h, "299 - \"");
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '"' || text[i] == '\\') h[o++] = '\\';
        h[o++] = text[i];
    }
    h[o++] = '"';
    h[o] = 0;
    tl_warnings[tl_nwarnings++] = h;
}

enum MHD_Result ks_send_text(struct MHD_Connection *c, int code, const char *ctype, char *body,
                             size_t len, const char *retry_after)
{
    ks_tl_code = code;
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", ctype);
    MHD_add_response_header(r, "Cache-Control", "no-cache, private");
    if (retry_after) MHD_add_response_header(r, "Retry-After", retry_after);
    for (int i = 0; i < tl_nwarnings; i++)
        MHD_add_response_header(r, "Warning", tl_warnings[i]);
    ks_warn_reset();
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)code, r);
    MHD_destroy_response(r);
    return ret;
}

enum MHD_Result ks_send_json(struct MHD_Connection *c, int code, json_t *j /* stolen */)
{
    char *s = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    if (!s) return MHD_NO;
    return ks_send_text(c, code, "application/json", s, strlen(s), NULL);
}

enum MHD_Result ks_send_status(struct MHD_Connection *c, int code, const char *reason,
                               const char *msg, json_t *details)
{
    return ks_send_json(c, code, ks_status(code, reason, msg, details));
}

enum MHD_Result ks_send_err(struct MHD_Connection *c, const ks_route *rt, ks_err *e)
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
    enum MHD_Result r = ks_send_status(c, e->code ? e->code : 500, e->reason, e->message, details);
    ks_err_clear(e);
    return r;
}

/* ---------- helpers ---------- */

const char *ks_qarg(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, k);
}

const char *ks_header(struct MHD_Connection *c, const char *k)
{
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, k);
}

/* Parses /api/v1/... into rt; returns 0, or an HTTP code (404) when the path is unknown. */
json_t *ks_parse_body(const ks_req_ctx *rc, const ks_route *rt, char *err, size_t errlen)
{
    return ks_parse_body_dup(rc, rt, NULL, 0, err, errlen);
}

json_t *ks_parse_body_dup(const ks_req_ctx *rc, const ks_route *rt, char *dup, size_t duplen,
                          char *err, size_t errlen)
{
    json_error_t je;
    if (dup && duplen) *dup = 0;
    if (ks_pb_is_protobuf(rc->body, rc->len)) return ks_pb_decode(rc->body, rc->len, err, errlen);
    if (!rc->body || rc->len == 0) {
        snprintf(err, errlen,
                 "the body of the request was in an unknown format - accepted media types include: "
                 "application/json, application/yaml");
        return NULL;
    }
    json_t *j = json_loadb(rc->body, rc->len, JSON_REJECT_DUPLICATES, &je);
    if (!j && dup && json_error_code(&je) == json_error_duplicate_key) {
        /* as Go's decoder: the last value wins; the caller reports the duplicate */
        const char *q = strchr(je.text, '"');
        const char *e = q ? strchr(q + 1, '"') : NULL;
        snprintf(dup, duplen, "%.*s", q && e ? (int)(e - q - 1) : 0, q ? q + 1 : "");
        j = json_loadb(rc->body, rc->len, 0, &je);
    }
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
