/*
 * task_set_manager.h — Spark's TaskSetManager: the tasks of one stage attempt (a task set), their
 * pending queues by locality, the attempts and failures of each task, and delay scheduling.
 *
 * The task attempt's state machine (one task_desc is one attempt of one task index; Spark's
 * TaskInfo), with the function behind each transition:
 *
 *   cs_task_set_add (DAG scheduler)
 *        |
 *        v          cs_task_set_offer: an offer picks it, at a locality level
 *     PENDING ------------------------------------------------------> RUNNING
 *        |                                                               |
 *        | cs_task_set_withdraw: the set became a zombie                 | the backend reports
 *        | (its stage attempt or its job ended)                          | its end
 *        v                                                               v
 *    WITHDRAWN (never ran: no event)        +------------------------ FINISHED
 *                                           |                            |
 *                      cs_task_set_succeeded|          cs_task_set_failed|        killed (its job
 *                                           v                            |        ended): neither
 *                                       SUCCEEDED                        |        counted nor
 *                                                                        |        retried
 *        +---------------------------------------------------------------+
 *        | counted, and failures >= spark.task.maxFailures; or unlaunchable --> ABORT (job fails)
 *        | the set is a zombie -----> IGNORE (the stage's next attempt runs the task)
 *        | otherwise -------------> RETRY: a new attempt, PENDING
 *
 * A failure counts unless the task's executor was removed by no fault of the task (Spark's
 * countTowardsTaskFailures), and never in a zombie set.
 *
 * A set is a zombie (Spark's isZombie) once its stage attempt ended: the attempt failed (a fetch
 * failure, an executor holding its inputs lost), its stage completed, or its job ended. A zombie
 * launches nothing more: its pending attempts are withdrawn; late completions of its running ones
 * still arrive (a late success of an old attempt still registers its map output), but its
 * failures are neither counted nor retried.
 *
 * Delay scheduling (Spark's computeValidLocalityLevels / getAllowedLocalityLevel): the valid levels
 * are PROCESS_LOCAL while a pending task prefers an executor alive, NODE_LOCAL while one prefers
 * the host of an executor alive, NO_PREF while a task has no preference, and ANY; RACK_LOCAL is
 * never valid (no rack resolver, as Spark on Kubernetes) though it has its wait. They are
 * recomputed when the executors alive change or tasks are queued, not at every offer. The
 * set starts at its nearest level; while tasks remain at the current level it waits that level's
 * spark.locality.wait.* since the last launch at it (the wait time is advanced by the wait when it
 * expires, so a set that keeps launching does not fall behind), then allows the next level; a
 * launch at a level brings the set back to it and restarts the wait; a level with no task left is
 * passed at once. Offers at NO_PREF take tasks without a preference whatever the level.
 *
 * Speculation plugs in here (not implemented yet, as spark.speculation is false by default):
 * copies_running counts the running attempts of each index (Spark's copiesRunning), a checker
 * over running attempts' times would mark indexes speculatable, and cs_task_set_offer dequeues
 * them after the regular queues (the spot is marked in task_set_manager.c).
 *
 * Pure over explicit times (`now_ms` is passed in; no clock is read) and not thread-safe: the task
 * scheduler (task_scheduler.c) calls the queue functions under its lock; the failure and success
 * functions run on the DAG scheduler's job thread. Ownership: the set borrows the task
 * descriptors it queues (the DAG scheduler owns them); the set itself is owned by whoever created
 * it (the DAG scheduler's stage: freed with cs_task_set_free once nothing refers to it).
 */
#ifndef CSPARK_SCHED_TASK_SET_MANAGER_H
#define CSPARK_SCHED_TASK_SET_MANAGER_H

#include <stdbool.h>
#include <stdint.h>

#include "plan/task.h"
#include "sched/locality.h"

typedef struct cs_task_set cs_task_set;

/* Spark's per-level waits: spark.locality.wait.process / .node / .rack (each defaulting to
 * spark.locality.wait, 3s). */
typedef struct cs_locality_waits {
    int64_t process_ms, node_ms, rack_ms;
} cs_locality_waits;

/* An executor offered to a set: its id, host and cores free now (Spark's WorkerOffer), and the
 * port of its address (WorkerOffer.address, which a barrier task's getTaskInfos shows; 0:
 * unknown). */
typedef struct cs_offer {
    const char *executor_id;
    const char *host;
    int free_cores;
    int port;
} cs_offer;

/* What to do after a failed attempt (cs_task_set_failed). */
typedef enum {
    CS_TASK_RETRY,  /* queue a new attempt of the task */
    CS_TASK_ABORT,  /* the task failed spark.task.maxFailures times, or can never launch */
    CS_TASK_IGNORE, /* a zombie set's failure: the stage's next attempt runs the task */
} cs_task_failure_action;

/* How a failure counts (Spark's TaskFailedReason.countTowardsTaskFailures). */
typedef enum {
    CS_FAILURE_COUNTED,      /* the task failed */
    CS_FAILURE_NOT_COUNTED,  /* its executor went away by no fault of the task (removed) */
    CS_FAILURE_UNLAUNCHABLE, /* no executor can ever take it (e.g. its plan is too large) */
} cs_failure_kind;

