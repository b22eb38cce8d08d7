/* kubesim object store (see store.h): objects per resource in jansson maps keyed "ns/name", one
 * global resourceVersion counter, a ring of the last N committed events (index = rv % N) that
 * watches replay, observer notification in commit order, graceful pod deletion, namespace
 * termination, ownerReference garbage collection and the per-pod history. Called by
 * server.c/watch.c and the kubelet half. */
#include "store.h"
#include "util.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct res_def {
    const char *resource, *kind;
    int namespaced;
} res_def;

static const res_def RESOURCES[] = {
    {"namespaces", "Namespace", 0},
    {"pods", "Pod", 1},
    {"services", "Service", 1},
    {"configmaps", "ConfigMap", 1},
    {"secrets", "Secret", 1},
    {"persistentvolumeclaims", "PersistentVolumeClaim", 1},
    {"events", "Event", 1},
    {"nodes", "Node", 0},
    {"serviceaccounts", "ServiceAccount", 1},
    {"endpoints", "Endpoints", 1},
};
#define NRES ((int)(sizeof RESOURCES / sizeof RESOURCES[0]))

typedef struct observer {
    int res;
    ks_store_observer fn;
    void *arg;
    struct observer *next;
} observer;

typedef struct pending {
    int res;
    const char *type;
    json_t *obj;
    struct pending *next;
} pending;

typedef struct ring_ev {
    uint64_t rv;
    const char *type;
    int res;
    json_t *obj;
    json_t *prev; /* MODIFIED: previous object, so filtered watches see objects enter and leave */
    json_t *ser;  /* JSON string: compact serialization of obj (shared by every watcher) */
} ring_ev;

struct ks_store {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    json_t *objs[NRES]; /* key -> stored object */
    json_t
        *ser[NRES]; /* key -> JSON string holding the compact serialization of the stored object */
    json_t *by_uid; /* uid -> [res, key] */
    json_t *owners; /* owner uid -> { "res|key": true } */
    uint64_t rv;
    uint64_t expire_floor; /* rv below which watches are expired (fault injection) */
    ring_ev *ring;
    size_t ring_len;
    int shutdown;
    observer *observers;
    /* observer notification queue, drained in commit order */
    pthread_mutex_t nmu;
    pending *nq_head, *nq_tail;
    int draining;
    json_t *pod_history; /* uid -> record */
    unsigned cluster_ip_next;
};

int ks_resource_info(const char *resource, const char **kind, int *namespaced)
{
    for (int i = 0; i < NRES; i++)
        if (!strcmp(RESOURCES[i].resource, resource)) {
            if (kind) *kind = RESOURCES[i].kind;
            if (namespaced) *namespaced = RESOURCES[i].namespaced;
            return 1;
        }
    return 0;
}

static int res_index(const char *resource)
{
    for (int i = 0; i < NRES; i++)
        if (!strcmp(RESOURCES[i].resource, resource)) return i;
    return -1;
}

void ks_err_clear(ks_err *e)
{
    if (e && e->causes) {
        json_decref(e->causes);
        e->causes = NULL;
    }
}

static int set_err(ks_err *e, int code, const char *reason, int rc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int set_err(ks_err *e, int code, const char *reason, int rc, const char *fmt, ...)
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

static void make_key(char *buf, size_t len, int res, const char *ns, const char *name)
{
    if (RESOURCES[res].namespaced)
        snprintf(buf, len, "%s/%s", ns ? ns : "", name);
    else
        snprintf(buf, len, "%s", name);
}

static const char *meta_str(const json_t *obj, const char *field)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), field));
}

static const char *pod_phase(const json_t *pod)
{
    return json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
}

/* ---------- pod history (locked) ---------- */

static bool has_terminated_container(const json_t *pod)
{
    const json_t *cs = json_object_get(json_object_get(pod, "status"), "containerStatuses");
    for (size_t i = 0; i < json_array_size(cs); i++)
        if (json_object_get(json_object_get(json_array_get(cs, i), "state"), "terminated"))
            return true;
    return false;
}

