/*
 * barrier_task.h — the executor's side of a barrier task's BarrierTaskContext (Spark's
 * BarrierTaskContext and the barrier service PythonRunner opens for a barrier task): the task's
 * barrier epoch, its syncs through the process's exec_env.barrier_sync (the driver's coordinator:
 * in-process in local mode), and the loopback service PySpark's BarrierTaskContext connects to
 * from the Python worker.
 *
 * The service speaks PySpark's protocol (pyspark/taskcontext.py _load_from_socket, as Spark's
 * BasePythonRunner.barrierAndServe answers it): the worker connects to 127.0.0.1:port, sends the
 * secret (int32 length + UTF-8) and is answered "ok" (int32 length + UTF-8); then an int32
 * function (1: barrier(), 2: allGather) and, for allGather, its message (int32 length + UTF-8);
 * the answer is an int32 count and that many strings ("success" for barrier(), every task's
 * message in partition order for allGather); a failed sync is answered with the error's text as
 * one string, as Spark's (the Python side then fails). One connection per call, closed after it.
 *
 * Threads: the service runs one thread of its own, which serves one connection at a time and
 * blocks in the sync (bounded by the task's kill flag); cs_barrier_task_start / _free run on the
 * task's thread. Ownership: the task's runner owns the object (cs_barrier_task_free stops the
 * thread, closes the socket); env and t are borrowed for its life.
 */
#ifndef CSPARK_EXEC_BARRIER_TASK_H
#define CSPARK_EXEC_BARRIER_TASK_H

#include "common/err.h"
#include "exec/task.h"

typedef struct cs_barrier_task cs_barrier_task;

/* The service of barrier task t (t->barrier set): listening on a loopback port with a fresh
 * secret. NULL with err when the process has no coordinator (env->barrier_sync NULL) or the socket
 * cannot be opened. */
cs_barrier_task *cs_barrier_task_start(const exec_env *env, const task_desc *t, cs_error *err);
void cs_barrier_task_free(cs_barrier_task *b);

int cs_barrier_task_port(const cs_barrier_task *b);
const char *cs_barrier_task_secret(const cs_barrier_task *b); /* borrowed */
/* The tasks' addresses, "host:port,..." in partition order (BarrierTaskContext.getTaskInfos). */
const char *cs_barrier_task_addresses(const cs_barrier_task *b);

/* One sync (method 1: barrier, 2: allGather) at the task's epoch, which moves on when it succeeds:
 * as exec_env.barrier_sync. */
int cs_barrier_task_sync(cs_barrier_task *b, int method, const char *message, char ***msgs, int *n,
                         cs_error *err);

#endif /* CSPARK_EXEC_BARRIER_TASK_H */
