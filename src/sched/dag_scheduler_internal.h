/*
 * dag_scheduler_internal.h — private to src/sched/dag_scheduler.c, dag_events.c,
 * map_output_tracker.c, stage_graph.c, completion_queue.c and barrier_stage.c: the scheduler's
 * state.
 *
 * Threads: several threads may each run a job at once (cs_scheduler_run_job). Whichever of them
 * holds dag_lock is the scheduler's event loop (Spark's single DAGScheduler event thread): it pops
 * completions in order and acts on them for every active job, so stages, jobs, the waiting list
 * and the tasks in flight are only touched with dag_lock held. lock (with cond) guards the
 * completion queue; outputs_lock guards the map-output tracker (the live shuffles' slots: map
 * stage, outputs, activity; jobs' result stages as read through `jobs`; graveyard), which other
 * threads (decommissioning, dynamic allocation) read or move outputs in. Lock order: dag_lock, then
 * outputs_lock, then lock; backends never take dag_lock, so they may be called with it held.
 */
#ifndef CSPARK_SCHED_DAG_SCHEDULER_INTERNAL_H
#define CSPARK_SCHED_DAG_SCHEDULER_INTERNAL_H

#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "common/hmap.h"
#include "sched/allocation_manager.h"
#include "sched/listener.h"
#include "sched/scheduler.h"
#include "sched/task_scheduler.h"

typedef struct map_outputs {
    int num_maps;
    cs_map_status **maps; /* NULL = missing */
    int available;
} map_outputs;

typedef struct stage {
    int id;
    int attempt;       /* latest attempt number */
    int attempt_tasks; /* tasks of the latest attempt (the partitions missing when submitted) */
    cspark_rdd *rdd;
    shuffle_dep *dep;      /* map stages: the shuffle they produce; NULL for result stages */
    int num_tasks;         /* result stage: the job's partitions; map stage: rdd partitions */
    const int *partitions; /* result stage: task index -> rdd partition */
    struct stage **parents;
    int num_parents;
    shuffle_dep **reads; /* shuffles read by this stage's tasks */
    int num_reads;
    bool running, waiting;
    cs_task_set *task_set;    /* the latest attempt's (its attempts, failures, zombie state) */
    int *failures, *attempts; /* per task index, across attempts: the task sets' counts */
    cs_task_set **task_sets;  /* every attempt's, freed with the stage (tasks may outlive one) */
    int num_task_sets;
    int fetch_failures; /* consecutive failed attempts */
    int64_t submit_ms;
    shuffle_input *inputs;
    int first_job;
    char *name; /* the result stage's: its job's call site (owned); NULL: the RDD's name */
    task_sink shuffle_sink; /* map stages: where their tasks write */
    bool *done_once; /* map stages: partitions whose output was registered (may be lost later) */
    void **attempt_allocs; /* inputs given to attempts, freed at stop (tasks may outlive one) */
    int num_allocs, cap_allocs;
    struct job *job; /* a result stage's job until it ends (then NULL); map stages: NULL */
    int run_job_id;  /* the job whose need submitted the latest attempt (its events' job id) */
    int in_flight;   /* attempts of its tasks queued or running, not completed yet */
    cs_barrier_launch
        *barrier;   /* a barrier stage's latest attempt (barrier_stage.c); NULL: not one */
    unsigned visit; /* graph walks (dag_lock): equal to scheduler.visit_epoch when seen */
} stage;

/* A live shuffle: its map stage, its registered outputs and whether a running job writes or
 * reads it (shuffle tracking). */
typedef struct shuffle_slot {
    stage *stage;
    map_outputs outputs;
    bool active; /* read by the running job */
} shuffle_slot;

/* A launched task with what the scheduler needs back when it completes. */
typedef struct sched_task {
    task_desc t; /* first member: backends see &sched_task.t */
    stage *st;
    cs_task_set *set;  /* the stage attempt it belongs to */
    int index;         /* task index within the stage */
    bool started;      /* set by cs_scheduler_task_started (backend thread, before done) */
    char executor[64]; /* where it started */
    char host[64];
    int locality; /* the cs_locality_level it was launched at */
    int holders;  /* 0: its completion owns it; 2 once a thread the reaper left running keeps it
                     too (cs_scheduler_task_retain): the last of the two to let go frees it */
    atomic_int cancelled; /* t.cancelled points here: set when no active job needs its stage */
    struct sched_task *prev, *next; /* the scheduler's tasks in flight (dag_lock) */
    struct job *drain_job;          /* the ended job that waits for this killed task to complete */
} sched_task;

typedef enum { EV_TASK_DONE, EV_EXECUTOR_LOST, EV_ABORT, EV_CALLBACK, EV_CANCEL } completion_kind;

