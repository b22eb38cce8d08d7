/* ui_page_jobs.c — the Jobs tab: the list of jobs (active, completed, failed) and a job's page
 * with its stage DAG and stage tables; plus the helpers every application page shares (frame,
 * kill forms, log links, the DAG of a set of stages). See ui_pages.h.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_dag.h"
#include "ui/ui_html.h"
#include "ui/app_status_sql.h"
#include "ui/ui_pages.h"

void cs_ui_page_begin(const ui_page_ctx *c, cs_sbuf *out, const char *title, int tab)
{
    const ui_app *app = cs_ui_store_app(c->st);
    ui_frame f = {c->base,     app->name ? app->name : "", title,
                  (ui_tab)tab, c->live && !app->completed, cs_ui_store_num_sql(c->st) > 0};
    cs_html_page_begin(out, &f);
}

void cs_ui_page_message(const ui_page_ctx *c, const char *title, const char *message, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, title, UI_TAB_NONE);
    cs_sbuf_puts(out, "<p class=\"error\">");
    cs_html_escape(out, message);
    cs_sbuf_puts(out, "</p>");
    cs_html_page_end(out);
}

void cs_ui_kill_form(const ui_page_ctx *c, cs_sbuf *out, const char *what, int id)
{
    if (!c->live || !c->kill_enabled || !c->csrf) return;
    cs_sbuf_puts(out, "<form class=\"kill\" method=\"post\" action=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out,
                   "/%s/kill/\" onsubmit=\"return confirm('Are you sure you want to kill %s "
                   "%d ?');\"><input type=\"hidden\" name=\"id\" value=\"%d\"><input "
                   "type=\"hidden\" name=\"csrf\" value=\"",
                   strcmp(what, "job") == 0 ? "jobs/job" : "stages/stage", what, id, id);
    cs_html_escape(out, c->csrf);
    cs_sbuf_printf(out, "\"><button type=\"submit\" id=\"kill-%s-%d\">(kill)</button></form>", what,
                   id);
}

void cs_ui_details_begin(const ui_page_ctx *c, cs_sbuf *out, const char *title, int tab,
                         const char *status_id, const char *status, bool running, const char *what,
                         int id)
{
    cs_ui_page_begin(c, out, title, tab);
    cs_sbuf_printf(out,
                   "<ul class=\"summary\"><li><strong>Status:</strong> <span id=\"%s\">%s</span> ",
                   status_id, status);
    if (running) cs_ui_kill_form(c, out, what, id);
}

void cs_ui_log_links(const ui_page_ctx *c, cs_sbuf *out, const char *executor_id)
{
    if (!c->executor_logs || !executor_id || strcmp(executor_id, "driver") == 0) return;
    static const char *const types[] = {"stdout", "stderr"};
    for (int i = 0; i < 2; i++) {
        cs_sbuf_puts(out, "<a class=\"log\" href=\"");
        cs_html_escape(out, c->base);
        cs_sbuf_puts(out, "/logPage/?executorId=");
        cs_html_url_escape(out, executor_id);
        cs_sbuf_printf(out, "&amp;logType=%s\">%s</a> ", types[i], types[i]);
    }
}

/* The value of the query parameter `name` in [1, max], or dflt when absent or not such a number. */
static size_t pager_arg(const ui_page_ctx *c, const char *tag, const char *what, size_t max,
                        size_t dflt)
{
    char name[64];
    snprintf(name, sizeof name, "%s.%s", tag, what);
    const char *v = c->arg ? c->arg(c->arg_ctx, name, 0) : NULL;
    int64_t x;
    if (!v || !cs_str_to_int_in(v, 1, (int64_t)max, &x)) return dflt;
    return (size_t)x;
}

ui_pager cs_ui_pager(const ui_page_ctx *c, const char *tag, size_t rows)
{
    ui_pager p;
    p.page_size = pager_arg(c, tag, "pageSize", UI_PAGE_SIZE_MAX, UI_PAGE_SIZE_DEFAULT);
    p.pages = rows == 0 ? 1 : (rows + p.page_size - 1) / p.page_size;
    p.page = pager_arg(c, tag, "page", SIZE_MAX / 2, 1);
    if (p.page > p.pages) p.page = p.pages;
    p.first = (p.page - 1) * p.page_size;
    p.last = p.first + p.page_size < rows ? p.first + p.page_size : rows;
    return p;
}