static void history_note(ks_store *s, const json_t *pod, const char *what)
{
    const char *uid = meta_str(pod, "uid");
    if (!uid) return;
    json_t *rec = json_object_get(s->pod_history, uid);
    int64_t now = ks_now_ms();
    if (!rec) {
        rec = json_pack("{s:s?,s:s?,s:s,s:I,s:[]}", "namespace", meta_str(pod, "namespace"), "name",
                        meta_str(pod, "name"), "uid", uid, "createdMs", (json_int_t)now, "phases");
        json_object_set_new(s->pod_history, uid, rec);
    }
    if (!strcmp(what, "phase")) {
        const char *ph = pod_phase(pod);
        json_t *phases = json_object_get(rec, "phases");
        size_t n = json_array_size(phases);
        const char *last =
            n ? json_string_value(json_object_get(json_array_get(phases, n - 1), "phase")) : NULL;
        if (ph && (!last || strcmp(last, ph)))
            json_array_append_new(phases,
                                  json_pack("{s:s,s:I}", "phase", ph, "timeMs", (json_int_t)now));
        const char *node =
            json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));
        if (node && !json_object_get(rec, "nodeName"))
            json_object_set_new(rec, "nodeName", json_string(node));
        /* how each container ended (kept after the pod is gone: a deleted pod has no status) */
        const json_t *cs = json_object_get(json_object_get(pod, "status"), "containerStatuses");
        for (size_t i = 0; i < json_array_size(cs); i++) {
            const json_t *c = json_array_get(cs, i);
            const json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
            const char *name = json_string_value(json_object_get(c, "name"));
            if (!t || !name) continue;
            json_t *codes = json_object_get(rec, "exitCodes");
            if (!codes) {
                codes = json_object();
                json_object_set_new(rec, "exitCodes", codes);
            }
            json_object_set_new(codes, name,
                                json_integer(json_integer_value(json_object_get(t, "exitCode"))));
        }
    } else if (!strcmp(what, "deleting")) {
        if (!json_object_get(rec, "deletionRequestedMs"))
            json_object_set_new(rec, "deletionRequestedMs", json_integer(now));
    } else if (!strcmp(what, "deleted")) {
        json_object_set_new(rec, "deletedMs", json_integer(now));
    }
}

/* ---------- indexes (locked) ---------- */

static void index_add(ks_store *s, int res, const char *key, const json_t *obj)
{
    const char *uid = meta_str(obj, "uid");
    if (uid) json_object_set_new(s->by_uid, uid, json_pack("[i,s]", res, key));
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
        if (!set) {
            set = json_object();
            json_object_set_new(s->owners, ouid, set);
        }
        json_object_set_new(set, dep, json_true());
    }
}

static void index_del(ks_store *s, int res, const char *key, const json_t *obj)
{
    const char *uid = meta_str(obj, "uid");
    if (uid) json_object_del(s->by_uid, uid);
    json_t *refs = json_object_get(json_object_get(obj, "metadata"), "ownerReferences");
    size_t i;
    json_t *r;
    char dep[600];
    snprintf(dep, sizeof dep, "%d|%s", res, key);
    json_array_foreach(refs, i, r)
    {
        const char *ouid = json_string_value(json_object_get(r, "uid"));
        json_t *set = ouid ? json_object_get(s->owners, ouid) : NULL;
        if (set) {
            json_object_del(set, dep);
            if (json_object_size(set) == 0) json_object_del(s->owners, ouid);
        }
    }
}

/* ---------- commit (locked) ---------- */