/* What backends report to the job thread, in order. */
typedef struct completion {
    struct completion *next;
    completion_kind kind;
    task_desc *task;    /* EV_TASK_DONE */
    task_result result; /* EV_TASK_DONE */
    char *executor_id;  /* EV_EXECUTOR_LOST */
    char *reason;       /* EV_EXECUTOR_LOST, EV_ABORT */
    void (*fn)(void *); /* EV_CALLBACK */
    void *fn_arg;
    int cancel_job, cancel_stage; /* EV_CANCEL: the job or the stage (the other is -1) */
    char *cancel_group;           /* EV_CANCEL: every job of this group (both ids -1), or NULL */
    bool cancel_all;              /* EV_CANCEL: every running job (both ids -1, no group) */
} completion;

/* A finished result partition waiting for its job's own thread (job.results). */
typedef struct pending_result {
    struct pending_result *next;
    int partition;
    task_result result;
} pending_result;

typedef struct job {
    int64_t result_bytes; /* serialized result bytes so far (spark.driver.maxResultSize) */
    int id;
    stage *final;
    const task_sink *sink;
    bool *finished; /* per task index of the final stage */
    int num_finished;
    bool failed;
    bool map_stages; /* a map-stage job: final is a placeholder whose parents it runs */
    cs_error err;
    job_result_fn on_result;
    void *arg;
    const job_properties *props; /* borrowed for the job; never NULL */
    /* dag_lock: */
    bool ended;   /* done or failed: its stages no other job needs ended, its tasks killed */
    int draining; /* tasks killed when it ended that have not completed yet */
    pending_result *results, *results_tail; /* for on_result, on the job's own thread */
    /* set (then cond broadcast under lock) when the job's thread has something to do */
    atomic_int wake;
} job;

struct scheduler {
    scheduler_options opt;
    sched_backend *backend;
    cs_task_scheduler *tasks; /* the task sets of the running stage attempts and the offers */

    pthread_mutex_t lock; /* guards the completion queue */
    pthread_cond_t cond;
    completion *head, *tail;

    /* The map-output tracker. The job thread changes it with outputs_lock held; other threads
     * (decommissioning, dynamic allocation) read it, and move outputs, under the lock. */
    pthread_mutex_t outputs_lock;
    /* the live shuffles: shuffle id -> shuffle_slot * (put and deleted with dag_lock and
     * outputs_lock held; a removed shuffle's slot is freed, so a long-lived application keeps
     * only the shuffles its jobs may still read, as Spark's shuffleIdToMapStage) */
    cs_hmap shuffles;
    /* the active jobs, in id order (changed with dag_lock and outputs_lock held) */
    job **jobs;
    int num_jobs, cap_jobs;
    cs_map_status **graveyard; /* unregistered statuses (tasks may still read them) */
    int num_graveyard, cap_graveyard;
    allocation_manager *alloc;       /* dynamic allocation, NULL when off */
    struct cs_barrier_sync *barrier; /* the barrier coordinator (barrier_sync.h) */
    struct block_registry *blocks;   /* where cached partitions are (its own lock) */
    stage **waiting;
    int num_waiting, cap_waiting;

    pthread_mutex_t dag_lock; /* the event loop: held by the job thread acting on events */
    int next_stage_id, next_job_id;
    int64_t next_task_id;
    int in_flight;         /* attempts queued or running, of every job */
    sched_task tasks_head; /* list head of the attempts in flight (dag_lock) */
    unsigned visit_epoch;  /* graph walks (stage.visit) */
    int jobs_in_engine;    /* under lock: threads inside cs_scheduler_run_job */
    char *aborted;         /* set by the backend: every job fails with this reason */
    /* result stages of jobs whose tasks the task reaper left running in this process (local
     * mode): kept until those tasks end or the process exits */
    stage **retained;
    int num_retained;
};

/* ---- completion_queue.c ---- */
/* The next completion, or NULL when none is queued (dag_lock held). */
completion *cs_dag_try_pop(scheduler *s);
/* dag_lock held: lets go of it until a completion is queued or j's wake is set (which it clears),
 * or (deadline_ms >= 0) the clock passes deadline_ms or a second stop request hurries the stop
 * (common/shutdown.h); then takes dag_lock again. false on the deadline. */
bool cs_dag_wait(scheduler *s, job *j, int64_t deadline_ms);
/* Tells j's thread it has something to do (any thread). */
void cs_dag_wake(scheduler *s, job *j);
/* Threads inside cs_scheduler_run_job: one more (delta 1) or one less (-1); returns how many now.
 */
int cs_dag_jobs_in_engine(scheduler *s, int delta);

/* ---- completion_queue.c: the task reaper (a job's thread) ---- */
/* The tasks killed for job job_id at reap_at - spark.task.reaper.killTimeout have not stopped:
 * logs it and asks the backend to end the killed tasks (sched_backend.reap). Returns how many the
 * backend left running in this process. */
int cs_dag_reap(scheduler *s, int job_id, int64_t reap_at);
/* Keeps the result stage of a job whose tasks were left running until the scheduler is freed. */
void cs_dag_retain(scheduler *s, stage *fin);

/* Frees every map status of o and empties it (map_output_tracker.c). */
void cs_dag_outputs_clear(map_outputs *o);
/* The live shuffle shuffle_id's slot, NULL when there is none (dag_lock or outputs_lock held). */
shuffle_slot *cs_dag_shuffle(const scheduler *s, int shuffle_id);
/* The live shuffles' ids in ascending order, *n of them (the caller frees the array; dag_lock or
 * outputs_lock held). */
