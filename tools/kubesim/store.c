/* kubesim object store (see store.h and store_int.h): objects per resource in jansson maps keyed
 * "ns/name", one global resourceVersion counter, a ring of the last N committed events (index =
 * rv % N) that watches replay, observer notification in commit order, reads and lists, create,
 * update and patch. Deletion is in store_delete.c, defaulting in store_defaults.c, the kubelet's
 * writes in store_kubelet.c, the pod history in pod_history.c. Called by the HTTP layer (server.c,
 * api_*.c, watch.c) and the kubelet half. */
#include "store_int.h"
#include "util.h"
#include "validate.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const ks_res_def KS_RESOURCES[KS_NRES] = {
    [KS_RES_NAMESPACES] = {"namespaces", "Namespace", "v1", 0},
    [KS_RES_PODS] = {"pods", "Pod", "v1", 1},
    [KS_RES_SERVICES] = {"services", "Service", "v1", 1},
    [KS_RES_CONFIGMAPS] = {"configmaps", "ConfigMap", "v1", 1},
    [KS_RES_SECRETS] = {"secrets", "Secret", "v1", 1},
    [KS_RES_PVCS] = {"persistentvolumeclaims", "PersistentVolumeClaim", "v1", 1},
    [KS_RES_EVENTS] = {"events", "Event", "v1", 1},
    [KS_RES_NODES] = {"nodes", "Node", "v1", 0},
    [KS_RES_SERVICEACCOUNTS] = {"serviceaccounts", "ServiceAccount", "v1", 1},
    [KS_RES_ENDPOINTS] = {"endpoints", "Endpoints", "v1", 1},
    [KS_RES_LEASES] = {"leases", "Lease", "coordination.k8s.io/v1", 1},
    [KS_RES_ROLES] = {"roles", "Role", "rbac.authorization.k8s.io/v1", 1},
    [KS_RES_ROLEBINDINGS] = {"rolebindings", "RoleBinding", "rbac.authorization.k8s.io/v1", 1},
    [KS_RES_CLUSTERROLES] = {"clusterroles", "ClusterRole", "rbac.authorization.k8s.io/v1", 0},
    [KS_RES_CLUSTERROLEBINDINGS] = {"clusterrolebindings", "ClusterRoleBinding",
                                    "rbac.authorization.k8s.io/v1", 0},
};

const char *ks_resource_name(const char *name, const char *api_version,
                             const char **api_version_out)
{
    for (int i = 0; i < KS_NRES; i++)
        if (!strcmp(KS_RESOURCES[i].resource, name) &&
            !strcmp(KS_RESOURCES[i].api_version, api_version)) {
            if (api_version_out) *api_version_out = KS_RESOURCES[i].api_version;
            return KS_RESOURCES[i].resource;
        }
    return NULL;
}

const char *ks_qualified(const char *name, const char *resource, char *buf, size_t len)
{
    const char *g = ks_resource_group(ks_resource_api_version(resource));
    snprintf(buf, len, "%s%s%s", name, *g ? "." : "", g);
    return buf;
}

const char *ks_resource_api_version(const char *resource)
{
    int i = ks_res_index(resource);
    return i >= 0 ? KS_RESOURCES[i].api_version : "v1";
}

const char *ks_resource_group(const char *api_version)
{
    static const char *const groups[] = {"coordination.k8s.io", "rbac.authorization.k8s.io",
                                         "authentication.k8s.io"};
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) {
        size_t n = strlen(groups[i]);
        if (!strncmp(api_version, groups[i], n) && api_version[n] == '/') return groups[i];
    }
    return "";
}

int ks_resource_info(const char *resource, const char **kind, int *namespaced)
{
    for (int i = 0; i < KS_NRES; i++)
        if (!strcmp(KS_RESOURCES[i].resource, resource)) {
            if (kind) *kind = KS_RESOURCES[i].kind;
            if (namespaced) *namespaced = KS_RESOURCES[i].namespaced;
            return 1;
        }
    return 0;
}

int ks_res_index(const char *resource)
{
    for (int i = 0; i < KS_NRES; i++)
        if (!strcmp(KS_RESOURCES[i].resource, resource)) return i;
    return -1;
}

void ks_err_clear(ks_err *e)
{
    if (e && e->causes) {
        json_decref(e->causes);
        e->causes = NULL;
    }
}