static void set_rv(json_t *obj, uint64_t rv)
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
    ring_ev *e = &s->ring[s->rv % s->ring_len];
    json_decref(e->obj);
    json_decref(e->prev);
    json_decref(e->ser);
    e->rv = s->rv;
    e->type = type;
    e->res = res;
    e->obj = json_incref(obj);
    e->prev = prev ? json_incref(prev) : NULL;
    e->ser = ser ? json_incref(ser) : NULL;
    for (observer *o = s->observers; o; o = o->next) {
        if (o->res != res) continue;
        pending *p = malloc(sizeof *p);
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
static void drain_observers(ks_store *s)
{
    pthread_mutex_lock(&s->nmu);
    if (s->draining) {
        pthread_mutex_unlock(&s->nmu);
        return;
    }
    s->draining = 1;
    while (s->nq_head) {
        pending *p = s->nq_head;
        s->nq_head = p->next;
        if (!s->nq_head) s->nq_tail = NULL;
        pthread_mutex_unlock(&s->nmu);
        for (observer *o = s->observers; o; o = o->next)
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
static json_t *commit_put(ks_store *s, int res, const char *key, json_t *obj, const char *type)
{
    json_t *old = json_object_get(s->objs[res], key);
    if (old) {
        json_incref(old);
        index_del(s, res, key, old);
    }
    s->rv++;
    set_rv(obj, s->rv);
    json_object_set_new(s->objs[res], key, obj);
    index_add(s, res, key, obj);
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

static void gc_dependents(ks_store *s, const char *uid, const char *propagation);
static void namespace_maybe_finish(ks_store *s, const char *ns);

/* Removes the object at key (must exist): DELETED event, history, GC. */
static void commit_remove(ks_store *s, int res, const char *key, const char *propagation)
{
    json_t *old = json_object_get(s->objs[res], key);
    json_t *obj = json_deep_copy(old);
    index_del(s, res, key, old);
    json_object_del(s->objs[res], key);
    json_object_del(s->ser[res], key);
    s->rv++;
    set_rv(obj, s->rv);
    json_t *ser = serialize(obj);
    commit_event(s, res, "DELETED", obj, NULL, ser);
    json_decref(ser);
    char uid[64] = "", ns[256] = "";
    snprintf(uid, sizeof uid, "%s", meta_str(obj, "uid") ? meta_str(obj, "uid") : "");
    snprintf(ns, sizeof ns, "%s", meta_str(obj, "namespace") ? meta_str(obj, "namespace") : "");
    if (res == res_index("pods")) history_note(s, obj, "deleted");
    json_decref(obj);
    if (*uid) gc_dependents(s, uid, propagation);
    if (*ns && RESOURCES[res].namespaced) namespace_maybe_finish(s, ns);
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
    for (int i = 0; i < NRES; i++) {
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
    for (int i = 0; i < NRES; i++) {
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
        observer *o = s->observers;
        s->observers = o->next;
        free(o);
    }
    while (s->nq_head) {
        pending *p = s->nq_head;
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
    int res = res_index(resource);
    if (res < 0 || !fn) return -EINVAL;
    observer *o = calloc(1, sizeof *o);
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
    int res = res_index(resource);
    if (res < 0 || !name) return NULL;
    char key[600];
    make_key(key, sizeof key, res, ns, name);
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
    int res = res_index(resource);
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
        if (ns && RESOURCES[res].namespaced && (strncmp(key, ns, nslen) || key[nslen] != '/'))
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
    if (!RESOURCES[res].namespaced) return 0;
    json_t *nso = json_object_get(s->objs[0], ns);
    if (!nso) return set_err(err, 404, "NotFound", -ENOENT, "namespaces \"%s\" not found", ns);
    return 0;
}

static void apply_defaults(ks_store *s, int res, json_t *obj)
{
    const char *r = RESOURCES[res].resource;
    json_t *meta = json_object_get(obj, "metadata");
    if (!strcmp(r, "namespaces")) {
        json_t *labels = json_object_get(meta, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(meta, "labels", labels);
        }
        json_object_set_new(labels, "kubernetes.io/metadata.name",
                            json_string(meta_str(obj, "name")));
        json_object_set_new(obj, "spec", json_pack("{s:[s]}", "finalizers", "kubernetes"));
        json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Active"));
    } else if (!strcmp(r, "pods")) {
        json_t *spec = json_object_get(obj, "spec");
        if (!json_is_object(spec)) return;
        if (!json_object_get(spec, "restartPolicy"))
            json_object_set_new(spec, "restartPolicy", json_string("Always"));
        if (!json_object_get(spec, "terminationGracePeriodSeconds"))
            json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(30));
        if (!json_object_get(spec, "dnsPolicy"))
            json_object_set_new(spec, "dnsPolicy", json_string("ClusterFirst"));
        if (!json_object_get(spec, "schedulerName"))
            json_object_set_new(spec, "schedulerName", json_string("default-scheduler"));
        if (!json_object_get(spec, "serviceAccountName"))
            json_object_set_new(spec, "serviceAccountName", json_string("default"));
        if (!json_object_get(spec, "securityContext"))
            json_object_set_new(spec, "securityContext", json_object());
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c)
        {
            if (!json_is_object(c)) continue;
            if (!json_object_get(c, "terminationMessagePath"))
                json_object_set_new(c, "terminationMessagePath",
                                    json_string("/dev/termination-log"));
            if (!json_object_get(c, "terminationMessagePolicy"))
                json_object_set_new(c, "terminationMessagePolicy", json_string("File"));
            if (!json_object_get(c, "imagePullPolicy"))
                json_object_set_new(c, "imagePullPolicy", json_string("IfNotPresent"));
            if (!json_object_get(c, "resources"))
                json_object_set_new(c, "resources", json_object());
        }
        json_t *st = json_object_get(obj, "status");
        if (!json_is_object(st)) {
            st = json_object();
            json_object_set_new(obj, "status", st);
        }
        if (!json_object_get(st, "phase")) json_object_set_new(st, "phase", json_string("Pending"));
        if (!json_object_get(st, "qosClass"))
            json_object_set_new(st, "qosClass", json_string("BestEffort"));
    } else if (!strcmp(r, "services")) {
        json_t *spec = json_object_get(obj, "spec");
        if (!json_is_object(spec)) {
            spec = json_object();
            json_object_set_new(obj, "spec", spec);
        }
        if (!json_object_get(spec, "type"))
            json_object_set_new(spec, "type", json_string("ClusterIP"));
        if (!json_object_get(spec, "sessionAffinity"))
            json_object_set_new(spec, "sessionAffinity", json_string("None"));
        if (!json_string_value(json_object_get(spec, "clusterIP")) ||
            !*json_string_value(json_object_get(spec, "clusterIP"))) {
            unsigned n = s->cluster_ip_next++;
            char ip[32];
            snprintf(ip, sizeof ip, "10.96.%u.%u", (n / 250) % 250, n % 250 + 1);
            json_object_set_new(spec, "clusterIP", json_string(ip));
        }
        if (!json_object_get(spec, "clusterIPs"))
            json_object_set_new(spec, "clusterIPs",
                                json_pack("[O]", json_object_get(spec, "clusterIP")));
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(spec, "ports"), i, p)
        {
            if (!json_is_object(p)) continue;
            if (!json_object_get(p, "protocol"))
                json_object_set_new(p, "protocol", json_string("TCP"));
            if (!json_object_get(p, "targetPort") && json_object_get(p, "port"))
                json_object_set(p, "targetPort", json_object_get(p, "port"));
        }
        if (!json_object_get(obj, "status"))
            json_object_set_new(obj, "status", json_pack("{s:{}}", "loadBalancer"));
    } else if (!strcmp(r, "persistentvolumeclaims")) {
        if (!json_object_get(obj, "status"))
            json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Pending"));
    } else if (!strcmp(r, "secrets")) {
        if (!json_object_get(obj, "type")) json_object_set_new(obj, "type", json_string("Opaque"));
    }
}

int ks_store_create(ks_store *s, const char *resource, const char *ns, json_t *obj, json_t **out,
                    ks_err *err)
{
    int res = res_index(resource);
    int rc = 0;
    if (out) *out = NULL;
    if (res < 0 || !json_is_object(obj)) {
        json_decref(obj);
        return set_err(err, 404, "NotFound", -ENOENT,
                       "the server could not find the requested resource");
    }
    json_t *meta = json_object_get(obj, "metadata");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(obj, "metadata", meta);
    }
    pthread_mutex_lock(&s->mu);
    if (RESOURCES[res].namespaced) {
        const char *ons = meta_str(obj, "namespace");
        if (!ns) ns = ons ? ons : "default";
        if (ons && *ons && strcmp(ons, ns)) {
            rc = set_err(err, 400, "BadRequest", -EINVAL,
                         "the namespace of the provided object does not match the namespace sent "
                         "on the request");
            goto out;
        }
        json_object_set_new(meta, "namespace", json_string(ns));
        if ((rc = namespace_check(s, res, ns, err)) < 0) goto out;
        json_t *nso = json_object_get(s->objs[0], ns);
        if (json_object_get(json_object_get(nso, "metadata"), "deletionTimestamp")) {
            rc = set_err(err, 403, "Forbidden", -EACCES,
                         "%s \"%s\" is forbidden: unable to create new content in namespace %s "
                         "because it is being "
                         "terminated",
                         resource, meta_str(obj, "name") ? meta_str(obj, "name") : "", ns);
            goto out;
        }
    } else {
        json_object_del(meta, "namespace");
    }
    const char *name = meta_str(obj, "name");
    const char *gen = meta_str(obj, "generateName");
    char namebuf[300];
    if ((!name || !*name) && gen && *gen) {
        for (int tries = 0; tries < 8; tries++) {
            char suf[8];
            ks_random_suffix(suf, 5);
            snprintf(namebuf, sizeof namebuf, "%.250s%s", gen, suf);
            char k[600];
            make_key(k, sizeof k, res, ns, namebuf);
            if (!json_object_get(s->objs[res], k)) break;
        }
        json_object_set_new(meta, "name", json_string(namebuf));
        name = meta_str(obj, "name");
    }
    if (!name || !*name) {
        rc = set_err(err, 422, "Invalid", -EINVAL,
                     "%s \"\" is invalid: metadata.name: Required value: name or "
                     "generateName is required",
                     RESOURCES[res].kind);
        goto out;
    }
    char key[600];
    make_key(key, sizeof key, res, ns, name);
    if (json_object_get(s->objs[res], key)) {
        rc =
            set_err(err, 409, "AlreadyExists", -EEXIST, "%s \"%s\" already exists", resource, name);
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
    json_object_set_new(obj, "kind", json_string(RESOURCES[res].kind));
    json_object_set_new(obj, "apiVersion", json_string("v1"));
    apply_defaults(s, res, obj);
    json_t *stored = commit_put(s, res, key, obj, "ADDED");
    obj = NULL;
    if (res == res_index("pods")) {
        history_note(s, stored, "created");
        history_note(s, stored, "phase");
    }
    if (out) *out = json_incref(stored);
out:
    pthread_mutex_unlock(&s->mu);
    json_decref(obj);
    drain_observers(s);
    return rc;
}

/* ---------- update / mutate ---------- */

static int pod_terminal(const json_t *pod)
{
    const char *ph = pod_phase(pod);
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
                     int status_only, json_t **out, ks_err *err)
{
    json_t *meta = json_object_get(upd, "metadata");
    json_t *cmeta = json_object_get(cur, "metadata");
    const char *name = meta_str(cur, "name");
    if (!json_is_object(meta)) {
        meta = json_object();
        json_object_set_new(upd, "metadata", meta);
    }
    const char *urv = json_string_value(json_object_get(meta, "resourceVersion"));
    if (urv && *urv && strcmp(urv, meta_str(cur, "resourceVersion"))) {
        json_decref(upd);
        return set_err(err, 409, "Conflict", -EAGAIN,
                       "Operation cannot be fulfilled on %s \"%s\": the object has been modified; "
                       "please apply "
                       "your changes to the latest version and try again",
                       RESOURCES[res].resource, name);
    }
    const char *uname = meta_str(upd, "name");
    if (uname && strcmp(uname, name)) {
        int rc = set_err(err, 400, "BadRequest", -EINVAL,
                         "the name of the object (%s) does not match the name on the URL (%s)",
                         uname, name);
        json_decref(upd); /* uname pointed into upd */
        return rc;
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
                                     "namespace",
                                     "name",
                                     "generateName"};
        for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
            json_t *v = json_object_get(cmeta, keep[i]);
            if (v)
                json_object_set(meta, keep[i], v);
            else if (i < 4)
                json_object_del(meta, keep[i]);
        }
        json_object_set_new(nobj, "kind", json_string(RESOURCES[res].kind));
        json_object_set_new(nobj, "apiVersion", json_string("v1"));
        if (res == res_index("pods") || res == res_index("namespaces") ||
            res == res_index("services")) {
            json_t *st = json_object_get(cur, "status");
            if (st)
                json_object_set_new(nobj, "status",
                                    json_deep_copy(st)); /* stored objects stay immutable */
        }
        json_t *spec = json_object_get(nobj, "spec");
        json_t *cspec = json_object_get(cur, "spec");
        if (res == res_index("pods") && json_is_object(spec)) {
            /* spec.nodeName is set by binding only */
            json_t *cnode = json_object_get(cspec, "nodeName");
            if (cnode) json_object_set(spec, "nodeName", cnode);
        }
        if (res == res_index("services") && json_is_object(spec)) {
            /* the cluster IP is immutable once allocated */
            static const char *ipf[] = {"clusterIP", "clusterIPs"};
            for (int i = 0; i < 2; i++)
                if (json_object_get(cspec, ipf[i]) &&
                    !json_string_length(json_object_get(spec, "clusterIP")))
                    json_object_set(spec, ipf[i], json_object_get(cspec, ipf[i]));
        }
        apply_defaults(s, res, nobj);
        if (res == res_index("pods") && pod_spec_changed(cspec, json_object_get(nobj, "spec"))) {
            json_decref(nobj);
            if (err) {
                err->causes = json_pack("[{s:s,s:s,s:s}]", "reason", "FieldValueForbidden",
                                        "message", "Forbidden: " POD_UPDATE_MSG, "field", "spec");
            }
            return set_err(err, 422, "Invalid", -EINVAL,
                           "Pod \"%s\" is invalid: spec: Forbidden: %s", name, POD_UPDATE_MSG);
        }
    }
    /* no-op updates do not bump the resourceVersion (as the real API server) */
    json_object_set(json_object_get(nobj, "metadata"), "resourceVersion",
                    json_object_get(cmeta, "resourceVersion"));
    if (json_equal(nobj, cur)) {
        json_decref(nobj);
        if (out) *out = json_incref(cur);
        return 0;
    }
    const char *oldph = res == res_index("pods") ? pod_phase(cur) : NULL;
    char oldphase[32];
    snprintf(oldphase, sizeof oldphase, "%s", oldph ? oldph : "");
    json_t *stored = commit_put(s, res, key, nobj, "MODIFIED");
    if (res == res_index("pods")) {
        const char *ph = pod_phase(stored);
        if ((ph && strcmp(ph, oldphase)) || has_terminated_container(stored))
            history_note(s, stored, "phase");
    }
    if (out) *out = json_incref(stored);
    /* an object marked for deletion whose finalizers are gone is removed */
    json_t *sm = json_object_get(stored, "metadata");
    if (json_object_get(sm, "deletionTimestamp") &&
        json_array_size(json_object_get(sm, "finalizers")) == 0 && res != res_index("pods") &&
        res != res_index("namespaces"))
        commit_remove(s, res, key, NULL);
    return 0;
}

int ks_store_update(ks_store *s, const char *resource, const char *ns, const char *name,
                    json_t *obj, int status_only, json_t **out, ks_err *err)
{
    int res = res_index(resource);
    if (out) *out = NULL;
    if (res < 0 || !json_is_object(obj)) {
        json_decref(obj);
        return set_err(err, 400, "BadRequest", -EINVAL, "invalid object");
    }
    char key[600];
    make_key(key, sizeof key, res, ns, name);
    pthread_mutex_lock(&s->mu);
    int rc = 0; /* as the API server: only create checks that the namespace exists */
    json_t *cur = rc ? NULL : json_object_get(s->objs[res], key);
    if (!rc && !cur)
        rc = set_err(err, 404, "NotFound", -ENOENT, "%s \"%s\" not found", resource, name);
    if (rc) {
        json_decref(obj);
    } else {
        json_incref(cur);
        rc = do_update(s, res, key, cur, obj, status_only, out, err);
        json_decref(cur);
    }
    pthread_mutex_unlock(&s->mu);
    drain_observers(s);
    return rc;
}

int ks_store_mutate(ks_store *s, const char *resource, const char *ns, const char *name,
                    ks_mutate_fn fn, void *arg, int status_only, json_t **out, ks_err *err)
{
    int res = res_index(resource);
    if (out) *out = NULL;
    if (res < 0)
        return set_err(err, 404, "NotFound", -ENOENT,
                       "the server could not find the requested resource");
    char key[600];
    make_key(key, sizeof key, res, ns, name);
    pthread_mutex_lock(&s->mu);
    int rc = 0; /* as the API server: only create checks that the namespace exists */
    json_t *cur = rc ? NULL : json_object_get(s->objs[res], key);
    if (!rc && !cur)
        rc = set_err(err, 404, "NotFound", -ENOENT, "%s \"%s\" not found", resource, name);
    if (!rc) {
        json_incref(cur);
        json_t *copy = json_deep_copy(cur);
        rc = fn(copy, arg, err);
        if (rc == 0) {
            /* a patch that does not name a resourceVersion is unconditional */
            json_t *m = json_object_get(copy, "metadata");
            const char *prv = json_string_value(json_object_get(m, "resourceVersion"));
            if (!prv || !strcmp(prv, meta_str(cur, "resourceVersion")))
                json_object_del(m, "resourceVersion");
            if (!json_is_object(m)) {
                json_decref(copy);
                rc = set_err(err, 422, "Invalid", -EINVAL, "metadata must be an object");
            } else {
                rc = do_update(s, res, key, cur, copy, status_only, out, err);
            }
        } else {
            json_decref(copy);
        }
        json_decref(cur);
    }
    pthread_mutex_unlock(&s->mu);
    drain_observers(s);
    return rc;
}

/* ---------- delete ---------- */

/* Locked. Deletes the object at key; see ks_store_delete. */
static int do_delete(ks_store *s, int res, const char *key, const ks_delete_opts *opt, json_t **out,
                     int *gone, ks_err *err)
{
    json_t *cur = json_object_get(s->objs[res], key);
    if (!cur) return -ENOENT;
    const char *prop = opt ? opt->propagation : NULL;
    long long grace = opt ? opt->grace_seconds : -1;
    if (opt && opt->precondition_uid && strcmp(opt->precondition_uid, meta_str(cur, "uid")))
        return set_err(err, 409, "Conflict", -EAGAIN,
                       "Precondition failed: UID in precondition: %s, UID in object meta: %s",
                       opt->precondition_uid, meta_str(cur, "uid"));
    if (opt && opt->precondition_rv &&
        strcmp(opt->precondition_rv, meta_str(cur, "resourceVersion")))
        return set_err(err, 409, "Conflict", -EAGAIN,
                       "Precondition failed: ResourceVersion in precondition: %s, ResourceVersion "
                       "in object meta: %s",
                       opt->precondition_rv, meta_str(cur, "resourceVersion"));
    int is_pod = res == res_index("pods");
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
        if (bound && !pod_terminal(cur) && grace > 0 &&
            !(cdel && json_integer_value(cdel) <= grace)) {
            json_t *n = json_deep_copy(cur);
            json_t *m = json_object_get(n, "metadata");
            char ts[40];
            ks_rfc3339(ks_now_ms() / 1000 + grace, ts, sizeof ts);
            json_object_set_new(m, "deletionTimestamp", json_string(ts));
            json_object_set_new(m, "deletionGracePeriodSeconds", json_integer(grace));
            json_t *stored = commit_put(s, res, key, n, "MODIFIED");
            history_note(s, stored, "deleting");
            if (out) *out = json_incref(stored);
            if (gone) *gone = 0;
            return 0;
        }
        if (cdel && bound && !pod_terminal(cur) && grace > 0) {
            /* already terminating with a shorter or equal grace period */
            if (out) *out = json_incref(cur);
            if (gone) *gone = 0;
            return 0;
        }
        history_note(s, cur, "deleting");
    }
    if (res == res_index("namespaces")) {
        const char *nsname = meta_str(cur, "name");
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
            json_t *stored = commit_put(s, res, key, n, "MODIFIED");
            if (out) *out = json_incref(stored);
            /* delete every namespaced object in it */
            for (int r = 0; r < NRES; r++) {
                if (!RESOURCES[r].namespaced) continue;
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
                        do_delete(s, r, json_string_value(kj), &o, NULL, NULL, NULL);
                }
                json_decref(keys);
            }
        } else if (out) {
            *out = json_incref(cur);
        }
        if (gone) *gone = 0;
        namespace_maybe_finish(s, nsn);
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
        json_t *stored = commit_put(s, res, key, n, "MODIFIED");
        if (out) *out = json_incref(stored);
        if (gone) *gone = 0;
        return 0;
    }
    if (out) {
        json_t *copy = json_deep_copy(cur);
        *out = copy;
    }
    commit_remove(s, res, key, prop);
    if (out && *out) set_rv(*out, s->rv);
    if (gone) *gone = 1;
    return 0;
}

