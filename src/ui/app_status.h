/* app_status.h — the application's state as the web UI, the REST API and the metrics show it:
 * Spark's AppStatusListener and AppStatusStore in one module.
 *
 * A store is fed listener events, in posting order, by cs_ui_store_listener: live, as a listener
 * of the driver's bus (added by the UI server, so the scheduler never waits for it), or replayed
 * from an event log by the history server (history/event_replay.c). From the events it keeps the
 * application (id, name, user, times), its jobs, its stage attempts with their tasks and per-
 * executor summaries, its executors (live and dead, with the latest heartbeat metrics), its
 * environment (properties redacted with spark.redaction.regex), its cached RDDs (each cached
 * partition and the executors holding it, from the blocks task ends and block updates report;
 * gone when unpersisted or their executor is removed), the named accumulators each stage and
 * task updated (Spark's Accumulables) and the SQL queries with their plans and jobs
 * (app_status_sql.h). Jobs and stages that were announced by a job start but never
 * submitted are PENDING, and SKIPPED once their job ends, as in Spark. Retention is Spark's:
 * spark.ui.retainedJobs, spark.ui.retainedStages (1000 each), spark.ui.retainedTasks (100000, per
 * stage attempt: the oldest finished tasks go first) and spark.ui.retainedDeadExecutors (100);
 * totals and counts keep counting what was dropped.
 *
 * Threads: the listener runs on one thread (the bus's); readers (HTTP threads) call
 * cs_ui_store_lock, read through the accessors and the structs below, and unlock. The listener
 * takes the same lock for each event, so a reader sees whole events only. Every pointer a reader
 * gets is borrowed until it unlocks.
 * Ownership: cs_ui_store_new returns a store owned by the caller, freed with cs_ui_store_free
 * once no listener call and no reader can reach it.
 */
#ifndef CSPARK_UI_APP_STATUS_H
#define CSPARK_UI_APP_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/hmap.h"
#include "sched/listener.h"

typedef enum { UI_JOB_RUNNING, UI_JOB_SUCCEEDED, UI_JOB_FAILED, UI_JOB_UNKNOWN } ui_job_status;
typedef enum {
    UI_STAGE_ACTIVE,
    UI_STAGE_COMPLETE,
    UI_STAGE_FAILED,
    UI_STAGE_PENDING,
    UI_STAGE_SKIPPED
} ui_stage_status;
typedef enum { UI_TASK_RUNNING, UI_TASK_SUCCESS, UI_TASK_FAILED, UI_TASK_KILLED } ui_task_status;

/* Spark's names for the statuses: "RUNNING", "ACTIVE", "SUCCESS", ... Static strings. */
const char *cs_ui_job_status_name(ui_job_status s);
const char *cs_ui_stage_status_name(ui_stage_status s);
const char *cs_ui_task_status_name(ui_task_status s);

/* A named accumulator as a stage or task shows it (Spark's AccumulableInfo): values as the event
 * log writes them. A stage's has no update; a task's has no name (its stage's names it). */
typedef struct ui_accum {
    int64_t id;
    char *name;   /* NULL for a task's */
    char *update; /* NULL for a stage's */
    char *value;
} ui_accum;

typedef struct ui_task {
    int64_t task_id;
    int index, attempt, partition;
    ui_task_status status;
    bool speculative;
    int locality;                 /* cs_locality_level (sched/locality.h) it was launched at */
    int64_t launch_ms, finish_ms; /* finish_ms 0 while running */
    const char *executor_id;      /* interned: valid as long as the store */
    const char *host;             /* interned */
    char *error;                  /* failure or kill reason, NULL on success */
    cs_task_metrics m;            /* at the end of the task */
    ui_accum *accums;             /* the named accumulators it updated (successful tasks) */
    int num_accums;
} ui_task;

/* One executor's share of a stage attempt (Spark's ExecutorStageSummary). */
typedef struct ui_exec_stage {
    const char *executor_id; /* interned */
    int64_t task_time_ms;
    int failed, succeeded, killed;
    cs_task_metrics m; /* sums */
} ui_exec_stage;

/* One RDD a stage computes (from the stage's RDD Info), for the stage's operation graph. */
typedef struct ui_rdd_node {
    int id;
    const char *name; /* Spark's class name, e.g. "MapPartitionsRDD"; valid as long as the store */
    const char *callsite; /* e.g. "map at wordcount.so:cspark_main"; the same */
    int num_partitions;
    int parent_ids[2];
    int num_parents;
} ui_rdd_node;

