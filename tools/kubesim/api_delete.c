/* kubesim delete handlers: DeleteOptions from the body or the query (grace period, propagation,
 * preconditions), delete of one object and deletecollection by selector. Called by server.c on the
 * connection's thread. */
#define _GNU_SOURCE
#include "server_int.h"
#include "decode.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INVALID_DELETE_OPTIONS "DeleteOptions.meta.k8s.io \"\" is invalid: "

/* DeleteOptions as kube-apiserver reads them: from the body when there is one (typed: a field of
 * the wrong type is a 400 with the decoder's message), else from the query (strconv messages).
 * Returns 0, -1 (400, message in err) or -2 (422 Invalid, message in err). *body keeps the parsed
 * body alive while o's strings point into it. */
static int delete_opts(struct MHD_Connection *c, const ks_req_ctx *rc, ks_delete_opts *o,
                       json_t **body, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->grace_seconds = -1;
    *body = NULL;
    long long grace = 0;
    int has_grace = 0, has_orphan = 0, orphan = 0;
    if (rc->body && rc->len) {
        json_error_t je;
        json_t *j = json_loadb(rc->body, rc->len, 0, &je);
        if (!j || !json_is_object(j)) {
            snprintf(err, errlen, "couldn't get version/kind; json parse error: %s",
                     j ? "json: cannot unmarshal array into Go value of type struct" : je.text);
            json_decref(j);
            return -1;
        }
        *body = j;
        if (ks_decode_check("v1.DeleteOptions", j, err, errlen, NULL) < 0) return -1;
        json_t *gv = json_object_get(j, "gracePeriodSeconds");
        if ((has_grace = json_is_integer(gv))) grace = json_integer_value(gv);
        o->propagation = json_string_value(json_object_get(j, "propagationPolicy"));
        json_t *ov = json_object_get(j, "orphanDependents");
        if ((has_orphan = json_is_boolean(ov))) orphan = json_is_true(ov);
        json_t *pre = json_object_get(j, "preconditions");
        o->precondition_uid = json_string_value(json_object_get(pre, "uid"));
        o->precondition_rv = json_string_value(json_object_get(pre, "resourceVersion"));
        size_t i;
        json_t *d;
        json_array_foreach(json_object_get(j, "dryRun"), i, d)
        {
            if (json_is_string(d) && !strcmp(json_string_value(d), "All")) {
                o->dry_run = 1;
                continue;
            }
            snprintf(err, errlen,
                     INVALID_DELETE_OPTIONS "dryRun: Unsupported value: []string{\"%s\"}: "
                                            "supported values: \"All\"",
                     json_is_string(d) ? json_string_value(d) : "");
            return -2;
        }
    } else {
        if (ks_query_int64(c, "gracePeriodSeconds", &grace, &has_grace, err, errlen) < 0) return -1;
        o->propagation = ks_qarg(c, "propagationPolicy");
        if ((has_orphan = ks_qarg(c, "orphanDependents") != NULL))
            orphan = ks_qbool(c, "orphanDependents");
        if (ks_query_dry_run(c, "DeleteOptions", &o->dry_run, err, errlen) < 0) return -2;
    }
    if (has_orphan && o->propagation) {
        snprintf(err, errlen,
                 INVALID_DELETE_OPTIONS
                 "propagationPolicy: Invalid value: \"%s\": orphanDependents "
                 "and deletionPropagation cannot be both set",
                 o->propagation);
        return -2;
    }
    if (has_orphan) o->propagation = orphan ? "Orphan" : "Background";
    if (o->propagation && strcmp(o->propagation, "Background") &&
        strcmp(o->propagation, "Foreground") && strcmp(o->propagation, "Orphan")) {
        snprintf(err, errlen,
                 INVALID_DELETE_OPTIONS
                 "propagationPolicy: Unsupported value: \"%s\": supported "
                 "values: \"Foreground\", \"Background\", \"Orphan\", \"nil\"",
                 o->propagation);
        return -2;
    }
    /* as the API server's delete path: a negative grace period counts as one second */
    if (has_grace) o->grace_seconds = grace < 0 ? 1 : grace;
    return 0;
}

enum MHD_Result ks_api_delete(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                              const ks_req_ctx *rc)
{
    ks_delete_opts o;
    json_t *body;
    char msg[512];
    int r = delete_opts(c, rc, &o, &body, msg, sizeof msg);
    if (r < 0)
        return ks_send_status(c, r == -1 ? 400 : 422, r == -1 ? "BadRequest" : "Invalid", msg,
                              NULL);
    ks_err e = {0};
    json_t *out = NULL;
    int gone = 0;
    r = ks_store_delete(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL, rt->name, &o, &out,
                        &gone, &e);
    json_decref(body);
    if (r < 0) return ks_send_err(c, rt, &e);
    return ks_send_json(c, 200, out ? out : ks_status_success());
}

enum MHD_Result ks_api_delete_collection(ks_server *s, struct MHD_Connection *c, const ks_route *rt,
                                         const ks_req_ctx *rc, ks_selector *sel)
{
    ks_delete_opts o;
    json_t *body;
    char msg[512];
    int r = delete_opts(c, rc, &o, &body, msg, sizeof msg);
    if (r < 0) {
        ks_selector_free(sel);
        return ks_send_status(c, r == -1 ? 400 : 422, r == -1 ? "BadRequest" : "Invalid", msg,
                              NULL);
    }
    uint64_t rv = 0;
    json_t *items = ks_store_list_refs(s->o.store, rt->resource, rt->has_ns ? rt->ns : NULL,
                                       sel ? ks_sel_filter : NULL, sel, NULL, 0, &rv, NULL);
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
    return ks_send_json(c, 200,
                        json_pack("{s:s,s:s,s:{s:s},s:o}", "kind", kind, "apiVersion",
                                  rt->api_version, "metadata", "resourceVersion", rvs, "items",
                                  deleted));
}