int ks_set_err(ks_err *e, int code, const char *reason, int rc, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        snprintf(e->reason, sizeof e->reason, "%s", reason);
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return rc;
}

void ks_store_key(char *buf, size_t len, int res, const char *ns, const char *name)
{
    if (KS_RESOURCES[res].namespaced)
        snprintf(buf, len, "%s/%s", ns ? ns : "", name);
    else
        snprintf(buf, len, "%s", name);
}

const char *ks_meta_str(const json_t *obj, const char *field)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), field));
}

const char *ks_pod_phase(const json_t *pod)
{
    return json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
}

/* ---------- indexes (locked) ---------- */

/* Adds (add = 1) or removes obj's entries in the uid index and the owner -> dependents index. */
static void index_update(ks_store *s, int res, const char *key, const json_t *obj, int add)
{
    const char *uid = ks_meta_str(obj, "uid");
    if (uid && add)
        json_object_set_new(s->by_uid, uid, json_pack("[i,s]", res, key));
    else if (uid)
        json_object_del(s->by_uid, uid);
    json_t *refs = json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
    size_t i;
    json_t *r;
    char dep[600];
    snprintf(dep, sizeof dep, "%d|%s", res, key);
    json_array_foreach(refs, i, r)
    {
        const char *ouid = json_string_value(json_object_get(r, "uid"));
        if (!ouid) continue;
        json_t *set = json_object_get(s->owners, ouid);
        if (add && !set) {
            set = json_object();
            json_object_set_new(s->owners, ouid, set);
        }
        if (add) {
            json_object_set_new(set, dep, json_true());
        } else if (set) {
            json_object_del(set, dep);
            if (json_object_size(set) == 0) json_object_del(s->owners, ouid);
        }
    }
}

/* ---------- commit (locked) ---------- */

void ks_set_rv(json_t *obj, uint64_t rv)
{
    char b[32];
    snprintf(b, sizeof b, "%llu", (unsigned long long)rv);
    json_object_set_new(json_object_get(obj, "metadata"), "resourceVersion", json_string(b));
}

/* Records the event obj (reference taken; prev too, may be NULL) in the ring and queues observers.
 */
static void commit_event(ks_store *s, int res, const char *type, json_t *obj, json_t *prev,
                         json_t *ser)
{
    ks_ring_ev *e = &s->ring[s->rv % s->ring_len];
    json_decref(e->obj);
    json_decref(e->prev);
    json_decref(e->ser);
    e->rv = s->rv;
    e->type = type;
    e->res = res;
    e->obj = json_incref(obj);
    e->prev = prev ? json_incref(prev) : NULL;
    e->ser = ser ? json_incref(ser) : NULL;
    for (ks_observer *o = s->observers; o; o = o->next) {
        if (o->res != res) continue;
        ks_pending *p = malloc(sizeof *p);
        if (!p) continue;
        p->res = res;
        p->type = type;
        p->obj = json_incref(obj);
        p->next = NULL;
        pthread_mutex_lock(&s->nmu);
        if (s->nq_tail)
            s->nq_tail->next = p;
        else
            s->nq_head = p;
        s->nq_tail = p;
        pthread_mutex_unlock(&s->nmu);
        break; /* one queue entry per event; drain calls every observer of res */
    }
    pthread_cond_broadcast(&s->cond);
}

/* Called without the store lock after a write: delivers queued events to observers in order. */
void ks_drain_observers(ks_store *s)
{
    pthread_mutex_lock(&s->nmu);
    if (s->draining) {
        pthread_mutex_unlock(&s->nmu);
        return;
    }
    s->draining = 1;
    while (s->nq_head) {
        ks_pending *p = s->nq_head;
        s->nq_head = p->next;
        if (!s->nq_head) s->nq_tail = NULL;
        pthread_mutex_unlock(&s->nmu);
        for (ks_observer *o = s->observers; o; o = o->next)
            if (o->res == p->res) o->fn(o->arg, p->type, p->obj);
        json_decref(p->obj);
        free(p);
        pthread_mutex_lock(&s->nmu);
    }
    s->draining = 0;
    pthread_mutex_unlock(&s->nmu);
}

/* New JSON string holding the compact serialization of obj, or NULL. */
static json_t *serialize(const json_t *obj)
{
    size_t len = json_dumpb(obj, NULL, 0, JSON_COMPACT);
    char *buf = len ? malloc(len) : NULL;
    json_t *str = NULL;
    if (buf && json_dumpb(obj, buf, len, JSON_COMPACT) == len) str = json_stringn_nocheck(buf, len);
    free(buf);
    return str;
}

