/*
 * k8s_event_batch.h — the snapshot updates waiting for the lifecycle manager's next round
 * (Spark's ExecutorPodsSnapshotsStoreImpl, which hands a subscriber the snapshots gathered since
 * its last round every spark.kubernetes.executor.eventProcessingInterval). The store's merges
 * are queued here as they come (each pod update copied, its pod JSON referenced); a round is due
 * once something waits and the interval has passed since the previous round; it takes the queue
 * as it is, in arrival order. Of the full snapshots queued only the latest is kept: the pod table
 * holds the latest listing only, and an earlier one is contained in it.
 *
 * Pure: every time is given by the caller, nothing reads a clock. Called by
 * k8s_lifecycle_manager.c with the backend's lock held; unit tests:
 * tests/unit/k8s/test_k8s_event_batch.c.
 *
 * Ownership: a k8s_event_batch is a caller-owned value; its updates (and their pod references)
 * are owned by it and released with cs_k8s_event_batch_free. cs_k8s_event_batch_take moves them
 * to the caller's batch.
 */
#ifndef CSPARK_CLUSTER_K8S_EVENT_BATCH_H
#define CSPARK_CLUSTER_K8S_EVENT_BATCH_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "cluster/k8s/k8s_pod_states.h"
#include "cluster/k8s/k8s_snapshots_store.h"

typedef struct k8s_queued_pod {
    int id;                /* the executor the pod belongs to */
    json_t *pod;           /* a reference to the pod as the snapshot gave it (owned) */
    k8s_pod_status status; /* what it said */
    int64_t at_ms;         /* when the snapshot was taken */
    const char *source;    /* static text: "watch", "watch list", "full poll" */
} k8s_queued_pod;

typedef struct k8s_event_batch {
    int64_t interval_ms;   /* spark.kubernetes.executor.eventProcessingInterval */
    int64_t last_round_ms; /* when the previous round began; 0: none yet */
    k8s_queued_pod *pods;
    int npods, cap;
    bool full;              /* a full snapshot ended since the previous round: */
    unsigned full_snapshot; /* its number, */
    int64_t full_at_ms;     /* its time */
    const char *full_source;
} k8s_event_batch;

/* Queues update u (borrowed for the call: the pod gets a reference of its own). */
void cs_k8s_event_batch_add(k8s_event_batch *q, const k8s_snapshot_update *u);
/* A round is due at now_ms: something waits and interval_ms passed since the previous round.
 * When not due, *wait_ms says how long until it is (-1: nothing waits). */
bool cs_k8s_event_batch_due(const k8s_event_batch *q, int64_t now_ms, int64_t *wait_ms);
/* Moves everything queued to *out (emptied first) and records now_ms as the round's start. */
void cs_k8s_event_batch_take(k8s_event_batch *q, int64_t now_ms, k8s_event_batch *out);
void cs_k8s_event_batch_free(k8s_event_batch *q);

#endif