typedef struct ui_stage {
    int stage_id, attempt;
    ui_stage_status status;
    char *name;
    char *failure_reason; /* NULL unless failed */
    int num_tasks;
    int64_t submission_ms, first_launch_ms, completion_ms; /* 0 = not yet */
    int active, complete, failed, killed, completed_indices;
    cs_task_metrics m; /* sums over finished tasks */
    int *job_ids;
    int num_jobs;
    int submitted_job; /* the job that submitted this attempt, -1 = none yet */
    int *parent_ids;   /* parent stages, when the job start named them */
    int num_parents;
    ui_task *tasks; /* in launch order; the oldest finished ones dropped past the retention */
    size_t num_tasks_kept, cap_tasks;
    int64_t tasks_dropped;
    ui_exec_stage *execs;
    int num_execs, cap_execs;
    uint8_t *done_bits; /* partitions finished once (for completed_indices), up to a size
                         * proportional to the tasks seen; indices beyond it in done_sparse */
    size_t done_cap;
    cs_hmap done_sparse;
    ui_rdd_node *rdds; /* the RDDs it computes, its own first (empty when the events had none) */
    int num_rdds;
    ui_accum *accums; /* the named accumulators its tasks updated, with their latest values */
    int num_accums;
} ui_stage;

typedef struct ui_job {
    int job_id;
    char *name;               /* its action's call site, "count at app.so:cspark_main" */
    char *description;        /* spark.job.description, NULL when not set */
    char *group;              /* spark.jobGroup.id, NULL when not set */
    int64_t sql_execution_id; /* spark.sql.execution.id: the SQL query it ran, -1 none */
    int64_t submission_ms, completion_ms;
    ui_job_status status;
    char *error; /* why it failed */
    int *stage_ids;
    int num_stages;
    int num_tasks, active_tasks, completed_tasks, skipped_tasks, failed_tasks, killed_tasks,
        completed_indices;
    int active_stages, completed_stages, skipped_stages, failed_stages;
} ui_job;

typedef struct ui_executor {
    const char *id;   /* interned */
    const char *host; /* interned */
    int cores;
    bool active;
    int64_t add_ms, remove_ms;
    char *remove_reason;
    int active_tasks, failed_tasks, completed_tasks;
    int64_t total_duration_ms, total_input_bytes, total_shuffle_read, total_shuffle_write;
    bool have_metrics;           /* a heartbeat reported metrics */
    cs_executor_metrics metrics; /* the latest heartbeat's */
    cs_executor_metrics peak;    /* the peak of each figure so far */
    int64_t metrics_update_ms;
    int rdd_blocks;                 /* cached partitions it holds (Spark's rddBlocks) */
    int64_t memory_used, disk_used; /* what they take in memory and on disk */
} ui_executor;

/* One copy of a cached partition: on which executor, and what it takes there. */
typedef struct ui_block_copy {
    const char *executor_id; /* interned */
    int level;               /* the block's cspark_storage_level */
    int64_t memory_size, disk_size;
} ui_block_copy;

/* A cached partition of an RDD (Spark's RDDPartitionInfo). */
typedef struct ui_rdd_partition {
    int partition;
    ui_block_copy *copies;
    int num_copies, cap_copies;
} ui_rdd_partition;

/* A persisted RDD (Spark's LiveRDD / RDDStorageInfo): announced by a stage's RDD info with a
 * storage level, filled by the blocks executors report. */
typedef struct ui_rdd {
    int id;
    char *name;
    int num_partitions;
    int level;                 /* the cspark_storage_level it was persisted at */
    const char *storage_level; /* Spark's description of level ("Memory Deserialized 1x
                                  Replicated"); static */
    int num_cached_partitions; /* = num_parts */
    int64_t memory_used, disk_used;
    bool reported;           /* a block of it was reported (Spark writes the RDD then) */
    ui_rdd_partition *parts; /* cached partitions, in the order they came */
    int num_parts, cap_parts;
    cs_hmap part_index; /* partition -> index in parts */
} ui_rdd;

typedef struct ui_prop {
    char *key, *value; /* value already redacted */
} ui_prop;

typedef struct ui_app {
    char *id, *name, *user, *spark_version;
    int64_t start_ms, end_ms; /* end_ms 0 while running */
    bool completed;
} ui_app;

typedef struct ui_store_limits {
    int retained_jobs, retained_stages, retained_tasks, retained_dead_executors;
    int retained_executions; /* SQL queries (app_status_sql.h) */
} ui_store_limits;

typedef struct ui_store ui_store;

/* Reads spark.ui.retained{Jobs,Stages,Tasks,DeadExecutors} (1000, 1000, 100000, 100) and
 * spark.sql.ui.retainedExecutions (1000) from conf (NULL: the defaults); CS_EINVAL naming the key
 * for a value below 1. */
int cs_ui_store_limits_read(const cs_conf *conf, ui_store_limits *out, cs_error *err);

/* The environment is redacted with the spark.redaction.regex of the environment update's own
 * properties (Spark's default regex when it has none). lim NULL: the defaults. */
ui_store *cs_ui_store_new(const ui_store_limits *lim);
void cs_ui_store_free(ui_store *st);

/* The version shown as appSparkVersion (the live driver's own; a log's SparkListenerLogStart). */
void cs_ui_store_set_spark_version(ui_store *st, const char *version);

