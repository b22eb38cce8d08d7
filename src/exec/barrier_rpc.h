/*
 * barrier_rpc.h — an executor's barrier syncs over RPC: a barrier task's barrier() / allGather
 * goes to the driver as BarrierSync (proto/cspark.proto), whose BarrierCoordinator answers with a
 * BarrierSyncReply once every task of the stage attempt asked (cluster/coarse_barrier.c serves it).
 *
 * Threads: called on a barrier task's service thread (exec/barrier_task.h); the reply arrives on
 * the RPC loop thread. Ownership: the connection is borrowed; the messages returned are the
 * caller's.
 */
#ifndef CSPARK_EXEC_BARRIER_RPC_H
#define CSPARK_EXEC_BARRIER_RPC_H

#include "common/err.h"
#include "plan/task.h"
#include "rpc/endpoint.h"

/* As exec_env.barrier_sync, asking the driver at the other end of `driver`: waits for the reply,
 * checking t's kill flag every 100 ms (CS_ECANCELLED); CS_EIO when the connection closes. */
int cs_barrier_rpc_sync(rpc_conn *driver, const task_desc *t, int epoch, int method,
                        const char *message, char ***msgs, int *n, cs_error *err);

#endif /* CSPARK_EXEC_BARRIER_RPC_H */