static void namespace_maybe_finish(ks_store *s, const char *ns)
{
    json_t *nso = json_object_get(s->objs[0], ns);
    if (!nso || !json_object_get(json_object_get(nso, "metadata"), "deletionTimestamp")) return;
    size_t l = strlen(ns);
    for (int r = 0; r < NRES; r++) {
        if (!RESOURCES[r].namespaced) continue;
        const char *k;
        json_t *v;
        json_object_foreach(s->objs[r], k, v) if (!strncmp(k, ns, l) && k[l] == '/') return;
    }
    char nsn[256];
    snprintf(nsn, sizeof nsn, "%s", ns);
    commit_remove(s, 0, nsn, NULL);
}

/* Locked: background GC of the dependents of the removed owner uid. */
static void gc_dependents(ks_store *s, const char *uid, const char *propagation)
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
        if (!key || r < 0 || r >= NRES) continue;
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
            commit_put(s, r, key, n, "MODIFIED");
            continue;
        }
        if (other_alive) continue;
        ks_delete_opts o = {.grace_seconds = -1};
        do_delete(s, r, key, &o, NULL, NULL, NULL);
    }
    json_decref(deps);
}

int ks_store_delete(ks_store *s, const char *resource, const char *ns, const char *name,
                    const ks_delete_opts *opt, json_t **out, int *gone, ks_err *err)
{
    int res = res_index(resource);
    if (out) *out = NULL;
    if (res < 0)
        return set_err(err, 404, "NotFound", -ENOENT,
                       "the server could not find the requested resource");
    char key[600];
    make_key(key, sizeof key, res, ns, name);
    pthread_mutex_lock(&s->mu);
    int rc = 0; /* as the API server: only create checks that the namespace exists */
    if (!rc && !json_object_get(s->objs[res], key))
        rc = set_err(err, 404, "NotFound", -ENOENT, "%s \"%s\" not found", resource, name);
    if (!rc) rc = do_delete(s, res, key, opt, out, gone, err);
    pthread_mutex_unlock(&s->mu);
    drain_observers(s);
    return rc;
}