void cs_ui_pager_links(const ui_page_ctx *c, cs_sbuf *out, const ui_pager *p, const char *tag,
                       const char *path_query, const char *anchor)
{
    if (p->pages <= 1) return;
    cs_sbuf_printf(out, "<p class=\"pages\" id=\"%s-pages\">Page %zu of %zu: ", tag, p->page,
                   p->pages);
    for (size_t k = 1; k <= p->pages; k++) {
        /* the first and last three, and two either side of the current one */
        if (p->pages > 12 && k > 3 && k + 3 <= p->pages && (k + 2 < p->page || k > p->page + 2)) {
            if (k == 4 || k + 4 == p->pages) cs_sbuf_puts(out, "... ");
            continue;
        }
        cs_sbuf_puts(out, "<a href=\"");
        cs_html_escape(out, c->base);
        cs_sbuf_printf(out, "%s%s.page=%zu&amp;%s.pageSize=%zu#%s\">%zu</a> ", path_query, tag, k,
                       tag, p->page_size, anchor, k);
    }
    cs_sbuf_puts(out, "</p>");
}

void cs_ui_job_dag(const ui_page_ctx *c, cs_sbuf *out, const int *stage_ids, int n, int current)
{
    if (n <= 0) return;
    if (n > UI_DAG_MAX_STAGES) { /* the layout is quadratic and the drawing unreadable */
        cs_sbuf_printf(out,
                       "<h4>DAG Visualization</h4><p class=\"dag-omitted\">Not drawn: the job "
                       "has %d stages (at most %d are drawn).</p>",
                       n, UI_DAG_MAX_STAGES);
        return;
    }
    ui_dag_node *nodes = cs_xcalloc((size_t)n, sizeof *nodes);
    char **hrefs = cs_xcalloc((size_t)n, sizeof *hrefs);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const ui_stage *s = cs_ui_store_stage(c->st, stage_ids[i], -1);
        if (!s) continue;
        cs_sbuf h = CS_SBUF_INIT;
        cs_sbuf_printf(&h, "%s/stages/stage/?id=%d&attempt=%d", c->base, s->stage_id, s->attempt);
        hrefs[k] = cs_sbuf_detach(&h, NULL);
        ui_dag_style style = s->stage_id == current ? UI_DAG_CURRENT
                             : s->status == UI_STAGE_SKIPPED || s->status == UI_STAGE_PENDING
                                 ? UI_DAG_SKIPPED
                             : s->status == UI_STAGE_FAILED ? UI_DAG_FAILED
                                                            : UI_DAG_NORMAL;
        nodes[k] = (ui_dag_node){NULL,  s->stage_id,   s->name ? s->name : "", hrefs[k],
                                 style, s->parent_ids, s->num_parents};
        k++;
    }
    cs_sbuf_puts(out, "<h4>DAG Visualization</h4>");
    cs_ui_dag_svg(out, nodes, k);
    for (int i = 0; i < k; i++)
        free(hrefs[i]);
    free(hrefs);
    free(nodes);
}

/* ---- the jobs list ------------------------------------------------------------------------ */

static int64_t job_duration(const ui_page_ctx *c, const ui_job *j)
{
    int64_t end = j->completion_ms ? j->completion_ms : c->now_ms;
    return j->submission_ms && end > j->submission_ms ? end - j->submission_ms : 0;
}

