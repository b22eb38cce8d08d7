/* ui_page_stages.c — the Stages tab: the stage tables, a stage attempt's page (summary, DAG,
 * summary metrics quantiles, aggregated metrics by executor, the paged task table) and a task's
 * page. See ui_pages.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/locality.h"
#include "ui/ui_dag.h"
#include "ui/ui_html.h"
#include "ui/ui_pages.h"

static int int_cmp(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The status a job's page shows for a stage attempt; -1: not shown there. job_stages: the job's
 * stage ids sorted (a lookup per stage: the page stays n log n for a job of many stages). */
static int status_for_job(const ui_store *st, const ui_stage *s, const ui_job *job,
                          const int *job_stages)
{
    if (!job) return (int)s->status;
    if (!bsearch(&s->stage_id, job_stages, (size_t)job->num_stages, sizeof *job_stages, int_cmp))
        return -1;
    if (s->submitted_job == job->job_id) return (int)s->status;
    if (cs_ui_store_stage(st, s->stage_id, -1) != s) return -1; /* an older attempt, not ours */
    if (s->status == UI_STAGE_PENDING || s->status == UI_STAGE_SKIPPED) return (int)s->status;
    return s->status == UI_STAGE_ACTIVE ? -1 : (int)UI_STAGE_SKIPPED;
}

static void stage_link(const ui_page_ctx *c, cs_sbuf *out, const ui_stage *s)
{
    cs_sbuf_puts(out, "<a class=\"name-link\" href=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out, "/stages/stage/?id=%d&amp;attempt=%d\">", s->stage_id, s->attempt);
    cs_html_escape(out, s->name && *s->name ? s->name : "(unnamed stage)");
    cs_sbuf_puts(out, "</a>");
}

static void stage_row(const ui_page_ctx *c, cs_sbuf *out, const ui_stage *s, ui_stage_status shown)
{
    cs_sbuf_printf(out, "<tr id=\"stage-%d-%d\"><td>%d", s->stage_id, s->attempt, s->stage_id);
    if (s->attempt > 0) cs_sbuf_printf(out, " (retry %d)", s->attempt);
    if (shown == UI_STAGE_ACTIVE) cs_ui_kill_form(c, out, "stage", s->stage_id);
    cs_sbuf_puts(out, "</td><td>");
    stage_link(c, out, s);
    cs_sbuf_puts(out, "</td><td>");
    cs_html_date(out, s->submission_ms);
    cs_sbuf_puts(out, "</td><td>");
    if (s->submission_ms) {
        int64_t end = s->completion_ms ? s->completion_ms : c->now_ms;
        cs_html_duration(out, end - s->submission_ms);
    } else {
        cs_sbuf_puts(out, "-");
    }
    cs_sbuf_puts(out, "</td><td class=\"tasks\">");
    cs_html_progress(out, s->active, s->completed_indices, s->failed, 0, s->killed, s->num_tasks);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, s->m.bytes_read);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, s->m.bytes_written);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, s->m.shuffle_bytes_read);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, s->m.shuffle_bytes_written);
    cs_sbuf_puts(out, "</td>");
    if (shown == UI_STAGE_FAILED) {
        cs_sbuf_puts(out, "<td class=\"error\">");
        cs_html_escape(out, s->failure_reason);
        cs_sbuf_puts(out, "</td>");
    }
    cs_sbuf_puts(out, "</tr>\n");
}

