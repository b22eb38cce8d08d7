/* ui_pages.h — the HTML pages of one application's UI, rendered on the server from its store:
 * Jobs, a job, Stages, a stage attempt (tasks, summary quantiles, per-executor table, DAG), a task,
 * Storage, Environment, Executors, an executor's log, and the SQL / DataFrame tab.
 *
 * Each function renders a whole page into `out` and returns the HTTP status (200, or 404 with a
 * short page when the job/stage/task is unknown). The caller (ui_server.c) holds the store's
 * lock for the duration of the call. Links are absolute paths under ctx->base, so the same pages
 * serve the live driver ("") and the history server ("/history/<app id>").
 *
 * Every table whose rows grow with the application (jobs, stages, a stage's tasks) is paged as
 * Spark's PagedTable: the query parameters <tag>.page (1-based) and <tag>.pageSize (default 100,
 * at most 10,000) pick the rows, tags as Spark's ("activeJob", "completedJob", "failedJob",
 * "activeStage", "pendingStage", "completedStage", "skippedStage", "failedStage", "task"), so a
 * page's size is bounded whatever the application's; a job's DAG is drawn for jobs of at most
 * UI_DAG_MAX_STAGES stages.
 */
#ifndef CSPARK_UI_PAGES_H
#define CSPARK_UI_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/strutil.h"
#include "ui/app_status.h"

typedef struct ui_page_ctx {
    const ui_store *st; /* locked by the caller */
    const char *base;   /* "" or "/history/<app id>" */
    bool live;          /* the driver's own UI (the application may still run) */
    bool kill_enabled;  /* spark.ui.killEnabled, live only */
    const char *csrf;   /* the token kill forms carry */
    bool executor_logs; /* the server serves executors' logs at <base>/logPage/ */
    int64_t now_ms;
    /* the request's query parameter `name` (index: its index-th repetition) or NULL */
    const char *(*arg)(void *arg_ctx, const char *name, int index);
    void *arg_ctx;
} ui_page_ctx;

#define UI_PAGE_SIZE_DEFAULT 100 /* Spark's PagedTable default */
#define UI_PAGE_SIZE_MAX 10000
#define UI_DAG_MAX_STAGES 300 /* a job of more stages gets a note instead of its DAG */

/* The rows [first, last) of a paged table of `rows` rows, from <tag>.page and <tag>.pageSize. */
typedef struct ui_pager {
    size_t page, pages, page_size, first, last;
} ui_pager;

int cs_ui_page_jobs(const ui_page_ctx *c, cs_sbuf *out);
int cs_ui_page_job(const ui_page_ctx *c, int job_id, cs_sbuf *out);
int cs_ui_page_stages(const ui_page_ctx *c, cs_sbuf *out);
/* attempt < 0: the latest. The task table's page from task.page and task.pageSize. */
int cs_ui_page_stage(const ui_page_ctx *c, int stage_id, int attempt, cs_sbuf *out);
int cs_ui_page_task(const ui_page_ctx *c, int stage_id, int attempt, int64_t task_id, cs_sbuf *out);
int cs_ui_page_storage(const ui_page_ctx *c, cs_sbuf *out);
/* One persisted RDD (Spark's RDDPage): summary, data distribution, partitions; 404 when unknown. */
int cs_ui_page_rdd(const ui_page_ctx *c, int rdd_id, cs_sbuf *out);
int cs_ui_page_environment(const ui_page_ctx *c, cs_sbuf *out);
int cs_ui_page_executors(const ui_page_ctx *c, cs_sbuf *out);
/* The SQL / DataFrame tab (ui_page_sql.c): the queries (running, completed, failed; paged with
 * the tags "running", "completed", "failed") and one query (its jobs, plan graph and physical
 * plan; 404 when unknown). */
int cs_ui_page_sql(const ui_page_ctx *c, cs_sbuf *out);
int cs_ui_page_sql_execution(const ui_page_ctx *c, int64_t id, cs_sbuf *out);
/* The log page frame around text (already read by the caller; escaped here). */
int cs_ui_page_log(const ui_page_ctx *c, const char *executor_id, const char *log_type,
                   const char *text, size_t len, int64_t offset, int64_t total, cs_sbuf *out);
/* A short page with a message (404s, refusals). */
void cs_ui_page_message(const ui_page_ctx *c, const char *title, const char *message, cs_sbuf *out);

/* ---- shared by the page modules (ui_page_*.c) ---------------------------------------------- */

/* The frame of an application page. */
void cs_ui_page_begin(const ui_page_ctx *c, cs_sbuf *out, const char *title, int tab);
/* A stage table ("Active Stages (2)" heading and rows) of the stage attempts with this status:
 * every attempt of the store when job is NULL, else the job's stages as that job saw them (a
 * stage it did not run is skipped for it). Returns the row count. */
int cs_ui_stage_table(const ui_page_ctx *c, cs_sbuf *out, ui_stage_status status, const char *id,
                      const char *heading, const ui_job *job);
/* The page of a table of `rows` rows that the request asks for with <tag>.page and <tag>.pageSize
 * (absent, not a number or out of range: the first page, the default size; a page past the last:
 * the last). */
ui_pager cs_ui_pager(const ui_page_ctx *c, const char *tag, size_t rows);
/* "Page 2 of 7: 1 2 3 ..." links when there is more than one page: each link is
 * <base><path_query><tag>.page=N&pageSize=S#anchor, path_query ending in '?' or "&amp;". */
void cs_ui_pager_links(const ui_page_ctx *c, cs_sbuf *out, const ui_pager *p, const char *tag,
                       const char *path_query, const char *anchor);
/* The stage DAG of a job's stages (current: the stage to highlight, -1 none). */
void cs_ui_job_dag(const ui_page_ctx *c, cs_sbuf *out, const int *stage_ids, int n, int current);
/* A row of a jobs table (Job Id, Description, Submitted, Duration, Stages, Tasks and, for a
 * failed job, the reason). */
void cs_ui_job_row(const ui_page_ctx *c, cs_sbuf *out, const ui_job *j);
/* A kill form (POST) for a job or a stage, when killing is enabled and the page is live. */
void cs_ui_kill_form(const ui_page_ctx *c, cs_sbuf *out, const char *what, int id);
/* The page's title and the first line of its summary: "Status: <status>" (in a span with id
 * status_id) and, when running, the kill form of `what` (job/stage) id. Opens the summary <ul>. */
void cs_ui_details_begin(const ui_page_ctx *c, cs_sbuf *out, const char *title, int tab,
                         const char *status_id, const char *status, bool running, const char *what,
                         int id);
/* Executors' log links ("stdout stderr") for executor id, or nothing. */
void cs_ui_log_links(const ui_page_ctx *c, cs_sbuf *out, const char *executor_id);

#endif /* CSPARK_UI_PAGES_H */
