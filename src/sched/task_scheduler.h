/*
 * task_scheduler.h — Spark's TaskSchedulerImpl: the pool of task sets (one per running stage
 * attempt, task_set_manager.h) and resource offers. The DAG scheduler submits a task set per stage
 * attempt and queues attempts in it; a backend, told to revive offers
 * (sched_backend.revive_offers), offers the cores its executors have free and launches what it is
 * given. Placement is decided here only, for every backend: task sets in FIFO order (lower job,
 * then lower stage first, as Spark's FIFOSchedulingAlgorithm), each over its valid locality levels
 * nearest first, one task per executor per pass (Spark's resourceOfferSingleTaskSet), with delay
 * scheduling by spark.locality.wait.process / .node / .rack. With spark.scheduler.mode=FAIR
 * (Spark's FairSchedulableBuilder without an allocation file) each set belongs to the pool its
 * job names (spark.scheduler.pool, "default" when none), made on first use with minShare 0 and
 * weight 1; each round of offers goes through the pools in Spark's FairSchedulingAlgorithm order
 * (a pool below its minShare first, then the fewest running tasks per weight, then the name),
 * each pool's sets in FIFO order.
 *
 * A task set in the pool (its task set manager draws the states of each task attempt):
 *
 *   cs_task_scheduler_submit          cs_task_scheduler_remove: the stage attempt completed or
 *   (a stage attempt starts)          failed, or its job ended (pending attempts handed back)
 *   ------------------------> ACTIVE ------------------------------------------------> ZOMBIE
 *                              |  ^     late completions of its running attempts still arrive
 *     cs_task_scheduler_add    |  |     at the DAG scheduler; the creator frees the set
 *     queues attempts,         +--+     (cs_task_set_free) with its stage
 *     resource offers take them
 *
 * Backends keep executor bookkeeping (which executors are alive, their free cores, what runs
 * where) and launching; an executor they no longer offer is lost to the task sets' locality (its
 * running tasks, reported lost by the backend, are retried through the DAG scheduler and
 * cs_task_set_failed).
 *
 * Threads: a lock guards the pool and every set's queues; cs_task_scheduler_resource_offers runs
 * on backend threads (a local worker, the coarse backend's RPC loop or housekeeper), the rest on
 * the DAG scheduler's job thread. Never calls a backend, so a backend may call in with its own
 * lock held. Ownership: the scheduler owns the pool (not the sets: their creator frees them after
 * cs_task_scheduler_remove); attempts are borrowed task descriptors (owned by the DAG scheduler).
 */
#ifndef CSPARK_SCHED_TASK_SCHEDULER_H
#define CSPARK_SCHED_TASK_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "sched/task_set_manager.h"

typedef struct cs_task_scheduler cs_task_scheduler;

/* Reads spark.locality.wait.process / .node / .rack (each defaulting to spark.locality.wait, 3s:
 * the defaults are in common/conf_entries.c). CS_EINVAL naming the key on a bad value. */
int cs_locality_waits_read(const cs_conf *conf, cs_locality_waits *w, cs_error *err);

/* The pool of the sets whose job names none (Spark's "default"). */
#define CS_DEFAULT_POOL "default"

/* A FIFO task scheduler (spark.scheduler.mode=FIFO, Spark's default). */
cs_task_scheduler *cs_task_scheduler_new(const cs_locality_waits *waits, int max_task_failures);
void cs_task_scheduler_free(cs_task_scheduler *ts);
/* spark.scheduler.mode=FAIR: pools share the cores (before any set is submitted). */
void cs_task_scheduler_use_fair(cs_task_scheduler *ts);

/* A new task set for stage attempt (stage_id, attempt) of job_id with num_tasks indexes, in the
 * pool from now on (job thread); failures and attempts as cs_task_set_new takes them. The caller
 * owns it: cs_task_set_free after cs_task_scheduler_remove. */
cs_task_set *cs_task_scheduler_submit(cs_task_scheduler *ts, int job_id, int stage_id, int attempt,
                                      int num_tasks, int *failures, int *attempts, int64_t now_ms);
/* Puts set m (just submitted, nothing queued yet) in the pool named pool (its job's
 * spark.scheduler.pool; NULL or "": "default"), made on first use with minShare 0 and weight 1.
 * Only FAIR scheduling orders by pools; FIFO keeps one queue whatever the pool. */
void cs_task_scheduler_set_pool(cs_task_scheduler *ts, cs_task_set *m, const char *pool);
/* An attempt of set m that an offer gave out has ended (its completion): its pool runs one task
 * fewer. Job thread. */
void cs_task_scheduler_task_ended(cs_task_scheduler *ts, const cs_task_set *m);
/* Queues attempts t[0..n) of tasks indexes[0..n) in set m, under one lock (job thread). */
void cs_task_scheduler_add(cs_task_scheduler *ts, cs_task_set *m, const task_desc *const *t,
                           const int *indexes, int n);
/* Takes m out of the pool: it becomes a zombie (its stage attempt ended). Its pending attempts,
 * which never ran, go to *out (malloc'd; NULL when none); returns how many. Again on a set already
 * removed: 0. Job thread. */
int cs_task_scheduler_remove(cs_task_scheduler *ts, cs_task_set *m, const task_desc ***out);

/* One round of offers (Spark's resourceOffers): offers[0..n) are every executor that can take
 * tasks, with their free cores (decremented here as tasks are given); the assignments go to out
 * (room for max); returns how many. now_ms drives delay scheduling. Any thread. */
int cs_task_scheduler_resource_offers(cs_task_scheduler *ts, cs_offer *offers, int n,
                                      int64_t now_ms, cs_task_assignment *out, int max);
/* Some attempt waits for an offer (for a backend that re-offers while locality waits expire). */
bool cs_task_scheduler_has_pending(cs_task_scheduler *ts);

#endif /* CSPARK_SCHED_TASK_SCHEDULER_H */
