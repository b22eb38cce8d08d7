/* app_status.c — the UI's application state built from listener events (see app_status.h).
 *
 * Layout: jobs and stage attempts are arrays of pointers kept sorted (jobs by id, stages by
 * (id, attempt)), found by binary search; executors are an array in arrival order with an id ->
 * index map; executor ids and host names are interned once so that every task points at them
 * instead of copying them. Running tasks are found by task id through a map (common/hmap: task id
 * -> a slot naming the stage and the task's index) that holds running tasks only: an entry is added
 * at task start, taken at task end, and rewritten when a stage's task array is compacted. Per event
 * the listener does O(1) work plus a binary search, under the store's mutex.
 *
 * Counting follows Spark's AppStatusListener: a job start creates PENDING records for its stages
 * not seen before; a stage submission makes the attempt ACTIVE; task ends count into the stage,
 * its jobs and the executor (successful, failed, killed; completed indices once per partition);
 * when a job ends, its stages that were not submitted during it are skipped (their tasks counted
 * as skipped) and PENDING ones become SKIPPED. What readers call (accessors, lookups, quantiles)
 * is in app_status_query.c; the struct both files share is in app_status_internal.h.
 */
#include "ui/app_status_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"

#define DEFAULT_RETAINED_JOBS 1000
#define DEFAULT_RETAINED_STAGES 1000
#define DEFAULT_RETAINED_TASKS 100000
#define DEFAULT_RETAINED_DEAD_EXECUTORS 100
#define DEFAULT_RETAINED_EXECUTIONS 1000

/* ---- limits ------------------------------------------------------------------------------- */

int cs_ui_store_limits_read(const cs_conf *conf, ui_store_limits *out, cs_error *err)
{
    static const struct {
        const char *key;
        int dflt;
        size_t off;
    } keys[] = {
        {"spark.ui.retainedJobs", DEFAULT_RETAINED_JOBS, offsetof(ui_store_limits, retained_jobs)},
        {"spark.ui.retainedStages", DEFAULT_RETAINED_STAGES,
         offsetof(ui_store_limits, retained_stages)},
        {"spark.ui.retainedTasks", DEFAULT_RETAINED_TASKS,
         offsetof(ui_store_limits, retained_tasks)},
        {"spark.ui.retainedDeadExecutors", DEFAULT_RETAINED_DEAD_EXECUTORS,
         offsetof(ui_store_limits, retained_dead_executors)},
        {"spark.sql.ui.retainedExecutions", DEFAULT_RETAINED_EXECUTIONS,
         offsetof(ui_store_limits, retained_executions)},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        int64_t v = keys[i].dflt;
        if (conf) {
            char d[24];
            snprintf(d, sizeof d, "%d", keys[i].dflt);
            if (cs_conf_get_int(conf, keys[i].key, d, &v, err) < 0) return err->code;
            if (v < 1 || v > 100000000)
                return cs_error_set(err, CS_EINVAL,
                                    "invalid value for %s: '%lld' (expected an integer from 1 to "
                                    "100000000)",
                                    keys[i].key, (long long)v);
        }
        *(int *)(void *)((char *)out + keys[i].off) = (int)v;
    }
    return 0;
}

/* ---- small helpers ------------------------------------------------------------------------ */

/* Interned copy of s; *last caches the previous answer of this call site (task events name the
 * same executor and host over and over), so a repeat costs one string comparison. */
static const char *intern(ui_store *st, const char *s, const char **last)
{
    if (!s) s = "";
    if (*last && (*last)[0] == s[0] && strcmp(*last, s) == 0) return *last;
    return *last = cs_ui_intern(st, s);
}

const char *cs_ui_intern(ui_store *st, const char *s)
{
    int i = cs_ui_index_get(&st->string_index, s);
    if (i >= 0) return st->strings[i];
    if (st->nstrings == st->capstrings) {
        st->capstrings = st->capstrings ? 2 * st->capstrings : 16;
        st->strings = cs_xrealloc(st->strings, st->capstrings * sizeof *st->strings);
    }
    st->strings[st->nstrings] = cs_xstrdup(s);
    cs_hmap_sput(&st->string_index, s, (uint64_t)st->nstrings);
    return st->strings[st->nstrings++];
}

static char *dup_or_null(const char *s)
{
    return s ? cs_xstrdup(s) : NULL;
}

static void set_str(char **dst, const char *s)
{
    free(*dst);
    *dst = dup_or_null(s);
}

