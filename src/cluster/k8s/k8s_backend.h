/*
 * k8s_backend.h — the Kubernetes scheduler backend (Spark's KubernetesClusterSchedulerBackend):
 * the coarse-grained driver endpoint plus executor pods that it creates, watches and deletes
 * through the API server, both when the driver runs in the submit process (client mode) and in
 * the driver pod (cluster mode). Driven through the cluster manager registry
 * (k8s_cluster_manager.c, Spark's KubernetesClusterManager).
 *
 * Ownership: owned by the scheduler once passed to cs_scheduler_new (stopped through ops.stop).
 * Threads: these functions run on the context's thread; the backend's own threads (allocator,
 * watch, poller) are described in k8s_backend_internal.h.
 */
#ifndef CSPARK_CLUSTER_K8S_BACKEND_H
#define CSPARK_CLUSTER_K8S_BACKEND_H

#include "cluster/cluster_manager.h"
#include "common/err.h"
#include "sched/scheduler.h"

/* secret: the spark.authenticate secret (NULL = off); executors read it from a Secret. */
sched_backend *cs_k8s_backend_new(const cluster_env *env, const char *secret, cs_error *err);
/* After cs_scheduler_new: starts the snapshot sources and allocating executor pods. */
int cs_k8s_backend_start(sched_backend *b, cs_error *err);
/* Waits until ratio × target executors registered or timeout; returns how many did. */
int cs_k8s_backend_wait_registered(sched_backend *b, double ratio, int64_t timeout_ms);
/* The application's configuration the backend was created with (borrowed). */
const cs_conf *cs_k8s_backend_conf(sched_backend *b);
/* The application stops (cluster_manager.stopping): the allocator stops for good, so no executor
 * pod is created or replaced from now on (the stop removes executors before the backend stops). */
void cs_k8s_backend_app_stopping(sched_backend *b);
/* Exit status the driver should end with: 11 after spark.executor.maxNumFailures, else 0. */
int cs_k8s_backend_exit_code(sched_backend *b);

extern const cluster_manager cs_k8s_manager;

#endif
