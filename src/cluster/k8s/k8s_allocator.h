/*
 * k8s_allocator.h — executor pod allocation (Spark's ExecutorPodsAllocator).
 *
 * The decision is a pure function: cs_k8s_allocator_round reads the settings, the target, the
 * executor pod table and the time it is given, and says what to do — in this order of priority,
 * one kind per round:
 *  1. give up on requests neither seen in any snapshot nor registered after
 *     spark.kubernetes.allocation.executor.timeout (Spark's newlyCreatedExecutors): delete, ask
 *     again. A pod once seen is never given up, however long it stays Pending — waiting for a
 *     node or for its claim, as Spark leaves it (recreating it would churn forever);
 *  2. delete the pods of executors dynamic allocation removed, deleteGracePeriod after removal;
 *  3. when the pods outnumber the target, delete excess requests not seen yet, then Pending pods
 *     whose executors did not register, both only when older than
 *     spark.dynamicAllocation.executorIdleTimeout (Running pods never);
 *  4. when no request is unseen (and unregistered) and fewer than the target are alive, create
 *     min(target - alive, batch.size, maxPendingPods - (pending + unseen)) pods — unless the
 *     caller says new claims must wait for a snapshot (k8s_claims.h's wait-to-reuse rule).
 * After a round of kind 1-3 the allocator runs the next round at once; after 4 it runs again at
 * once too (the new batch is now unseen, so that round waits for a snapshot).
 * Pod creation is paced by a token bucket (cspark.kubernetes.allocation.maxCreateRate, burst one
 * second's worth; common/token_bucket.h), itself a pure function of the time it is given.
 *
 * The allocator thread (cs_k8s_allocator_start) runs a round every batch.delay and whenever a
 * snapshot arrives (the backend's condition variable), and carries the round out with the lock
 * released around API calls. Unit tests: tests/unit/k8s/test_k8s_allocator.c.
 *
 * Ownership: a k8s_alloc_round's id arrays are owned by it (cs_k8s_alloc_round_free).
 */
#ifndef CSPARK_CLUSTER_K8S_ALLOCATOR_H
#define CSPARK_CLUSTER_K8S_ALLOCATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster/k8s/k8s_settings.h"
#include "cluster/k8s/k8s_snapshots_store.h"
#include "common/err.h"

typedef enum {
    K8S_ALLOC_WAIT,           /* nothing to do until the next snapshot or batch.delay */
    K8S_ALLOC_GIVE_UP,        /* ids: never seen nor registered for too long: delete, ask again */
    K8S_ALLOC_DELETE_REMOVED, /* ids: removed by dynamic allocation, grace period over */
    K8S_ALLOC_DELETE_EXCESS,  /* ids: more pods than the target */
    K8S_ALLOC_CREATE          /* create: that many new pods */
} k8s_alloc_kind;

typedef struct k8s_alloc_round {
    k8s_alloc_kind kind;
    int *ids; /* executor ids, n of them */
    int n;
    int create;
} k8s_alloc_round;

/* One round at now_ms over the table. failed: the application failed or is stopping (no more
 * creations).
 * claims_wait: no snapshot came since the last round and no new claim may be created yet
 * (Spark's waitToReusePersistentVolumeClaim): no creation either. */
void cs_k8s_allocator_round(const k8s_settings *s, int target, bool failed, bool claims_wait,
                            const k8s_pod_table *pods, int64_t now_ms, k8s_alloc_round *out);
void cs_k8s_alloc_round_free(k8s_alloc_round *r);
/* Executor p was removed by dynamic allocation (or rolled) at now_ms: a round deletes its pod
 * spark.kubernetes.dynamicAllocation.deleteGracePeriod later if it is still there. Pure. */
void cs_k8s_allocator_removing(const k8s_settings *s, k8s_exec_pod *p, int64_t now_ms);

struct k8s_backend;
/* Starts the allocator thread. */
int cs_k8s_allocator_start(struct k8s_backend *b);
/* Stops it for good (the application stops: the first step of the context's stop, then again
 * from the backend's stop, a no-op): no round runs and no pod is created once it returns — a
 * creation under way ends first. Logs event=allocator_stopped when the thread ran. Context's
 * thread, backend's lock not held. */
void cs_k8s_allocator_stop(struct k8s_backend *b);

#endif