void cs_ui_job_row(const ui_page_ctx *c, cs_sbuf *out, const ui_job *j)
{
    cs_sbuf_printf(out, "<tr id=\"job-%d\"><td>%d ", j->job_id, j->job_id);
    if (j->group) { /* as Spark's: "3 (group)" */
        cs_sbuf_puts(out, "<span class=\"job-group\">(");
        cs_html_escape(out, j->group);
        cs_sbuf_puts(out, ")</span> ");
    }
    if (j->status == UI_JOB_RUNNING) cs_ui_kill_form(c, out, "job", j->job_id);
    cs_sbuf_puts(out, "</td><td>");
    if (j->description) { /* spark.job.description above the job's name, as Spark's */
        cs_sbuf_puts(out, "<span class=\"description-input\">");
        cs_html_escape(out, j->description);
        cs_sbuf_puts(out, "</span><br>");
    }
    cs_sbuf_puts(out, "<a class=\"name-link\" href=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out, "/jobs/job/?id=%d\">", j->job_id);
    cs_html_escape(out, j->name);
    cs_sbuf_puts(out, "</a></td><td>");
    cs_html_date(out, j->submission_ms);
    cs_sbuf_puts(out, "</td><td>");
    cs_html_duration(out, job_duration(c, j));
    int stages_total = j->num_stages - j->skipped_stages;
    cs_sbuf_printf(out, "</td><td class=\"stages\">%d/%d", j->completed_stages,
                   stages_total < 0 ? 0 : stages_total);
    if (j->failed_stages > 0) cs_sbuf_printf(out, " (%d failed)", j->failed_stages);
    if (j->skipped_stages > 0) cs_sbuf_printf(out, " (%d skipped)", j->skipped_stages);
    cs_sbuf_puts(out, "</td><td class=\"tasks\">");
    cs_html_progress(out, j->active_tasks, j->completed_tasks, j->failed_tasks, j->skipped_tasks,
                     j->killed_tasks, j->num_tasks);
    cs_sbuf_puts(out, "</td>");
    if (j->status == UI_JOB_FAILED) {
        cs_sbuf_puts(out, "<td class=\"error\">");
        cs_html_escape(out, j->error);
        cs_sbuf_puts(out, "</td>");
    }
    cs_sbuf_puts(out, "</tr>\n");
}

