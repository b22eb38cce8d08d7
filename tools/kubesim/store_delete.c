/* kubesim deletion: delete preconditions, graceful pod deletion (deletionTimestamp and
 * deletionGracePeriodSeconds until the kubelet finalizes the pod), finalizers, namespace
 * termination (its contents are deleted, the namespace goes when empty) and ownerReference garbage
 * collection (Background, Orphan; Foreground acts as Background). Called by the HTTP layer through
 * ks_store_delete and, under the store lock, by store.c when an object is removed. */
#include "store_int.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A dry-run delete's answer: n (stolen) as the object would be, nothing committed. */
static int dry_result(json_t *n, json_t **out, int *gone)
{
    if (out)
        *out = n;
    else
        json_decref(n);
    if (gone) *gone = 0;
    return 0;
}

/* Locked. Deletes the object at key; see ks_store_delete. */
int ks_delete_locked(ks_store *s, int res, const char *key, const ks_delete_opts *opt, json_t **out,
                     int *gone, ks_err *err)
{
    json_t *cur = json_object_get(s->objs[res], key);
    if (!cur) return -ENOENT;
    const char *prop = opt ? opt->propagation : NULL;
    long long grace = opt ? opt->grace_seconds : -1;
    int dry = opt && opt->dry_run;
    if (opt && opt->precondition_uid && strcmp(opt->precondition_uid, ks_meta_str(cur, "uid")))
        return ks_set_err(err, 409, "Conflict", -EAGAIN,
                          "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                          opt->precondition_uid, ks_meta_str(cur, "uid"));
    if (opt && opt->precondition_rv &&
        strcmp(opt->precondition_rv, ks_meta_str(cur, "resourceVersion")))
        return ks_set_err(
            err, 409, "Conflict", -EAGAIN,
            "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion "
            "in object meta: %s",
            opt->precondition_rv, ks_meta_str(cur, "resourceVersion"));
    int is_pod = res == KS_RES_PODS;
    if (is_pod) {
        json_t *spec = json_object_get(cur, "spec");
        if (grace < 0) {
            json_t *g = json_object_get(spec, "terminationGracePeriodSeconds");
            grace = json_is_integer(g) ? json_integer_value(g) : 30;
        }
        const char *node = json_string_value(json_object_get(spec, "nodeName"));
        int bound = node && *node;
        json_t *cdel =
            json_object_get(json_object_get(cur, "metadata"), "deletionGracePeriodSeconds");
        if (bound && !ks_pod_terminal(cur) && grace > 0 &&
            !(cdel && json_integer_value(cdel) <= grace)) {
            json_t *n = json_deep_copy(cur);
            json_t *m = json_object_get(n, "metadata");
            char ts[40];
            ks_rfc3339(ks_now_ms() / 1000 + grace, ts, sizeof ts);
            json_object_set_new(m, "deletionTimestamp", json_string(ts));
            json_object_set_new(m, "deletionGracePeriodSeconds", json_integer(grace));
            if (dry) return dry_result(n, out, gone);
            json_t *stored = ks_commit_put(s, res, key, n, "MODIFIED");
            ks_pod_history_note(s, stored, "deleting");
            if (out) *out = json_incref(stored);
            if (gone) *gone = 0;
            return 0;
        }
        if (cdel && bound && !ks_pod_terminal(cur) && grace > 0) {
            /* already terminating with a shorter or equal grace period */
            if (out) *out = json_incref(cur);
            if (gone) *gone = 0;
            return 0;
        }
        if (!dry) ks_pod_history_note(s, cur, "deleting");
    }
    if (res == KS_RES_NAMESPACES) {
        const char *nsname = ks_meta_str(cur, "name");
        char nsn[256];
        snprintf(nsn, sizeof nsn, "%s", nsname);
        if (!json_object_get(json_object_get(cur, "metadata"), "deletionTimestamp")) {
            json_t *n = json_deep_copy(cur);
            char ts[40];
            ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
            json_object_set_new(json_object_get(n, "metadata"), "deletionTimestamp",
                                json_string(ts));
            json_object_set_new(json_object_get(n, "metadata"), "deletionGracePeriodSeconds",
                                json_integer(0));
            json_object_set_new(n, "status", json_pack("{s:s}", "phase", "Terminating"));
            if (dry) return dry_result(n, out, gone);
            json_t *stored = ks_commit_put(s, res, key, n, "MODIFIED");
            if (out) *out = json_incref(stored);
            /* delete every namespaced object in it */
            for (int r = 0; r < KS_NRES; r++) {
                if (!KS_RESOURCES[r].namespaced) continue;
                json_t *keys = json_array();
                const char *k;
                json_t *v;
                size_t l = strlen(nsn);
                json_object_foreach(s->objs[r], k, v) if (!strncmp(k, nsn, l) && k[l] == '/')
                    json_array_append_new(keys, json_string(k));
                size_t i;
                json_t *kj;
                json_array_foreach(keys, i, kj)
                {
                    ks_delete_opts o = {.grace_seconds = -1};
                    if (json_object_get(s->objs[r], json_string_value(kj)))
                        ks_delete_locked(s, r, json_string_value(kj), &o, NULL, NULL, NULL);
                }
                json_decref(keys);
            }
        } else if (out) {
            *out = json_incref(cur);
        }
        if (gone) *gone = 0;
        ks_namespace_maybe_finish(s, nsn);
        return 0;
    }
    json_t *fin = json_object_get(json_object_get(cur, "metadata"), "finalizers");
    if (json_array_size(fin) > 0 && !is_pod) {
        json_t *n = json_deep_copy(cur);
        char ts[40];
        ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
        json_object_set_new(json_object_get(n, "metadata"), "deletionTimestamp", json_string(ts));
        json_object_set_new(json_object_get(n, "metadata"), "deletionGracePeriodSeconds",
                            json_integer(0));
        if (dry) return dry_result(n, out, gone);
        json_t *stored = ks_commit_put(s, res, key, n, "MODIFIED");
        if (out) *out = json_incref(stored);
        if (gone) *gone = 0;
        return 0;
    }
    if (dry) {
        if (gone) *gone = 1;
        return dry_result(json_deep_copy(cur), out, NULL);
    }
    if (out) {
        json_t *copy = json_deep_copy(cur);
        *out = copy;
    }
    ks_commit_remove(s, res, key, prop);
    if (out && *out) ks_set_rv(*out, s->rv);
    if (gone) *gone = 1;
    return 0;
}

void ks_namespace_maybe_finish(ks_store *s, const char *ns)
{
    json_t *nso = json_object_get(s->objs[0], ns);
    if (!nso || !json_object_get(json_object_get(nso, "metadata"), "deletionTimestamp")) return;
    size_t l = strlen(ns);
    for (int r = 0; r < KS_NRES; r++) {
        if (!KS_RESOURCES[r].namespaced) continue;
        const char *k;
        json_t *v;
        json_object_foreach(s->objs[r], k, v) if (!strncmp(k, ns, l) && k[l] == '/') return;
    }
    char nsn[256];
    snprintf(nsn, sizeof nsn, "%s", ns);
    ks_commit_remove(s, 0, nsn, NULL);
}

/* Locked: background GC of the dependents of the removed owner uid. */
void ks_gc_dependents(ks_store *s, const char *uid, const char *propagation)
{
    json_t *set = json_object_get(s->owners, uid);
    if (!set) return;
    json_t *deps = json_deep_copy(set);
    json_object_del(s->owners, uid);
    const char *dep;
    json_t *v;
    json_object_foreach(deps, dep, v)
    {
        int r = atoi(dep);
        const char *key = strchr(dep, '|');
        if (!key || r < 0 || r >= KS_NRES) continue;
        key++;
        json_t *obj = json_object_get(s->objs[r], key);
        if (!obj) continue;
        json_t *refs = json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
        int other_alive = 0;
        size_t i;
        json_t *ref;
        json_array_foreach(refs, i, ref)
        {
            const char *ou = json_string_value(json_object_get(ref, "uid"));
            if (ou && strcmp(ou, uid) && json_object_get(s->by_uid, ou)) other_alive = 1;
        }
        if (propagation && !strcmp(propagation, "Orphan")) {
            json_t *n = json_deep_copy(obj);
            json_t *nrefs = json_array();
            json_array_foreach(refs, i, ref)
            {
                const char *ou = json_string_value(json_object_get(ref, "uid"));
                if (!ou || strcmp(ou, uid)) json_array_append(nrefs, ref);
            }
            if (json_array_size(nrefs))
                json_object_set_new(json_object_get(n, "metadata"), "ownerReferences", nrefs);
            else {
                json_decref(nrefs);
                json_object_del(json_object_get(n, "metadata"), "ownerReferences");
            }
            ks_commit_put(s, r, key, n, "MODIFIED");
            continue;
        }
        if (other_alive) continue;
        ks_delete_opts o = {.grace_seconds = -1};
        ks_delete_locked(s, r, key, &o, NULL, NULL, NULL);
    }
    json_decref(deps);
}

int ks_store_delete(ks_store *s, const char *resource, const char *ns, const char *name,
                    const ks_delete_opts *opt, json_t **out, int *gone, ks_err *err)
{
    ks_locked l;
    int rc = ks_store_lock_object(s, resource, ns, name, &l, out, err);
    if (rc < 0) return rc;
    rc = ks_delete_locked(s, l.res, l.key, opt, out, gone, err);
    pthread_mutex_unlock(&s->mu);
    ks_drain_observers(s);
    return rc;
}
