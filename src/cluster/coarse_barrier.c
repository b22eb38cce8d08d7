/*
 * coarse_barrier.c — the driver's side of executors' barrier syncs (Spark's BarrierCoordinator
 * RPC endpoint): a BarrierSync from an executor (exec/barrier_rpc.h) goes to the scheduler's
 * coordinator (sched/barrier_sync.h) with the connection and request id as its requester, and is
 * answered with a BarrierSyncReply when the coordinator answers it: every task of the stage
 * attempt asked (their messages in partition order), or the sync failed (Spark's text).
 *
 * Threads: cs_coarse_on_barrier_sync runs on the RPC loop thread; the reply may be sent from any
 * thread that makes the coordinator answer (the loop, the housekeeper's timeout tick, a stage
 * ending on the job thread), which cs_rpc_reply allows. Ownership: each pending request holds a
 * reference to its connection until answered.
 */
#include <stdlib.h>

#include "cluster/coarse_backend_internal.h"
#include "common/log.h"
#include "plan/pb_helpers.h"
#include "sched/barrier_coordinator.h"
#include "sched/scheduler.h"

typedef struct pending_sync {
    rpc_conn *c;
    uint64_t request_id;
} pending_sync;

static void send_reply(void *arg, void *requester, const char *const *messages, int n,
                       const char *error)
{
    (void)arg;
    pending_sync *p = requester;
    Cspark__BarrierSyncReply r = CSPARK__BARRIER_SYNC_REPLY__INIT;
    if (error) {
        r.failed = true;
        r.error = (char *)error;
    } else {
        r.n_messages = (size_t)n;
        r.messages = (char **)messages;
    }
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BARRIER_SYNC_REPLY;
    env.barrier_sync_reply = &r;
    cs_rpc_reply(p->c, p->request_id, &env); /* a closed connection: its task is lost anyway */
    cs_rpc_conn_unref(p->c);
    free(p);
}

void cs_coarse_on_barrier_sync(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                               const Cspark__BarrierSync *bs)
{
    pending_sync *p = cs_xcalloc(1, sizeof *p);
    p->c = c;
    p->request_id = request_id;
    cs_rpc_conn_ref(c);
    cs_barrier_request r = {.stage_id = bs->stage_id,
                            .stage_attempt = bs->stage_attempt,
                            .num_tasks = bs->num_tasks,
                            .partition = bs->partition,
                            .task_attempt_id = bs->task_id,
                            .epoch = bs->epoch,
                            .method = bs->method == CS_BARRIER_ALL_GATHER ? CS_BARRIER_ALL_GATHER
                                                                          : CS_BARRIER_BARRIER,
                            .message = cs_pb_str(bs->message),
                            .requester = p};
    CS_INFO("driver", "event=barrier_sync peer=%s stage=%d.%d partition=%d epoch=%d method=%d",
            cs_log_value(cs_rpc_conn_peer(c)), bs->stage_id, bs->stage_attempt, bs->partition,
            bs->epoch, bs->method);
    cs_scheduler_barrier_post(b->base.sched, &r, send_reply, NULL);
}
