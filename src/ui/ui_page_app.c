/* ui_page_app.c — the application-wide tabs: Storage (cached RDDs, and one RDD's partitions and
 * their executors), Environment (runtime and
 * the redacted Spark properties), Executors (live and dead, with task counts, I/O, the process
 * metrics of their heartbeats and log links) and an executor's log page. See ui_pages.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "cspark.h"
#include "ui/ui_html.h"
#include "ui/ui_pages.h"

int cs_ui_page_storage(const ui_page_ctx *c, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, "Storage", UI_TAB_STORAGE);
    size_t n = cs_ui_store_num_rdds(c->st), cached = 0;
    for (size_t i = 0; i < n; i++) /* as Spark's: the RDDs with a cached partition */
        cached += cs_ui_store_rdd_at(c->st, i)->num_cached_partitions > 0;
    cs_sbuf_printf(out, "<h4>RDDs (<span id=\"rdd-count\">%zu</span>)</h4>", cached);
    if (cached == 0) {
        cs_sbuf_puts(out, "<p>No RDDs are cached.</p>");
    } else {
        cs_sbuf_puts(out, "<table id=\"storage-table\"><thead><tr><th>ID</th><th>RDD Name</th>"
                          "<th>Storage Level</th><th>Cached Partitions</th>"
                          "<th>Fraction Cached</th><th>Size in Memory</th><th>Size on Disk</th>"
                          "</tr></thead><tbody>\n");
        for (size_t i = 0; i < n; i++) {
            const ui_rdd *r = cs_ui_store_rdd_at(c->st, i);
            if (r->num_cached_partitions == 0) continue;
            cs_sbuf_printf(out, "<tr class=\"rdd\" id=\"rdd-%d\"><td>%d</td><td><a href=\"", r->id,
                           r->id);
            cs_html_escape(out, c->base);
            cs_sbuf_printf(out, "/storage/rdd/?id=%d\">", r->id);
            cs_html_escape(out, r->name ? r->name : "");
            cs_sbuf_puts(out, "</a></td><td>");
            cs_html_escape(out, r->storage_level);
            cs_sbuf_printf(out,
                           "</td><td class=\"num\">%d</td><td class=\"num\">%.0f%%</td>"
                           "<td class=\"num\">",
                           r->num_cached_partitions,
                           r->num_partitions ? 100.0 * r->num_cached_partitions / r->num_partitions
                                             : 0.0);
            cs_html_bytes(out, r->memory_used);
            cs_sbuf_puts(out, "</td><td class=\"num\">");
            cs_html_bytes(out, r->disk_used);
            cs_sbuf_puts(out, "</td></tr>\n");
        }
        cs_sbuf_puts(out, "</tbody></table>\n");
    }
    cs_html_page_end(out);
    return 200;
}

int cs_ui_page_rdd(const ui_page_ctx *c, int rdd_id, cs_sbuf *out)
{
    const ui_rdd *r = cs_ui_store_rdd(c->st, rdd_id);
    if (!r || !r->reported) {
        char msg[96];
        snprintf(msg, sizeof msg, "No information to display for RDD %d", rdd_id);
        cs_ui_page_message(c, "RDD not found", msg, out);
        return 404;
    }
    cs_sbuf title = CS_SBUF_INIT;
    cs_sbuf_printf(&title, "RDD Storage Info for %s", r->name ? r->name : "");
    cs_ui_page_begin(c, out, cs_sbuf_str(&title), UI_TAB_STORAGE);
    cs_sbuf_free(&title);
    cs_sbuf_puts(out, "<ul id=\"rdd-summary\"><li><strong>Storage Level:</strong> ");
    cs_html_escape(out, r->storage_level);
    cs_sbuf_printf(out,
                   "</li><li><strong>Cached Partitions:</strong> <span id=\"rdd-cached\">%d"
                   "</span></li><li><strong>Total Partitions:</strong> %d</li>"
                   "<li><strong>Memory Size:</strong> ",
                   r->num_cached_partitions, r->num_partitions);
    cs_html_bytes(out, r->memory_used);
    cs_sbuf_puts(out, "</li><li><strong>Disk Size:</strong> ");
    cs_html_bytes(out, r->disk_used);
    cs_sbuf_puts(out, "</li></ul>\n<h4>Data Distribution</h4><table id=\"rdd-distribution\">"
                      "<thead><tr><th>Executor</th><th>Address</th><th>Memory Usage</th>"
                      "<th>Disk Usage</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < cs_ui_store_num_executors(c->st); i++) {
        const ui_executor *e = cs_ui_store_executor_at(c->st, i);
        int64_t mem, disk;
        if (!cs_ui_rdd_share(r, e->id, &mem, &disk)) continue;
        cs_sbuf_puts(out, "<tr><td>");
        cs_html_escape(out, e->id);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_escape(out, e->host);
        cs_sbuf_puts(out, "</td><td class=\"num\">");
        cs_html_bytes(out, mem);
        cs_sbuf_puts(out, "</td><td class=\"num\">");
        cs_html_bytes(out, disk);
        cs_sbuf_puts(out, "</td></tr>\n");
    }
    cs_sbuf_printf(out,
                   "</tbody></table>\n<h4>%d Partitions</h4><table id=\"rdd-partitions\"><thead>"
                   "<tr><th>Block Name</th><th>Storage Level</th><th>Size in Memory</th>"
                   "<th>Size on Disk</th><th>Executors</th></tr></thead><tbody>\n",
                   r->num_parts);
    const ui_rdd_partition **parts = cs_ui_rdd_parts_sorted(r);
    for (int p = 0; p < r->num_parts; p++) {
        int64_t mem = 0, disk = 0;
        for (int k = 0; k < parts[p]->num_copies; k++) {
            mem += parts[p]->copies[k].memory_size;
            disk += parts[p]->copies[k].disk_size;
        }
        cs_sbuf_printf(out, "<tr class=\"rdd-block\"><td>rdd_%d_%d</td><td>", r->id,
                       parts[p]->partition);
        cs_html_escape(out, r->storage_level);
        cs_sbuf_puts(out, "</td><td class=\"num\">");
        cs_html_bytes(out, mem);
        cs_sbuf_puts(out, "</td><td class=\"num\">");
        cs_html_bytes(out, disk);
        cs_sbuf_puts(out, "</td><td>");
        for (int k = 0; k < parts[p]->num_copies; k++) {
            if (k) cs_sbuf_puts(out, " ");
            cs_html_escape(out, parts[p]->copies[k].executor_id);
        }
        cs_sbuf_puts(out, "</td></tr>\n");
    }
    free(parts);
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_html_page_end(out);
    return 200;
}

