/*
 * k8s_backend.h — the Kubernetes scheduler backend (Spark's KubernetesClusterSchedulerBackend):
 * the coarse-grained driver endpoint plus executor pods that it creates, watches and deletes
 * through the API server. Created by the context for k8s:// masters, both when the driver runs
 * in the submit process (client mode) and in the driver pod (cluster mode).
 *
 * Ownership: owned by the scheduler once passed to cs_scheduler_new (stopped through ops.stop).
 */
#ifndef CSPARK_CLUSTER_K8S_BACKEND_H
#define CSPARK_CLUSTER_K8S_BACKEND_H

#include "common/err.h"
#include "sched/scheduler.h"

struct cspark_context;

/* secret: the spark.authenticate secret (NULL = off); executors read it from a Secret. */
sched_backend *cs_k8s_backend_new(struct cspark_context *sc, const char *secret, cs_error *err);
/* After cs_scheduler_new: starts allocating executor pods. */
int cs_k8s_backend_start(sched_backend *b, cs_error *err);
/* Waits until ratio × target executors registered or timeout; returns how many did. */
int cs_k8s_backend_wait_registered(sched_backend *b, double ratio, int64_t timeout_ms);
/* Exit status the driver should end with: 11 after spark.executor.maxNumFailures, else 0. */
int cs_k8s_backend_exit_code(sched_backend *b);

#endif
