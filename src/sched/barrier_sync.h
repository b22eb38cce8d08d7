/*
 * barrier_sync.h — the driver's barrier coordinator (barrier_coordinator.h) behind a lock, as the
 * scheduler holds it: tasks of this process (local mode) call it and wait for their answer; the
 * executor backend hands it the requests executors send over RPC and answers them from the reply
 * callback. Timeouts (spark.barrier.sync.timeout) are driven by the waiting callers, each of which
 * ticks the coordinator while it waits (at most every 100 ms), and by cs_barrier_sync_tick.
 *
 * Threads: any; one lock guards the coordinator; replies run with it held (they must not call
 * back in). Ownership: the scheduler owns it (created in cs_scheduler_new, freed in
 * cs_scheduler_free after the backend stopped).
 */
#ifndef CSPARK_SCHED_BARRIER_SYNC_H
#define CSPARK_SCHED_BARRIER_SYNC_H

#include <stdatomic.h>

#include "common/err.h"
#include "sched/barrier_coordinator.h"

typedef struct cs_barrier_sync cs_barrier_sync;

cs_barrier_sync *cs_barrier_sync_new(int64_t timeout_ms);
void cs_barrier_sync_free(cs_barrier_sync *b);

/* Sends r (its requester is ignored) and waits for the answer: 0 with *msgs (n strings, malloc'd
 * each and the array: the caller frees them) or CS_ETASK with err holding Spark's text; while it
 * waits, a set *cancelled (NULL: never) takes the request back (CS_ECANCELLED). */
int cs_barrier_sync_call(cs_barrier_sync *b, const cs_barrier_request *r,
                         const atomic_int *cancelled, char ***msgs, int *n, cs_error *err);
/* A request answered through reply(arg, ...) (an executor's, over RPC): requester is r's. */
void cs_barrier_sync_post(cs_barrier_sync *b, const cs_barrier_request *r,
                          cs_barrier_reply_fn reply, void *arg);
/* Times out what passed its deadline (the backend's housekeeping). */
void cs_barrier_sync_tick(cs_barrier_sync *b);
/* A barrier stage attempt ended: its state goes (Spark's onStageCompleted). */
void cs_barrier_sync_stage_done(cs_barrier_sync *b, int stage_id, int stage_attempt);

#endif /* CSPARK_SCHED_BARRIER_SYNC_H */
