/* kubesim read handlers: get (JSON or a Table for kubectl), list (selectors, limit/continue,
 * resourceVersion, bodies spliced from the serializations kept at commit) and pods/NAME/log.
 * Called by server.c on the connection's thread. */
#define _GNU_SOURCE
#include "server_int.h"
#include "logs.h"
#include "table.h"
#include "util.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- list / get ---------- */

typedef struct list_filter {
    ks_selector *sel;
} list_filter;

int ks_sel_filter(const json_t *obj, void *arg)
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

enum MHD_Result ks_api_list(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                            ks_selector *sel)
{
    const char *limit_s = ks_qarg(c, "limit");
    const char *cont = ks_qarg(c, "continue");
    const char *rvq = ks_qarg(c, "resourceVersion");
    const char *rvmatch = ks_qarg(c, "resourceVersionMatch");
    char start[600] = "";
    size_t limit = limit_s ? strtoul(limit_s, NULL, 10) : 0;
    if (cont && *cont) {
        uint64_t crv;
        if (decode_continue(cont, &crv, start, sizeof start) < 0) {
            ks_selector_free(sel);
            return ks_send_status(c, 400, "BadRequest",
                                  "continue key is not valid: illegal base64 data", NULL);
        }
        if (ks_store_rv_expired(s->o.store, crv)) {
            ks_selector_free(sel);
            return ks_send_status(
                c, 410, "Expired",
                "The provided continue parameter is too old to display a consistent "
                "list result. You "
                "can start a new list without the continue parameter.",
                NULL);
        }
    } else if (rvq && *rvq && strcmp(rvq, "0") && rvmatch && !strcmp(rvmatch, "Exact")) {
        uint64_t want = strtoull(rvq, NULL, 10);
        if (ks_store_rv_expired(s->o.store, want)) {
            ks_selector_free(sel);
            return ks_send_status(c, 410, "Expired",
                                  "The resourceVersion for the provided list is too old.", NULL);
        }
    }
    uint64_t rv = 0;
    char *next = NULL;
    int table = ks_wants_table(ks_header(c, "Accept"));
    json_t *items = (table ? ks_store_list_refs : ks_store_list_serialized)(
        s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, sel ? ks_sel_filter : NULL, sel,
        *start ? start : NULL, limit, &rv, limit ? &next : NULL);
    ks_selector_free(sel);
    char rvs[32];
    snprintf(rvs, sizeof rvs, "%llu", (unsigned long long)rv);
    char *ctok = next ? encode_continue(rv, next) : NULL;
    free(next);
    json_t *out;
    if (table) {
        out = ks_table(rt->resource, items, rvs, ctok, ks_qarg(c, "includeObject"), 1);
        json_decref(items);
    } else {
        /* splice the stored serializations into the list envelope */
        char kind[64];
        snprintf(kind, sizeof kind, "%sList", rt->kind);
        json_t *meta = json_pack("{s:s}", "resourceVersion", rvs);
        if (ctok) json_object_set_new(meta, "continue", json_string(ctok));
        json_t *env = json_pack("{s:s,s:s,s:o}", "kind", kind, "apiVersion", rt->api_version,
                                "metadata", meta);
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
        return ks_send_text(c, 200, "application/json", buf, off, NULL);
    }
    free(ctok);
    return ks_send_json(c, 200, out);
}

enum MHD_Result ks_api_get(ks_server *s, struct MHD_Connection *c, const ks_route *rt)
{
    json_t *obj = ks_store_get(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name);
    if (!obj) {
        ks_err e = {.code = 404};
        snprintf(e.reason, sizeof e.reason, "NotFound");
        char q[128];
        snprintf(e.message, sizeof e.message, "%s \"%s\" not found",
                 ks_qualified(rt->resource, rt->resource, q, sizeof q), rt->name);
        return ks_send_err(c, rt, &e);
    }
    if (ks_wants_table(ks_header(c, "Accept"))) {
        json_t *items = json_pack("[o]", obj);
        json_t *t =
            ks_table(rt->resource, items,
                     json_string_value(json_object_get(
                         json_object_get(json_array_get(items, 0), "metadata"), "resourceVersion")),
                     NULL, ks_qarg(c, "includeObject"), 1);
        json_decref(items);
        return ks_send_json(c, 200, t);
    }
    return ks_send_json(c, 200, obj);
}

enum MHD_Result ks_api_log(ks_server *s, struct MHD_Connection *c, const ks_route *rt)
{
    json_t *pod = ks_store_get(s->o.store, "pods", rt->ns, rt->name);
    if (!pod) {
        ks_err e = {.code = 404};
        snprintf(e.reason, sizeof e.reason, "NotFound");
        snprintf(e.message, sizeof e.message, "pods \"%s\" not found", rt->name);
        return ks_send_err(c, rt, &e);
    }
    const char *container = ks_qarg(c, "container");
    json_t *cs = json_object_get(json_object_get(pod, "spec"), "containers");
    if (!container && json_array_size(cs) > 1) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "a container name must be specified for pod %s, choose one of: [...]", rt->name);
        json_decref(pod);
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
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
        return ks_send_status(c, 400, "BadRequest", msg, NULL);
    }
    const char *tail = ks_qarg(c, "tailLines");
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
    if (ks_qbool(c, "follow")) {
        free(text);
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct MHD_Response *r =
            ks_log_follow_response(s->o.store, s->o.log_fn, s->o.log_arg, rt->ns, rt->name, cname,
                                   skip, &s->stopping, ci ? ci->connect_fd : -1);
        if (!r) return MHD_NO;
        ks_tl_code = 200;
        enum MHD_Result ret = MHD_queue_response(c, 200, r);
        MHD_destroy_response(r);
        return ret;
    }
    memmove(text, text + skip, len - skip);
    return ks_send_text(c, 200, "text/plain", text, len - skip, NULL);
}