/* Stores obj (stolen) under key with a new rv and records the event. */
json_t *ks_commit_put(ks_store *s, int res, const char *key, json_t *obj, const char *type)
{
    json_t *old = json_object_get(s->objs[res], key);
    if (old) {
        json_incref(old);
        index_update(s, res, key, old, 0);
    }
    s->rv++;
    ks_set_rv(obj, s->rv);
    json_object_set_new(s->objs[res], key, obj);
    index_update(s, res, key, obj, 1);
    json_t *ser = serialize(obj);
    if (ser)
        json_object_set(s->ser[res], key, ser);
    else
        json_object_del(s->ser[res], key);
    commit_event(s, res, type, obj, old, ser);
    json_decref(ser);
    json_decref(old);
    return obj;
}

/* Removes the object at key (must exist): DELETED event, history, GC. */
void ks_commit_remove(ks_store *s, int res, const char *key, const char *propagation)
{
    json_t *old = json_object_get(s->objs[res], key);
    json_t *obj = json_deep_copy(old);
    index_update(s, res, key, old, 0);
    json_object_del(s->objs[res], key);
    json_object_del(s->ser[res], key);
    s->rv++;
    ks_set_rv(obj, s->rv);
    json_t *ser = serialize(obj);
    commit_event(s, res, "DELETED", obj, NULL, ser);
    json_decref(ser);
    char uid[64] = "", ns[256] = "";
    snprintf(uid, sizeof uid, "%s", ks_meta_str(obj, "uid") ? ks_meta_str(obj, "uid") : "");
    snprintf(ns, sizeof ns, "%s",
             ks_meta_str(obj, "namespace") ? ks_meta_str(obj, "namespace") : "");
    if (res == KS_RES_PODS) ks_pod_history_note(s, obj, "deleted");
    json_decref(obj);
    if (*uid) ks_gc_dependents(s, uid, propagation);
    if (*ns && KS_RESOURCES[res].namespaced) ks_namespace_maybe_finish(s, ns);
}

/* ---------- lifecycle ---------- */

ks_store *ks_store_new(size_t history_len)
{
    ks_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->ring_len = history_len ? history_len : KS_HISTORY_DEFAULT;
    s->ring = calloc(s->ring_len, sizeof *s->ring);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->nmu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cond, &ca);
    pthread_condattr_destroy(&ca);
    for (int i = 0; i < KS_NRES; i++) {
        s->objs[i] = json_object();
        s->ser[i] = json_object();
    }
    s->by_uid = json_object();
    s->owners = json_object();
    s->pod_history = json_object();
    s->cluster_ip_next = 1;
    static const char *initial[] = {"default", "kube-system", "kube-public", "kube-node-lease"};
    for (size_t i = 0; i < sizeof initial / sizeof initial[0]; i++) {
        json_t *ns = json_pack("{s:{s:s}}", "metadata", "name", initial[i]);
        ks_store_create(s, "namespaces", NULL, ns, NULL, NULL);
    }
    json_t *sa = json_pack("{s:{s:s}}", "metadata", "name", "default");
    ks_store_create(s, "serviceaccounts", "default", sa, NULL, NULL);
    return s;
}

void ks_store_free(ks_store *s)
{
    if (!s) return;
    for (int i = 0; i < KS_NRES; i++) {
        json_decref(s->objs[i]);
        json_decref(s->ser[i]);
    }
    json_decref(s->by_uid);
    json_decref(s->owners);
    json_decref(s->pod_history);
    for (size_t i = 0; i < s->ring_len; i++) {
        json_decref(s->ring[i].obj);
        json_decref(s->ring[i].prev);
        json_decref(s->ring[i].ser);
    }
    free(s->ring);
    while (s->observers) {
        ks_observer *o = s->observers;
        s->observers = o->next;
        free(o);
    }
    while (s->nq_head) {
        ks_pending *p = s->nq_head;
        s->nq_head = p->next;
        json_decref(p->obj);
        free(p);
    }
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->nmu);
    pthread_cond_destroy(&s->cond);
    free(s);
}

