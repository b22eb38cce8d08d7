/*
 * k8s_snapshots_store.h — the driver's view of its executor pods (Spark's
 * ExecutorPodsSnapshotsStore): one entry per executor requested, with what the allocator asked for
 * and what the last snapshots said about its pod. The snapshot sources (k8s_watch_source.c,
 * k8s_polling_source.c) merge single pods and full snapshots into it; the lifecycle manager acts on
 * pods that ended or went missing; the allocator reads it each round.
 *
 * The table (k8s_pod_table) is plain data with explicit times, so the allocator's round and the
 * removed-executors cache are unit-tested without threads or clocks. The merge functions take
 * the backend (k8s_backend_internal.h) and are called with its lock held, from the watch thread
 * (events and the watch's LIST) or the poller thread (full LIST).
 *
 * Ownership: the table owns its entries; pointers returned by cs_k8s_pods_find/add are valid until
 * the next add or expire on the table (the array may move). json pods are borrowed for the call.
 */
#ifndef CSPARK_CLUSTER_K8S_SNAPSHOTS_STORE_H
#define CSPARK_CLUSTER_K8S_SNAPSHOTS_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

typedef struct k8s_exec_pod {
    int id;
    char name[256];
    int64_t created_ms; /* requested */
    int64_t seen_ms;    /* first seen in a snapshot */
    int64_t done_ms;    /* removed (start of its time in the removed-executors cache) */
    bool seen;          /* appeared in a snapshot */
    bool registered;    /* its executor registered with the driver (Spark: scheduler-known) */
    bool done;          /* removed: failed, succeeded, deleted, missing or timed out */
    bool pending;       /* last seen in phase Pending */
    bool unschedulable; /* Pending with PodScheduled=False */
    bool unsched_reported;
    bool released;        /* the pod no longer holds its claims: gone, or finished */
    unsigned snapshot;    /* the full snapshot that last listed it */
    int64_t delete_at_ms; /* removed by dynamic allocation: delete the pod then, 0 = no */
    char **claims;        /* the PersistentVolumeClaims its pod mounts (owned), nclaims of them */
    int nclaims;
} k8s_exec_pod;

typedef struct k8s_pod_table {
    k8s_exec_pod *pods; /* in request order */
    int npods, cap;
    int *pos_of; /* executor id -> 1 + index in pods, 0 when not kept (ids are small and dense) */
    int cap_pos;
    unsigned snapshots; /* full snapshots taken so far */
    unsigned updates;   /* pods and full snapshots merged so far (the allocator sees news) */
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

/* The executor id of a pod (its spark-exec-id label), -1 when absent or not a number. */
int cs_k8s_pod_exec_id(const json_t *pod);
/* True for a pod labelled spark-exec-inactive=true: every snapshot ignores it. */
bool cs_k8s_pod_inactive(const json_t *pod);

struct k8s_backend;
/* One pod of a snapshot (watch event type ADDED/MODIFIED/DELETED, or MODIFIED for a list item):
 * marks it seen, records Pending/unschedulable, notes when it stops holding its claims (deleted,
 * or finished), and hands a deleted or ended pod to the lifecycle manager. Lock held (released
 * around the lifecycle manager's API calls). */
void cs_k8s_store_update_pod(struct k8s_backend *b, const char *type, const json_t *pod);
/* A full snapshot (the watch's LIST, or the poller's) taken at snapshot_ms: every pod merged, the
 * pods seen before snapshot_ms and absent from it hold their claims no more, then the lifecycle
 * manager looks for executors missing from it. source names it in messages. Lock held. */
void cs_k8s_store_replace_snapshot(struct k8s_backend *b, const json_t *items, int64_t snapshot_ms,
                                   const char *source);

#endif
