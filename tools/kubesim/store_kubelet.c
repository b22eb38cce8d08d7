/* kubesim store: the writes the kubelet half makes (see the contract in store.h): pod status,
 * binding, finalizing a pod whose graceful deletion is complete, Events, Node objects. Called by
 * kubelet*.c and by the HTTP layer for pods/NAME/binding. */
#include "store_int.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* ---------- kubelet contract ---------- */

int ks_store_set_pod_status(ks_store *s, const char *ns, const char *name, json_t *status)
{
    json_t *upd = json_pack("{s:{},s:o}", "metadata", "status", status);
    ks_err e = {0};
    int rc = ks_store_update(s, "pods", ns, name, upd, KS_WRITE_STATUS_ONLY, NULL, &e);
    ks_err_clear(&e);
    return rc;
}

static int bind_fn(json_t *obj, void *arg, ks_err *err)
{
    json_t *spec = json_object_get(obj, "spec");
    const char *cur = json_string_value(json_object_get(spec, "nodeName"));
    if (cur && *cur && strcmp(cur, (const char *)arg))
        return ks_set_err(err, 409, "Conflict", -EEXIST, "pod is already assigned to node \"%s\"",
                          cur);
    return 0;
}

int ks_store_bind_pod(ks_store *s, const char *ns, const char *name, const char *node)
{
    int res = KS_RES_PODS;
    char key[600];
    ks_store_key(key, sizeof key, res, ns, name);
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    json_t *cur = json_object_get(s->objs[res], key);
    ks_err e = {0};
    if (!cur)
        rc = -ENOENT;
    else if ((rc = bind_fn(cur, (void *)node, &e)) == 0) {
        const char *c =
            json_string_value(json_object_get(json_object_get(cur, "spec"), "nodeName"));
        if (!c || strcmp(c, node)) {
            json_t *n = json_deep_copy(cur);
            json_object_set_new(json_object_get(n, "spec"), "nodeName", json_string(node));
            json_t *st = json_object_get(n, "status");
            if (json_is_object(st)) {
                char ts[40];
                ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
                json_t *conds = json_object_get(st, "conditions");
                if (!json_is_array(conds)) {
                    conds = json_array();
                    json_object_set_new(st, "conditions", conds);
                }
                json_array_append_new(conds, json_pack("{s:s,s:s,s:n,s:s}", "type", "PodScheduled",
                                                       "status", "True", "lastProbeTime",
                                                       "lastTransitionTime", ts));
            }
            ks_commit_put(s, res, key, n, "MODIFIED");
        }
    }
    pthread_mutex_unlock(&s->mu);
    ks_drain_observers(s);
    return rc;
}

int ks_store_finalize_pod(ks_store *s, const char *ns, const char *name)
{
    int res = KS_RES_PODS;
    char key[600];
    ks_store_key(key, sizeof key, res, ns, name);
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    if (!json_object_get(s->objs[res], key))
        rc = -ENOENT;
    else
        ks_commit_remove(s, res, key, NULL);
    pthread_mutex_unlock(&s->mu);
    ks_drain_observers(s);
    return rc;
}

int ks_store_record_event(ks_store *s, const char *ns, const json_t *involved, const char *type,
                          const char *reason, const char *message)
{
    char ts[40];
    ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
    const char *oname = ks_meta_str(involved, "name");
    char gen[300];
    snprintf(gen, sizeof gen, "%s.", oname ? oname : "event");
    json_t *ev = json_pack(
        "{s:{s:s},s:{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?},s:s,s:s,s:s,s:{s:s},s:s,s:s,s:i,s:s}",
        "metadata", "generateName", gen, "involvedObject", "kind",
        json_string_value(json_object_get(involved, "kind")), "apiVersion",
        json_string_value(json_object_get(involved, "apiVersion")), "namespace",
        ks_meta_str(involved, "namespace"), "name", oname, "uid", ks_meta_str(involved, "uid"),
        "resourceVersion", ks_meta_str(involved, "resourceVersion"), "type", type ? type : "Normal",
        "reason", reason ? reason : "", "message", message ? message : "", "source", "component",
        "kubelet", "firstTimestamp", ts, "lastTimestamp", ts, "count", 1, "reportingComponent",
        "kubelet");
    if (!ev) return -EINVAL;
    return ks_store_create(s, "events", ns ? ns : "default", ev, NULL, NULL);
}

int ks_store_put_node(ks_store *s, json_t *node)
{
    const char *name = ks_meta_str(node, "name");
    if (!name) {
        json_decref(node);
        return -EINVAL;
    }
    char nm[256];
    snprintf(nm, sizeof nm, "%s", name);
    json_t *cur = ks_store_get(s, "nodes", NULL, nm);
    ks_err e = {0};
    int rc;
    if (!cur) {
        rc = ks_store_create(s, "nodes", NULL, node, NULL, &e);
    } else {
        json_object_del(json_object_get(node, "metadata"), "resourceVersion");
        json_decref(cur);
        /* as a kubelet: the object, then its status subresource (an update keeps the status) */
        json_t *st = json_object_get(node, "status");
        json_t *status = st ? json_pack("{s:{},s:O}", "metadata", "status", st) : NULL;
        rc = ks_store_update(s, "nodes", NULL, nm, node, 0, NULL, &e);
        ks_err_clear(&e);
        if (rc == 0 && status)
            rc = ks_store_update(s, "nodes", NULL, nm, status, KS_WRITE_STATUS_ONLY, NULL, &e);
        else
            json_decref(status);
    }
    ks_err_clear(&e);
    return rc;
}
