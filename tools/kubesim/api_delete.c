/* kubesim delete handlers: DeleteOptions from the body or the query (grace period, propagation,
 * preconditions), delete of one object and deletecollection by selector. Called by server.c on the
 * connection's thread. */
#define _GNU_SOURCE
#include "server_int.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int delete_opts(struct MHD_Connection *c, const ks_req_ctx *rc, ks_delete_opts *o,
                       json_t **body, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->grace_seconds = -1;
    *body = NULL;
    const char *g = ks_qarg(c, "gracePeriodSeconds");
    if (g) o->grace_seconds = strtoll(g, NULL, 10);
    o->propagation = ks_qarg(c, "propagationPolicy");
    if (ks_qarg(c, "orphanDependents") && ks_qbool(c, "orphanDependents"))
        o->propagation = "Orphan";
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
                        json_pack("{s:s,s:s,s:{s:s},s:o}", "kind", kind, "apiVersion", "v1",
                                  "metadata", "resourceVersion", rvs, "items", deleted));
}
