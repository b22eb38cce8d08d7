/*
 * scheduler.h — the DAG scheduler and task scheduler of one application, and the interface a
 * cluster backend implements (Spark's SchedulerBackend).
 *
 * A job (one action) is cut into stages at shuffle dependencies; stages whose parents' map
 * outputs are missing wait while the parents run; each stage attempt is a task set of the task
 * scheduler (sched/task_scheduler.h) with one task per missing partition, which the backend is
 * offered to run; failed tasks are retried up to the task failure limit (scheduler_options, the
 * task set manager's rule), and lost map outputs are resubmitted after fetch failures (up to
 * spark.stage.maxConsecutiveAttempts). Map outputs are kept per shuffle for the whole
 * application, so a shuffle computed by an earlier job is reused.
 *
 * Threads: cs_scheduler_run_job runs on the caller's thread and returns when the job ends; several
 * threads may each run a job at once (Spark's jobs submitted from several threads): their task
 * sets share the executors' cores in FIFO order (the older job first, task_scheduler.h), a
 * shuffle-map stage two jobs need runs once for both, and a job that ends or is cancelled stops
 * only the stages no other running job needs. Backends report completions from any thread
 * through cs_scheduler_task_done.
 * Ownership: the scheduler owns stages, map statuses and task descriptors; a backend borrows a
 * task_desc from the offer that gave it until it calls cs_scheduler_task_done, which takes the
 * task_result's contents (the struct itself stays the backend's).
 */
#ifndef CSPARK_SCHED_SCHEDULER_H
#define CSPARK_SCHED_SCHEDULER_H

#include "common/conf.h"
#include "common/err.h"
#include "plan/task.h"
#include "sched/barrier_coordinator.h"
#include "sched/task_set_manager.h"

struct listener_bus;
struct cs_task_scheduler;
typedef struct scheduler scheduler;
typedef struct sched_backend sched_backend;

struct sched_backend {
    /* Tasks wait in the task scheduler (`tasks`): offer it the executors that can take tasks
     * (cs_task_scheduler_resource_offers, any thread) and launch what it gives, now or soon
     * (Spark's reviveOffers); each launched task's end is reported with cs_scheduler_task_done.
     * Called on the job thread without the task scheduler's lock. */
    void (*revive_offers)(sched_backend *b);
    /* Cores available for tasks (default parallelism). */
    int (*total_cores)(sched_backend *b);
    /* A job ended: running tasks whose cancelled flag is set (cs_task_desc_cancelled) are asked
     * to stop (they complete soon after); other jobs' tasks run on; those not launched yet were
     * taken back from the task scheduler by the scheduler. */
    void (*cancel_all)(sched_backend *b);
    /* Stops workers after running tasks finish; frees the backend. */
    void (*stop)(sched_backend *b);
    /* The task reaper (common/shutdown.h): tasks cancel_all asked to stop (their cancelled flag
     * set) are still running after spark.task.reaper.killTimeout. Ends those by force (their
     * executors are killed); each then
     * completes, failed. Tasks the backend cannot end (local mode: threads of this process) are
     * reported failed at once and left running; returns how many — their descriptors must stay
     * valid until the process exits. NULL: running tasks are waited for. */
    int (*reap)(sched_backend *b, const char *reason);
    /* Dynamic allocation (NULL in backends with a fixed set of executors, e.g. local mode):
     * the total number of executors wanted from now on (Spark's requestTotalExecutors). */
    void (*request_total)(sched_backend *b, int total);
    /* Removes these executors (Spark's killExecutors / decommissionExecutors): they get no new
     * tasks; with decommission they finish their tasks and hand their shuffle files to live
     * executors before they exit, otherwise they are told to exit at once — but only those
     * running no task, checked under the same lock as the offers (Spark's killExecutors with
     * force = false: an executor found idle may have been given tasks since). removed[k] says
     * whether ids[k] goes (the others stay as they are). */
    void (*remove_executors)(sched_backend *b, const char *const *ids, int n, bool decommission,
                             const char *reason, bool *removed);
    /* Every process holding cached partitions drops those of rdd_id (unpersist); NULL: none. */
    void (*remove_rdd)(sched_backend *b, int rdd_id);
    /* Every process holding map outputs of shuffles ids[0..n) deletes their files: no job will
     * read them again (cs_scheduler_remove_shuffles); NULL: none. */
    void (*remove_shuffles)(sched_backend *b, const int *ids, int n);
    scheduler *sched;                /* set by cs_scheduler_new */
    struct cs_task_scheduler *tasks; /* set by cs_scheduler_new: where the offers go */
};