/* A set for stage_id attempt `attempt` of job job_id (the FIFO order: lower job, then lower
 * stage first), with num_tasks task indexes; created at now_ms. failures and attempts (num_tasks
 * each, borrowed for the set's life) are the stage's per-task counts, shared by its attempts: a
 * task's failures count towards spark.task.maxFailures across its stage's attempts, and its
 * attempts are numbered across them (after attempt 0 of stage attempt 0 failed, the task runs as
 * attempt 1 in stage attempt 1); NULL: the set keeps its own. */
cs_task_set *cs_task_set_new(int job_id, int stage_id, int attempt, int num_tasks, int max_failures,
                             const cs_locality_waits *waits, int *failures, int *attempts,
                             int64_t now_ms);
void cs_task_set_free(cs_task_set *m);

int cs_task_set_job(const cs_task_set *m);
int cs_task_set_stage(const cs_task_set *m);
/* The task scheduler's pool the set belongs to (its index there; 0 until set): FAIR scheduling's
 * Spark Pool, kept with the set so that its late completions are counted in it. */
int cs_task_set_pool(const cs_task_set *m);
void cs_task_set_set_pool(cs_task_set *m, int pool);
int cs_task_set_attempt(const cs_task_set *m);
bool cs_task_set_is_zombie(const cs_task_set *m);
/* Barrier execution mode (Spark's TaskSetManager.isBarrier): the set's n tasks launch in one
 * round of offers or not at all (task_scheduler.c checks the round's free cores first), at any
 * locality (no delay scheduling: they must all start together). 0: an ordinary set. */
void cs_task_set_set_barrier(cs_task_set *m, int n);
int cs_task_set_barrier(const cs_task_set *m);
/* Attempts still pending (not offered, not withdrawn). */
int cs_task_set_pending(const cs_task_set *m);

/* The attempt number the next attempt of task `index` gets (Spark's attemptNumber): how many of
 * its attempts failed so far. */
int cs_task_set_next_attempt(const cs_task_set *m, int index);
/* Queues attempts t[0..n) of tasks indexes[0..n) (a task's block locations are its preferences).
 * Borrows them until they are offered or withdrawn. */
void cs_task_set_add(cs_task_set *m, const task_desc *const *t, const int *indexes, int n);

/* The executors alive as the task scheduler knows them from its offers (Spark's executorIdToHost):
 * execs[0..n) give their ids and hosts (free_cores unused); epoch changes whenever they do. */
typedef struct cs_alive_executors {
    const cs_offer *execs;
    int n;
    uint64_t epoch;
} cs_alive_executors;

/* How a set gets the executors alive, called only when its levels depend on them (a task of it
 * prefers, or once preferred, an executor): the task scheduler checks this round's offers against
 * the executors it knew then, so that a round of sets without preferences compares nothing. */
typedef const cs_alive_executors *(*cs_alive_fn)(void *arg);

/* The valid locality levels of the set for an offer round, nearest first (Spark's
 * myLocalityLevels): *n of them (at most 5), borrowed until the next call; NULL (*n = 0) when
 * nothing is pending. Recomputed (Spark's recomputeLocality, which keeps the set at the level it
 * had reached) only when something they depend on changed since the last call: tasks were queued
 * (cs_task_set_add), or, for a set with preferences, the executors alive (alive(arg)->epoch, as
 * Spark's executorAdded / executorLost); otherwise the levels computed before, even if some have
 * no task left (an offer passes those at once, as Spark's getAllowedLocalityLevel). */
const cs_locality_level *cs_task_set_locality_levels(cs_task_set *m, cs_alive_fn alive, void *arg,
                                                     int *n);
/* What an offer round gives a backend: launch t on offers[offer] at level. */
typedef struct cs_task_assignment {
    const task_desc *t;
    int offer;
    cs_locality_level level;
} cs_task_assignment;

/* One pass of offers[0..n) over the set at most max_locality, from offers[start] round the ring,
 * one task per offer with a free core (Spark's resourceOfferSingleTaskSet, each offer a
 * resourceOffer: the level allowed at now_ms, then the queue of that offer's executor, of its
 * host, of the tasks without preference, of any), after cs_task_set_locality_levels in this round.
 * Up to room assignments go to out, each taking a core off its offer; returns how many. */
int cs_task_set_offer_pass(cs_task_set *m, cs_offer *offers, int n, int start,
                           cs_locality_level max_locality, int64_t now_ms, cs_task_assignment *out,
                           int room);

/* The set becomes a zombie: it launches nothing more. Its pending attempts are moved to out
 * (room for cs_task_set_pending of them); returns how many. */
int cs_task_set_withdraw(cs_task_set *m, const task_desc **out);

/* An attempt of task `index` ended (the job thread). */
void cs_task_set_succeeded(cs_task_set *m, int index);
/* A failed attempt: counted or not as kind says; *failures gets the task's failures so far. */
cs_task_failure_action cs_task_set_failed(cs_task_set *m, int index, cs_failure_kind kind,
                                          int *failures);

#endif /* CSPARK_SCHED_TASK_SET_MANAGER_H */
