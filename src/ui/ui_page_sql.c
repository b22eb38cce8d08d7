/* ui_page_sql.c — the SQL / DataFrame tab, as Spark's SQLTab: the queries of the application
 * (AllExecutionsPage) at <base>/SQL/ and one query (ExecutionPage) at
 * <base>/SQL/execution/?id=N.
 *
 * The list has Spark's three tables, Running, Completed and Failed Queries (status as the REST
 * API's, app_status_sql.h), newest first and paged with Spark's tags "running", "completed" and
 * "failed"; each row has the query's id, description (the statement), submission time, duration
 * and its running, succeeded and failed job ids linking to the jobs. A query's page has its
 * status, times and jobs, the plan graph drawn as the stage DAG is (ui_dag.h: a box per plan node
 * with its name and its EXPLAIN line, an arrow from each child to its parent, the scans at the
 * left), the physical plan as EXPLAIN prints it, and the table of its jobs.
 * Called by ui_server.c with the store locked (ui_pages.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "ui/app_status_sql.h"
#include "ui/ui_dag.h"
#include "ui/ui_html.h"
#include "ui/ui_pages.h"

#define MAX_PLAN_NODES 300 /* a larger plan gets a note instead of its graph */

static const char *const status_class[] = {"running", "succeeded", "failed", "unknown"};

/* The job ids of e with this status, each a link to its job ("-" when none). */
static void job_links(const ui_page_ctx *c, cs_sbuf *out, const ui_sql_exec *e,
                      ui_job_status status)
{
    bool any = false;
    for (int i = 0; i < e->num_jobs; i++) {
        if (e->job_status[i] != status) continue;
        cs_sbuf_printf(out, "%s<a class=\"job-link %s\" href=\"", any ? ", " : "",
                       status_class[status]);
        cs_html_escape(out, c->base);
        cs_sbuf_printf(out, "/jobs/job/?id=%d\">[%d]</a>", e->job_ids[i], e->job_ids[i]);
        any = true;
    }
    if (!any) cs_sbuf_puts(out, "-");
}

static void exec_row(const ui_page_ctx *c, cs_sbuf *out, const ui_sql_exec *e)
{
    cs_sbuf_printf(out, "<tr id=\"sql-%lld\"><td>%lld</td><td class=\"description\"><a href=\"",
                   (long long)e->id, (long long)e->id);
    cs_html_escape(out, c->base);
    cs_sbuf_printf(out, "/SQL/execution/?id=%lld\">", (long long)e->id);
    cs_html_escape(out, e->description);
    cs_sbuf_puts(out, "</a></td><td>");
    cs_html_date(out, e->submission_ms);
    cs_sbuf_puts(out, "</td><td>");
    int64_t d = cs_ui_sql_duration_ms(e, c->now_ms);
    cs_html_duration(out, d > 0 ? d : 0);
    static const ui_job_status shown[] = {UI_JOB_RUNNING, UI_JOB_SUCCEEDED, UI_JOB_FAILED};
    for (int s = 0; s < 3; s++) {
        cs_sbuf_printf(out, "</td><td class=\"%s-jobs\">", status_class[shown[s]]);
        job_links(c, out, e, shown[s]);
    }
    cs_sbuf_puts(out, "</td></tr>\n");
}