/* What the scheduler needs from the application, read once. */
typedef struct scheduler_options {
    struct listener_bus *bus; /* where job, stage and task events go (borrowed); NULL: nowhere */
    int max_task_failures;    /* spark.task.maxFailures (local[N,F]: F) */
    int max_stage_attempts;   /* spark.stage.maxConsecutiveAttempts (4) */
    int64_t max_result_size;  /* spark.driver.maxResultSize (1g), 0 = unlimited */
    /* where task results' accumulator updates merge (borrowed; sched/accumulators.h); NULL:
     * nowhere */
    struct acc_registry *accums;
    bool task_reaper;                 /* tasks that ignore a kill are ended by force (reap) ... */
    int64_t task_kill_timeout_ms;     /* ... after spark.task.reaper.killTimeout */
    cs_locality_waits locality_waits; /* spark.locality.wait.process / .node / .rack */
    bool fair; /* spark.scheduler.mode=FAIR: jobs' pools share the cores (task_scheduler.h) */
    /* barrier execution mode (barrier_stage.c): spark.barrier.sync.timeout (365d), and a barrier
     * job needing more slots than the cores is checked again every
     * spark.scheduler.barrier.maxConcurrentTasksCheck.interval (15s) up to .maxFailures (40)
     * times before it fails */
    int64_t barrier_sync_timeout_ms, barrier_check_interval_ms;
    int barrier_check_max_failures;
} scheduler_options;

/* Reads max_stage_attempts, max_result_size, task_kill_timeout_ms, locality_waits and fair
 * (spark.scheduler.mode) from conf (the caller sets bus and max_task_failures). CS_EINVAL naming
 * the key on a bad value, and for spark.scheduler.allocation.file (no allocation file is read:
 * pools are made with Spark's defaults). */
int cs_scheduler_options_read(const cs_conf *conf, scheduler_options *o, cs_error *err);
/* The scheduler of one application over backend (owned from now on: stopped by
 * cs_scheduler_free). o is copied. */
scheduler *cs_scheduler_new(const scheduler_options *o, sched_backend *backend);
/* Stops the backend and frees every stage and map status. */
void cs_scheduler_free(scheduler *s);

/* Called on the job's own thread (the one in cs_scheduler_run_job, holding no scheduler lock)
 * for each finished partition, in completion order. The result's contents may be moved out (e.g.
 * the data batch); the scheduler frees the rest. */
typedef void (*job_result_fn)(void *arg, int partition, task_result *r);

/* What a job carries besides its RDD: Spark's call site and local properties. Borrowed for the
 * duration of cs_scheduler_run_job. */
typedef struct job_properties {
    /* the action's call site, "count at app.so:cspark_main": the job's name and its result
     * stage's (Spark's ResultStage is named after the action); NULL: the RDD's name */
    const char *call_site;
    const char *description;  /* spark.job.description (the UI's Description), NULL: none */
    const char *group_id;     /* spark.jobGroup.id (cs_scheduler_cancel_group), NULL: none */
    bool interrupt_on_cancel; /* spark.job.interruptOnCancel, reported in the job's properties */
    const char *sql_execution_id; /* spark.sql.execution.id: the SQL query it runs, NULL: none */
    const char *pool; /* spark.scheduler.pool: its FAIR scheduling pool, NULL: "default" */
} job_properties;

/* Runs `sink` over the given partitions of rdd (all when partitions == NULL), with props (NULL:
 * none). Returns 0, or a negative code with err set to Spark's "Job aborted due to stage
 * failure: ..." message; CS_ECANCELLED only when the job was cancelled on request
 * (cs_scheduler_cancel, cs_scheduler_cancel_group: "Job N cancelled ..."). */
int cs_scheduler_run_job(scheduler *s, cspark_rdd *rdd, const int *partitions, int num_partitions,
                         const job_properties *props, const task_sink *sink,
                         job_result_fn on_result, void *arg, cs_error *err);

/* Runs the shuffle-map stages of deps[0..n) (and the stages they wait for) as one job, as
 * Spark's submitMapStage does for adaptive execution: returns once every map output of each is
 * registered (at once for those already complete), 0 or a negative code with err as
 * cs_scheduler_run_job. The job's events list the map stages; it has no result stage. */
int cs_scheduler_run_map_stages(scheduler *s, shuffle_dep *const *deps, int n,
                                const job_properties *props, cs_error *err);