static void metrics_add(cs_task_metrics *restrict sum, const cs_task_metrics *restrict m)
{
    sum->run_time_ms += m->run_time_ms;
    sum->cpu_time_ns += m->cpu_time_ns;
    sum->result_size += m->result_size;
    sum->records_read += m->records_read;
    sum->bytes_read += m->bytes_read;
    sum->records_written += m->records_written;
    sum->bytes_written += m->bytes_written;
    sum->shuffle_bytes_written += m->shuffle_bytes_written;
    sum->shuffle_records_written += m->shuffle_records_written;
    sum->shuffle_bytes_read += m->shuffle_bytes_read;
    sum->shuffle_records_read += m->shuffle_records_read;
    sum->memory_bytes_spilled += m->memory_bytes_spilled;
    sum->disk_bytes_spilled += m->disk_bytes_spilled;
    sum->peak_execution_memory += m->peak_execution_memory;
    sum->shuffle_remote_bytes_read += m->shuffle_remote_bytes_read;
    sum->shuffle_local_blocks_fetched += m->shuffle_local_blocks_fetched;
    sum->shuffle_remote_blocks_fetched += m->shuffle_remote_blocks_fetched;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Adds parents to a stage's: sorted, without duplicates, in n log n however many a log lists. */
static void merge_parents(ui_stage *s, const int *parents, int n)
{
    if (n <= 0) return;
    int total = s->num_parents + n;
    s->parent_ids = cs_xrealloc(s->parent_ids, (size_t)total * sizeof *s->parent_ids);
    memcpy(s->parent_ids + s->num_parents, parents, (size_t)n * sizeof *parents);
    qsort(s->parent_ids, (size_t)total, sizeof *s->parent_ids, cmp_int);
    int w = 0;
    for (int r = 0; r < total; r++)
        if (w == 0 || s->parent_ids[w - 1] != s->parent_ids[r])
            s->parent_ids[w++] = s->parent_ids[r];
    s->num_parents = w;
}

static bool add_int(int **arr, int *n, int v)
{
    /* ids mostly arrive ascending: a larger one than the last is new without a scan */
    bool ascending = *n > 0 && (*arr)[*n - 1] < v;
    for (int i = 0; i < *n && !ascending; i++)
        if ((*arr)[i] == v) return false;
    *arr = cs_xrealloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    (*arr)[(*n)++] = v;
    return true;
}

/* ---- running-task table ------------------------------------------------------------------- */

static run_slot *running_find(ui_store *st, int64_t id)
{
    uint64_t k;
    return cs_hmap_get(&st->running, (uint64_t)id, &k) ? &st->run_slots[k] : NULL;
}

static void running_put(ui_store *st, int64_t id, ui_stage *s, size_t index)
{
    run_slot *slot = running_find(st, id);
    if (!slot) {
        size_t k;
        if (st->free_run_slot) {
            k = st->free_run_slot - 1;
            st->free_run_slot = st->run_slots[k].next_free;
        } else {
            if (st->nrun_slots == st->caprun_slots) {
                st->caprun_slots = st->caprun_slots ? 2 * st->caprun_slots : 256;
                st->run_slots =
                    cs_xrealloc(st->run_slots, st->caprun_slots * sizeof *st->run_slots);
            }
            k = st->nrun_slots++;
        }
        cs_hmap_put(&st->running, (uint64_t)id, k);
        slot = &st->run_slots[k];
    }
    *slot = (run_slot){id, s, index, 0};
}

static void running_del(ui_store *st, run_slot *slot)
{
    cs_hmap_del(&st->running, (uint64_t)slot->task_id);
    slot->next_free = st->free_run_slot;
    st->free_run_slot = (size_t)(slot - st->run_slots) + 1;
}

/* ---- records ------------------------------------------------------------------------------ */

/* find_exec for an interned id (a task's), through a one-entry cache cleared whenever an
 * executor record is added or freed. */
static ui_executor *task_exec(ui_store *st, const char *interned_id)
{
    if (st->last_found_id != interned_id) {
        st->last_found = cs_ui_find_exec(st, interned_id);
        st->last_found_id = interned_id;
    }
    return st->last_found;
}

static void cache_clear(ui_store *st)
{
    st->cache.stage = NULL;
}

/* ---- retention ---------------------------------------------------------------------------- */

static void free_rdds(ui_stage *s)
{
    free(s->rdds); /* names and callsites are interned */
    s->rdds = NULL;
    s->num_rdds = 0;
}

static void stage_free(ui_stage *s)
{
    free_rdds(s);
    cs_ui_accums_free(s->accums, s->num_accums);
    for (size_t i = 0; i < s->num_tasks_kept; i++) {
        free(s->tasks[i].error);
        cs_ui_accums_free(s->tasks[i].accums, s->tasks[i].num_accums);
    }
    free(s->tasks);
    free(s->execs);
    free(s->name);
    free(s->failure_reason);
    free(s->job_ids);
    free(s->parent_ids);
    free(s->done_bits);
    cs_hmap_free(&s->done_sparse);
    free(s);
}

static void job_free(job_rec *j)
{
    free(j->pub.name);
    free(j->pub.description);
    free(j->pub.group);
    free(j->pub.error);
    free(j->pub.stage_ids); /* the block holding stage_tasks and submitted too */
    cs_hmap_free(&j->x.stage_pos);
    free(j);
}

static bool stage_finished(const ui_stage *s)
{
    return s->status == UI_STAGE_COMPLETE || s->status == UI_STAGE_FAILED ||
           s->status == UI_STAGE_SKIPPED;
}

/* Drops the oldest finished stage attempts past spark.ui.retainedStages (10% more at once). */
static void trim_stages(ui_store *st)
{
    if (st->nstages <= (size_t)st->lim.retained_stages) return;
    /* stuck behind unfinished stages (a job declaring many stages makes them pending at once):
     * scan again once a tenth of the bound more have finished, not on every submission, which
     * was quadratic (100,000 declared stages: minutes) */
    uint64_t step = st->lim.retained_stages >= 10 ? (uint64_t)st->lim.retained_stages / 10 : 1;
    if (st->trim_stuck && st->stages_finished - st->finished_at_stuck_trim < step) return;
    cache_clear(st);
    size_t target = st->nstages - (size_t)st->lim.retained_stages;
    target += (size_t)st->lim.retained_stages / 10;
    size_t w = 0, dropped = 0;
    for (size_t r = 0; r < st->nstages; r++) {
        ui_stage *s = st->stages[r];
        if (dropped < target && stage_finished(s) && s->active == 0) {
            stage_free(s);
            dropped++;
        } else {
            st->stages[w++] = s;
        }
    }
    st->nstages = w;
    st->trim_stuck = st->nstages > (size_t)st->lim.retained_stages;
    st->finished_at_stuck_trim = st->stages_finished;
}

static void trim_jobs(ui_store *st)
{
    if (st->njobs <= (size_t)st->lim.retained_jobs) return;
    cache_clear(st);
    size_t target = st->njobs - (size_t)st->lim.retained_jobs;
    target += (size_t)st->lim.retained_jobs / 10;
    size_t w = 0, dropped = 0;
    for (size_t r = 0; r < st->njobs; r++) {
        job_rec *j = st->jobs[r];
        if (dropped < target && j->pub.status != UI_JOB_RUNNING) {
            job_free(j);
            dropped++;
        } else {
            st->jobs[w++] = j;
        }
    }
    st->njobs = w;
}

/* Drops the oldest finished tasks of a stage past spark.ui.retainedTasks. */
static void trim_tasks(ui_store *st, ui_stage *s)
{
    size_t limit = (size_t)st->lim.retained_tasks;
    if (s->num_tasks_kept <= limit) return;
    size_t drop = s->num_tasks_kept - limit + limit / 10, dropped = 0, w = 0;
    for (size_t r = 0; r < s->num_tasks_kept; r++) {
        ui_task *t = &s->tasks[r];
        if (dropped < drop && t->status != UI_TASK_RUNNING) {
            free(t->error);
            cs_ui_accums_free(t->accums, t->num_accums);
            dropped++;
            continue;
        }
        if (w != r) s->tasks[w] = *t;
        if (s->tasks[w].status == UI_TASK_RUNNING) running_put(st, s->tasks[w].task_id, s, w);
        w++;
    }
    s->num_tasks_kept = w;
    s->tasks_dropped += (int64_t)dropped;
}

static void trim_dead_executors(ui_store *st)
{
    size_t dead = 0;
    for (size_t i = 0; i < st->nexecs; i++)
        dead += !st->execs[i]->active;
    if (dead <= (size_t)st->lim.retained_dead_executors) return;
    st->last_found_id = NULL;
    size_t drop = dead - (size_t)st->lim.retained_dead_executors, w = 0;
    for (size_t r = 0; r < st->nexecs; r++) {
        ui_executor *e = st->execs[r];
        if (drop > 0 && !e->active) {
            cs_hmap_sdel(&st->exec_index, e->id);
            free(e->remove_reason);
            free(e);
            drop--;
            continue;
        }
        st->execs[w] = e;
        cs_hmap_sput(&st->exec_index, e->id, (uint64_t)w);
        w++;
    }
    st->nexecs = w;
}

/* ---- events ------------------------------------------------------------------------------- */

static void on_job_start(ui_store *st, const cs_event *ev)
{
    bool found;
    size_t pos = cs_ui_job_pos(st, ev->job_id, &found);
    if (found) return; /* a duplicate start: keep the first */
    cache_clear(st);   /* its stages gain a job */
    job_rec *j = cs_xcalloc(1, sizeof *j);
    j->pub.job_id = ev->job_id;
    j->pub.name = cs_xstrdup(ev->stage_name ? ev->stage_name : "");
    j->pub.sql_execution_id = -1;
    for (int i = 0; i < ev->num_job_properties; i++) {
        const char *k = ev->job_properties[2 * i], *v = ev->job_properties[2 * i + 1];
        if (strcmp(k, "spark.job.description") == 0) set_str(&j->pub.description, v);
        if (strcmp(k, "spark.jobGroup.id") == 0) set_str(&j->pub.group, v);
        int64_t exec_id;
        if (strcmp(k, "spark.sql.execution.id") == 0 && cs_str_to_int_in(v, 0, INT64_MAX, &exec_id))
            j->pub.sql_execution_id = exec_id;
    }
    if (j->pub.sql_execution_id >= 0)
        cs_ui_sql_job(st, j->pub.sql_execution_id, ev->job_id, UI_JOB_RUNNING);
    j->pub.submission_ms = ev->time_ms;
    j->pub.status = UI_JOB_RUNNING;
    int n = ev->num_stage_ids > 0 && ev->stage_ids ? ev->num_stage_ids : 0;
    j->pub.num_stages = n;
    /* one block: stage ids, their task counts, then the submitted flags */
    int *block = cs_xcalloc(2 * ((size_t)n + 1) * sizeof(int) + (size_t)n + 1, 1);
    j->pub.stage_ids = block;
    j->x.stage_tasks = block + n + 1;
    j->x.submitted = (bool *)(void *)(block + 2 * (n + 1));
    int last = -1;
    for (int i = 0; i < n; i++)
        if (last < 0 || ev->stage_ids[i] > ev->stage_ids[last]) last = i;
    cs_ui_stages_add_new(st, ev->stage_ids, n);
    const int *parents = ev->stage_parents;
    for (int i = 0; i < n; i++) {
        int sid = ev->stage_ids[i];
        int tasks = ev->stage_num_tasks ? ev->stage_num_tasks[i] : 0;
        j->pub.stage_ids[i] = sid;
        j->x.stage_tasks[i] = tasks;
        uint64_t seen;
        if (!cs_hmap_get(&j->x.stage_pos, (uint64_t)(uint32_t)sid, &seen))
            cs_hmap_put(&j->x.stage_pos, (uint64_t)(uint32_t)sid, (uint64_t)i);
        j->pub.num_tasks += tasks;
        ui_stage *s = cs_ui_latest_stage(st, sid);
        if (!s) {
            s = cs_ui_stage_new(st, sid, 0);
            s->num_tasks = tasks;
            if (ev->stage_names)
                s->name = cs_xstrdup(ev->stage_names[i]);
            else if (i == last)
                s->name = cs_xstrdup(j->pub.name);
        }
        add_int(&s->job_ids, &s->num_jobs, ev->job_id);
        int np = ev->stage_num_parents && parents ? ev->stage_num_parents[i] : 0;
        if (np > 0 && s->num_parents == 0) merge_parents(s, parents, np);
        if (np > 0) parents += np;
    }
    if (st->njobs == st->capjobs) {
        st->capjobs = st->capjobs ? 2 * st->capjobs : 32;
        st->jobs = cs_xrealloc(st->jobs, st->capjobs * sizeof *st->jobs);
    }
    memmove(st->jobs + pos + 1, st->jobs + pos, (st->njobs - pos) * sizeof *st->jobs);
    st->jobs[pos] = j;
    st->njobs++;
    st->counters.active_jobs++;
    trim_jobs(st);
    trim_stages(st);
}

static int job_stage_index(const job_rec *j, int stage_id)
{
    uint64_t i;
    return cs_hmap_get(&j->x.stage_pos, (uint64_t)(uint32_t)stage_id, &i) ? (int)i : -1;
}

static void on_job_end(ui_store *st, const cs_event *ev)
{
    job_rec *j = cs_ui_find_job(st, ev->job_id);
    if (!j || j->pub.status != UI_JOB_RUNNING) return;
    j->pub.status = ev->succeeded ? UI_JOB_SUCCEEDED : UI_JOB_FAILED;
    j->pub.completion_ms = ev->time_ms;
    if (j->pub.sql_execution_id >= 0)
        cs_ui_sql_job(st, j->pub.sql_execution_id, j->pub.job_id, j->pub.status);
    if (!ev->succeeded) set_str(&j->pub.error, ev->reason ? ev->reason : "job failed");
    for (int i = 0; i < j->pub.num_stages; i++) {
        if (j->x.submitted[i]) continue;
        j->pub.skipped_stages++;
        j->pub.skipped_tasks += j->x.stage_tasks[i];
        st->counters.stages_skipped++;
        st->counters.tasks_skipped += j->x.stage_tasks[i];
        ui_stage *s = cs_ui_latest_stage(st, j->pub.stage_ids[i]);
        if (s && s->status == UI_STAGE_PENDING) {
            s->status = UI_STAGE_SKIPPED;
            st->stages_finished++;
            st->counters.pending_stages--;
        }
    }
    st->counters.active_jobs--;
    if (ev->succeeded)
        st->counters.jobs_succeeded++;
    else
        st->counters.jobs_failed++;
}

/* The stage attempt (id, attempt), through the cache. */
static ui_stage *lookup_stage(ui_store *st, int id, int attempt)
{
    ui_stage *s = st->cache.stage;
    if (s && s->stage_id == id && s->attempt == attempt) return s;
    return cs_ui_find_stage(st, id, attempt);
}

/* The job records the stage belongs to: *out points at up to n of them. */
static int stage_jobs(ui_store *st, ui_stage *s, job_rec ***out, job_rec **buf, int cap)
{
    if (st->cache.stage != s) {
        st->cache.stage = s;
        st->cache.njobs = s->num_jobs <= 4 ? 0 : -1;
        for (int i = 0; st->cache.njobs >= 0 && i < s->num_jobs; i++) {
            job_rec *j = cs_ui_find_job(st, s->job_ids[i]);
            if (j) st->cache.jobs[st->cache.njobs++] = j;
        }
    }
    if (st->cache.njobs >= 0) {
        *out = st->cache.jobs;
        return st->cache.njobs;
    }
    int n = 0;
    for (int i = 0; i < s->num_jobs && n < cap; i++) {
        job_rec *j = cs_ui_find_job(st, s->job_ids[i]);
        if (j) buf[n++] = j;
    }
    *out = buf;
    return n;
}

static void on_stage_submitted(ui_store *st, const cs_event *ev)
{
    ui_stage *s = cs_ui_stage_new(st, ev->stage_id, ev->stage_attempt);
    if (s->status == UI_STAGE_ACTIVE) return;
    cache_clear(st); /* it may gain jobs */
    if (s->status == UI_STAGE_PENDING) st->counters.pending_stages--;
    s->status = UI_STAGE_ACTIVE;
    s->num_tasks = ev->num_tasks;
    s->submission_ms = ev->time_ms;
    if (ev->stage_name && (!s->name || strcmp(s->name, ev->stage_name) != 0))
        set_str(&s->name, ev->stage_name);
    /* a new attempt inherits what earlier attempts learnt from the job start */
    ui_stage *first = cs_ui_find_stage(st, ev->stage_id, 0);
    if (first && first != s) {
        for (int i = 0; i < first->num_jobs; i++)
            add_int(&s->job_ids, &s->num_jobs, first->job_ids[i]);
        merge_parents(s, first->parent_ids, first->num_parents);
    }
    if (ev->parent_stage_ids) merge_parents(s, ev->parent_stage_ids, ev->num_parent_stage_ids);
    if (ev->num_rdd_infos > 0 && ev->rdd_infos) {
        free_rdds(s);
        s->rdds = cs_xcalloc((size_t)ev->num_rdd_infos, sizeof *s->rdds);
        for (int i = 0; i < ev->num_rdd_infos; i++) {
            const cs_rdd_info *r = &ev->rdd_infos[i];
            ui_rdd_node *d = &s->rdds[s->num_rdds++];
            d->id = r->id;
            /* class names and call sites repeat in every job: interned, not copied */
            d->name = intern(st, r->name ? r->name : "RDD", &st->last_rdd_name);
            d->callsite = intern(st, r->callsite, &st->last_callsite);
            d->num_partitions = r->num_partitions;
            d->num_parents = r->num_parents < 0 ? 0 : r->num_parents > 2 ? 2 : r->num_parents;
            memcpy(d->parent_ids, r->parent_ids, sizeof d->parent_ids);
        }
        cs_ui_storage_stage_rdds(st, ev->rdd_infos, ev->num_rdd_infos);
    }
    if (ev->job_id >= 0 && cs_ui_find_job(st, ev->job_id))
        add_int(&s->job_ids, &s->num_jobs, ev->job_id);
    /* the submitting job: the event's, else (a replayed log) the newest running job of the stage */
    s->submitted_job = ev->job_id >= 0 ? ev->job_id : -1;
    for (int i = 0; s->submitted_job < 0 && i < s->num_jobs; i++) {
        job_rec *j = cs_ui_find_job(st, s->job_ids[s->num_jobs - 1 - i]);
        if (j && j->pub.status == UI_JOB_RUNNING) s->submitted_job = j->pub.job_id;
    }
    st->counters.active_stages++;
    job_rec *jbuf[64], **jobs;
    int nj = stage_jobs(st, s, &jobs, jbuf, 64);
    for (int k = 0; k < nj; k++) {
        job_rec *j = jobs[k];
        int k = job_stage_index(j, s->stage_id);
        if (k >= 0) j->x.submitted[k] = true;
        j->pub.active_stages++;
    }
    trim_stages(st);
}

static void on_stage_completed(ui_store *st, const cs_event *ev)
{
    ui_stage *s = cs_ui_find_stage(st, ev->stage_id, ev->stage_attempt);
    if (s) cs_ui_accums_stage_update(s, ev->accumulables, ev->num_accumulables);
    if (!s || stage_finished(s)) return;
    bool was_active = s->status == UI_STAGE_ACTIVE;
    if (s->status == UI_STAGE_PENDING) st->counters.pending_stages--;
    s->status = ev->succeeded ? UI_STAGE_COMPLETE : UI_STAGE_FAILED;
    st->stages_finished++;
    s->completion_ms = ev->time_ms;
    if (!ev->succeeded) set_str(&s->failure_reason, ev->reason ? ev->reason : "stage failed");
    if (was_active) st->counters.active_stages--;
    if (ev->succeeded)
        st->counters.stages_completed++;
    else
        st->counters.stages_failed++;
    job_rec *jbuf[64], **jobs;
    int nj = stage_jobs(st, s, &jobs, jbuf, 64);
    for (int k = 0; k < nj; k++) {
        job_rec *j = jobs[k];
        if (was_active && j->pub.active_stages > 0) j->pub.active_stages--;
        if (ev->succeeded)
            j->pub.completed_stages++;
        else
            j->pub.failed_stages++;
    }
}

static ui_exec_stage *exec_stage(ui_stage *s, const char *exec_id)
{
    for (int i = 0; i < s->num_execs; i++)
        if (s->execs[i].executor_id == exec_id) return &s->execs[i]; /* interned: same pointer */
    if (s->num_execs == s->cap_execs) {
        s->cap_execs = s->cap_execs ? 2 * s->cap_execs : 4;
        s->execs = cs_xrealloc(s->execs, (size_t)s->cap_execs * sizeof *s->execs);
    }
    ui_exec_stage *e = &s->execs[s->num_execs++];
    memset(e, 0, sizeof *e);
    e->executor_id = exec_id;
    return e;
}

static void on_task_start(ui_store *st, const cs_event *ev)
{
    ui_stage *s = lookup_stage(st, ev->stage_id, ev->stage_attempt);
    if (!s) { /* a task of a stage we never saw submitted (a dropped event): make its record */
        s = cs_ui_stage_new(st, ev->stage_id, ev->stage_attempt);
        st->counters.pending_stages--;
        s->status = UI_STAGE_ACTIVE;
        st->counters.active_stages++;
        s->submission_ms = ev->time_ms;
    }
    if (running_find(st, ev->task_id)) return;
    if (s->num_tasks_kept == s->cap_tasks) {
        s->cap_tasks = s->cap_tasks ? 2 * s->cap_tasks : 16;
        s->tasks = cs_xrealloc(s->tasks, s->cap_tasks * sizeof *s->tasks);
    }
    ui_task *t = &s->tasks[s->num_tasks_kept];
    memset(t, 0, sizeof *t);
    t->task_id = ev->task_id;
    t->index = ev->partition;
    t->partition = ev->partition;
    t->attempt = ev->attempt;
    t->speculative = ev->speculative;
    t->locality = ev->locality;
    t->launch_ms = ev->time_ms;
    t->status = UI_TASK_RUNNING;
    t->executor_id = intern(st, ev->executor_id, &st->last_exec_id);
    t->host = intern(st, ev->host, &st->last_host);
    running_put(st, t->task_id, s, s->num_tasks_kept);
    s->num_tasks_kept++;
    if (s->first_launch_ms == 0) s->first_launch_ms = ev->time_ms;
    s->active++;
    st->counters.active_tasks++;
    job_rec *jbuf[64], **jobs;
    int nj = stage_jobs(st, s, &jobs, jbuf, 64);
    for (int k = 0; k < nj; k++)
        jobs[k]->pub.active_tasks++;
    ui_executor *e = task_exec(st, t->executor_id);
    if (e) e->active_tasks++;
    trim_tasks(st, s);
}

static ui_task_status end_status(const cs_event *ev)
{
    if (ev->succeeded) return UI_TASK_SUCCESS;
    if (ev->end_reason && ev->end_reason->kind == CS_END_TASK_KILLED) return UI_TASK_KILLED;
    return UI_TASK_FAILED;
}

/* Marks a partition finished; true the first time. The bitmap grows only while it stays within
 * a few bytes per task the stage has seen, so a log naming index 2^31-1 costs one map entry,
 * not 256 MiB: memory follows the input's size. */
static bool mark_index_done(ui_stage *s, int index)
{
    if (index < 0) return false;
    size_t byte = (size_t)index / 8;
    uint64_t unused;
    if (cs_hmap_size(&s->done_sparse) > 0 && cs_hmap_get(&s->done_sparse, (uint64_t)index, &unused))
        return false;
    size_t seen = (size_t)s->complete + (size_t)s->failed + (size_t)s->killed + 1;
    if (byte >= s->done_cap && byte >= 1024 + 4 * seen) {
        cs_hmap_put(&s->done_sparse, (uint64_t)index, 1);
        return true;
    }
    if (byte >= s->done_cap) {
        size_t cap = s->done_cap ? s->done_cap : 16;
        while (cap <= byte)
            cap *= 2;
        s->done_bits = cs_xrealloc(s->done_bits, cap);
        memset(s->done_bits + s->done_cap, 0, cap - s->done_cap);
        s->done_cap = cap;
    }
    uint8_t bit = (uint8_t)(1u << (index % 8));
    if (s->done_bits[byte] & bit) return false;
    s->done_bits[byte] |= bit;
    return true;
}

static void on_task_end(ui_store *st, const cs_event *ev)
{
    ui_task *t = NULL;
    ui_stage *s = NULL;
    run_slot *slot = running_find(st, ev->task_id);
    if (slot) {
        s = slot->stage;
        t = &s->tasks[slot->index];
        running_del(st, slot);
    } else {
        /* no start seen (e.g. a task that failed before it ran): record it as it ends */
        cs_event start = *ev;
        start.kind = CS_EV_TASK_START;
        start.time_ms = ev->time_ms - (ev->metrics.run_time_ms > 0 ? ev->metrics.run_time_ms : 0);
        on_task_start(st, &start);
        slot = running_find(st, ev->task_id);
        if (!slot) return;
        s = slot->stage;
        t = &s->tasks[slot->index];
        running_del(st, slot);
    }
    ui_task_status status = end_status(ev);
    t->status = status;
    t->finish_ms = ev->time_ms;
    t->m = ev->metrics;
    if (status != UI_TASK_SUCCESS) t->error = cs_xstrdup(ev->reason ? ev->reason : "task failed");
    if (status == UI_TASK_SUCCESS && ev->num_accumulables > 0) {
        cs_ui_accums_task_set(t, ev->accumulables, ev->num_accumulables);
        cs_ui_accums_stage_update(s, ev->accumulables, ev->num_accumulables);
    }
    cs_ui_storage_blocks(st, t->executor_id, ev->updated_blocks, ev->num_updated_blocks);
    int64_t duration = t->finish_ms - t->launch_ms;
    if (s->active > 0) s->active--;
    st->counters.active_tasks--;
    bool new_index = false;
    if (status == UI_TASK_SUCCESS) {
        s->complete++;
        new_index = mark_index_done(s, t->index);
        if (new_index) s->completed_indices++;
        st->counters.tasks_completed++;
    } else if (status == UI_TASK_KILLED) {
        s->killed++;
        st->counters.tasks_killed++;
    } else {
        s->failed++;
        st->counters.tasks_failed++;
    }
    metrics_add(&s->m, &ev->metrics);
    ui_exec_stage *es = exec_stage(s, t->executor_id);
    es->task_time_ms += duration;
    es->succeeded += status == UI_TASK_SUCCESS;
    es->failed += status == UI_TASK_FAILED;
    es->killed += status == UI_TASK_KILLED;
    metrics_add(&es->m, &ev->metrics);
    job_rec *jbuf[64], **jobs;
    int nj = stage_jobs(st, s, &jobs, jbuf, 64);
    for (int k = 0; k < nj; k++) {
        job_rec *j = jobs[k];
        if (j->pub.active_tasks > 0) j->pub.active_tasks--;
        if (status == UI_TASK_SUCCESS) {
            j->pub.completed_tasks++;
            if (new_index) j->pub.completed_indices++;
        } else if (status == UI_TASK_KILLED) {
            j->pub.killed_tasks++;
        } else {
            j->pub.failed_tasks++;
        }
    }
    ui_executor *e = task_exec(st, t->executor_id);
    if (e) { /* as Spark's LiveExecutor: a killed task is neither completed nor failed */
        if (e->active_tasks > 0) e->active_tasks--;
        if (status == UI_TASK_SUCCESS)
            e->completed_tasks++;
        else if (status == UI_TASK_FAILED)
            e->failed_tasks++;
        e->total_duration_ms += duration;
        e->total_input_bytes += ev->metrics.bytes_read;
        e->total_shuffle_read += ev->metrics.shuffle_bytes_read;
        e->total_shuffle_write += ev->metrics.shuffle_bytes_written;
    }
}

static void on_executor_added(ui_store *st, const cs_event *ev)
{
    st->last_found_id = NULL;
    ui_executor *e = cs_ui_find_exec(st, ev->executor_id);
    if (!e) {
        if (st->nexecs == st->capexecs) {
            st->capexecs = st->capexecs ? 2 * st->capexecs : 16;
            st->execs = cs_xrealloc(st->execs, st->capexecs * sizeof *st->execs);
        }
        e = cs_xcalloc(1, sizeof *e);
        const char *none = NULL;
        e->id = intern(st, ev->executor_id, &none);
        cs_hmap_sput(&st->exec_index, e->id, (uint64_t)st->nexecs);
        st->execs[st->nexecs++] = e;
    } else if (e->active) {
        return;
    }
    const char *none = NULL;
    e->host = intern(st, ev->host, &none);
    e->cores = ev->executor_cores;
    e->active = true;
    e->add_ms = ev->time_ms;
    e->remove_ms = 0;
    set_str(&e->remove_reason, NULL);
    st->counters.executors_active++;
}

static void on_executor_removed(ui_store *st, const cs_event *ev)
{
    ui_executor *e = cs_ui_find_exec(st, ev->executor_id);
    if (!e || !e->active) return;
    e->active = false;
    e->remove_ms = ev->time_ms;
    set_str(&e->remove_reason, ev->reason ? ev->reason : "");
    st->counters.executors_active--;
    cs_ui_storage_executor_removed(st, e->id);
    trim_dead_executors(st);
}

static void on_executor_metrics(ui_store *st, const cs_event *ev)
{
    ui_executor *e = cs_ui_find_exec(st, ev->executor_id);
    if (!e || !ev->exec_metrics) return;
    e->metrics = *ev->exec_metrics;
    int64_t *peak = (int64_t *)(void *)&e->peak;
    const int64_t *now = (const int64_t *)(const void *)ev->exec_metrics;
    for (size_t i = 0; i < sizeof e->peak / sizeof(int64_t); i++)
        if (!e->have_metrics || now[i] > peak[i]) peak[i] = now[i];
    e->have_metrics = true;
    e->metrics_update_ms = ev->time_ms;
}

typedef struct props_ctx {
    const cs_conf *conf;
    ui_prop *props;
    size_t n;
} props_ctx;

static void collect_prop(void *arg, const char *key, const char *value)
{
    props_ctx *pc = arg;
    pc->props[pc->n].key = cs_xstrdup(key);
    pc->props[pc->n].value = cs_xstrdup(cs_conf_redact_with(pc->conf, key, value ? value : ""));
    pc->n++;
}

static int prop_cmp(const void *a, const void *b)
{
    return strcmp(((const ui_prop *)a)->key, ((const ui_prop *)b)->key);
}

static void free_props(ui_store *st)
{
    for (size_t i = 0; i < st->nprops; i++) {
        free(st->props[i].key);
        free(st->props[i].value);
    }
    free(st->props);
    st->props = NULL;
    st->nprops = 0;
}

static void on_environment(ui_store *st, const cs_event *ev)
{
    if (!ev->conf) return;
    free_props(st);
    props_ctx pc = {ev->conf, cs_xcalloc(cs_conf_size(ev->conf) + 1, sizeof(ui_prop)), 0};
    cs_conf_foreach(ev->conf, collect_prop, &pc);
    qsort(pc.props, pc.n, sizeof *pc.props, prop_cmp);
    st->props = pc.props;
    st->nprops = pc.n;
}

void cs_ui_store_listener(void *arg, const cs_event *ev)
{
    ui_store *st = arg;
    pthread_mutex_lock(&st->lock);
    st->counters.events++;
    switch (ev->kind) {
    case CS_EV_LOG_START:
        break;
    case CS_EV_APPLICATION_START:
        set_str(&st->app.id, ev->app_id);
        set_str(&st->app.name, ev->app_name);
        set_str(&st->app.user, ev->user);
        st->app.start_ms = ev->time_ms;
        break;
    case CS_EV_APPLICATION_END:
        st->app.end_ms = ev->time_ms;
        st->app.completed = true;
        break;
    case CS_EV_ENVIRONMENT_UPDATE:
        on_environment(st, ev);
        break;
    case CS_EV_JOB_START:
        on_job_start(st, ev);
        break;
    case CS_EV_JOB_END:
        on_job_end(st, ev);
        break;
    case CS_EV_STAGE_SUBMITTED:
        on_stage_submitted(st, ev);
        break;
    case CS_EV_STAGE_COMPLETED:
        on_stage_completed(st, ev);
        break;
    case CS_EV_TASK_START:
        on_task_start(st, ev);
        break;
    case CS_EV_TASK_END:
        on_task_end(st, ev);
        break;
    case CS_EV_EXECUTOR_ADDED:
        on_executor_added(st, ev);
        break;
    case CS_EV_EXECUTOR_REMOVED:
        on_executor_removed(st, ev);
        break;
    case CS_EV_EXECUTOR_METRICS:
        on_executor_metrics(st, ev);
        break;
    case CS_EV_ALLOCATION_TARGET:
        st->counters.allocation_target = ev->target_executors;
        break;
    case CS_EV_BLOCK_UPDATED:
        cs_ui_storage_blocks(st, ev->executor_id, ev->updated_blocks, ev->num_updated_blocks);
        break;
    case CS_EV_UNPERSIST_RDD:
        cs_ui_storage_unpersist(st, ev->rdd_id);
        break;
    case CS_EV_SQL_EXECUTION_START:
        cs_ui_sql_start(st, ev);
        break;
    case CS_EV_SQL_EXECUTION_END:
        cs_ui_sql_end(st, ev);
        break;
    }
    pthread_mutex_unlock(&st->lock);
}

/* ---- life cycle --------------------------------------------------------------------------- */

ui_store *cs_ui_store_new(const ui_store_limits *lim)
{
    ui_store *st = cs_xcalloc(1, sizeof *st);
    pthread_mutex_init(&st->lock, NULL);
    cs_hmap_init_strings(&st->exec_index);
    cs_hmap_init_strings(&st->string_index);
    if (lim) {
        st->lim = *lim;
        if (st->lim.retained_executions < 1)
            st->lim.retained_executions = DEFAULT_RETAINED_EXECUTIONS;
    } else {
        st->lim = (ui_store_limits){DEFAULT_RETAINED_JOBS, DEFAULT_RETAINED_STAGES,
                                    DEFAULT_RETAINED_TASKS, DEFAULT_RETAINED_DEAD_EXECUTORS,
                                    DEFAULT_RETAINED_EXECUTIONS};
    }
    st->counters.allocation_target = -1;
    return st;
}

void cs_ui_store_free(ui_store *st)
{
    if (!st) return;
    for (size_t i = 0; i < st->njobs; i++)
        job_free(st->jobs[i]);
    free(st->jobs);
    for (size_t i = 0; i < st->nstages; i++)
        stage_free(st->stages[i]);
    free(st->stages);
    for (size_t i = 0; i < st->nexecs; i++) {
        free(st->execs[i]->remove_reason);
        free(st->execs[i]);
    }
    free(st->execs);
    cs_hmap_free(&st->exec_index);
    free_props(st);
    cs_ui_storage_free(st);
    cs_ui_sql_free(st);
    for (size_t i = 0; i < st->nstrings; i++)
        free(st->strings[i]);
    free(st->strings);
    cs_hmap_free(&st->string_index);
    cs_hmap_free(&st->running);
    free(st->run_slots);
    free(st->app.id);
    free(st->app.name);
    free(st->app.user);
    free(st->app.spark_version);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

void cs_ui_store_set_spark_version(ui_store *st, const char *version)
{
    pthread_mutex_lock(&st->lock);
    set_str(&st->app.spark_version, version);
    pthread_mutex_unlock(&st->lock);
}

void cs_ui_store_lock(ui_store *st)
{
    pthread_mutex_lock(&st->lock);
}

void cs_ui_store_unlock(ui_store *st)
{
    pthread_mutex_unlock(&st->lock);
}
