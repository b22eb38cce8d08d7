/* kubesim object store: the in-memory "etcd" of the simulated API server.
 *
 * Holds every object (Namespace, Pod, Service, ConfigMap, Secret, PersistentVolumeClaim, Event,
 * Node) keyed by resource, namespace and name; stamps metadata as the API server does (uid, one
 * global resourceVersion counter, creationTimestamp, generateName); keeps a bounded event history
 * that watches replay from; runs graceful pod deletion and ownerReference garbage collection;
 * records a per-pod history (creation, phase changes, deletion) for tests and benchmarks.
 *
 * Callers: the HTTP layer (server.c, watch.c) and the kubelet half (kubelet*.c). Thread-safe: one
 * mutex inside. Stored objects are immutable once committed (every change stores a new object), so
 * readers may keep a reference taken under the lock.
 *
 * Ownership: functions documented "new" return a reference the caller must json_decref; "stolen"
 * arguments are consumed even on failure; "borrowed" pointers are valid only for the duration of
 * the call. Functions returning int return 0 on success or a negative errno-style code (-ENOENT,
 * -EEXIST, ...). */
#ifndef KUBESIM_STORE_H
#define KUBESIM_STORE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ks_store ks_store; /* thread-safe; one mutex inside */

/* ---- contract used by the kubelet half (keep stable) ---- */

/* Observer: called after every committed change to a resource kind, in commit order, without the
 * store lock held, with a borrowed object valid only during the call. type is "ADDED", "MODIFIED"
 * or "DELETED". */
typedef void (*ks_store_observer)(void *arg, const char *type, const json_t *obj);
int ks_store_observe(ks_store *s, const char *resource /* "pods" */, ks_store_observer fn,
                     void *arg);

/* New deep copy, NULL if absent. ns is ignored (may be NULL) for cluster-scoped resources. */
json_t *ks_store_get(ks_store *s, const char *resource, const char *ns, const char *name);
/* New JSON array of deep copies; ns NULL = all namespaces. */
json_t *ks_store_list(ks_store *s, const char *resource, const char *ns);

/* Replaces the pod's .status (the json is stolen), bumps resourceVersion, notifies
 * observers/watchers, records phase changes in pod history. -ENOENT if the pod does not exist. */
int ks_store_set_pod_status(ks_store *s, const char *ns, const char *name, json_t *status);
/* Binds a pending pod: sets spec.nodeName. -ENOENT if absent, -EEXIST if bound to another node. */
int ks_store_bind_pod(ks_store *s, const char *ns, const char *name, const char *node);
/* Removes a pod whose graceful deletion is complete (DELETED event, GC of dependents, history). */
int ks_store_finalize_pod(ks_store *s, const char *ns, const char *name);
/* Creates an Event (core/v1) about an object (involved_obj borrowed). type is "Normal" or
 * "Warning". */
int ks_store_record_event(ks_store *s, const char *ns, const json_t *involved_obj, const char *type,
                          const char *reason, const char *message);
/* Creates or replaces a cluster-scoped Node object (stolen). */
int ks_store_put_node(ks_store *s, json_t *node);

/* ---- used by the API server half ---- */

#define KS_HISTORY_DEFAULT 10000
/* clusterIP of the `kubernetes` Service in default (the API server as pods reach it, with
 * --pod-network) */
#define KS_SERVICE_IP "10.96.0.1"

ks_store *ks_store_new(size_t history_len);
void ks_store_free(ks_store *s);

/* Resource table: returns 1 if resource (plural, e.g. "pods") is known, and fills kind /
 * namespaced. */
int ks_resource_info(const char *resource, const char **kind, int *namespaced);

/* The resource (static name) called name in apiVersion api_version ("v1",
 * "rbac.authorization.k8s.io/v1"), its static apiVersion in *api_version_out; NULL if none. */
const char *ks_resource_name(const char *name, const char *api_version,
                             const char **api_version_out);
/* name qualified by resource's group, as kube-apiserver's messages name it: "leases" ->
 * "leases.coordination.k8s.io", "Role" -> "Role.rbac.authorization.k8s.io"; core names as they
 * are. Returns buf. */
const char *ks_qualified(const char *name, const char *resource, char *buf, size_t len);
/* The static apiVersion of a resource ("v1" when unknown). */
const char *ks_resource_api_version(const char *resource);
/* The static group of an apiVersion ("" for core "v1"). */
const char *ks_resource_group(const char *api_version);

/* Current global resourceVersion (the last committed one). */
uint64_t ks_store_rv(ks_store *s);

/* Error detail for the HTTP layer: which Status to answer with. */
typedef struct ks_err {
    int code;        /* HTTP code: 404, 409, 422, 410 ... */
    char reason[32]; /* "NotFound", "AlreadyExists", "Conflict", "Invalid", "Expired" */
    char message[1024];
    json_t *causes; /* new array of {reason,message,field} or NULL; owner: ks_err_clear */
} ks_err;
void ks_err_clear(ks_err *e);