/* Spark's MapOutputStatistics.bytesByPartitionId: bytes[r] = the estimated raw size of reduce
 * partition r (its blocks' bytes before stream compression, cs_map_status_raw_size; the stored
 * size for an output whose status has none) summed over the map outputs of shuffle_id
 * (r < num_partitions). Spark sums the stored sizes; the raw ones make adaptive execution's
 * decisions the same with or without spark.shuffle.compress, and follow the decoded batches'
 * size in memory. CS_ENOTFOUND (bytes zeroed) when an output is missing. Any thread. */
int cs_scheduler_shuffle_sizes(scheduler *s, int shuffle_id, uint64_t *bytes, int num_partitions);

/* Backend callbacks, any thread: a task began running on a core slot (launched at locality, a
 * cs_locality_level: sched/locality.h) / finished. */
void cs_scheduler_task_started(scheduler *s, const task_desc *t, const char *executor_id,
                               const char *host, int locality);
void cs_scheduler_task_done(scheduler *s, const task_desc *t, task_result *r);
/* The same for a task that failed without a result of its own (not launched, its executor
 * lost): the reason is formatted as printf does. */
void cs_scheduler_task_failed(scheduler *s, const task_desc *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for a task stopped on request without a result of its own (never run because its job
 * ended, given up on by the task reaper): status TASK_KILLED, not counted as a failure. */
void cs_scheduler_task_killed(scheduler *s, const task_desc *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The task reaper gives up on a task whose thread still runs (local mode): the descriptor stays
 * valid for that thread, which lets go of it with cs_scheduler_task_release when its task returns
 * (never, if the process ends first). Call retain before reporting the task failed; neither call
 * locks anything. The job thread lets go of every descriptor with release too: one never
 * retained is freed at once. */
void cs_scheduler_task_retain(const task_desc *t);
void cs_scheduler_task_release(const task_desc *t);
/* A task whose executor was lost while it ran (Spark's ExecutorLostFailure): `why` is the
 * executor's loss reason; caused_by_app when the executor exited on its own (not removed). */
void cs_scheduler_task_lost(scheduler *s, const task_desc *t, const char *executor_id,
                            const char *why, bool caused_by_app);
/* An executor is gone: the map outputs it held are unregistered (its running tasks are reported
 * failed by the backend through cs_scheduler_task_done). */
void cs_scheduler_executor_lost(scheduler *s, const char *executor_id, const char *reason);
/* BarrierTaskContext.barrier() / allGather(message) of barrier task t at its epoch (method:
 * cs_barrier_method, sched/barrier_coordinator.h): waits until every task of t's stage attempt
 * asked, then 0 with *msgs, the n messages in partition order (each malloc'd, and the array: the
 * caller frees them); CS_ETASK with Spark's text when the sync fails (timed out, out of sync),
 * CS_ECANCELLED when t is killed meanwhile. Task threads of this process (local mode). */
int cs_scheduler_barrier_sync(scheduler *s, const task_desc *t, int epoch, int method,
                              const char *message, char ***msgs, int *n, cs_error *err);
/* An executor's barrier sync (its requester: the caller's), answered through reply(arg, ...)
 * when the coordinator answers it; cs_scheduler_barrier_tick times out what passed its deadline
 * (a backend's housekeeping). Any thread. */
void cs_scheduler_barrier_post(scheduler *s, const cs_barrier_request *r, cs_barrier_reply_fn reply,
                               void *arg);
void cs_scheduler_barrier_tick(scheduler *s);
/* An executor registered (any thread): dynamic allocation starts tracking it. */
void cs_scheduler_executor_added(scheduler *s, const char *executor_id, int cores);

/* ---- the map-output tracker, for decommissioning and shuffle tracking (any thread) ---------- */

/* Copies of the map outputs registered at executor_id (sizes malloc'd: cs_map_status_free each,
 * then free the array). Returns how many. */
int cs_scheduler_outputs_on(scheduler *s, const char *executor_id, cs_map_status **out);
/* A map output was copied from executor `from` to executor `to` (served at host:port): later
 * stages read it there. Ignored when the output is no longer registered at `from`. */
void cs_scheduler_output_moved(scheduler *s, int shuffle_id, int map_id, const char *from,
                               const char *to, const char *host, int port);
/* The cached partitions the block registry has at executor_id (statuses into *out, malloc'd,
 * NULL when none): decommissioning copies them. Returns how many. */
int cs_scheduler_blocks_on(scheduler *s, const char *executor_id, cs_block_status **out);
/* Where a block is: an executor and its block server. */
typedef struct cs_block_holder {
    const char *executor_id, *host;
    int port;
} cs_block_holder;
/* Cached partition st was copied from executor `from` to executor `to` and is stored there as st
 * says: later tasks find it at `to`, no longer at `from`; the listeners (event log, Storage view)
 * see it added at `to` and removed at `from`. */
void cs_scheduler_block_moved(scheduler *s, const cs_block_holder *from, const cs_block_holder *to,
                              const cs_block_status *st);
/* Map outputs an executor found at start on a reused volume, written there by an executor of
 * this application that is gone (Spark's KubernetesLocalDiskShuffleDataIO recovery): each
 * becomes the registered output of its (shuffle, map) at the location it names, replacing one
 * registered elsewhere (an output's files are the same wherever they are), so later stages read
 * it there instead of running its map task again. Ignored for a shuffle the scheduler does not
 * know or whose reduce count differs. Takes outs (an array of n, malloc'd, and each status's
 * sizes); registers them once every completion reported so far is handled (a lost executor's
 * outputs are unregistered first). */
void cs_scheduler_outputs_recovered(scheduler *s, cs_map_status *outs, int n);
/* True while a running stage attempt reads map outputs from executor_id (its tasks were given
 * that location): the executor must keep serving them. */
bool cs_scheduler_reads_from(scheduler *s, const char *executor_id);
/* Runs fn(arg) once every completion reported so far has been handled (map outputs of finished
 * tasks registered): on the job's thread when a job runs, else at once on the caller's. */
void cs_scheduler_after_completions(scheduler *s, void (*fn)(void *arg), void *arg);
/* Calls fn(arg, executor_id, active) for every registered map output; active: its shuffle is
 * written or read by the running job. */
void cs_scheduler_shuffle_holdings(scheduler *s,
                                   void (*fn)(void *arg, const char *executor_id, bool active),
                                   void *arg);

/* Dynamic allocation: starts the allocation manager (settings from cs_alloc_settings_read) when
 * enabled and the backend supports request_total; call once the backend can take requests. */
struct alloc_settings;
void cs_scheduler_start_dynamic_allocation(scheduler *s, const struct alloc_settings *st);

/* Spark's ContextCleaner for shuffles no job will read again (a finished SQL execution's): the
 * map stages of deps[0..n) and their map statuses are freed and the backend has their files
 * deleted wherever they are. All or none: when one of them is still needed (an active job runs
 * its stage, or a task of it is still in flight, e.g. one the task reaper left running), none is
 * removed and false is returned (the caller keeps their lineage). Any thread but a job's. */
bool cs_scheduler_remove_shuffles(scheduler *s, shuffle_dep *const *deps, int n);

/* Unpersist: the block registry forgets rdd_id's blocks and the backend has them dropped
 * wherever they are held. Between jobs, on the application's thread. */
void cs_scheduler_unpersist(scheduler *s, int rdd_id);

/* The backend cannot run tasks any more (e.g. too many executor failures): the running job and
 * every later one fail with this reason. */
void cs_scheduler_abort(scheduler *s, const char *reason);

/* True while some job runs or waits for its killed tasks (any thread): a job's thread is inside
 * the engine, not in user code (the signal watcher, src/api/app.c, does not take over the stop
 * then). */
bool cs_scheduler_in_job(scheduler *s);

/* Kills the running job job_id (job_id >= 0) or every running job that runs or waits for stage_id
 * (job_id < 0), as Spark's cancelJob / cancelStage (the web UI's kill links): the job fails with
 * "Job N cancelled <reason>" or "Job N cancelled because Stage M was cancelled: <reason>".
 * Any thread; ignored when no running job matches. */
void cs_scheduler_cancel(scheduler *s, int job_id, int stage_id, const char *reason);

/* Kills every running job whose spark.jobGroup.id is group_id, as Spark's cancelJobGroup: each
 * fails with "Job N cancelled part of cancelled job group <group_id>". Any thread (a job's own
 * thread is inside cs_scheduler_run_job: another thread of the driver cancels); ignored when no
 * running job belongs to the group. */
void cs_scheduler_cancel_group(scheduler *s, const char *group_id);

/* Kills every running job, as Spark's cancelAllJobs: each fails with "Job N cancelled as part of
 * cancellation of all jobs". Any thread; ignored when no job runs. */
void cs_scheduler_cancel_all(scheduler *s);

#endif
