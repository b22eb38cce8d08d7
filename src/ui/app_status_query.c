/* app_status_query.c — the status store's lookups and everything readers call (see
 * app_status.h): accessors, counters, Spark's status names, a task's duration and the summary
 * quantiles of a stage attempt's tasks; and the creation of stage records where the sorted
 * order puts them (beside its binary search). The listener side is app_status.c; both share
 * app_status_internal.h. Every function here expects the store's lock held by the caller.
 */
#include <stdlib.h>
#include <string.h>

#include "ui/app_status_internal.h"

const char *cs_ui_job_status_name(ui_job_status s)
{
    static const char *const names[] = {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"};
    return (unsigned)s < 4 ? names[s] : "UNKNOWN";
}

const char *cs_ui_stage_status_name(ui_stage_status s)
{
    static const char *const names[] = {"ACTIVE", "COMPLETE", "FAILED", "PENDING", "SKIPPED"};
    return (unsigned)s < 5 ? names[s] : "PENDING";
}

const char *cs_ui_task_status_name(ui_task_status s)
{
    static const char *const names[] = {"RUNNING", "SUCCESS", "FAILED", "KILLED"};
    return (unsigned)s < 4 ? names[s] : "UNKNOWN";
}

/* ---- lookups ------------------------------------------------------------------------------ */

size_t cs_ui_job_pos(const ui_store *st, int id, bool *found)
{
    size_t lo = 0, hi = st->njobs;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (st->jobs[mid]->pub.job_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < st->njobs && st->jobs[lo]->pub.job_id == id;
    return lo;
}

job_rec *cs_ui_find_job(const ui_store *st, int id)
{
    bool found;
    size_t i = cs_ui_job_pos(st, id, &found);
    return found ? st->jobs[i] : NULL;
}

static int stage_cmp(const ui_stage *s, int id, int attempt)
{
    if (s->stage_id != id) return s->stage_id < id ? -1 : 1;
    if (s->attempt != attempt) return s->attempt < attempt ? -1 : 1;
    return 0;
}

size_t cs_ui_stage_pos(const ui_store *st, int id, int attempt, bool *found)
{
    size_t lo = 0, hi = st->nstages;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (stage_cmp(st->stages[mid], id, attempt) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < st->nstages && stage_cmp(st->stages[lo], id, attempt) == 0;
    return lo;
}

ui_stage *cs_ui_find_stage(const ui_store *st, int id, int attempt)
{
    bool found;
    size_t i = cs_ui_stage_pos(st, id, attempt, &found);
    return found ? st->stages[i] : NULL;
}

ui_stage *cs_ui_latest_stage(const ui_store *st, int id)
{
    bool found;
    size_t i = cs_ui_stage_pos(st, id + 1, 0, &found); /* first position past every attempt of id */
    return i > 0 && st->stages[i - 1]->stage_id == id ? st->stages[i - 1] : NULL;
}

/* ---- stage records: created where the binary search says they go ------------------------- */

static int cmp_stage_id(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static ui_stage *stage_record_new(ui_store *st, int id, int attempt)
{
    ui_stage *s = cs_xcalloc(1, sizeof *s);
    s->stage_id = id;
    s->attempt = attempt;
    s->status = UI_STAGE_PENDING;
    s->submitted_job = -1;
    st->counters.pending_stages++;
    return s;
}

static void stages_reserve(ui_store *st, size_t n)
{
    if (n <= st->capstages) return;
    while (st->capstages < n)
        st->capstages = st->capstages ? 2 * st->capstages : 32;
    st->stages = cs_xrealloc(st->stages, st->capstages * sizeof *st->stages);
}

ui_stage *cs_ui_stage_new(ui_store *st, int id, int attempt)
{
    bool found;
    size_t i = cs_ui_stage_pos(st, id, attempt, &found);
    if (found) return st->stages[i];
    stages_reserve(st, st->nstages + 1);
    memmove(st->stages + i + 1, st->stages + i, (st->nstages - i) * sizeof *st->stages);
    ui_stage *s = stage_record_new(st, id, attempt);
    st->stages[i] = s;
    st->nstages++;
    return s;
}

/* Attempt 0 of every stage of ids not yet known, merged into the sorted stages in one pass: a job
 * start naming many stages (in any order) costs n log n, not a memmove per stage. */
void cs_ui_stages_add_new(ui_store *st, const int *ids, int n)
{
    if (n < 16) return; /* cs_ui_stage_new's insertion is as cheap */
    int *fresh = cs_xcalloc((size_t)n, sizeof *fresh);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!cs_ui_latest_stage(st, ids[i])) fresh[k++] = ids[i];
    qsort(fresh, (size_t)k, sizeof *fresh, cmp_stage_id);
    int u = 0;
    for (int r = 0; r < k; r++)
        if (u == 0 || fresh[u - 1] != fresh[r]) fresh[u++] = fresh[r];
    if (u > 0) {
        stages_reserve(st, st->nstages + (size_t)u);
        /* merge from the back: old stages (any attempt) and new ones (attempt 0) by id */
        size_t w = st->nstages + (size_t)u, r = st->nstages;
        int f = u;
        while (f > 0) {
            if (r > 0 && st->stages[r - 1]->stage_id > fresh[f - 1]) {
                st->stages[--w] = st->stages[--r];
            } else {
                st->stages[--w] = stage_record_new(st, fresh[--f], 0);
            }
        }
        st->nstages += (size_t)u;
    }
    free(fresh);
}

ui_executor *cs_ui_find_exec(const ui_store *st, const char *id)
{
    int i = id ? cs_ui_index_get(&st->exec_index, id) : -1;
    return i >= 0 ? st->execs[i] : NULL;
}

/* ---- reading ------------------------------------------------------------------------------ */

const ui_app *cs_ui_store_app(const ui_store *st)
{
    return &st->app;
}

size_t cs_ui_store_num_jobs(const ui_store *st)
{
    return st->njobs;
}

const ui_job *cs_ui_store_job_at(const ui_store *st, size_t i)
{
    return i < st->njobs ? &st->jobs[i]->pub : NULL;
}

const ui_job *cs_ui_store_job(const ui_store *st, int job_id)
{
    job_rec *j = cs_ui_find_job(st, job_id);
    return j ? &j->pub : NULL;
}

size_t cs_ui_store_num_stages(const ui_store *st)
{
    return st->nstages;
}

const ui_stage *cs_ui_store_stage_at(const ui_store *st, size_t i)
{
    return i < st->nstages ? st->stages[i] : NULL;
}

const ui_stage *cs_ui_store_stage(const ui_store *st, int stage_id, int attempt)
{
    return attempt < 0 ? cs_ui_latest_stage(st, stage_id) : cs_ui_find_stage(st, stage_id, attempt);
}

size_t cs_ui_store_num_executors(const ui_store *st)
{
    return st->nexecs;
}

const ui_executor *cs_ui_store_executor_at(const ui_store *st, size_t i)
{
    return i < st->nexecs ? st->execs[i] : NULL;
}

const ui_executor *cs_ui_store_executor(const ui_store *st, const char *id)
{
    return cs_ui_find_exec(st, id);
}

size_t cs_ui_store_num_props(const ui_store *st)
{
    return st->nprops;
}

const ui_prop *cs_ui_store_prop_at(const ui_store *st, size_t i)
{
    return i < st->nprops ? &st->props[i] : NULL;
}

size_t cs_ui_store_num_rdds(const ui_store *st)
{
    return st->nrdds;
}

const ui_rdd *cs_ui_store_rdd_at(const ui_store *st, size_t i)
{
    return i < st->nrdds ? st->rdds[i] : NULL;
}

void cs_ui_store_counters(const ui_store *st, ui_store_counters *out)
{
    *out = st->counters;
}

int64_t cs_ui_task_duration_ms(const ui_task *t, int64_t now_ms)
{
    int64_t end = t->finish_ms ? t->finish_ms : now_ms;
    return end > t->launch_ms ? end - t->launch_ms : 0;
}

/* ---- quantiles ---------------------------------------------------------------------------- */

static int64_t metric_of(const ui_task *t, ui_quantile_metric m)
{
    switch (m) {
    case UI_QM_DURATION:
        return cs_ui_task_duration_ms(t, t->finish_ms);
    case UI_QM_RUN_TIME:
        return t->m.run_time_ms;
    case UI_QM_CPU_TIME:
        return t->m.cpu_time_ns;
    case UI_QM_RESULT_SIZE:
        return t->m.result_size;
    case UI_QM_SCHEDULER_DELAY: {
        int64_t d = cs_ui_task_duration_ms(t, t->finish_ms) - t->m.run_time_ms;
        return d > 0 ? d : 0;
    }
    case UI_QM_PEAK_MEMORY:
        return t->m.peak_execution_memory;
    case UI_QM_MEMORY_SPILLED:
        return t->m.memory_bytes_spilled;
    case UI_QM_DISK_SPILLED:
        return t->m.disk_bytes_spilled;
    case UI_QM_INPUT_BYTES:
        return t->m.bytes_read;
    case UI_QM_INPUT_RECORDS:
        return t->m.records_read;
    case UI_QM_OUTPUT_BYTES:
        return t->m.bytes_written;
    case UI_QM_OUTPUT_RECORDS:
        return t->m.records_written;
    case UI_QM_SHUFFLE_READ_BYTES:
        return t->m.shuffle_bytes_read;
    case UI_QM_SHUFFLE_READ_RECORDS:
        return t->m.shuffle_records_read;
    case UI_QM_SHUFFLE_WRITE_BYTES:
        return t->m.shuffle_bytes_written;
    case UI_QM_SHUFFLE_WRITE_RECORDS:
        return t->m.shuffle_records_written;
    case UI_QM_COUNT:
        break;
    }
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

size_t cs_ui_stage_quantiles(const ui_stage *s, const double *quantiles, int nq,
                             double out[UI_QM_COUNT][UI_MAX_QUANTILES])
{
    memset(out, 0, sizeof(double) * UI_QM_COUNT * UI_MAX_QUANTILES);
    if (nq > UI_MAX_QUANTILES) nq = UI_MAX_QUANTILES;
    size_t n = 0;
    for (size_t i = 0; i < s->num_tasks_kept; i++)
        n += s->tasks[i].status == UI_TASK_SUCCESS;
    if (n == 0) return 0;
    int64_t *vals = cs_xmalloc(n * sizeof *vals);
    for (int m = 0; m < UI_QM_COUNT; m++) {
        size_t k = 0;
        for (size_t i = 0; i < s->num_tasks_kept; i++)
            if (s->tasks[i].status == UI_TASK_SUCCESS)
                vals[k++] = metric_of(&s->tasks[i], (ui_quantile_metric)m);
        qsort(vals, n, sizeof *vals, cmp_i64);
        for (int q = 0; q < nq; q++) {
            double pos = quantiles[q] * (double)n;
            size_t idx = pos < 0 ? 0 : (size_t)pos;
            if (idx > n - 1) idx = n - 1;
            out[m][q] = (double)vals[idx];
        }
    }
    free(vals);
    return n;
}