static int exec_table(const ui_page_ctx *c, cs_sbuf *out, ui_sql_status status, const char *tag,
                      const char *heading)
{
    size_t n = cs_ui_store_num_sql(c->st);
    int count = 0;
    for (size_t i = 0; i < n; i++)
        count += cs_ui_sql_status(cs_ui_store_sql_at(c->st, i)) == status;
    if (count == 0) return 0;
    ui_pager pg = cs_ui_pager(c, tag, (size_t)count);
    cs_sbuf_printf(out,
                   "<h4 id=\"%s\">%s (%d)</h4><table class=\"sql\" id=\"%s-table\"><thead><tr>"
                   "<th>ID</th><th>Description</th><th>Submitted</th><th>Duration</th>"
                   "<th>Running Job IDs</th><th>Succeeded Job IDs</th><th>Failed Job IDs</th>"
                   "</tr></thead><tbody>\n",
                   tag, heading, count, tag);
    size_t rank = 0;
    for (size_t i = n; i-- > 0 && rank < pg.last;) { /* newest first, as Spark */
        const ui_sql_exec *e = cs_ui_store_sql_at(c->st, i);
        if (cs_ui_sql_status(e) != status) continue;
        if (rank++ >= pg.first) exec_row(c, out, e);
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_ui_pager_links(c, out, &pg, tag, "/SQL/?", tag);
    return count;
}

int cs_ui_page_sql(const ui_page_ctx *c, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, "SQL / DataFrame", UI_TAB_SQL);
    int counts[3] = {0, 0, 0};
    for (size_t i = 0; i < cs_ui_store_num_sql(c->st); i++)
        counts[cs_ui_sql_status(cs_ui_store_sql_at(c->st, i))]++;
    cs_sbuf_printf(out,
                   "<ul class=\"summary\"><li><a href=\"#running\"><strong>Running Queries:"
                   "</strong></a> <span id=\"running-sql-count\">%d</span></li>"
                   "<li><a href=\"#completed\"><strong>Completed Queries:</strong></a> "
                   "<span id=\"completed-sql-count\">%d</span></li>"
                   "<li><a href=\"#failed\"><strong>Failed Queries:</strong></a> "
                   "<span id=\"failed-sql-count\">%d</span></li></ul>\n",
                   counts[UI_SQL_RUNNING], counts[UI_SQL_COMPLETED], counts[UI_SQL_FAILED]);
    int shown = exec_table(c, out, UI_SQL_RUNNING, "running", "Running Queries");
    shown += exec_table(c, out, UI_SQL_COMPLETED, "completed", "Completed Queries");
    shown += exec_table(c, out, UI_SQL_FAILED, "failed", "Failed Queries");
    if (shown == 0) cs_sbuf_puts(out, "<p>No SQL queries have run yet.</p>");
    cs_html_page_end(out);
    return 200;
}

/* ---- one query ------------------------------------------------------------------------------ */

/* The plan graph: a box per node, its children as the DAG's parents (data flows from them). */
static void plan_graph(cs_sbuf *out, const ui_sql_exec *e)
{
    if (e->num_nodes == 0) return;
    cs_sbuf_puts(out, "<h4>Plan Visualization</h4>");
    if (e->num_nodes > MAX_PLAN_NODES) {
        cs_sbuf_printf(out,
                       "<p class=\"dag-omitted\">Not drawn: the plan has %d nodes (at most %d "
                       "are drawn).</p>",
                       e->num_nodes, MAX_PLAN_NODES);
        return;
    }
    int n = e->num_nodes;
    ui_dag_node *nodes = cs_xcalloc((size_t)n, sizeof *nodes);
    int *first = cs_xcalloc((size_t)n + 1, sizeof *first); /* node i's children: kids[first[i]..] */
    int *kids = cs_xcalloc((size_t)n + 1, sizeof *kids),
        *fill = cs_xcalloc((size_t)n, sizeof *fill);
    for (int i = 0; i < n; i++)
        first[i + 1] = first[i] + e->nodes[i].children;
    for (int i = 0; i < n; i++) {
        int p = e->nodes[i].parent;
        if (p >= 0 && p < n && fill[p] < e->nodes[p].children) kids[first[p] + fill[p]++] = i;
    }
    for (int i = 0; i < n; i++)
        nodes[i] = (ui_dag_node){e->nodes[i].name, (int)e->nodes[i].id, e->nodes[i].desc, NULL,
                                 UI_DAG_NORMAL,    kids + first[i],     fill[i]};
    cs_ui_dag_svg(out, nodes, n);
    free(fill);
    free(kids);
    free(first);
    free(nodes);
}

