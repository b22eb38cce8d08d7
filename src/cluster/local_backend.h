/*
 * local_backend.h — the `local[N]` scheduler backend: N worker threads in the driver process
 * that run tasks with cs_task_run and report them to the scheduler (Spark's LocalSchedulerBackend).
 * Created by the context for local masters; the scheduler owns it once passed to
 * cs_scheduler_new and stops it through its `stop` operation.
 */
#ifndef CSPARK_CLUSTER_LOCAL_BACKEND_H
#define CSPARK_CLUSTER_LOCAL_BACKEND_H

#include "exec/task.h"
#include "sched/scheduler.h"

/* env is copied (its strings must outlive the backend). */
sched_backend *cs_local_backend_new(int threads, const exec_env *env);

#endif
