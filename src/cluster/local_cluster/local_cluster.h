/*
 * local_cluster.h — the `local-cluster[N,C,M]` cluster manager: N executor processes on this
 * host, managed by the driver (see local_cluster.c). Registered in cluster_manager.c as
 * cs_local_cluster_manager; the backend is owned by the scheduler once passed to
 * cs_scheduler_new.
 */
#ifndef CSPARK_CLUSTER_LOCAL_CLUSTER_LOCAL_CLUSTER_H
#define CSPARK_CLUSTER_LOCAL_CLUSTER_LOCAL_CLUSTER_H

#include "cluster/cluster_manager.h"

extern const cluster_manager cs_local_cluster_manager;

#endif
