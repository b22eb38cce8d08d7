/*
 * k8s_lifecycle_manager.h — what happens to executors whose pods end (Spark's
 * ExecutorPodsLifecycleManager). It subscribes to the snapshots store (the backend registers
 * cs_k8s_lifecycle_on_snapshot) and, in rounds every spark.kubernetes.executor.
 * eventProcessingInterval (k8s_event_batch.h), acts on every pod whose state is final (SUCCEEDED,
 * FAILED, DELETED: k8s_pod_states.h) and, after a full snapshot, on executors missing from it:
 * it tells the coarse backend the executor is gone (its tasks fail, its map outputs are lost),
 * counts failures against spark.executor.maxNumFailures (reaching it fails every job and makes
 * the driver exit 11; k8s_failures.h), and deletes the ended pod or, with
 * spark.kubernetes.executor.deleteOnTermination=false, labels it spark-exec-inactive=true.
 *
 * Threads: the subscriber is called from the watch and poller threads with the backend's lock
 * held; the rounds run on the lifecycle thread (cs_k8s_lifecycle_start), and on the sources'
 * threads once the backend stops, with the lock held, released around API calls and scheduler
 * notifications (entries may move meanwhile).
 */
#ifndef CSPARK_CLUSTER_K8S_LIFECYCLE_MANAGER_H
#define CSPARK_CLUSTER_K8S_LIFECYCLE_MANAGER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cluster/k8s/k8s_settings.h"
#include "cluster/k8s/k8s_snapshots_store.h"

struct k8s_backend;

/* Spark's message for a finished pod: the exit code of the executor container (or any
 * container's non-zero one with check_all_containers) explained, then the pod's reason and
 * message and every container's state, into why. Returns false while the pod has not finished;
 * *failed: it did not succeed with exit code 0. Pure. */
bool cs_k8s_pod_ended(bool check_all_containers, int id, const json_t *pod, char *why, size_t cap,
                      bool *failed);

/* Executor p is missing from full snapshot number snap taken at snapshot_ms: seen before, not
 * removed, not in that snapshot, and first seen more than spark.kubernetes.executor.
 * missingPodDetectDelta before it. Pure. */
bool cs_k8s_pod_missing(const k8s_settings *s, const k8s_exec_pod *p, unsigned snap,
                        int64_t snapshot_ms);

/* The store's subscriber (arg: the k8s_backend) queues each update for the lifecycle manager's
 * next round (k8s_event_batch.h): a round runs spark.kubernetes.executor.eventProcessingInterval
 * after the previous one on the lifecycle thread, or at once when the backend stops (or the
 * thread did not start). A round removes the executor of a pod in a final state
 * (explained, counted when FAILED, its ended pod deleted or labelled unless Kubernetes already
 * deletes it), and after a full snapshot (update->entry NULL) an executor seen before but absent
 * from it for longer than missingPodDetectDelta since it was first seen, with exit -1 (Spark: the
 * driver missed its deletion). Times are the snapshot's. Lock held; released around API calls. */
void cs_k8s_lifecycle_on_snapshot(void *backend, const k8s_snapshot_update *update);
/* The lifecycle thread, which runs the rounds. Start before the snapshot sources; stop after
 * setting the backend's stopping flag (joins it, then runs what waits). Lock not held. */
void cs_k8s_lifecycle_start(struct k8s_backend *b);
void cs_k8s_lifecycle_stop(struct k8s_backend *b);

#endif