static void jobs_item(const ui_page_ctx *c, cs_sbuf *out, const ui_sql_exec *e,
                      ui_job_status status, const char *label)
{
    cs_sbuf_printf(out, "<li><strong>%s:</strong> <span id=\"%s-jobs\">", label,
                   status_class[status]);
    job_links(c, out, e, status);
    cs_sbuf_puts(out, "</span></li>");
}

int cs_ui_page_sql_execution(const ui_page_ctx *c, int64_t id, cs_sbuf *out)
{
    const ui_sql_exec *e = id >= 0 ? cs_ui_store_sql(c->st, id) : NULL;
    if (!e) {
        char msg[96];
        snprintf(msg, sizeof msg, "No information to display for query %lld", (long long)id);
        cs_ui_page_message(c, "Query not found", msg, out);
        return 404;
    }
    char title[64];
    snprintf(title, sizeof title, "Details for Query %lld", (long long)id);
    cs_ui_page_begin(c, out, title, UI_TAB_SQL);
    cs_sbuf_printf(out,
                   "<ul class=\"summary\"><li><strong>Status:</strong> <span id=\"sql-status\">"
                   "%s</span></li><li><strong>Description:</strong> <span id=\"sql-description\">",
                   cs_ui_sql_status_name(cs_ui_sql_status(e)));
    cs_html_escape(out, e->description);
    cs_sbuf_puts(out, "</span></li><li><strong>Submitted Time:</strong> ");
    cs_html_date(out, e->submission_ms);
    cs_sbuf_puts(out, "</li><li><strong>Duration:</strong> ");
    int64_t d = cs_ui_sql_duration_ms(e, c->now_ms);
    cs_html_duration(out, d > 0 ? d : 0);
    cs_sbuf_puts(out, "</li>");
    jobs_item(c, out, e, UI_JOB_RUNNING, "Running Jobs");
    jobs_item(c, out, e, UI_JOB_SUCCEEDED, "Succeeded Jobs");
    jobs_item(c, out, e, UI_JOB_FAILED, "Failed Jobs");
    if (e->error && e->error[0]) {
        cs_sbuf_puts(out, "<li><strong>Error:</strong> <span class=\"error\" id=\"sql-error\">");
        cs_html_escape(out, e->error);
        cs_sbuf_puts(out, "</span></li>");
    }
    cs_sbuf_puts(out, "</ul>\n");
    plan_graph(out, e);
    cs_sbuf_puts(out, "<h4>Details</h4><pre id=\"physical-plan\">");
    cs_html_escape(out, e->plan_description);
    cs_sbuf_puts(out, "</pre>\n");
    if (e->num_jobs > 0) {
        cs_sbuf_puts(out, "<h4 id=\"jobs\">Jobs</h4><table class=\"jobs\" id=\"sql-jobs-table\">"
                          "<thead><tr><th>Job Id</th><th>Description</th><th>Submitted</th>"
                          "<th>Duration</th><th>Stages: Succeeded/Total</th><th>Tasks (for all "
                          "stages): Succeeded/Total</th></tr></thead><tbody>\n");
        for (int i = e->num_jobs; i-- > 0;) {
            const ui_job *j = cs_ui_store_job(c->st, e->job_ids[i]);
            if (j)
                cs_ui_job_row(c, out, j);
            else /* dropped past spark.ui.retainedJobs: its id and status only */
                cs_sbuf_printf(out, "<tr id=\"job-%d\"><td>%d</td><td colspan=\"5\">%s</td></tr>\n",
                               e->job_ids[i], e->job_ids[i],
                               cs_ui_job_status_name(e->job_status[i]));
        }
        cs_sbuf_puts(out, "</tbody></table>\n");
    }
    cs_html_page_end(out);
    return 200;
}