int cs_ui_page_environment(const ui_page_ctx *c, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, "Environment", UI_TAB_ENVIRONMENT);
    const ui_app *app = cs_ui_store_app(c->st);
    cs_sbuf_puts(out, "<h4>Runtime Information</h4><table id=\"runtime\"><thead><tr><th>Name"
                      "</th><th>Value</th></tr></thead><tbody><tr><td>cspark Version</td><td>");
    cs_html_escape(out, app->spark_version ? app->spark_version : CSPARK_VERSION);
    cs_sbuf_puts(out, "</td></tr>");
    if (c->live) {
        struct utsname u;
        if (uname(&u) == 0) {
            cs_sbuf_puts(out, "<tr><td>Operating System</td><td>");
            cs_html_printf_escaped(out, "%s %s %s", u.sysname, u.release, u.machine);
            cs_sbuf_puts(out, "</td></tr>");
        }
    }
    size_t n = cs_ui_store_num_props(c->st);
    cs_sbuf_printf(out,
                   "</tbody></table><h4>Spark Properties (<span id=\"property-count\">%zu</span>)"
                   "</h4><table id=\"spark-properties\"><thead><tr><th>Name</th><th>Value</th>"
                   "</tr></thead><tbody>\n",
                   n);
    for (size_t i = 0; i < n; i++) {
        const ui_prop *p = cs_ui_store_prop_at(c->st, i);
        cs_sbuf_puts(out, "<tr><td>");
        cs_html_escape(out, p->key);
        cs_sbuf_puts(out, "</td><td>");
        cs_html_escape(out, p->value);
        cs_sbuf_puts(out, "</td></tr>\n");
    }
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_html_page_end(out);
    return 200;
}

static void executor_row(const ui_page_ctx *c, cs_sbuf *out, const ui_executor *e)
{
    cs_sbuf_puts(out, "<tr class=\"executor\" id=\"executor-");
    cs_html_escape(out, e->id);
    cs_sbuf_puts(out, "\"><td>");
    cs_html_escape(out, e->id);
    cs_sbuf_puts(out, "</td><td>");
    cs_html_escape(out, e->host);
    cs_sbuf_printf(out,
                   "</td><td class=\"status\">%s</td><td class=\"num\">%d</td>"
                   "<td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%d"
                   "</td><td class=\"num\">%d</td><td>",
                   e->active ? "Active" : "Dead", e->cores, e->active_tasks, e->failed_tasks,
                   e->completed_tasks, e->active_tasks + e->failed_tasks + e->completed_tasks);
    cs_html_duration(out, e->total_duration_ms);
    cs_sbuf_printf(out,
                   "</td><td class=\"num rdd-blocks\">%d</td><td class=\"num storage-memory\">",
                   e->rdd_blocks);
    cs_html_bytes(out, e->memory_used);
    cs_sbuf_puts(out, "</td><td class=\"num disk-used\">");
    cs_html_bytes(out, e->disk_used);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, e->total_input_bytes);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, e->total_shuffle_read);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    cs_html_bytes(out, e->total_shuffle_write);
    cs_sbuf_puts(out, "</td><td class=\"num\">");
    if (e->have_metrics) {
        cs_html_bytes(out, e->metrics.rss_bytes);
        cs_sbuf_puts(out, " (peak ");
        cs_html_bytes(out, e->peak.rss_bytes);
        cs_sbuf_puts(out, ")</td><td class=\"num\">");
        cs_html_duration(out, e->metrics.cpu_time_ns / 1000000);
    } else {
        cs_sbuf_puts(out, "-</td><td class=\"num\">-");
    }
    cs_sbuf_puts(out, "</td><td>");
    cs_html_date(out, e->add_ms);
    cs_sbuf_puts(out, "</td><td>");
    if (!e->active) {
        cs_html_date(out, e->remove_ms);
        cs_sbuf_puts(out, "<br><span class=\"error\">");
        cs_html_escape(out, e->remove_reason);
        cs_sbuf_puts(out, "</span>");
    }
    cs_sbuf_puts(out, "</td><td>");
    cs_ui_log_links(c, out, e->id);
    cs_sbuf_puts(out, "</td></tr>\n");
}