int ks_store_observe(ks_store *s, const char *resource, ks_store_observer fn, void *arg)
{
    int res = ks_res_index(resource);
    if (res < 0 || !fn) return -EINVAL;
    ks_observer *o = calloc(1, sizeof *o);
    if (!o) return -ENOMEM;
    o->res = res;
    o->fn = fn;
    o->arg = arg;
    pthread_mutex_lock(&s->mu);
    pthread_mutex_lock(&s->nmu);
    o->next = s->observers;
    s->observers = o;
    pthread_mutex_unlock(&s->nmu);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

uint64_t ks_store_rv(ks_store *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t rv = s->rv;
    pthread_mutex_unlock(&s->mu);
    return rv;
}

/* ---------- reads ---------- */

json_t *ks_store_get(ks_store *s, const char *resource, const char *ns, const char *name)
{
    int res = ks_res_index(resource);
    if (res < 0 || !name) return NULL;
    char key[600];
    ks_store_key(key, sizeof key, res, ns, name);
    pthread_mutex_lock(&s->mu);
    json_t *o = json_object_get(s->objs[res], key);
    json_t *copy = o ? json_deep_copy(o) : NULL;
    pthread_mutex_unlock(&s->mu);
    return copy;
}

static int key_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static json_t *list_impl(ks_store *s, const char *resource, const char *ns, ks_filter_fn filter,
                         void *arg, const char *start_after, size_t limit, uint64_t *rv,
                         char **next_key, int serialized)
{
    int res = ks_res_index(resource);
    json_t *out = json_array();
    if (next_key) *next_key = NULL;
    if (res < 0) return out;
    size_t nslen = ns ? strlen(ns) : 0;
    pthread_mutex_lock(&s->mu);
    if (rv) *rv = s->rv;
    size_t n = json_object_size(s->objs[res]), k = 0;
    const char **keys = malloc((n ? n : 1) * sizeof *keys);
    const char *key;
    json_t *val;
    json_object_foreach(s->objs[res], key, val)
    {
        if (ns && KS_RESOURCES[res].namespaced && (strncmp(key, ns, nslen) || key[nslen] != '/'))
            continue;
        if (start_after && strcmp(key, start_after) <= 0) continue;
        keys[k++] = key;
    }
    qsort(keys, k, sizeof *keys, key_cmp);
    const char *last_key = NULL;
    for (size_t i = 0; i < k; i++) {
        json_t *o = json_object_get(s->objs[res], keys[i]);
        if (filter && !filter(o, arg)) continue;
        if (limit && json_array_size(out) == limit) {
            if (next_key && last_key) *next_key = strdup(last_key);
            break;
        }
        if (serialized) {
            json_t *str = json_object_get(s->ser[res], keys[i]);
            if (str)
                json_array_append(out, str);
            else
                json_array_append_new(out, json_stringn_nocheck("null", 4));
        } else {
            json_array_append(out, o);
        }
        last_key = keys[i];
    }
    pthread_mutex_unlock(&s->mu);
    free(keys);
    return out;
}

json_t *ks_store_list_refs(ks_store *s, const char *resource, const char *ns, ks_filter_fn filter,
                           void *arg, const char *start_after, size_t limit, uint64_t *rv,
                           char **next_key)
{
    return list_impl(s, resource, ns, filter, arg, start_after, limit, rv, next_key, 0);
}

json_t *ks_store_list_serialized(ks_store *s, const char *resource, const char *ns,
                                 ks_filter_fn filter, void *arg, const char *start_after,
                                 size_t limit, uint64_t *rv, char **next_key)
{
    return list_impl(s, resource, ns, filter, arg, start_after, limit, rv, next_key, 1);
}

json_t *ks_store_list(ks_store *s, const char *resource, const char *ns)
{
    json_t *refs = ks_store_list_refs(s, resource, ns, NULL, NULL, NULL, 0, NULL, NULL);
    json_t *out = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(refs, i, o) json_array_append_new(out, json_deep_copy(o));
    json_decref(refs);
    return out;
}

/* ---------- create ---------- */

static int namespace_check(ks_store *s, int res, const char *ns, ks_err *err)
{
    if (!KS_RESOURCES[res].namespaced) return 0;
    json_t *nso = json_object_get(s->objs[0], ns);
    if (!nso) return ks_set_err(err, 404, "NotFound", -ENOENT, "namespaces \"%s\" not found", ns);
    return 0;
}

int ks_store_create(ks_store *s, const char *resource, const char *ns, json_t *obj, json_t **out,
                    ks_err *err)
{
    return ks_store_create_opts(s, resource, ns, obj, 0, out, err);
}

int ks_store_create_opts(ks_store *s, const char *resource, const char *ns, json_t *obj,
                         unsigned flags, json_t **out, ks_err *err)
{
    int res = ks_res_index(resource);
    int rc = 0;
    if (out) *out = NULL;
    if (res < 0 || !json_is_object(obj)) {
        json_decref(obj);
        return ks_set_err(err, 404, "NotFound", -ENOENT,
                          "the server could not find the requested resource");
    }
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    pthread_mutex_lock(&s->mu);
    if (KS_RESOURCES[res].namespaced) {
        const char *ons = ks_meta_str(obj, "namespace");
        if (!ns) ns = ons ? ons : "default";
        if (ons && *ons && strcmp(ons, ns)) {
            rc =
                ks_set_err(err, 400, "BadRequest", -EINVAL,
                           "the namespace of the provided object does not match the namespace sent "
                           "on the request");
            goto out;
        }
        json_object_set_new(meta, "namespace", json_string(ns));
        if ((rc = namespace_check(s, res, ns, err)) < 0) goto out;
        json_t *nso = json_object_get(s->objs[0], ns);
        if (json_object_get(json_object_get(nso, "metadata"), "deletionTimestamp")) {
            rc = ks_set_err(err, 403, "Forbidden", -EACCES,
                            "%s \"%s\" is forbidden: unable to create new content in namespace %s "
                            "because it is being "
                            "terminated",
                            resource, ks_meta_str(obj, "name") ? ks_meta_str(obj, "name") : "", ns);
            goto out;
        }
    } else {
        json_object_del(meta, "namespace");
    }
    const char *name = ks_meta_str(obj, "name");
    const char *gen = ks_meta_str(obj, "generateName");
    char namebuf[300];
    if ((!name || !*name) && gen && *gen) {
        for (int tries = 0; tries < 8; tries++) {
            char suf[8];
            ks_random_suffix(suf, 5);
            snprintf(namebuf, sizeof namebuf, "%.250s%s", gen, suf);
            char k[600];
            ks_store_key(k, sizeof k, res, ns, namebuf);
            if (!json_object_get(s->objs[res], k)) break;
        }
        json_object_set_new(meta, "name", json_string(namebuf));
        name = ks_meta_str(obj, "name");
    }
    if (!name || !*name) {
        char q[128];
        rc = ks_set_err(err, 422, "Invalid", -EINVAL,
                        "%s \"\" is invalid: metadata.name: Required value: name or "
                        "generateName is required",
                        ks_qualified(KS_RESOURCES[res].kind, resource, q, sizeof q));
        goto out;
    }
    char key[600];
    ks_store_key(key, sizeof key, res, ns, name);
    if (json_object_get(s->objs[res], key)) {
        char q[128];
        rc = ks_set_err(err, 409, "AlreadyExists", -EEXIST, "%s \"%s\" already exists",
                        ks_qualified(resource, resource, q, sizeof q), name);
        goto out;
    }
    char uid[40], ts[40];
    ks_uuid(uid);
    ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
    json_object_set_new(meta, "uid", json_string(uid));
    json_object_set_new(meta, "creationTimestamp", json_string(ts));
    json_object_del(meta, "deletionTimestamp");
    json_object_del(meta, "deletionGracePeriodSeconds");
    json_object_del(meta, "managedFields");
    json_object_del(meta, "resourceVersion");
    json_object_set_new(obj, "kind", json_string(KS_RESOURCES[res].kind));
    json_object_set_new(obj, "apiVersion", json_string(KS_RESOURCES[res].api_version));
    /* the status a client sends at create is the server's to fill */
    if (res == KS_RES_PODS || res == KS_RES_SERVICES || res == KS_RES_PVCS)
        json_object_del(obj, "status");
    if (res == KS_RES_PODS) json_object_set_new(meta, "generation", json_integer(1));
    ks_apply_defaults(s, res, obj);
    if (flags & KS_WRITE_DRY_RUN) {
        /* everything but the write: the answer has no resourceVersion */
        if (out) *out = obj;
        obj = NULL;
        goto out;
    }
    json_t *stored = ks_commit_put(s, res, key, obj, "ADDED");
    obj = NULL;
    if (res == KS_RES_PODS) {
        ks_pod_history_note(s, stored, "created");
        ks_pod_history_note(s, stored, "phase");
    }
    if (out) *out = json_incref(stored);
out:
    pthread_mutex_unlock(&s->mu);
    json_decref(obj);
    ks_drain_observers(s);
    return rc;
}

/* ---------- update / mutate ---------- */

int ks_pod_terminal(const json_t *pod)
{
    const char *ph = ks_pod_phase(pod);
    return ph && (!strcmp(ph, "Succeeded") || !strcmp(ph, "Failed"));
}

#define POD_UPDATE_MSG                                                                             \
    "pod updates may not change fields other than "                                                \
    "`spec.containers[*].image`,`spec.initContainers[*].image`,"                                   \
    "`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),"    \
    "`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)"

/* 1 if a pod spec update changes more than the API server allows (images, activeDeadlineSeconds,
 * tolerations). */
static int pod_spec_changed(const json_t *old, const json_t *upd)
{
    if (!json_is_object(old) || !json_is_object(upd)) return !json_equal(old, upd);
    json_t *a = json_deep_copy(old), *b = json_deep_copy(upd);
    static const char *lists[] = {"containers", "initContainers"};
    for (int l = 0; l < 2; l++) {
        json_t *ca = json_object_get(a, lists[l]), *cb = json_object_get(b, lists[l]);
        size_t i;
        json_t *c;
        json_array_foreach(ca, i, c) json_object_del(c, "image");
        json_array_foreach(cb, i, c) json_object_del(c, "image");
    }
    static const char *free_fields[] = {"activeDeadlineSeconds", "tolerations"};
    for (int f = 0; f < 2; f++) {
        json_object_del(a, free_fields[f]);
        json_object_del(b, free_fields[f]);
    }
    int changed = !json_equal(a, b);
    json_decref(a);
    json_decref(b);
    return changed;
}

/* Locked: replaces current object at key with upd (stolen) after copying server-owned fields. */
static int do_update(ks_store *s, int res, const char *key, json_t *cur, json_t *upd,
                     unsigned flags, json_t **out, ks_err *err)
{
    int status_only = (flags & KS_WRITE_STATUS_ONLY) != 0;
    json_t *meta = json_object_get(upd, "metadata");
    json_t *cmeta = json_object_get(cur, "metadata");
    const char *name = ks_meta_str(cur, "name");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(upd, "metadata", meta);
    }
    const char *urv = json_string_value(json_object_get(meta, "resourceVersion"));
    if (urv && *urv && strcmp(urv, ks_meta_str(cur, "resourceVersion"))) {
        json_decref(upd);
        return ks_set_err(
            err, 409, "Conflict", -EAGAIN,
            "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
            "please apply "
            "your changes to the latest version and try again",
            KS_RESOURCES[res].resource, name);
    }
    const char *uname = ks_meta_str(upd, "name");
    if (uname && strcmp(uname, name)) {
        int rc = ks_set_err(err, 400, "BadRequest", -EINVAL,
                            "the name of the object (%s) does not match the name on the URL (%s)",
                            uname, name);
        json_decref(upd); /* uname pointed into upd */
        return rc;
    }
    if (!status_only && ks_validate_update(KS_RESOURCES[res].resource, cur, upd, err) < 0) {
        json_decref(upd);
        return -EINVAL;
    }
    json_t *nobj;
    if (status_only) {
        nobj = json_deep_copy(cur);
        json_t *st = json_object_get(upd, "status");
        if (st) json_object_set(nobj, "status", st);
        json_decref(upd);
    } else {
        nobj = upd;
        meta = json_object_get(nobj, "metadata");
        static const char *keep[] = {"uid",
                                     "creationTimestamp",
                                     "deletionTimestamp",
                                     "deletionGracePeriodSeconds",
                                     "generation",
                                     "namespace",
                                     "name",
                                     "generateName"};
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
            json_t *v = json_object_get(cmeta, keep[i]);
            if (v)
                json_object_set(meta, keep[i], v);
            else if (i < 5)
                json_object_del(meta, keep[i]);
        }
        json_object_set_new(nobj, "kind", json_string(KS_RESOURCES[res].kind));
        json_object_set_new(nobj, "apiVersion", json_string(KS_RESOURCES[res].api_version));
        if (res == KS_RES_PODS || res == KS_RES_NAMESPACES || res == KS_RES_SERVICES ||
            res == KS_RES_PVCS || res == KS_RES_NODES) {
            json_t *st = json_object_get(cur, "status");
            if (st)
                json_object_set_new(nobj, "status",
                                    json_deep_copy(st)); /* stored objects stay immutable */
        }
        json_t *spec = json_object_get(nobj, "spec");
        json_t *cspec = json_object_get(cur, "spec");
        if (res == KS_RES_PODS && json_is_object(spec)) {
            /* spec.nodeName is set by binding only */
            json_t *cnode = json_object_get(cspec, "nodeName");
            if (cnode) json_object_set(spec, "nodeName", cnode);
        }
        if (res == KS_RES_SERVICES && json_is_object(spec)) {
            /* the cluster IP is immutable once allocated */
            static const char *ipf[] = {"clusterIP", "clusterIPs"};
            for (int i = 0; i < 2; i++)
                if (json_object_get(cspec, ipf[i]) &&
                    !json_string_length(json_object_get(spec, "clusterIP")))
                    json_object_set(spec, ipf[i], json_object_get(cspec, ipf[i]));
        }
        ks_apply_defaults(s, res, nobj);
        if (res == KS_RES_PODS && pod_spec_changed(cspec, json_object_get(nobj, "spec"))) {
            json_decref(nobj);
            if (err) {
                err->causes = json_pack("[{s:s,s:s,s:s}]", "reason", "FieldValueForbidden",
                                        "message", "Forbidden: " POD_UPDATE_MSG, "field", "spec");
            }
            return ks_set_err(err, 422, "Invalid", -EINVAL,
                              "Pod \"%s\" is invalid: spec: Forbidden: %s", name, POD_UPDATE_MSG);
        }
        /* a pod's generation counts its spec changes */
        json_t *gen = json_object_get(cmeta, "generation");
        if (res == KS_RES_PODS && json_is_integer(gen) &&
            !json_equal(cspec, json_object_get(nobj, "spec")))
            json_object_set_new(meta, "generation", json_integer(json_integer_value(gen) + 1));
    }
    /* no-op updates do not bump the resourceVersion (as the real API server) */
    json_object_set(json_object_get(nobj, "metadata"), "resourceVersion",
                    json_object_get(cmeta, "resourceVersion"));
    if (json_equal(nobj, cur)) {
        json_decref(nobj);
        if (out) *out = json_incref(cur);
        return 0;
    }
    if (flags & KS_WRITE_DRY_RUN) {
        if (out)
            *out = nobj;
        else
            json_decref(nobj);
        return 0;
    }
    const char *oldph = res == KS_RES_PODS ? ks_pod_phase(cur) : NULL;
    char oldphase[32];
    snprintf(oldphase, sizeof oldphase, "%s", oldph ? oldph : "");
    json_t *stored = ks_commit_put(s, res, key, nobj, "MODIFIED");
    if (res == KS_RES_PODS) {
        const char *ph = ks_pod_phase(stored);
        if ((ph && strcmp(ph, oldphase)) || ks_pod_has_terminated_container(stored))
            ks_pod_history_note(s, stored, "phase");
    }
    if (out) *out = json_incref(stored);
    /* an object marked for deletion whose finalizers are gone is removed */
    json_t *sm = json_object_get(stored, "metadata");
    if (json_object_get(sm, "deletionTimestamp") &&
        json_array_size(json_object_get(sm, "finalizers")) == 0 && res != KS_RES_PODS &&
        res != KS_RES_NAMESPACES)
        ks_commit_remove(s, res, key, NULL);
    return 0;
}