/* ---------- kubelet contract ---------- */

int ks_store_set_pod_status(ks_store *s, const char *ns, const char *name, json_t *status)
{
    json_t *upd = json_pack("{s:{},s:o}", "metadata", "status", status);
    ks_err e = {0};
    int rc = ks_store_update(s, "pods", ns, name, upd, 1, NULL, &e);
    ks_err_clear(&e);
    return rc;
}

static int bind_fn(json_t *obj, void *arg, ks_err *err)
{
    json_t *spec = json_object_get(obj, "spec");
    const char *cur = json_string_value(json_object_get(spec, "nodeName"));
    if (cur && *cur && strcmp(cur, (const char *)arg))
        return set_err(err, 409, "Conflict", -EEXIST, "pod is already assigned to node \"%s\"",
                       cur);
    return 0;
}

int ks_store_bind_pod(ks_store *s, const char *ns, const char *name, const char *node)
{
    int res = res_index("pods");
    char key[600];
    make_key(key, sizeof key, res, ns, name);
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
            commit_put(s, res, key, n, "MODIFIED");
        }
    }
    pthread_mutex_unlock(&s->mu);
    drain_observers(s);
    return rc;
}

int ks_store_finalize_pod(ks_store *s, const char *ns, const char *name)
{
    int res = res_index("pods");
    char key[600];
    make_key(key, sizeof key, res, ns, name);
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    if (!json_object_get(s->objs[res], key))
        rc = -ENOENT;
    else
        commit_remove(s, res, key, NULL);
    pthread_mutex_unlock(&s->mu);
    drain_observers(s);
    return rc;
}

