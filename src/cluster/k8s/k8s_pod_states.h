/*
 * k8s_pod_states.h — the state of a pod as one snapshot shows it (Spark's ExecutorPodStates and
 * ExecutorPodsSnapshot.toState): the one place where a pod's phase, deletion timestamp and
 * container statuses are read to decide what the pod is. The snapshots store keeps the state of
 * each executor pod, the lifecycle manager acts on the final ones, and cspark-submit's watcher
 * follows the driver pod with the same rules.
 *
 * The states of one pod, one per snapshot that names it (the store starts every requested
 * executor at UNSEEN; cs_k8s_pod_status_of computes each next state from the pod alone):
 *
 *     UNSEEN ──► PENDING ──► RUNNING ──► TERMINATING
 *        │          │           │             │
 *        └──────────┴─────┬─────┴─────────────┘
 *                         ▼
 *               SUCCEEDED / FAILED ──► DELETED
 *
 *   PENDING      phase Pending (no deletion timestamp).
 *   RUNNING      phase Running, the Spark container not terminated.
 *   TERMINATING  phase "Terminating", or Running with a deletion timestamp: it still runs.
 *   SUCCEEDED    phase Succeeded and the Spark container exited 0.
 *   FAILED       phase Failed; and, when a Spark container is named: Succeeded without its
 *                zero exit, or Running with it terminated non-zero (any container, with
 *                checkAllContainers), or terminated at all with checkAllContainers.
 *   DELETED      a DELETED event, or a deletion timestamp on a pod not Running (from any state).
 *   UNKNOWN: no phase, or one Kubernetes does not define; it may go to any state.
 *   SUCCEEDED, FAILED and DELETED are final (cs_k8s_pod_state_final): the lifecycle manager
 *   removes the executor once its pod reaches one; a later snapshot cannot bring it back.
 *
 * Pure functions over borrowed JSON; thread-safe.
 */
#ifndef CSPARK_CLUSTER_K8S_POD_STATES_H
#define CSPARK_CLUSTER_K8S_POD_STATES_H

#include <stdbool.h>

#include <jansson.h>

typedef enum k8s_pod_state {
    K8S_POD_UNSEEN,      /* requested, in no snapshot yet (cspark: Spark keeps these apart) */
    K8S_POD_PENDING,     /* PodPending */
    K8S_POD_RUNNING,     /* PodRunning */
    K8S_POD_SUCCEEDED,   /* PodSucceeded */
    K8S_POD_FAILED,      /* PodFailed */
    K8S_POD_DELETED,     /* PodDeleted */
    K8S_POD_TERMINATING, /* PodTerminating: being deleted while it still runs */
    K8S_POD_UNKNOWN,     /* PodUnknown */
} k8s_pod_state;

/* What one snapshot says about one pod. */
typedef struct k8s_pod_status {
    k8s_pod_state state;
    int exit_code;        /* the deciding container's exit code; -1 when none terminated */
    bool containers_done; /* gone, or phase Succeeded/Failed: it holds no volume any more */
    bool being_deleted;   /* metadata.deletionTimestamp is set: Kubernetes removes it */
} k8s_pod_status;

/* The status of pod as a snapshot gives it. deleted_event: the watch said DELETED. container:
 * the Spark container whose termination decides a Running pod (NULL: the phase alone decides);
 * check_all_containers (spark.kubernetes.executor.checkAllContainers): any container's non-zero
 * exit fails it too. A Succeeded pod whose Spark container gave no exit code counts as FAILED. */
k8s_pod_status cs_k8s_pod_status_of(const json_t *pod, bool deleted_event, const char *container,
                                    bool check_all_containers);

/* SUCCEEDED, FAILED or DELETED: the executor behind it is gone. */
bool cs_k8s_pod_state_final(k8s_pod_state s);

/* Spark's name of the state ("PodRunning", ...; "Unseen" for K8S_POD_UNSEEN). Static. */
const char *cs_k8s_pod_state_name(k8s_pod_state s);

#endif