int cs_ui_stage_table(const ui_page_ctx *c, cs_sbuf *out, ui_stage_status status, const char *id,
                      const char *heading, const ui_job *job)
{
    size_t n = cs_ui_store_num_stages(c->st);
    int *job_stages = NULL;
    if (job && job->num_stages > 0) {
        job_stages = cs_xmalloc((size_t)job->num_stages * sizeof *job_stages);
        memcpy(job_stages, job->stage_ids, (size_t)job->num_stages * sizeof *job_stages);
        qsort(job_stages, (size_t)job->num_stages, sizeof *job_stages, int_cmp);
    }
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count +=
            status_for_job(c->st, cs_ui_store_stage_at(c->st, i), job, job_stages) == (int)status;
    if (count == 0) {
        free(job_stages);
        return 0;
    }
    char tag[32], path_query[48];
    snprintf(tag, sizeof tag, "%sStage", id); /* Spark's stageTag */
    if (job)
        snprintf(path_query, sizeof path_query, "/jobs/job/?id=%d&amp;", job->job_id);
    else
        snprintf(path_query, sizeof path_query, "/stages/?");
    ui_pager pg = cs_ui_pager(c, tag, (size_t)count);
    cs_sbuf_printf(out,
                   "<h4 id=\"%s\">%s (<span id=\"%s-stages-count\">%d</span>)</h4>"
                   "<table class=\"stages\" id=\"%s-stages-table\"><thead><tr><th>Stage Id</th>"
                   "<th>Description</th><th>Submitted</th><th>Duration</th>"
                   "<th>Tasks: Succeeded/Total</th><th>Input</th><th>Output</th>"
                   "<th>Shuffle Read</th><th>Shuffle Write</th>%s</tr></thead><tbody>\n",
                   id, heading, id, count, id,
                   status == UI_STAGE_FAILED ? "<th>Failure Reason</th>" : "");
    size_t rank = 0;
    for (size_t i = n; i-- > 0 && rank < pg.last;) { /* newest first */
        const ui_stage *s = cs_ui_store_stage_at(c->st, i);
        if (status_for_job(c->st, s, job, job_stages) != (int)status) continue;
        if (rank++ >= pg.first) stage_row(c, out, s, status);
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_ui_pager_links(c, out, &pg, tag, path_query, id);
    free(job_stages);
    return count;
}

int cs_ui_page_stages(const ui_page_ctx *c, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, "Stages for All Jobs", UI_TAB_STAGES);
    static const struct {
        ui_stage_status status;
        const char *id, *heading;
    } tables[] = {{UI_STAGE_ACTIVE, "active", "Active Stages"},
                  {UI_STAGE_PENDING, "pending", "Pending Stages"},
                  {UI_STAGE_COMPLETE, "completed", "Completed Stages"},
                  {UI_STAGE_SKIPPED, "skipped", "Skipped Stages"},
                  {UI_STAGE_FAILED, "failed", "Failed Stages"}};
    int counts[5] = {0};
    size_t n = cs_ui_store_num_stages(c->st);
    for (size_t i = 0; i < n; i++)
        counts[cs_ui_store_stage_at(c->st, i)->status]++;
    cs_sbuf_puts(out, "<ul class=\"summary\">");
    for (int t = 0; t < 5; t++)
        cs_sbuf_printf(out, "<li><a href=\"#%s\"><strong>%s:</strong></a> %d</li>", tables[t].id,
                       tables[t].heading, counts[tables[t].status]);
    cs_sbuf_puts(out, "</ul>\n");
    int shown = 0;
    for (int t = 0; t < 5; t++)
        shown += cs_ui_stage_table(c, out, tables[t].status, tables[t].id, tables[t].heading, NULL);
    if (shown == 0) cs_sbuf_puts(out, "<p>No stages have run yet.</p>");
    cs_html_page_end(out);
    return 200;
}

/* ---- a stage attempt ---------------------------------------------------------------------- */

static const double summary_quantiles[] = {0.0, 0.25, 0.5, 0.75, 1.0};

static void quantile_row(cs_sbuf *out, const char *name, const double *q, bool bytes, bool ms)
{
    cs_sbuf_puts(out, "<tr><td>");
    cs_html_escape(out, name);
    cs_sbuf_puts(out, "</td>");
    for (int i = 0; i < 5; i++) {
        cs_sbuf_puts(out, "<td class=\"num\">");
        if (bytes)
            cs_html_bytes(out, (int64_t)q[i]);
        else if (ms)
            cs_html_duration(out, (int64_t)q[i]);
        else
            cs_sbuf_printf(out, "%.0f", q[i]);
        cs_sbuf_puts(out, "</td>");
    }
    cs_sbuf_puts(out, "</tr>\n");
}