int cs_ui_page_executors(const ui_page_ctx *c, cs_sbuf *out)
{
    cs_ui_page_begin(c, out, "Executors", UI_TAB_EXECUTORS);
    size_t n = cs_ui_store_num_executors(c->st);
    int active = 0, dead = 0, cores = 0, tasks = 0, failed = 0, done = 0;
    for (size_t i = 0; i < n; i++) {
        const ui_executor *e = cs_ui_store_executor_at(c->st, i);
        if (e->active) {
            active++;
            cores += e->cores;
        } else {
            dead++;
        }
        tasks += e->active_tasks;
        failed += e->failed_tasks;
        done += e->completed_tasks;
    }
    cs_sbuf_printf(out,
                   "<h4>Summary</h4><table id=\"executor-totals\"><thead><tr><th></th>"
                   "<th>Executors</th><th>Cores</th><th>Active Tasks</th><th>Failed Tasks</th>"
                   "<th>Complete Tasks</th></tr></thead><tbody>"
                   "<tr><td>Active(<span id=\"active-executors\">%d</span>)</td><td>%d</td>"
                   "<td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr>"
                   "<tr><td>Dead(<span id=\"dead-executors\">%d</span>)</td><td>%d</td><td></td>"
                   "<td></td><td></td><td></td></tr></tbody></table>\n",
                   active, active, cores, tasks, failed, done, dead, dead);
    cs_sbuf_puts(out, "<h4>Executors</h4><table id=\"executors-table\"><thead><tr>"
                      "<th>Executor ID</th><th>Address</th><th>Status</th><th>Cores</th>"
                      "<th>Active Tasks</th><th>Failed Tasks</th><th>Complete Tasks</th>"
                      "<th>Total Tasks</th><th>Task Time</th><th>RDD Blocks</th>"
                      "<th>Storage Memory</th><th>Disk Used</th><th>Input</th><th>Shuffle Read</th>"
                      "<th>Shuffle Write</th><th>Resident Memory</th><th>CPU Time</th>"
                      "<th>Added</th><th>Removed</th><th>Logs</th></tr></thead><tbody>\n");
    for (size_t i = 0; i < n; i++)
        executor_row(c, out, cs_ui_store_executor_at(c->st, i));
    cs_sbuf_puts(out, "</tbody></table>\n");
    cs_html_page_end(out);
    return 200;
}

int cs_ui_page_log(const ui_page_ctx *c, const char *executor_id, const char *log_type,
                   const char *text, size_t len, int64_t offset, int64_t total, cs_sbuf *out)
{
    cs_sbuf title = CS_SBUF_INIT;
    cs_sbuf_printf(&title, "Log of executor %s: %s", executor_id, log_type);
    cs_ui_page_begin(c, out, cs_sbuf_str(&title), UI_TAB_EXECUTORS);
    cs_sbuf_free(&title);
    cs_sbuf_printf(out, "<p>Bytes %lld-%lld of %lld. ", (long long)offset,
                   (long long)(offset + (int64_t)len), (long long)total);
    cs_sbuf_puts(out, "<a href=\"");
    cs_html_escape(out, c->base);
    cs_sbuf_puts(out, "/logPage/?executorId=");
    cs_html_url_escape(out, executor_id);
    cs_sbuf_printf(out, "&amp;logType=%s&amp;offset=0&amp;byteLength=%lld\">whole log</a></p>",
                   strcmp(log_type, "stderr") == 0 ? "stderr" : "stdout", (long long)total);
    cs_sbuf_puts(out, "<pre class=\"log\" id=\"log-text\">");
    cs_sbuf buf = CS_SBUF_INIT;
    cs_sbuf_append(&buf, text, len);
    cs_html_escape(out, cs_sbuf_str(&buf));
    cs_sbuf_free(&buf);
    cs_sbuf_puts(out, "</pre>");
    cs_html_page_end(out);
    return 200;
}