int ks_store_record_event(ks_store *s, const char *ns, const json_t *involved, const char *type,
                          const char *reason, const char *message)
{
    char ts[40];
    ks_rfc3339(ks_now_ms() / 1000, ts, sizeof ts);
    const char *oname = meta_str(involved, "name");
    char gen[300];
    snprintf(gen, sizeof gen, "%s.", oname ? oname : "event");
    json_t *ev =
        json_pack("{s:{s:s},s:{s:s?,s:s?,s:s?,s:s?,s:s?,s:s?},s:s,s:s,s:s,s:{s:s},s:s,s:s,s:i,s:s}",
                  "metadata", "generateName", gen, "involvedObject", "kind",
                  json_string_value(json_object_get(involved, "kind")), "apiVersion",
                  json_string_value(json_object_get(involved, "apiVersion")), "namespace",
                  meta_str(involved, "namespace"), "name", oname, "uid", meta_str(involved, "uid"),
                  "resourceVersion", meta_str(involved, "resourceVersion"), "type",
                  type ? type : "Normal", "reason", reason ? reason : "", "message",
                  message ? message : "", "source", "component", "kubelet", "firstTimestamp", ts,
                  "lastTimestamp", ts, "count", 1, "reportingComponent", "kubelet");
    if (!ev) return -EINVAL;
    return ks_store_create(s, "events", ns ? ns : "default", ev, NULL, NULL);
}

int ks_store_put_node(ks_store *s, json_t *node)
{
    const char *name = meta_str(node, "name");
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
        rc = ks_store_update(s, "nodes", NULL, nm, node, 0, NULL, &e);
    }
    ks_err_clear(&e);
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
    int res = res_index(resource);
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
        ring_ev *e = &s->ring[r % s->ring_len];
        if (e->rv != r || e->res != res) continue;
        out[n].rv = r;
        out[n].type = e->type;
        out[n].resource = RESOURCES[res].resource;
        out[n].obj = json_incref(e->obj);
        out[n].prev = e->prev ? json_incref(e->prev) : NULL;
        out[n].ser = e->ser ? json_incref(e->ser) : NULL;
        n++;
    }
    if (now_rv) *now_rv = r - 1; /* everything up to here was examined */
    pthread_mutex_unlock(&s->mu);
    return n;
}

json_t *ks_store_pod_history(ks_store *s)
{
    pthread_mutex_lock(&s->mu);
    json_t *arr = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(s->pod_history, k, v) json_array_append_new(arr, json_deep_copy(v));
    pthread_mutex_unlock(&s->mu);
    return json_pack("{s:o}", "pods", arr);
}
