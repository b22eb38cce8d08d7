/*
 * local_cluster.h — the `local-cluster[N,C,M]` scheduler backend: N executor processes on this
 * host, managed by the driver (see local_cluster.c). Created by the context; owned by the
 * scheduler once passed to cs_scheduler_new.
 */
#ifndef CSPARK_CLUSTER_LOCAL_CLUSTER_H
#define CSPARK_CLUSTER_LOCAL_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "sched/scheduler.h"

struct cspark_context;

/* Starts the driver endpoint and the N executor processes (none with dynamic allocation: its
 * manager asks for them). secret: spark.authenticate secret (NULL = off), copied. */
sched_backend *cs_local_cluster_backend_new(struct cspark_context *sc, const char *secret,
                                            bool dynamic, cs_error *err);
/* After cs_scheduler_new: lets the driver endpoint report to the scheduler. */
void cs_local_cluster_attach(sched_backend *b);
/* Waits until the executors wanted (N, or dynamic allocation's target) registered or timeout;
 * returns how many did. */
int cs_local_cluster_wait_registered(sched_backend *b, int64_t timeout_ms);
/* Where executor exec_id writes its stdout or stderr ("stdout"/"stderr"):
 * <local_dir>/executor-logs/<id>/<type>, kept until the application stops (also after the
 * executor crashed). 0, or CS_EINVAL for an id or type that cannot name one. */
int cs_local_cluster_log_path(const char *local_dir, const char *exec_id, const char *type,
                              char *buf, size_t cap);

#endif