int ks_store_lock_object(ks_store *s, const char *resource, const char *ns, const char *name,
                         ks_locked *l, json_t **out, ks_err *err)
{
    if (out) *out = NULL;
    l->res = ks_res_index(resource);
    if (l->res < 0)
        return ks_set_err(err, 404, "NotFound", -ENOENT,
                          "the server could not find the requested resource");
    ks_store_key(l->key, sizeof l->key, l->res, ns, name);
    pthread_mutex_lock(&s->mu);
    /* as the API server: only create checks that the namespace exists */
    l->cur = json_object_get(s->objs[l->res], l->key);
    if (l->cur) return 0;
    pthread_mutex_unlock(&s->mu);
    char q[128];
    return ks_set_err(err, 404, "NotFound", -ENOENT, "%s \"%s\" not found",
                      ks_qualified(resource, resource, q, sizeof q), name);
}

int ks_store_update(ks_store *s, const char *resource, const char *ns, const char *name,
                    json_t *obj, unsigned flags, json_t **out, ks_err *err)
{
    ks_locked l;
    int rc = ks_store_lock_object(s, resource, ns, name, &l, out, err);
    if (rc < 0) {
        json_decref(obj);
        return rc;
    }
    json_incref(l.cur);
    rc = do_update(s, l.res, l.key, l.cur, obj, flags, out, err);
    json_decref(l.cur);
    pthread_mutex_unlock(&s->mu);
    ks_drain_observers(s);
    return rc;
}

