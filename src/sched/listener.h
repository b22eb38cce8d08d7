/* listener.h — the driver's listener bus: scheduler events delivered, in order, to listeners.
 *
 * Spark's LiveListenerBus. The DAG and task schedulers post events (job/stage/task start and end,
 * executors added and removed, application start and end) with cs_listener_bus_post(); a single
 * dispatch thread delivers them, in posting order, to every registered listener: the event log
 * (event_log.c, Spark's JSON format for the history server), the console progress bar
 * (progress.c), or the one-line-per-stage logging listener, and anything added with
 * cs_listener_bus_add() (the UI store, tests). Posting deep-copies the event into a bounded queue
 * and never waits for listeners; when the queue is full the event is dropped and counted.
 *
 * Ownership: cs_listener_bus_new returns a bus owned by the caller, freed with
 * cs_listener_bus_free. Every pointer inside a cs_event given to cs_listener_bus_post is borrowed
 * only for the duration of the call (strings and stage_ids are copied; `conf` is read during the
 * call and its properties copied). The cs_event handed to a listener_fn, and everything it points
 * to, is borrowed for the duration of that callback only. Listeners run on the dispatch thread, one
 * event at a time. post/flush are thread-safe; add must happen before the first post; free once,
 * from one thread.
 */
#ifndef CSPARK_SCHED_LISTENER_H
#define CSPARK_SCHED_LISTENER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/block_status.h"
#include "common/conf.h"
#include "common/err.h"
#include "plan/task.h" /* cs_task_metrics */

/* The interface below is kept exactly as agreed with the scheduler. */
/* clang-format off */
typedef enum {
    CS_EV_APPLICATION_START, CS_EV_APPLICATION_END, CS_EV_JOB_START, CS_EV_JOB_END,
    CS_EV_STAGE_SUBMITTED, CS_EV_STAGE_COMPLETED, CS_EV_TASK_START, CS_EV_TASK_END,
    CS_EV_EXECUTOR_ADDED, CS_EV_EXECUTOR_REMOVED, CS_EV_ENVIRONMENT_UPDATE, CS_EV_LOG_START,
    CS_EV_ALLOCATION_TARGET, /* cspark: dynamic allocation changed its executor target */
    CS_EV_EXECUTOR_METRICS,  /* an executor's heartbeat: its process metrics (Spark's ExecutorMetricsUpdate) */
    CS_EV_BLOCK_UPDATED,     /* cached blocks an executor stored or dropped (Spark's BlockUpdated): updated_blocks */
    CS_EV_UNPERSIST_RDD,     /* the application unpersisted rdd_id (Spark's UnpersistRDD) */
    CS_EV_SQL_EXECUTION_START, /* a SQL query began (Spark's SparkListenerSQLExecutionStart): sql_* */
    CS_EV_SQL_EXECUTION_END    /* it ended (SparkListenerSQLExecutionEnd): succeeded, reason */
} cs_event_kind;
typedef struct cs_rdd_info {                      /* one RDD of a stage, as Spark's RDDInfo */
    int id; const char *name; const char *callsite; int num_partitions; int parent_ids[2]; int num_parents;
    int storage_level; int cached_partitions; int64_t memory_size, disk_size; /* persisted RDDs: the block registry's totals */
} cs_rdd_info;
/* An executor's process as its heartbeat reports it (executor metrics event; Spark's ExecutorMetrics
 * without the JVM: ProcessTree*RSSMemory / *VMemory, plus the executor's own task counters). */
typedef struct cs_executor_metrics { int64_t rss_bytes, vmem_bytes, cpu_time_ns, tasks_active, tasks_completed, tasks_failed,
    shuffle_bytes_read, shuffle_bytes_written, memory_bytes_spilled, disk_bytes_spilled, task_memory_used; } cs_executor_metrics;
/* A named accumulator in a task's or stage's Accumulables (Spark's AccumulableInfo): values already
 * rendered as Spark writes an external accumulator's (strings); update NULL for a stage. */