/* The bus listener: arg is the store. */
void cs_ui_store_listener(void *arg, const cs_event *ev);

void cs_ui_store_lock(ui_store *st);
void cs_ui_store_unlock(ui_store *st);

/* ---- reading: with the lock held; everything borrowed until unlock ----------------------------
 */

const ui_app *cs_ui_store_app(const ui_store *st);
/* Jobs in ascending id order. */
size_t cs_ui_store_num_jobs(const ui_store *st);
const ui_job *cs_ui_store_job_at(const ui_store *st, size_t i);
const ui_job *cs_ui_store_job(const ui_store *st, int job_id);
/* Stage attempts in ascending (stage id, attempt) order. */
size_t cs_ui_store_num_stages(const ui_store *st);
const ui_stage *cs_ui_store_stage_at(const ui_store *st, size_t i);
/* attempt < 0: the latest attempt of the stage. */
const ui_stage *cs_ui_store_stage(const ui_store *st, int stage_id, int attempt);
/* Executors in the order they were added (the driver first). */
size_t cs_ui_store_num_executors(const ui_store *st);
const ui_executor *cs_ui_store_executor_at(const ui_store *st, size_t i);
const ui_executor *cs_ui_store_executor(const ui_store *st, const char *id);
/* Spark properties sorted by key. */
size_t cs_ui_store_num_props(const ui_store *st);
const ui_prop *cs_ui_store_prop_at(const ui_store *st, size_t i);
/* Persisted RDDs in ascending id order, cached or not (Spark lists those with a cached
 * partition: num_cached_partitions > 0). */
size_t cs_ui_store_num_rdds(const ui_store *st);
const ui_rdd *cs_ui_store_rdd_at(const ui_store *st, size_t i);
const ui_rdd *cs_ui_store_rdd(const ui_store *st, int rdd_id); /* NULL: none */
/* What the copies of the RDD's partitions on executor_id (interned: an executor's or a copy's id)
 * take; false when it holds none (Spark's RDDDataDistribution). */
bool cs_ui_rdd_share(const ui_rdd *r, const char *executor_id, int64_t *memory, int64_t *disk);
/* The RDD's cached partitions by ascending partition: a malloc'd array of borrowed pointers
 * (the caller frees the array), r->num_parts long. */
const ui_rdd_partition **cs_ui_rdd_parts_sorted(const ui_rdd *r);
/* Spark's StorageLevel.description of a cspark_storage_level ("Disk Serialized 1x Replicated",
 * "None" for CSPARK_STORAGE_NONE). Static. */
const char *cs_ui_storage_level_name(int level);

/* Counters since the store was created (Spark's appStatus source and listener bus counters). */
typedef struct ui_store_counters {
    int64_t events;                      /* events received */
    int64_t jobs_succeeded, jobs_failed; /* ended jobs */
    int64_t stages_completed, stages_failed, stages_skipped;
    int64_t tasks_completed, tasks_failed, tasks_killed, tasks_skipped;
    int active_jobs, active_stages, pending_stages; /* now */
    int active_tasks;                               /* now */
    int executors_active;                           /* now */
    int allocation_target;                          /* dynamic allocation's target, -1 = none */
} ui_store_counters;
void cs_ui_store_counters(const ui_store *st, ui_store_counters *out);

/* Quantiles of the successful tasks of a stage attempt (Spark's taskSummary): for each metric
 * below, q[i] for quantiles[i] (nearest rank over the sorted values, as Spark's
 * AppStatusStore.taskSummary). Returns the number of tasks summarised (0: out is zeroed). */
typedef enum {
    UI_QM_DURATION,
    UI_QM_RUN_TIME,
    UI_QM_CPU_TIME,
    UI_QM_RESULT_SIZE,
    UI_QM_SCHEDULER_DELAY,
    UI_QM_PEAK_MEMORY,
    UI_QM_MEMORY_SPILLED,
    UI_QM_DISK_SPILLED,
    UI_QM_INPUT_BYTES,
    UI_QM_INPUT_RECORDS,
    UI_QM_OUTPUT_BYTES,
    UI_QM_OUTPUT_RECORDS,
    UI_QM_SHUFFLE_READ_BYTES,
    UI_QM_SHUFFLE_READ_RECORDS,
    UI_QM_SHUFFLE_WRITE_BYTES,
    UI_QM_SHUFFLE_WRITE_RECORDS,
    UI_QM_COUNT
} ui_quantile_metric;
#define UI_MAX_QUANTILES 16
size_t cs_ui_stage_quantiles(const ui_stage *s, const double *quantiles, int nq,
                             double out[UI_QM_COUNT][UI_MAX_QUANTILES]);

/* A task's duration (finish - launch, or now - launch while running) in ms. */
int64_t cs_ui_task_duration_ms(const ui_task *t, int64_t now_ms);

#endif /* CSPARK_UI_APP_STATUS_H */