/* Write flags: KS_WRITE_STATUS_ONLY takes only .status from the object (the status subresource);
 * KS_WRITE_DRY_RUN does everything but the write (dryRun=All): *out gets the object as it would be
 * stored. */
#define KS_WRITE_STATUS_ONLY 1u
#define KS_WRITE_DRY_RUN 2u

/* Create: obj stolen. Fills metadata; on success *out (optional) gets a new reference to the stored
 * object. */
int ks_store_create(ks_store *s, const char *resource, const char *ns, json_t *obj, json_t **out,
                    ks_err *err);
/* Create with KS_WRITE_* flags (KS_WRITE_DRY_RUN). */
int ks_store_create_opts(ks_store *s, const char *resource, const char *ns, json_t *obj,
                         unsigned flags, json_t **out, ks_err *err);
/* Update (PUT): obj stolen; if obj carries metadata.resourceVersion it must match (else 409
 * Conflict). flags: KS_WRITE_*; without KS_WRITE_STATUS_ONLY the current .status is kept for the
 * kinds that have a status subresource. */
int ks_store_update(ks_store *s, const char *resource, const char *ns, const char *name,
                    json_t *obj, unsigned flags, json_t **out, ks_err *err);
/* Patch: apply fn(current deep copy, arg) under the lock and commit the result as an update. fn
 * returns 0 or fills err and returns <0. */
typedef int (*ks_mutate_fn)(json_t *obj, void *arg, ks_err *err);
int ks_store_mutate(ks_store *s, const char *resource, const char *ns, const char *name,
                    ks_mutate_fn fn, void *arg, unsigned flags, json_t **out, ks_err *err);

typedef struct ks_delete_opts {
    long long grace_seconds;      /* -1 = default */
    const char *propagation;      /* "Background" (default), "Foreground", "Orphan" or NULL */
    const char *precondition_uid; /* optional */
    const char *precondition_rv;  /* optional */
    int dry_run;                  /* dryRun=All: *out gets the result, nothing changes */
} ks_delete_opts;
/* Delete: *out gets the object as returned to the client (the object with deletionTimestamp if
 * graceful, or the final state). *gone is set to 1 when the object was removed at once. */
int ks_store_delete(ks_store *s, const char *resource, const char *ns, const char *name,
                    const ks_delete_opts *opt, json_t **out, int *gone, ks_err *err);

/* Filter callback for lists / watches. Return 1 to keep obj. */
typedef int (*ks_filter_fn)(const json_t *obj, void *arg);
/* List: new array of references to stored (immutable, do not modify) objects matching filter, in
 * key order, starting after start_after (continue key, may be NULL); at most limit (0 = all); *rv
 * gets the list resourceVersion; *next_key (optional, new malloc'd) the continue key when
 * truncated. */
json_t *ks_store_list_refs(ks_store *s, const char *resource, const char *ns, ks_filter_fn filter,
                           void *arg, const char *start_after, size_t limit, uint64_t *rv,
                           char **next_key);

/* Same selection as ks_store_list_refs, but each element is a JSON string holding the object's
 * compact serialization (kept at commit time), for fast list responses. */
json_t *ks_store_list_serialized(ks_store *s, const char *resource, const char *ns,
                                 ks_filter_fn filter, void *arg, const char *start_after,
                                 size_t limit, uint64_t *rv, char **next_key);

/* Watch history access. One event of the global history (all resources). */
typedef struct ks_event {
    uint64_t rv;
    const char *type;     /* "ADDED", "MODIFIED", "DELETED" (static strings) */
    const char *resource; /* static */
    json_t *obj;          /* new reference owned by the receiver of ks_store_events */
    json_t *prev;         /* MODIFIED: the object before the change (new reference or NULL) */
    json_t *ser;          /* JSON string with obj's compact serialization (new reference or NULL) */
} ks_event;
/* Copies events with rv > since for resource into out (up to max); returns the count, or -ETIME
 * (sets *expired_floor) if since is older than the history keeps. Blocks up to wait_ms for new
 * events when none are available (0 = no wait). *now_rv gets the store rv reached. */
int ks_store_events(ks_store *s, const char *resource, uint64_t since, ks_event *out, int max,
                    int wait_ms, uint64_t *now_rv, uint64_t *expired_floor);
/* Forced expiry (fault injection): every rv older than the current one is treated as compacted. */
void ks_store_expire_all(ks_store *s);
/* 1 if rv is older than the oldest event the history can replay. */
int ks_store_rv_expired(ks_store *s, uint64_t rv);
/* Wakes all blocked ks_store_events callers (shutdown). */
void ks_store_shutdown(ks_store *s);

/* Pod history as JSON (new): {"pods":[{namespace,name,uid,createdMs,phases:[{phase,timeMs}],
 * deletionRequestedMs,deletedMs}]} */
json_t *ks_store_pod_history(ks_store *s);

#ifdef __cplusplus
}
#endif
#endif
