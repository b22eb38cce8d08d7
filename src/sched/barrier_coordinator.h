/*
 * barrier_coordinator.h — Spark's BarrierCoordinator: the driver's side of barrier execution mode
 * (BarrierTaskContext.barrier() and allGather(message)). Every task of a barrier stage attempt
 * sends a request to sync (Spark's RequestToSync: the stage attempt, its task count, its
 * partition, the barrier epoch it is at, the method and its message); the coordinator answers
 * none of them until every task of the attempt has asked, then answers all of them with every
 * task's message in partition order, and the attempt's epoch moves on.
 *
 * The state of one stage attempt (Spark's ContextBarrierState), with the function behind each
 * transition:
 *
 *                   cs_barrier_coord_request (epoch == the attempt's epoch)
 *                   the first request starts the timer (spark.barrier.sync.timeout)
 *        IDLE ----------------------------------------------------------> COLLECTING
 *         ^  ^                                                             |  |  |
 *         |  |  the last of num_tasks requests: every requester answered   |  |  |
 *         |  +---- with the messages, epoch + 1, timer stopped ------------+  |  |
 *         |                                                                   |  |
 *         |  a second method in the same sync ("Different barrier sync        |  |
 *         +---- types found ..."): every requester fails, state cleared ------+  |
 *                                                                                |
 *   (dropped) <--- cs_barrier_coord_tick past the timer: every requester fails --+
 *                  ("The coordinator didn't get all barrier sync requests ..."), the attempt's
 *                  state is dropped (Spark's cleanupBarrierStage)
 *
 * A request whose epoch is not the attempt's fails at once ("... has already finished. Maybe the
 * caller has failed, or the Request is out of sync."), as does one whose task count differs from
 * the attempt's. cs_barrier_coord_stage_done drops an attempt's state when the stage attempt ends
 * (Spark's onStageCompleted); its requesters still waiting are failed. cs_barrier_coord_cancel
 * takes back one requester (its task was killed; Spark's aborted RPC).
 *
 * Pure over explicit times (now_ms is passed in, no clock is read, no thread is started) and not
 * thread-safe: the caller serializes calls (barrier_sync.h does, with a lock). Replies go through
 * the reply function given at creation, called from within request / tick / stage_done; the
 * messages it gets are borrowed for the call. Ownership: the coordinator copies messages; the
 * requester pointers are the caller's, handed back in replies.
 */
#ifndef CSPARK_SCHED_BARRIER_COORDINATOR_H
#define CSPARK_SCHED_BARRIER_COORDINATOR_H

#include <stdbool.h>
#include <stdint.h>

/* Spark's RequestMethod (the values PySpark's BarrierTaskContext sends: BARRIER_FUNCTION = 1,
 * ALL_GATHER_FUNCTION = 2). */
typedef enum { CS_BARRIER_BARRIER = 1, CS_BARRIER_ALL_GATHER = 2 } cs_barrier_method;

/* Spark's RequestToSync. message NULL: "" (barrier()). */
typedef struct cs_barrier_request {
    int stage_id, stage_attempt;
    int num_tasks;
    int partition;
    int64_t task_attempt_id;
    int epoch; /* the task's barrier epoch: how many syncs it finished */
    cs_barrier_method method;
    const char *message;
    void *requester; /* the caller's: handed back in its reply */
} cs_barrier_request;

/* One requester's answer: messages[0..n) (n = the attempt's task count, in partition order) on
 * success, or error (Spark's SparkException text) with messages NULL. Both borrowed for the call.
 */
typedef void (*cs_barrier_reply_fn)(void *arg, void *requester, const char *const *messages, int n,
                                    const char *error);

typedef struct cs_barrier_coord cs_barrier_coord;

/* timeout_ms: spark.barrier.sync.timeout. */
cs_barrier_coord *cs_barrier_coord_new(int64_t timeout_ms, cs_barrier_reply_fn reply, void *arg);
/* Fails nothing: requesters still waiting get no reply (stop every stage first). */
void cs_barrier_coord_free(cs_barrier_coord *c);

void cs_barrier_coord_request(cs_barrier_coord *c, const cs_barrier_request *r, int64_t now_ms);
/* Times out the syncs whose timer passed at now_ms. */
void cs_barrier_coord_tick(cs_barrier_coord *c, int64_t now_ms);
/* The earliest time a sync times out, -1 when none is waiting. */
int64_t cs_barrier_coord_next_deadline(const cs_barrier_coord *c);
/* The stage attempt ended: its state goes; requesters still waiting fail. */
void cs_barrier_coord_stage_done(cs_barrier_coord *c, int stage_id, int stage_attempt);
/* Takes requester back without a reply; true when it was waiting. */
bool cs_barrier_coord_cancel(cs_barrier_coord *c, void *requester);
/* The epoch of a stage attempt (0 when it has no state): for tests and logs. */
int cs_barrier_coord_epoch(const cs_barrier_coord *c, int stage_id, int stage_attempt);

#endif /* CSPARK_SCHED_BARRIER_COORDINATOR_H */