int ks_store_mutate(ks_store *s, const char *resource, const char *ns, const char *name,
                    ks_mutate_fn fn, void *arg, unsigned flags, json_t **out, ks_err *err)
{
    ks_locked l;
    int rc = ks_store_lock_object(s, resource, ns, name, &l, out, err);
    if (rc < 0) return rc;
    json_t *cur = json_incref(l.cur);
    json_t *copy = json_deep_copy(cur);
    rc = fn(copy, arg, err);
    if (rc == 0) {
        /* a patch that does not name a resourceVersion is unconditional */
        json_t *m = json_object_get(copy, "metadata");
        const char *prv = json_string_value(json_object_get(m, "resourceVersion"));
        if (!prv || !strcmp(prv, ks_meta_str(cur, "resourceVersion")))
            json_object_del(m, "resourceVersion");
        if (!json_is_object(m)) {
            json_decref(copy);
            rc = ks_set_err(err, 422, "Invalid", -EINVAL, "metadata must be an object");
        } else {
            rc = do_update(s, l.res, l.key, cur, copy, flags, out, err);
        }
    } else {
        json_decref(copy);
    }
    json_decref(cur);
    pthread_mutex_unlock(&s->mu);
    ks_drain_observers(s);
    return rc;
}

/* ---------- watch history ---------- */

