/*
 * k8s_snapshots_store.h — the driver's view of its executor pods (Spark's
 * ExecutorPodsSnapshotsStore): one entry per executor requested, with what the allocator asked for
 * and the state (k8s_pod_states.h) the last snapshot gave its pod. The snapshot sources
 * (k8s_watch_source.c, k8s_polling_source.c) merge single pods and full snapshots into it; after
 * each merge the store hands the update to its subscribers (as Spark's addSubscriber: the
 * lifecycle manager is one, registered by the backend; the store knows none of them); the
 * allocator reads the table each round.
 *
 * The table (k8s_pod_table) and the merge are plain data with explicit times: nothing here reads
 * a clock, so the merge, the allocator's round and the removed-executors cache are unit-tested
 * without threads. In the driver the merge functions are called with the backend's lock held,
 * from the watch thread (events and the watch's LIST) or the poller thread (full LIST), and so
 * are the subscribers; a subscriber may release the lock for the duration of its call (entries
 * may then move: the store re-finds them after every call).
 *
 * Ownership: the table owns its entries; pointers returned by cs_k8s_pods_find/add are valid until
 * the next add or expire on the table (the array may move). json pods are borrowed for the call.
 */
#ifndef CSPARK_CLUSTER_K8S_SNAPSHOTS_STORE_H
#define CSPARK_CLUSTER_K8S_SNAPSHOTS_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cluster/k8s/k8s_pod_states.h"

typedef struct k8s_exec_pod {
    int id;
    char name[256];
    int64_t created_ms;  /* requested */
    int64_t seen_ms;     /* first seen in a snapshot */
    int64_t done_ms;     /* removed (start of its time in the removed-executors cache) */
    k8s_pod_state state; /* its pod in the last snapshot; K8S_POD_UNSEEN before the first */
    bool registered;     /* its executor registered with the driver (Spark: scheduler-known) */
    bool done;           /* removed: failed, succeeded, deleted, missing or timed out */
    bool unschedulable_warned; /* Pending with PodScheduled=False was reported (once) */
    bool released;             /* the pod no longer holds its claims: gone, or finished */
    unsigned snapshot;         /* the full snapshot that last listed it */
    int64_t delete_at_ms;      /* removed by dynamic allocation: delete the pod then, 0 = no */
    char **claims; /* the PersistentVolumeClaims its pod mounts (owned), nclaims of them */
    int nclaims;
} k8s_exec_pod;

/* One merge, as handed to the subscribers. */
typedef struct k8s_snapshot_update {
    k8s_exec_pod *entry; /* the executor whose pod a snapshot named; NULL: a full snapshot ended */
    const json_t *pod;   /* that pod as the snapshot gave it (NULL with entry NULL) */
    k8s_pod_status status; /* what it says (k8s_pod_states.h) */
    unsigned snapshot;     /* the number of the full snapshot just merged (entry NULL) */
    int64_t at_ms;         /* when the snapshot was taken (monotonic ms, given by the source) */
    const char *source;    /* "watch", "watch list" or "full poll", for messages */
} k8s_snapshot_update;

/* Called after each merge with the update (borrowed for the call); see the header for threads. */
typedef void (*k8s_snapshot_subscriber)(void *arg, const k8s_snapshot_update *update);

typedef struct k8s_pod_table {
    k8s_exec_pod *pods; /* in request order */
    int npods, cap;
    int *pos_of; /* executor id -> 1 + index in pods, 0 when not kept (ids are small and dense) */
    int cap_pos;
    unsigned snapshots;        /* full snapshots taken so far */
    unsigned updates;          /* pods and full snapshots merged so far (the allocator sees news) */
    bool check_all_containers; /* spark.kubernetes.executor.checkAllContainers, for the states */
    struct {
        k8s_snapshot_subscriber fn;
        void *arg;
    } * subscribers;
    int nsubscribers;
} k8s_pod_table;

/* The entry of executor id, NULL when not kept (never requested, or forgotten). */
k8s_exec_pod *cs_k8s_pods_find(k8s_pod_table *t, int id);
/* A new request for executor id with pod name, at now_ms. */
k8s_exec_pod *cs_k8s_pods_add(k8s_pod_table *t, int id, const char *name, int64_t now_ms);
/* The removed-executors cache: forgets entries removed more than cache_ms before now_ms (Spark's
 * deletedExecutorsCacheTimeout); until then a removed executor is never removed again. */
void cs_k8s_pods_expire(k8s_pod_table *t, int64_t now_ms, int64_t cache_ms);
/* Marks p removed at now_ms: the allocator and the lifecycle manager ignore it from then on. */
void cs_k8s_pod_mark_done(k8s_exec_pod *p, int64_t now_ms);
/* Records the claims pod (the executor pod as it is created) mounts. */
void cs_k8s_pod_set_claims(k8s_exec_pod *p, const json_t *pod);
void cs_k8s_pods_free(k8s_pod_table *t);

/* The executor id of a pod (its spark-exec-id label; a StatefulSet's pod without one: its
 * apps.kubernetes.io/pod-index label + 1), -1 when absent or not a number. */
int cs_k8s_pod_exec_id(const json_t *pod);
/* True for a pod labelled spark-exec-inactive=true: every snapshot ignores it. */
bool cs_k8s_pod_inactive(const json_t *pod);

/* Registers fn(arg, update) to receive every merge from now on, in registration order. */
void cs_k8s_store_add_subscriber(k8s_pod_table *t, k8s_snapshot_subscriber fn, void *arg);

/* One pod of a snapshot (watch event type ADDED/MODIFIED/DELETED, or MODIFIED for a list item),
 * taken at at_ms: its state computed (cs_k8s_pod_status_of), first seen at at_ms, Pending and
 * unschedulable ones reported once at WARN, whether it still holds its claims noted (also for a
 * removed executor, whose pod may outlive it); then, unless the executor was removed, the
 * subscribers get the update. Pods of other executors, and inactive ones, are ignored. */
void cs_k8s_store_update_pod(k8s_pod_table *t, const char *type, const json_t *pod, int64_t at_ms,
                             const char *source);
/* A full snapshot (the watch's LIST, or the poller's) taken at snapshot_ms: every pod merged as
 * above, the pods seen before snapshot_ms and absent from it hold their claims no more, then the
 * subscribers get the end of the snapshot (entry NULL, its number: the lifecycle manager looks
 * for executors missing from it). source names it in messages. */
void cs_k8s_store_replace_snapshot(k8s_pod_table *t, const json_t *items, int64_t snapshot_ms,
                                   const char *source);

#endif
