/* app_status_internal.h — the status store's insides, shared by its files: app_status.c (the
 * listener that keeps the state), app_status_storage.c (cached RDDs and the executors' share of
 * them), app_status_accums.c (named accumulators of stages and tasks), app_status_sql.c (SQL
 * queries) and app_status_query.c (lookups, creating stage records in order, and what readers
 * call).
 * Private to src/ui/app_status*.c; the rules of app_status.h (one lock, borrowed pointers) hold.
 */
#ifndef CSPARK_UI_APP_STATUS_INTERNAL_H
#define CSPARK_UI_APP_STATUS_INTERNAL_H

#include <pthread.h>

#include "common/hmap.h"
#include "ui/app_status.h"

/* Per job: what its start said about each stage, and whether it ran during the job. */
typedef struct job_extra {
    int *stage_tasks;
    bool *submitted;
    cs_hmap stage_pos; /* stage id -> its first index in stage_ids */
} job_extra;

typedef struct job_rec {
    ui_job pub;
    job_extra x;
} job_rec;

/* A running task: its stage and its index in the stage's task array. */
typedef struct run_slot {
    int64_t task_id;
    ui_stage *stage;
    size_t index;
    size_t next_free; /* 1 + the next free slot when this one is free, 0 at the chain's end */
} run_slot;

struct ui_store {
    pthread_mutex_t lock;
    ui_store_limits lim;
    ui_app app;

    job_rec **jobs;
    size_t njobs, capjobs;
    ui_stage **stages;
    size_t nstages, capstages;
    ui_executor **execs;
    size_t nexecs, capexecs;
    cs_hmap exec_index; /* executor id -> index in execs */
    ui_prop *props;
    size_t nprops;
    ui_rdd **rdds; /* persisted RDDs by ascending id */
    size_t nrdds, caprdds;
    struct ui_sql_exec **sql; /* SQL queries by ascending execution id (app_status_sql.c) */
    size_t nsql, capsql;

    char **strings; /* interned */
    size_t nstrings, capstrings;
    cs_hmap string_index;                 /* interned string -> index in strings */
    const char *last_exec_id, *last_host; /* intern's caches for task events */
    const char *last_rdd_name, *last_callsite;
    const char *last_found_id; /* find_exec's cache: this id is last_found */
    ui_executor *last_found;

    cs_hmap running;     /* running task id -> its slot in run_slots */
    run_slot *run_slots; /* reused through the free chain */
    size_t nrun_slots, caprun_slots;
    size_t free_run_slot; /* 1 + the first free slot, 0 when none */

    /* task events come in runs for one stage attempt: its record and its jobs' records are kept
     * here; cleared whenever a job or stage record goes or a stage gains a job */
    struct {
        ui_stage *stage;
        job_rec *jobs[4];
        int njobs; /* -1: more than fit, look them up */
    } cache;

    ui_store_counters counters;
    /* trim_stages found nothing more to drop (every stage past the retention still runs) and no
     * stage finished since: it need not walk the stages again until one does */
    uint64_t stages_finished, finished_at_stuck_trim;
    bool trim_stuck;
};

/* Binary searches (lock held): the position where the job / stage attempt is or would go. */
size_t cs_ui_job_pos(const ui_store *st, int id, bool *found);
size_t cs_ui_stage_pos(const ui_store *st, int id, int attempt, bool *found);
/* The record, or NULL. */
/* The record of a stage attempt, created (pending) where the order puts it when new. */
ui_stage *cs_ui_stage_new(ui_store *st, int id, int attempt);
/* Attempt 0 of every stage of ids not yet known, merged into the sorted stages in one pass: a job
 * start naming many stages (in any order) costs n log n, not a memmove per stage. */
void cs_ui_stages_add_new(ui_store *st, const int *ids, int n);
job_rec *cs_ui_find_job(const ui_store *st, int id);
ui_stage *cs_ui_find_stage(const ui_store *st, int id, int attempt);
ui_stage *cs_ui_latest_stage(const ui_store *st, int id); /* the stage's newest attempt */
ui_executor *cs_ui_find_exec(const ui_store *st, const char *id);
/* The interned copy of s (valid as long as the store). */
const char *cs_ui_intern(ui_store *st, const char *s);

/* ---- app_status_storage.c (lock held) ---- */
/* A stage's RDD infos: the persisted ones get their record (name, partitions, level). */
void cs_ui_storage_stage_rdds(ui_store *st, const cs_rdd_info *infos, int n);
/* Blocks executor_id stored (a level) or dropped (CSPARK_STORAGE_NONE): each sets that copy, so
 * the same report seen twice (a task end and its block update) counts once. */
void cs_ui_storage_blocks(ui_store *st, const char *executor_id, const cs_block_status *blocks,
                          int n);
void cs_ui_storage_unpersist(ui_store *st, int rdd_id);
/* The executor is gone: its copies leave the RDDs (Spark's onExecutorRemoved). */
void cs_ui_storage_executor_removed(ui_store *st, const char *executor_id);
void cs_ui_storage_free(ui_store *st);

/* ---- app_status_sql.c (lock held) ---- */
void cs_ui_sql_start(ui_store *st, const cs_event *ev);
void cs_ui_sql_end(ui_store *st, const cs_event *ev);
/* Job job_id, which carries spark.sql.execution.id exec_id, started (RUNNING) or ended. */
void cs_ui_sql_job(ui_store *st, int64_t exec_id, int job_id, ui_job_status status);
void cs_ui_sql_free(ui_store *st);

/* ---- app_status_accums.c ---- */
/* Sets each named accumulable's value in the stage (adding those it has not yet). */
void cs_ui_accums_stage_update(ui_stage *s, const cs_accumulable *a, int n);
/* The task's own updates (replacing any it had). */
void cs_ui_accums_task_set(ui_task *t, const cs_accumulable *a, int n);
void cs_ui_accums_free(ui_accum *a, int n);

/* index's value in a string map of indexes, -1 when absent */
static inline int cs_ui_index_get(const cs_hmap *index, const char *key)
{
    uint64_t v;
    return cs_hmap_sget(index, key, &v) ? (int)v : -1;
}

#endif /* CSPARK_UI_APP_STATUS_INTERNAL_H */