int *cs_dag_live_shuffles(const scheduler *s, int *n);
/* Frees every live shuffle's stage, outputs and slot (the scheduler stops). */
void cs_dag_shuffles_free(scheduler *s);
/* Keeps an unregistered status alive until the application stops (tasks may still read it).
 * outputs_lock held. */
void cs_dag_bury(scheduler *s, cs_map_status *ms);
/* Shuffle tracking: marks the shuffles stage st's lineage writes or reads (active while its job
 * runs) or clears them. outputs_lock held. */
void cs_dag_mark_active_shuffles(scheduler *s, stage *st, bool active);
/* Shuffle tracking: the shuffles every active job writes or reads, marked afresh. outputs_lock
 * held. */
void cs_dag_mark_jobs_shuffles(scheduler *s);
/* True while stage st runs an attempt whose inputs name executor_id. outputs_lock held. */
bool cs_dag_stage_reads_from(const stage *st, const char *executor_id);

/* stage_graph.c: links st (a job's result stage, or a new shuffle-map stage) to the shuffle-map
 * stages of the shuffles its narrow lineage reads, creating each once per application. */
void cs_dag_stage_link(scheduler *s, stage *st, int job_id);
/* Links st (a map-stage job's placeholder) to the shuffle-map stages of deps[0..n) themselves. */
void cs_dag_stage_link_shuffles(scheduler *s, stage *st, shuffle_dep *const *deps, int n,
                                int job_id);
/* Whether job j runs stage st (its result stage or one its result stage waits for). */
bool cs_dag_job_needs(scheduler *s, const job *j, const stage *st);
/* Whether stage from is st or reads it through its parents. */
bool cs_dag_stage_reaches(scheduler *s, const stage *from, const stage *st);
/* Attempts in flight (queued or running) of the stages job j runs. */
int cs_dag_job_in_flight(scheduler *s, const job *j);
/* Zeroed memory owned by st until cs_dag_stage_free (attempts' inputs: tasks may outlive one). */
void *cs_dag_stage_alloc(stage *st, size_t n);
void cs_dag_stage_free(stage *st);

/* Spark's TaskEndReason of the finished task t with result r (completion_queue.c). */
void cs_dag_task_end_reason(const task_desc *t, const task_result *r, cs_task_end_reason *why);

/* ---- dag_scheduler.c: stage attempts that fail (dag_lock held) ---- */
/* Spark's abortStage: every active job that needs st fails with the message. */
void cs_dag_abort_stage(scheduler *s, const stage *st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The running attempt of st cannot finish: it ends as failed, counted against
 * spark.stage.maxConsecutiveAttempts. 0, or -1 when that aborted the job. */
int cs_dag_attempt_failed(scheduler *s, stage *st, const char *reason);
/* Submits st again after cs_dag_attempt_failed (its missing parents' outputs first). */
void cs_dag_resubmit_stage(scheduler *s, stage *st, int failed_attempt, const char *reason);

/* ---- barrier_stage.c: barrier execution mode ---- */
/* Spark's checkBarrierStageWithNumSlots before a job starts (no lock held): a barrier stage of
 * rdd's lineage (or of map_deps') needing more tasks than the backend's cores is checked again
 * every spark.scheduler.barrier.maxConcurrentTasksCheck.interval; past .maxFailures checks, -1 with
 * Spark's "[SPARK-24819]..." text in err. */
int cs_dag_barrier_check_slots(scheduler *s, cspark_rdd *rdd, shuffle_dep *const *map_deps, int n,
                               cs_error *err);
/* A new attempt of st with `missing` tasks was submitted: when st is a barrier stage, its launch
 * info (st->barrier) is made and its task set launches all or nothing; otherwise st->barrier is
 * NULL. */
void cs_dag_barrier_attempt(scheduler *s, stage *st, int missing);
/* A task of barrier stage st failed (error: its reason): its stage attempt fails, its other
 * running tasks are killed, and the stage is retried (a map stage, its outputs all dropped) or
 * its job fails (a result stage), as Spark's DAGScheduler. */
void cs_dag_barrier_task_failed(scheduler *s, stage *st, const task_desc *t, const char *error);

/* ---- dag_events.c: the listener bus's job, stage and task events (dag_lock held) ---- */
void cs_dag_post(scheduler *s, cs_event *ev);
/* Spark's stage name: a result stage's job's call site, else the RDD's name. */
const char *cs_dag_stage_name(const stage *st);
/* A stage event with the stage's RDDs and parent stages (Spark's StageInfo). */
void cs_dag_post_stage_event(scheduler *s, const stage *st, cs_event *ev);
/* The listeners' TASK_END of a completion (also of a task that ends after its job did). */
void cs_dag_post_task_end(scheduler *s, const completion *c, const cs_accumulable *accs, int naccs);
/* Job j's JobStart; *job_name_out: the job's name (borrowed from its stages). */
void cs_dag_post_job_start(scheduler *s, job *j, const char **job_name_out);

#endif
