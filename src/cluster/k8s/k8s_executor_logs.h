/*
 * k8s_executor_logs.h — executors' logs for the driver's web UI on Kubernetes (see
 * k8s_executor_logs.c). Called by the lifecycle manager (keep, before a failed executor's pod is
 * deleted) and through the cluster manager table by the UI's threads (fetch).
 */
#ifndef CSPARK_CLUSTER_K8S_EXECUTOR_LOGS_H
#define CSPARK_CLUSTER_K8S_EXECUTOR_LOGS_H

#include "cluster/k8s/k8s_backend_internal.h"
#include "common/strutil.h"

/* Keeps the end of executor id's container log (pod pod) in the application's local dir, for
 * the UI once the pod is gone. Best effort: a failure is logged. Backend lock not held. */
void cs_k8s_keep_executor_log(k8s_backend *b, int id, const char *pod);

/* cluster_manager.fetch_executor_log for k8s://: the kept copy, else the live container log. */
int cs_k8s_fetch_executor_log(sched_backend *base, const char *exec_id, size_t max, cs_sbuf *out,
                              cs_error *err);

#endif
