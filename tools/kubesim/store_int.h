/* kubesim store internals, shared by the files that make up the store: store.c (objects, commit,
 * indexes, observers, reads, create/update, watch history), store_defaults.c (defaulting at
 * create/update), store_delete.c (graceful deletion, finalizers, namespace termination,
 * ownerReference garbage collection), store_kubelet.c (the kubelet's contract) and pod_history.c.
 * Other callers use store.h only.
 *
 * Every function here runs with the store lock (ks_store.mu) held unless its comment says
 * otherwise. Objects in objs[] are immutable once committed: a change commits a new object. */
#ifndef KUBESIM_STORE_INT_H
#define KUBESIM_STORE_INT_H

#include "store.h"

#include <pthread.h>
#include <stdint.h>

/* The resource table; the enum gives each row's index (objs[], events). */
typedef struct ks_res_def {
    const char *resource, *kind, *api_version;
    int namespaced;
} ks_res_def;
enum {
    KS_RES_NAMESPACES,
    KS_RES_PODS,
    KS_RES_SERVICES,
    KS_RES_CONFIGMAPS,
    KS_RES_SECRETS,
    KS_RES_PVCS,
    KS_RES_EVENTS,
    KS_RES_NODES,
    KS_RES_SERVICEACCOUNTS,
    KS_RES_ENDPOINTS,
    KS_RES_LEASES,
    KS_RES_ROLES,
    KS_RES_ROLEBINDINGS,
    KS_RES_CLUSTERROLES,
    KS_RES_CLUSTERROLEBINDINGS,
    KS_NRES
};
extern const ks_res_def KS_RESOURCES[KS_NRES];
/* Row of a resource name, or -1. Needs no lock. */
int ks_res_index(const char *resource);

typedef struct ks_observer {
    int res;
    ks_store_observer fn;
    void *arg;
    struct ks_observer *next;
} ks_observer;

typedef struct ks_pending {
    int res;
    const char *type;
    json_t *obj;
    struct ks_pending *next;
} ks_pending;

typedef struct ks_ring_ev {
    uint64_t rv;
    const char *type;
    int res;
    json_t *obj;
    json_t *prev; /* MODIFIED: previous object, so filtered watches see objects enter and leave */
    json_t *ser;  /* JSON string: compact serialization of obj (shared by every watcher) */
} ks_ring_ev;

struct ks_store {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    json_t *objs[KS_NRES]; /* key -> stored object */
    json_t *ser[KS_NRES];  /* key -> JSON string: the stored object's compact serialization */
    json_t *by_uid;        /* uid -> [res, key] */
    json_t *owners;        /* owner uid -> { "res|key": true } */
    uint64_t rv;
    uint64_t expire_floor; /* rv below which watches are expired (fault injection) */
    ks_ring_ev *ring;
    size_t ring_len;
    int shutdown;
    ks_observer *observers;
    /* observer notification queue, drained in commit order */
    pthread_mutex_t nmu;
    ks_pending *nq_head, *nq_tail;
    int draining;
    json_t *pod_history; /* uid -> record */
    unsigned cluster_ip_next;
};

/* An existing object found for a write, with the store lock held. */
typedef struct ks_locked {
    int res;
    char key[600];
    json_t *cur; /* borrowed */
} ks_locked;
/* Takes the store lock for a write of an existing object: returns 0 with the lock held and l
 * filled; or a negative code with a 404 in err and the lock not held. *out (optional) is set to
 * NULL either way. */
int ks_store_lock_object(ks_store *s, const char *resource, const char *ns, const char *name,
                         ks_locked *l, json_t **out, ks_err *err);
/* Fills e (may be NULL) and returns rc. */
int ks_set_err(ks_err *e, int code, const char *reason, int rc, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* The objs[] key of an object: "ns/name" or "name" for cluster-scoped resources. */
void ks_store_key(char *buf, size_t len, int res, const char *ns, const char *name);
/* Borrowed metadata.<field> string of obj, or NULL. */
const char *ks_meta_str(const json_t *obj, const char *field);
/* Borrowed status.phase of a pod, or NULL; 1 if the phase is Succeeded or Failed. */
const char *ks_pod_phase(const json_t *pod);
int ks_pod_terminal(const json_t *pod);

/* Sets metadata.resourceVersion of obj to rv. */
void ks_set_rv(json_t *obj, uint64_t rv);
/* Stores obj (stolen) under key with the next resourceVersion, records the event and queues the
 * observers; returns the stored object (borrowed). */
json_t *ks_commit_put(ks_store *s, int res, const char *key, json_t *obj, const char *type);
/* Removes the object at key (must exist): DELETED event, pod history, GC of its dependents,
 * namespace termination when it was the last object of a terminating namespace. */
void ks_commit_remove(ks_store *s, int res, const char *key, const char *propagation);
/* Called WITHOUT the lock after a write: delivers queued events to observers in commit order. */
void ks_drain_observers(ks_store *s);

/* store_defaults.c: the defaults the API server fills at create (and keeps at update). */
void ks_apply_defaults(ks_store *s, int res, json_t *obj);

/* store_delete.c: deletes the object at key as ks_store_delete describes. */
int ks_delete_locked(ks_store *s, int res, const char *key, const ks_delete_opts *opt, json_t **out,
                     int *gone, ks_err *err);
/* Background GC of the dependents of the removed owner uid (Orphan strips the reference). */
void ks_gc_dependents(ks_store *s, const char *uid, const char *propagation);
/* Removes the terminating namespace ns once nothing is left in it. */
void ks_namespace_maybe_finish(ks_store *s, const char *ns);

/* pod_history.c: what = "created", "phase" (phase and container exits), "deleting", "deleted". */
void ks_pod_history_note(ks_store *s, const json_t *pod, const char *what);
int ks_pod_has_terminated_container(const json_t *pod);

#endif
