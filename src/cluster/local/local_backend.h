/*
 * local_backend.h — the `local[N]` cluster manager (Spark's LocalSchedulerBackend): N worker
 * threads in the driver process that run tasks with cs_task_run and report them to the
 * scheduler. Registered in cluster_manager.c as cs_local_manager; the scheduler owns the backend
 * once passed to cs_scheduler_new and stops it through its `stop` operation.
 *
 * Threads: revive_offers and cancel_all are called on the job thread; each worker thread takes
 * its tasks from the task scheduler's offers and runs one at a time and reports it
 * (cs_scheduler_task_started / task_done) from that thread; stop joins the workers.
 */
#ifndef CSPARK_CLUSTER_LOCAL_LOCAL_BACKEND_H
#define CSPARK_CLUSTER_LOCAL_LOCAL_BACKEND_H

#include "cluster/cluster_manager.h"
#include "exec/task.h"

/* env is copied (its strings must outlive the backend). */
sched_backend *cs_local_backend_new(int threads, const exec_env *env);

extern const cluster_manager cs_local_manager;

#endif