static void summary_metrics(cs_sbuf *out, const ui_stage *s)
{
    double q[UI_QM_COUNT][UI_MAX_QUANTILES];
    size_t n = cs_ui_stage_quantiles(s, summary_quantiles, 5, q);
    cs_sbuf_printf(out,
                   "<h4>Summary Metrics for <span id=\"summary-task-count\">%zu</span> Completed "
                   "Tasks</h4>",
                   n);
    if (n == 0) return;
    /* CPU time is kept in ns: shown in ms */
    double cpu_ms[5];
    for (int i = 0; i < 5; i++)
        cpu_ms[i] = q[UI_QM_CPU_TIME][i] / 1e6;
    cs_sbuf_puts(out, "<table id=\"summary-metrics\"><thead><tr><th>Metric</th><th>Min</th>"
                      "<th>25th percentile</th><th>Median</th><th>75th percentile</th>"
                      "<th>Max</th></tr></thead><tbody>\n");
    quantile_row(out, "Duration", q[UI_QM_DURATION], false, true);
    quantile_row(out, "Executor Run Time", q[UI_QM_RUN_TIME], false, true);
    quantile_row(out, "Executor CPU Time", cpu_ms, false, true);
    quantile_row(out, "Scheduler Delay", q[UI_QM_SCHEDULER_DELAY], false, true);
    quantile_row(out, "Result Size", q[UI_QM_RESULT_SIZE], true, false);
    quantile_row(out, "Peak Execution Memory", q[UI_QM_PEAK_MEMORY], true, false);
    if (s->m.bytes_read || s->m.records_read) {
        quantile_row(out, "Input Size", q[UI_QM_INPUT_BYTES], true, false);
        quantile_row(out, "Input Records", q[UI_QM_INPUT_RECORDS], false, false);
    }
    if (s->m.bytes_written || s->m.records_written) {
        quantile_row(out, "Output Size", q[UI_QM_OUTPUT_BYTES], true, false);
        quantile_row(out, "Output Records", q[UI_QM_OUTPUT_RECORDS], false, false);
    }
    if (s->m.shuffle_bytes_read || s->m.shuffle_records_read) {
        quantile_row(out, "Shuffle Read Size", q[UI_QM_SHUFFLE_READ_BYTES], true, false);
        quantile_row(out, "Shuffle Read Records", q[UI_QM_SHUFFLE_READ_RECORDS], false, false);
    }
    if (s->m.shuffle_bytes_written || s->m.shuffle_records_written) {
        quantile_row(out, "Shuffle Write Size", q[UI_QM_SHUFFLE_WRITE_BYTES], true, false);
        quantile_row(out, "Shuffle Write Records", q[UI_QM_SHUFFLE_WRITE_RECORDS], false, false);
    }
    if (s->m.memory_bytes_spilled || s->m.disk_bytes_spilled) {
        quantile_row(out, "Spill (memory)", q[UI_QM_MEMORY_SPILLED], true, false);
        quantile_row(out, "Spill (disk)", q[UI_QM_DISK_SPILLED], true, false);
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
}

static void executor_table(const ui_page_ctx *c, cs_sbuf *out, const ui_stage *s)
{
    cs_sbuf_puts(out, "<h4>Aggregated Metrics by Executor</h4><table id=\"executor-summary\">"
                      "<thead><tr><th>Executor ID</th><th>Address</th><th>Logs</th>"
                      "<th>Task Time</th><th>Total Tasks</th><th>Failed Tasks</th>"
                      "<th>Killed Tasks</th><th>Succeeded Tasks</th><th>Input</th><th>Output</th>"
                      "<th>Shuffle Read</th><th>Shuffle Write</th><th>Spill (Memory)</th>"
                      "<th>Spill (Disk)</th></tr></thead><tbody>\n");
    for (int i = 0; i < s->num_execs; i++) {
        const ui_exec_stage *e = &s->execs[i];
        const ui_executor *x = cs_ui_store_executor(c->st, e->executor_id);
        cs_sbuf_puts(out, "<tr><td>");
        cs_html_escape(out, e->executor_id);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_escape(out, x ? x->host : "");
        cs_sbuf_puts(out, "</td><td>");
        cs_ui_log_links(c, out, e->executor_id);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_duration(out, e->task_time_ms);
        cs_sbuf_printf(out,
                       "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
                       "<td class=\"num\">%d</td><td class=\"num\">%d</td>",
                       e->succeeded + e->failed + e->killed, e->failed, e->killed, e->succeeded);
        const int64_t sizes[] = {e->m.bytes_read,           e->m.bytes_written,
                                 e->m.shuffle_bytes_read,   e->m.shuffle_bytes_written,
                                 e->m.memory_bytes_spilled, e->m.disk_bytes_spilled};
        for (int k = 0; k < 6; k++) {
            cs_sbuf_puts(out, "<td class=\"num\">");
            cs_html_bytes(out, sizes[k]);
            cs_sbuf_puts(out, "</td>");
        }
        cs_sbuf_puts(out, "</tr>\n");
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
}

static void task_link(const ui_page_ctx *c, cs_sbuf *out, const ui_stage *s, const ui_task *t)
{
    cs_sbuf_puts(out, "<a class=\"task-link\" href=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out, "/stages/stage/task/?id=%d&amp;attempt=%d&amp;taskId=%lld\">%lld</a>",
                   s->stage_id, s->attempt, (long long)t->task_id, (long long)t->task_id);
}

static void task_table(const ui_page_ctx *c, cs_sbuf *out, const ui_stage *s)
{
    size_t n = s->num_tasks_kept;
    ui_pager pg = cs_ui_pager(c, "task", n);
    size_t first = pg.first, last = pg.last;
    cs_sbuf_printf(out, "<h4 id=\"tasks\">Tasks (<span id=\"task-count\">%zu</span>)</h4>", n);
    if (s->tasks_dropped > 0)
        cs_sbuf_printf(out,
                       "<p>%lld older finished tasks are not shown (spark.ui.retainedTasks).</p>",
                       (long long)s->tasks_dropped);
    char path_query[64];
    snprintf(path_query, sizeof path_query, "/stages/stage/?id=%d&amp;attempt=%d&amp;", s->stage_id,
             s->attempt);
    cs_ui_pager_links(c, out, &pg, "task", path_query, "tasks");
    cs_sbuf_puts(out, "<table id=\"task-table\"><thead><tr><th>Index</th><th>Task ID</th>"
                      "<th>Attempt</th><th>Status</th><th>Locality Level</th><th>Executor ID</th>"
                      "<th>Host</th><th>Logs</th><th>Launch Time</th><th>Duration</th>"
                      "<th>Run Time</th><th>CPU Time</th><th>Input Size / Records</th>"
                      "<th>Shuffle Read Size / Records</th><th>Shuffle Write Size / Records</th>"
                      "<th>Errors</th></tr></thead><tbody>\n");
    for (size_t i = first; i < last; i++) {
        const ui_task *t = &s->tasks[i];
        cs_sbuf_printf(out, "<tr id=\"task-%lld\"><td class=\"num\">%d</td><td>",
                       (long long)t->task_id, t->index);
        task_link(c, out, s, t);
        cs_sbuf_printf(out,
                       "</td><td class=\"num\">%d</td><td class=\"status\">%s</td>"
                       "<td>%s</td><td>",
                       t->attempt, cs_ui_task_status_name(t->status),
                       cs_locality_name((cs_locality_level)t->locality));
        cs_html_escape(out, t->executor_id);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_escape(out, t->host);
        cs_sbuf_puts(out, "</td><td>");
        cs_ui_log_links(c, out, t->executor_id);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_date(out, t->launch_ms);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_duration(out, cs_ui_task_duration_ms(t, c->now_ms));
        cs_sbuf_puts(out, "</td><td>");
        cs_html_duration(out, t->m.run_time_ms);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_duration(out, t->m.cpu_time_ns / 1000000);
        const int64_t io[3][2] = {{t->m.bytes_read, t->m.records_read},
                                  {t->m.shuffle_bytes_read, t->m.shuffle_records_read},
                                  {t->m.shuffle_bytes_written, t->m.shuffle_records_written}};
        for (int k = 0; k < 3; k++) {
            cs_sbuf_puts(out, "</td><td class=\"num\">");
            cs_html_bytes(out, io[k][0]);
            cs_sbuf_printf(out, " / %lld", (long long)io[k][1]);
        }
        cs_sbuf_puts(out, "</td><td class=\"error\">");
        cs_html_escape(out, t->error);
        cs_sbuf_puts(out, "</td></tr>\n");
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
}

/* The RDDs the stage computes, as Spark's stage page draws its operations. */
static void rdd_graph(cs_sbuf *out, const ui_stage *s)
{
    if (s->num_rdds <= 0) return;
    ui_dag_node *nodes = cs_xcalloc((size_t)s->num_rdds, sizeof *nodes);
    char **titles = cs_xcalloc((size_t)s->num_rdds, sizeof *titles);
    for (int i = 0; i < s->num_rdds; i++) {
        const ui_rdd_node *r = &s->rdds[i];
        cs_sbuf t = CS_SBUF_INIT;
        cs_sbuf_printf(&t, "%s [%d]", r->name, r->id);
        titles[i] = cs_sbuf_detach(&t, NULL);
        nodes[i] = (ui_dag_node){titles[i],     r->id,         r->callsite,   NULL,
                                 UI_DAG_NORMAL, r->parent_ids, r->num_parents};
    }
    cs_sbuf_puts(out, "<h4>RDDs of this stage</h4>");
    cs_ui_dag_svg(out, nodes, s->num_rdds);
    for (int i = 0; i < s->num_rdds; i++)
        free(titles[i]);
    free(titles);
    free(nodes);
}

/* Spark's stage page table of named accumulators: each one's name and latest value. */
static void accumulator_table(cs_sbuf *out, const ui_stage *s)
{
    if (s->num_accums == 0) return;
    cs_sbuf_puts(out, "<h4>Accumulators</h4><table id=\"accumulators\"><thead><tr>"
                      "<th>Accumulable</th><th>Value</th></tr></thead><tbody>\n");
    for (int i = 0; i < s->num_accums; i++) {
        cs_sbuf_printf(out, "<tr class=\"accumulator\" id=\"accumulator-%lld\"><td>",
                       (long long)s->accums[i].id);
        cs_html_escape(out, s->accums[i].name ? s->accums[i].name : "");
        cs_sbuf_puts(out, "</td><td class=\"num\">");
        cs_html_escape(out, s->accums[i].value ? s->accums[i].value : "");
        cs_sbuf_puts(out, "</td></tr>\n");
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
}

int cs_ui_page_stage(const ui_page_ctx *c, int stage_id, int attempt, cs_sbuf *out)
{
    const ui_stage *s = cs_ui_store_stage(c->st, stage_id, attempt);
    if (!s) {
        char msg[128];
        snprintf(msg, sizeof msg, "No information to display for Stage %d (Attempt %d)", stage_id,
                 attempt < 0 ? 0 : attempt);
        cs_ui_page_message(c, "Stage not found", msg, out);
        return 404;
    }
    char title[96];
    snprintf(title, sizeof title, "Details for Stage %d (Attempt %d)", s->stage_id, s->attempt);
    cs_ui_details_begin(c, out, title, UI_TAB_STAGES, "stage-status",
                        cs_ui_stage_status_name(s->status), s->status == UI_STAGE_ACTIVE, "stage",
                        s->stage_id);
    cs_sbuf_puts(out, "</li><li><strong>Name:</strong> ");
    cs_html_escape(out, s->name);
    cs_sbuf_printf(out,
                   "</li><li><strong>Tasks:</strong> <span id=\"stage-task-total\">%d</span>"
                   " (%d succeeded, %d running, %d failed, %d killed)</li>",
                   s->num_tasks, s->complete, s->active, s->failed, s->killed);
    cs_sbuf_puts(out, "<li><strong>Total Time Across All Tasks:</strong> ");
    cs_html_duration(out, s->m.run_time_ms);
    cs_sbuf_puts(out, "</li><li><strong>Locality Level Summary:</strong> Process local: ");
    cs_sbuf_printf(out, "%zu</li>", s->num_tasks_kept);
    const struct {
        const char *name;
        int64_t bytes, records;
    } io[] = {
        {"Input Size / Records", s->m.bytes_read, s->m.records_read},
        {"Output Size / Records", s->m.bytes_written, s->m.records_written},
        {"Shuffle Read Size / Records", s->m.shuffle_bytes_read, s->m.shuffle_records_read},
        {"Shuffle Write Size / Records", s->m.shuffle_bytes_written, s->m.shuffle_records_written}};
    for (int k = 0; k < 4; k++) {
        if (io[k].bytes == 0 && io[k].records == 0) continue;
        cs_sbuf_printf(out, "<li><strong>%s:</strong> ", io[k].name);
        cs_html_bytes(out, io[k].bytes);
        cs_sbuf_printf(out, " / %lld</li>", (long long)io[k].records);
    }
    if (s->m.memory_bytes_spilled || s->m.disk_bytes_spilled) {
        cs_sbuf_puts(out, "<li><strong>Spill (Memory):</strong> ");
        cs_html_bytes(out, s->m.memory_bytes_spilled);
        cs_sbuf_puts(out, "</li><li><strong>Spill (Disk):</strong> ");
        cs_html_bytes(out, s->m.disk_bytes_spilled);
        cs_sbuf_puts(out, "</li>");
    }
    cs_sbuf_puts(out, "<li><strong>Associated Job Ids:</strong> ");
    for (int i = 0; i < s->num_jobs; i++) {
        cs_sbuf_puts(out, "<a class=\"job-link\" href=\"");
        cs_html_escape(out, c->base);
        cs_sbuf_printf(out, "/jobs/job/?id=%d\">%d</a> ", s->job_ids[i], s->job_ids[i]);
    }
    cs_sbuf_puts(out, "</li>");
    if (s->failure_reason) {
        cs_sbuf_puts(out, "<li><strong>Failure Reason:</strong> <span class=\"error\">");
        cs_html_escape(out, s->failure_reason);
        cs_sbuf_puts(out, "</span></li>");
    }
    cs_sbuf_puts(out, "</ul>\n");
    /* the DAG of the job that ran this attempt, this stage highlighted */
    const ui_job *job = NULL;
    for (int i = s->num_jobs; i-- > 0 && !job;)
        job = cs_ui_store_job(c->st, s->job_ids[i]);
    if (job) cs_ui_job_dag(c, out, job->stage_ids, job->num_stages, s->stage_id);
    rdd_graph(out, s);
    summary_metrics(out, s);
    accumulator_table(out, s);
    executor_table(c, out, s);
    task_table(c, out, s);
    cs_html_page_end(out);
    return 200;
}

/* ---- a task ------------------------------------------------------------------------------- */

int cs_ui_page_task(const ui_page_ctx *c, int stage_id, int attempt, int64_t task_id, cs_sbuf *out)
{
    const ui_stage *s = cs_ui_store_stage(c->st, stage_id, attempt);
    const ui_task *t = NULL;
    for (size_t i = 0; s && i < s->num_tasks_kept && !t; i++)
        if (s->tasks[i].task_id == task_id) t = &s->tasks[i];
    if (!t) {
        char msg[160];
        snprintf(msg, sizeof msg, "No information to display for task %lld of Stage %d",
                 (long long)task_id, stage_id);
        cs_ui_page_message(c, "Task not found", msg, out);
        return 404;
    }
    char title[96];
    snprintf(title, sizeof title, "Details for Task %lld (Stage %d, Attempt %d)",
             (long long)t->task_id, s->stage_id, s->attempt);
    cs_ui_page_begin(c, out, title, UI_TAB_STAGES);
    cs_sbuf_puts(out, "<p><a href=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out, "/stages/stage/?id=%d&amp;attempt=%d\">Back to Stage %d</a></p>",
                   s->stage_id, s->attempt, s->stage_id);
    cs_sbuf_printf(out,
                   "<table id=\"task-details\"><tbody><tr><th>Task ID</th><td>%lld</td></tr>"
                   "<tr><th>Index (partition)</th><td>%d</td></tr><tr><th>Attempt</th><td>%d</td>"
                   "</tr><tr><th>Status</th><td id=\"task-status\">%s</td></tr>"
                   "<tr><th>Executor ID</th><td>",
                   (long long)t->task_id, t->index, t->attempt, cs_ui_task_status_name(t->status));
    cs_html_escape(out, t->executor_id);
    cs_sbuf_puts(out, " ");
    cs_ui_log_links(c, out, t->executor_id);
    cs_sbuf_puts(out, "</td></tr><tr><th>Host</th><td>");
    cs_html_escape(out, t->host);
    cs_sbuf_puts(out, "</td></tr><tr><th>Launch Time</th><td>");
    cs_html_date(out, t->launch_ms);
    cs_sbuf_puts(out, "</td></tr><tr><th>Duration</th><td>");
    cs_html_duration(out, cs_ui_task_duration_ms(t, c->now_ms));
    cs_sbuf_puts(out, "</td></tr>");
    const struct {
        const char *name;
        int64_t v;
        char kind; /* b bytes, t ms, n ns, c count */
    } rows[] = {{"Executor Run Time", t->m.run_time_ms, 't'},
                {"Executor CPU Time", t->m.cpu_time_ns, 'n'},
                {"Result Size", t->m.result_size, 'b'},
                {"Peak Execution Memory", t->m.peak_execution_memory, 'b'},
                {"Input Bytes", t->m.bytes_read, 'b'},
                {"Input Records", t->m.records_read, 'c'},
                {"Output Bytes", t->m.bytes_written, 'b'},
                {"Output Records", t->m.records_written, 'c'},
                {"Shuffle Read Bytes", t->m.shuffle_bytes_read, 'b'},
                {"Shuffle Read Records", t->m.shuffle_records_read, 'c'},
                {"Shuffle Write Bytes", t->m.shuffle_bytes_written, 'b'},
                {"Shuffle Write Records", t->m.shuffle_records_written, 'c'},
                {"Memory Bytes Spilled", t->m.memory_bytes_spilled, 'b'},
                {"Disk Bytes Spilled", t->m.disk_bytes_spilled, 'b'}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        cs_sbuf_printf(out, "<tr><th>%s</th><td class=\"num\">", rows[k].name);
        if (rows[k].kind == 'b')
            cs_html_bytes(out, rows[k].v);
        else if (rows[k].kind == 't')
            cs_html_duration(out, rows[k].v);
        else if (rows[k].kind == 'n')
            cs_html_duration(out, rows[k].v / 1000000);
        else
            cs_sbuf_printf(out, "%lld", (long long)rows[k].v);
        cs_sbuf_puts(out, "</td></tr>");
    }
    if (t->error) {
        cs_sbuf_puts(out, "<tr><th>Error</th><td class=\"error\" id=\"task-error\">");
        cs_html_escape(out, t->error);
        cs_sbuf_puts(out, "</td></tr>");
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_html_page_end(out);
    return 200;
}
