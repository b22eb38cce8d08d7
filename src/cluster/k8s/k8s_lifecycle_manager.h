/*
 * k8s_lifecycle_manager.h — what happens to executors whose pods end (Spark's
 * ExecutorPodsLifecycleManager). The snapshots store calls it for every pod that was deleted or
 * finished, and after every full snapshot; it tells the coarse backend the executor is gone (its
 * tasks fail, its map outputs are lost), counts failures against spark.executor.maxNumFailures
 * (reaching it fails every job and makes the driver exit 11), and deletes the ended pod or, with
 * spark.kubernetes.executor.deleteOnTermination=false, labels it spark-exec-inactive=true.
 *
 * Threads: called from the watch and poller threads with the backend's lock held; the lock is
 * released around API calls and scheduler notifications (entries may move meanwhile).
 */
#ifndef CSPARK_CLUSTER_K8S_LIFECYCLE_MANAGER_H
#define CSPARK_CLUSTER_K8S_LIFECYCLE_MANAGER_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "cluster/k8s/k8s_snapshots_store.h"

struct k8s_backend;

/* Spark's message for a finished pod: the exit code of the executor container (or any
 * container's non-zero one with check_all_containers) explained, then the pod's reason and
 * message and every container's state, into why. Returns false while the pod has not finished;
 * *failed: it did not succeed with exit code 0. Pure. */
bool cs_k8s_pod_ended(bool check_all_containers, int id, const json_t *pod, char *why, size_t cap,
                      bool *failed);

/* Executor p is gone (why explains it; failed: counts against maxNumFailures). finished_pod: the
 * pod still exists and has ended: delete it, or label it inactive. Lock held. */
void cs_k8s_lifecycle_executor_gone(struct k8s_backend *b, k8s_exec_pod *p, const char *why,
                                    bool failed, bool finished_pod);

/* After full snapshot number snap taken at snapshot_ms: an executor seen before but absent from
 * it, for longer than missingPodDetectDelta since it was first seen, is removed with exit -1
 * (Spark: the driver missed its deletion). Lock held. */
void cs_k8s_lifecycle_missing(struct k8s_backend *b, unsigned snap, int64_t snapshot_ms,
                              const char *source);

#endif
