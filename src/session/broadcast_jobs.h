/*
 * broadcast_jobs.h — the broadcast exchanges of one query run as concurrent jobs (Spark's
 * BroadcastExchangeExec.relationFuture on its broadcast thread pool): the driver builds a
 * broadcast's stage and starts its job; the job runs on a thread of its own (several at once, at
 * most max_threads running: spark.sql.broadcastExchange.maxThreadThreshold), collects every row
 * of the stage, concatenates its encoded batches (each preceded by its u32 little-endian length)
 * and makes the broadcast variable; the stage that reads it waits for it (cs_bcast_jobs_wait, at
 * most spark.sql.broadcastTimeout, as Spark's awaitResult of the future).
 *
 * Called by query_run.c on the query's thread (the driver thread that builds stages); the jobs'
 * threads touch only their own future and the scheduler (which runs jobs of several threads at
 * once, sched/scheduler.h). A job failing fails only its future: the query gets its error when it
 * waits for it. cs_bcast_jobs_free, at the query's end, cancels the query's job group when a job
 * still runs (a failed or timed-out query), waits for every thread and destroys the broadcast
 * variables the jobs made.
 *
 * Ownership: the set owns its futures and threads; a future is known by its key (the
 * BROADCAST_EXCHANGE node, borrowed, never read); the stage node and the job properties' strings
 * (description, group, execution id) are borrowed until cs_bcast_jobs_free.
 */
#ifndef CSPARK_SESSION_BROADCAST_JOBS_H
#define CSPARK_SESSION_BROADCAST_JOBS_H

#include <stdbool.h>
#include <stdint.h>

#include "api/context.h"
#include "common/err.h"
#include "sched/scheduler.h"

typedef struct cs_bcast_jobs cs_bcast_jobs;

/* A set for the query whose jobs carry props (its strings borrowed; call_site copied per job);
 * timeout_ms < 0: wait without limit. */
cs_bcast_jobs *cs_bcast_jobs_new(cspark_context *sc, const job_properties *props, int max_threads,
                                 int64_t timeout_ms);
/* Cancels the jobs still running (the group of the query), joins every thread, destroys the
 * broadcast variables made, frees the set. NULL is fine. */
void cs_bcast_jobs_free(cs_bcast_jobs *js);

/* Whether key's job was started. */
bool cs_bcast_jobs_started(const cs_bcast_jobs *js, const void *key);
/* Whether key's job was started and has ended (with its variable or its error). */
bool cs_bcast_jobs_done(cs_bcast_jobs *js, const void *key);
/* Starts the job collecting rdd's rows into the broadcast of key (not started yet). */
void cs_bcast_jobs_start(cs_bcast_jobs *js, const void *key, cspark_rdd *rdd);
/* Waits for key's job (started): 0 with *id its broadcast variable, or its error (the job's,
 * mapped by cs_session_job_error; Spark's timeout error after timeout_ms). */
int cs_bcast_jobs_wait(cs_bcast_jobs *js, const void *key, int64_t *id, cs_error *err);

#endif /* CSPARK_SESSION_BROADCAST_JOBS_H */
