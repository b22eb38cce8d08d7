/*
 * local_cluster.h — the `local-cluster[N,C,M]` cluster manager: N executor processes on this
 * host, managed by the driver (see local_cluster.c). Registered in cluster_manager.c as
 * cs_local_cluster_manager; the backend is owned by the scheduler once passed to
 * cs_scheduler_new.
 *
 * Threads: the registry calls it on the context's thread; a monitor thread polls the executor
 * processes (waitpid) and reports exits to the coarse backend, whose own threads are described in
 * coarse_backend.h; request_total and remove_executors come from the allocation manager's thread.
 */
#ifndef CSPARK_CLUSTER_LOCAL_CLUSTER_LOCAL_CLUSTER_H
#define CSPARK_CLUSTER_LOCAL_CLUSTER_LOCAL_CLUSTER_H

#include "cluster/cluster_manager.h"

extern const cluster_manager cs_local_cluster_manager;

#endif