static int job_table(const ui_page_ctx *c, cs_sbuf *out, ui_job_status status, const char *id,
                     const char *heading)
{
    int count = 0;
    size_t n = cs_ui_store_num_jobs(c->st);
    for (size_t i = 0; i < n; i++)
        count += cs_ui_store_job_at(c->st, i)->status == status;
    if (count == 0) return 0;
    char tag[32];
    snprintf(tag, sizeof tag, "%sJob", id); /* Spark's jobTag */
    ui_pager pg = cs_ui_pager(c, tag, (size_t)count);
    cs_sbuf_printf(out,
                   "<h4 id=\"%s\">%s (%d)</h4><table class=\"jobs\" id=\"%s-table\"><thead><tr>"
                   "<th>Job Id</th><th>Description</th><th>Submitted</th><th>Duration</th>"
                   "<th>Stages: Succeeded/Total</th><th>Tasks (for all stages): Succeeded/Total"
                   "</th>%s</tr></thead><tbody>\n",
                   id, heading, count, id,
                   status == UI_JOB_FAILED ? "<th>Failure Reason</th>" : "");
    size_t rank = 0;
    for (size_t i = n; i-- > 0 && rank < pg.last;) { /* newest first, as Spark */
        const ui_job *j = cs_ui_store_job_at(c->st, i);
        if (j->status != status) continue;
        if (rank++ >= pg.first) cs_ui_job_row(c, out, j);
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_ui_pager_links(c, out, &pg, tag, "/jobs/?", id);
    return count;
}

int cs_ui_page_jobs(const ui_page_ctx *c, cs_sbuf *out)
{
    const ui_app *app = cs_ui_store_app(c->st);
    cs_ui_page_begin(c, out, "Spark Jobs", UI_TAB_JOBS);
    int active = 0, completed = 0, failed = 0;
    for (size_t i = 0; i < cs_ui_store_num_jobs(c->st); i++) {
        ui_job_status s = cs_ui_store_job_at(c->st, i)->status;
        active += s == UI_JOB_RUNNING;
        completed += s == UI_JOB_SUCCEEDED;
        failed += s == UI_JOB_FAILED;
    }
    int64_t end = app->end_ms ? app->end_ms : c->now_ms;
    cs_sbuf_puts(out, "<ul class=\"summary\"><li><strong>User:</strong> ");
    cs_html_escape(out, app->user);
    cs_sbuf_puts(out, "</li><li><strong>Total Uptime:</strong> ");
    cs_html_duration(out, app->start_ms && end > app->start_ms ? end - app->start_ms : 0);
    cs_sbuf_printf(out,
                   "</li><li><strong>Scheduling Mode:</strong> FIFO</li>"
                   "<li><a href=\"#active\"><strong>Active Jobs:</strong></a> "
                   "<span id=\"active-jobs-count\">%d</span></li>"
                   "<li><a href=\"#completed\"><strong>Completed Jobs:</strong></a> "
                   "<span id=\"completed-jobs-count\">%d</span></li>"
                   "<li><a href=\"#failed\"><strong>Failed Jobs:</strong></a> "
                   "<span id=\"failed-jobs-count\">%d</span></li></ul>\n",
                   active, completed, failed);
    int shown = job_table(c, out, UI_JOB_RUNNING, "active", "Active Jobs");
    shown += job_table(c, out, UI_JOB_SUCCEEDED, "completed", "Completed Jobs");
    shown += job_table(c, out, UI_JOB_FAILED, "failed", "Failed Jobs");
    if (shown == 0) cs_sbuf_puts(out, "<p>No jobs have run yet.</p>");
    cs_html_page_end(out);
    return 200;
}

/* ---- a job -------------------------------------------------------------------------------- */

int cs_ui_page_job(const ui_page_ctx *c, int job_id, cs_sbuf *out)
{
    const ui_job *j = cs_ui_store_job(c->st, job_id);
    if (!j) {
        char msg[96];
        snprintf(msg, sizeof msg, "No information to display for job %d", job_id);
        cs_ui_page_message(c, "Job not found", msg, out);
        return 404;
    }
    char title[64];
    snprintf(title, sizeof title, "Details for Job %d", job_id);
    cs_ui_details_begin(c, out, title, UI_TAB_JOBS, "job-status", cs_ui_job_status_name(j->status),
                        j->status == UI_JOB_RUNNING, "job", j->job_id);
    cs_sbuf_puts(out, "</li>");
    if (j->description) {
        cs_sbuf_puts(out, "<li><strong>Description:</strong> ");
        cs_html_escape(out, j->description);
        cs_sbuf_puts(out, "</li>");
    }
    if (j->group) { /* as Spark's job page */
        cs_sbuf_puts(out, "<li><strong>Job Group:</strong> ");
        cs_html_escape(out, j->group);
        cs_sbuf_puts(out, "</li>");
    }
    if (j->sql_execution_id >= 0) { /* as Spark's job page: a link to the query */
        cs_sbuf_puts(out, "<li><strong>Associated SQL Query:</strong> <a id=\"job-sql\" href=\"");
        cs_html_escape(out, c->base);
        cs_sbuf_printf(out, "/SQL/execution/?id=%lld\">%lld</a></li>",
                       (long long)j->sql_execution_id, (long long)j->sql_execution_id);
    }
    cs_sbuf_puts(out, "<li><strong>Submitted:</strong> ");
    cs_html_date(out, j->submission_ms);
    cs_sbuf_puts(out, "</li><li><strong>Duration:</strong> ");
    cs_html_duration(out, job_duration(c, j));
    cs_sbuf_printf(out,
                   "</li><li><strong>Associated stages:</strong> <span id=\"job-stage-count\">%d"
                   "</span></li><li><strong>Tasks:</strong> <span id=\"job-task-count\">%d</span>"
                   " (%d succeeded, %d failed, %d killed, %d skipped)</li>",
                   j->num_stages, j->num_tasks, j->completed_tasks, j->failed_tasks,
                   j->killed_tasks, j->skipped_tasks);
    if (j->error) {
        cs_sbuf_puts(out, "<li><strong>Failure reason:</strong> <span class=\"error\">");
        cs_html_escape(out, j->error);
        cs_sbuf_puts(out, "</span></li>");
    }
    cs_sbuf_puts(out, "</ul>\n");
    cs_ui_job_dag(c, out, j->stage_ids, j->num_stages, -1);
    int shown = cs_ui_stage_table(c, out, UI_STAGE_ACTIVE, "active", "Active Stages", j);
    shown += cs_ui_stage_table(c, out, UI_STAGE_PENDING, "pending", "Pending Stages", j);
    shown += cs_ui_stage_table(c, out, UI_STAGE_COMPLETE, "completed", "Completed Stages", j);
    shown += cs_ui_stage_table(c, out, UI_STAGE_SKIPPED, "skipped", "Skipped Stages", j);
    shown += cs_ui_stage_table(c, out, UI_STAGE_FAILED, "failed", "Failed Stages", j);
    if (shown == 0) cs_sbuf_puts(out, "<p>No stages for this job.</p>");
    cs_html_page_end(out);
    return 200;
}