typedef struct cs_accumulable { int64_t id; const char *name; const char *update; const char *value; } cs_accumulable;
/* Why a task failed, as Spark's TaskEndReason subclasses (the event log writes their fields). */
typedef enum { CS_END_EXCEPTION, CS_END_FETCH_FAILED, CS_END_EXECUTOR_LOST, CS_END_TASK_KILLED } cs_task_end_kind;
typedef struct cs_task_end_reason {
    cs_task_end_kind kind;
    int shuffle_id, map_id, reduce_id;            /* FetchFailed */
    char bm_executor_id[64]; char bm_host[256]; int bm_port; /* FetchFailed: the map output's block manager ("" unknown) */
    char lost_executor_id[64]; bool exit_caused_by_app; char loss_reason[512]; /* ExecutorLostFailure */
} cs_task_end_reason;
typedef struct cs_event {
    cs_event_kind kind; int64_t time_ms;          /* wall clock ms */
    int job_id; int stage_id; int stage_attempt; int num_tasks;  /* stage: tasks in this attempt */
    const char *stage_name;                       /* e.g. "reduce_by_key at wordcount.so:cspark_main" — copied by post */
    const int *stage_ids; int num_stage_ids;      /* job start: the job's stages, copied */
    int64_t task_id; int partition; int attempt; const char *executor_id; const char *host; bool speculative;
    bool succeeded; const char *reason;           /* job end / stage completed / task end failure reason, copied */
    const char *task_type;                        /* "ShuffleMapTask" / "ResultTask" */
    cs_task_metrics metrics;                      /* task end (plan/task.h) */
    int executor_cores; const char *app_id; const char *app_name; const char *user; /* executor added, app start */
    const cs_conf *conf;                          /* environment update: properties (redacted when written), borrowed during post */
    /* additions (optional; zero means absent): */
    const int *stage_num_tasks;                   /* job start: tasks of each stage, parallel to stage_ids, copied; the
                                                     job's stage_name names its final stage (Spark's job name) */
    int target_executors, previous_target;        /* allocation target: new and old target; reason says why */
    int pending_tasks, running_tasks;             /* allocation target: the backlog it was computed from */
    const cs_rdd_info *rdd_infos; int num_rdd_infos;           /* stage submitted/completed: the RDDs the stage
                                                                  computes, its own RDD first; copied with their strings */
    const int *parent_stage_ids; int num_parent_stage_ids;     /* stage submitted/completed: copied */
    const int *stage_num_parents;                 /* job start: parent count of each stage, parallel to stage_ids, copied */
    const int *stage_parents;                     /* job start: the parents' stage ids, concatenated in stage_ids order, copied */
    const cs_executor_metrics *exec_metrics;      /* executor metrics: the heartbeat's figures, copied */
    const cs_accumulable *accumulables; int num_accumulables;  /* task end, stage completed: copied */
    const struct cs_task_end_reason *end_reason;  /* failed task end: Spark's TaskEndReason, copied; NULL: ExceptionFailure */
    const cs_block_status *updated_blocks; int num_updated_blocks; /* task end, block updated: blocks its executor stored or dropped, copied */
    int block_port;                               /* block updated: the executor's block server (0: local mode, none) */
    int locality;                                 /* task start/end: the cs_locality_level (sched/locality.h) the task
                                                     was launched at; 0 is PROCESS_LOCAL, also Spark's for a task
                                                     without a preference */
    const char *const *stage_names;               /* job start: each stage's name, parallel to stage_ids, copied */
    const char *const *job_properties; int num_job_properties; /* job start: the job's local properties (Spark's
                                                     Properties: spark.job.description, spark.jobGroup.id, ...),
                                                     num_job_properties key, value pairs, copied */
    int rdd_id;                                   /* unpersist: the RDD */
    int64_t sql_execution_id;                     /* SQL execution start/end: Spark's executionId */
    const char *sql_description;                  /* SQL execution start: the statement, copied */
    const char *sql_plan;                         /* SQL execution start: the physical plan as EXPLAIN prints it, copied */
    const char *sql_plan_info;                    /* SQL execution start: Spark's SparkPlanInfo tree as JSON text
                                                     ({"nodeName", "simpleString", "children", "metadata", "metrics"}), copied */
} cs_event;
typedef struct listener_bus listener_bus;
typedef void (*listener_fn)(void *arg, const cs_event *ev);
/* Creates the bus and its dispatch thread. Installs, from conf: the event log when spark.eventLog.enabled=true (spark.eventLog.dir, default file:/tmp/spark-events; compressed and rolled by default as Spark 4: event_log.h), the console progress bar when spark.ui.showConsoleProgress (default true) and stderr is a terminal, otherwise a listener that logs one line per stage start and end. Errors (event log dir missing / not writable) → NULL with a clear message naming spark.eventLog.dir. */
listener_bus *cs_listener_bus_new(const cs_conf *conf, const char *app_id, const char *app_name, cs_error *err);
void cs_listener_bus_add(listener_bus *bus, listener_fn fn, void *arg);   /* before the first post */
/* Deep-copies the event into a queue; never blocks the caller for long; cheap enough for 200,000 events/s (the scheduler posts task start/end for every task). If the queue exceeds spark.scheduler.listenerbus.eventqueue.capacity (10000) events, drop and count, and log once a minute as Spark does ("Dropped N events from ...").*/
void cs_listener_bus_post(listener_bus *bus, const cs_event *ev);
/* Waits until every event posted so far has been delivered (used by tests and before exit). */
void cs_listener_bus_flush(listener_bus *bus);
/* Flushes, stops the thread, finishes the event log (rename away .inprogress), erases the progress bar. */
void cs_listener_bus_free(listener_bus *bus);
/* clang-format on */

/* ---- additions ---------------------------------------------------------------------------- */

/* Posting conventions the built-in listeners rely on:
 *  - time_ms = 0 is stamped with the wall clock at post.
 *  - succeeded must be true for a successful TASK_END, STAGE_COMPLETED and JOB_END; false means
 *    failed (reason says why).
 *  - TASK_START when the task starts running on a core slot (the progress bar counts it as
 *    running); TASK_END carries the finish time and metrics; the event log takes the launch time
 *    from the matching TASK_START (same task_id).
 *  - STAGE_COMPLETED may omit stage_name/num_tasks: they are taken from STAGE_SUBMITTED of the same
 *    (stage_id, stage_attempt).
 * Built-in listeners: the event log first (when enabled), then the progress bar or the stage
 * logger, then listeners added with cs_listener_bus_add, in the order added. */

/* Total events dropped so far because the queue was full (thread-safe). */
int64_t cs_listener_bus_dropped(listener_bus *bus);

/* Path of the event log being written ("<dir>/<app_id>.inprogress" while the bus lives), or NULL
 * when spark.eventLog.enabled is false. Borrowed until cs_listener_bus_free. */
const char *cs_listener_bus_event_log_path(const listener_bus *bus);

/* Human-readable name of an event kind, Spark's class name ("SparkListenerTaskEnd"). Static. */
const char *cs_event_kind_name(cs_event_kind kind);

#endif /* CSPARK_SCHED_LISTENER_H */