static uint64_t oldest_replayable(ks_store *s)
{
    uint64_t oldest = s->rv >= s->ring_len ? s->rv - s->ring_len + 1 : 1;
    if (s->expire_floor > oldest) oldest = s->expire_floor;
    return oldest;
}

int ks_store_rv_expired(ks_store *s, uint64_t rv)
{
    pthread_mutex_lock(&s->mu);
    int exp = rv + 1 < oldest_replayable(s);
    pthread_mutex_unlock(&s->mu);
    return exp;
}

void ks_store_expire_all(ks_store *s)
{
    pthread_mutex_lock(&s->mu);
    s->expire_floor = s->rv + 1;
    pthread_mutex_unlock(&s->mu);
}

void ks_store_shutdown(ks_store *s)
{
    pthread_mutex_lock(&s->mu);
    s->shutdown = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

int ks_store_events(ks_store *s, const char *resource, uint64_t since, ks_event *out, int max,
                    int wait_ms, uint64_t *now_rv, uint64_t *expired_floor)
{
    int res = ks_res_index(resource);
    int n = 0;
    pthread_mutex_lock(&s->mu);
    if (wait_ms > 0 && s->rv <= since && !s->shutdown) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_sec += wait_ms / 1000;
        ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        while (s->rv <= since && !s->shutdown)
            if (pthread_cond_timedwait(&s->cond, &s->mu, &ts) != 0) break;
    }
    uint64_t oldest = oldest_replayable(s);
    if (since + 1 < oldest && since < s->rv) {
        if (expired_floor) *expired_floor = oldest;
        if (now_rv) *now_rv = s->rv;
        pthread_mutex_unlock(&s->mu);
        return -ETIME;
    }
    uint64_t r = since + 1;
    for (; r <= s->rv && n < max; r++) {
        ks_ring_ev *e = &s->ring[r % s->ring_len];
        if (e->rv != r || e->res != res) continue;
        out[n].rv = r;
        out[n].type = e->type;
        out[n].resource = KS_RESOURCES[res].resource;
        out[n].obj = json_incref(e->obj);
        out[n].prev = e->prev ? json_incref(e->prev) : NULL;
        out[n].ser = e->ser ? json_incref(e->ser) : NULL;
        n++;
    }
    if (now_rv) *now_rv = r - 1; /* everything up to here was examined */
    pthread_mutex_unlock(&s->mu);
    return n;
}
