/* app_status_sql.c — the SQL queries of the status store (see app_status_sql.h): Spark's
 * SQLAppStatusListener over the SQLExecutionStart / End events and the jobs carrying
 * spark.sql.execution.id, with the plan graph of each query (Spark's SparkPlanGraph).
 *
 * Layout: the queries are an array of pointers sorted by execution id, found by binary search (a
 * query is nearly always the newest, so insertion is an append). A query's jobs are kept sorted by
 * id with their status, so its job lists do not depend on the store's job retention.
 * The plan graph is built from the sparkPlanInfo JSON text as Spark's SparkPlanGraph builds it
 * for a plan without whole-stage-codegen clusters (cspark's): each node gets the next id in
 * pre-order, an edge goes from each child to its parent. A tree deeper than MAX_DEPTH (a
 * malformed log) keeps its first MAX_DEPTH levels.
 * Called by app_status.c's listener with the store locked; readers call the accessors at the end.
 */
#include "ui/app_status_sql.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/strutil.h"
#include "ui/app_status_internal.h"

#define MAX_DEPTH 500

static char *dup_str(const char *s)
{
    return cs_xstrdup(s ? s : "");
}

/* ---- the plan graph ------------------------------------------------------------------------ */

typedef struct graph {
    ui_sql_node *nodes;
    int n, cap;
} graph;

static void add_nodes(graph *g, const json_t *info, int parent, int depth)
{
    if (!json_is_object(info) || depth > MAX_DEPTH) return;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->nodes = cs_xrealloc(g->nodes, (size_t)g->cap * sizeof *g->nodes);
    }
    int me = g->n++;
    ui_sql_node *node = &g->nodes[me];
    const char *name = json_string_value(json_object_get(info, "nodeName"));
    const char *desc = json_string_value(json_object_get(info, "simpleString"));
    *node = (ui_sql_node){.id = me,
                          .name = cs_str_trim_dup(name ? name : "", name ? strlen(name) : 0),
                          .desc = dup_str(desc),
                          .parent = parent};
    if (parent >= 0) g->nodes[parent].children++;
    const json_t *children = json_object_get(info, "children");
    for (size_t i = 0; i < json_array_size(children); i++)
        add_nodes(g, json_array_get(children, i), me, depth + 1);
}

static void free_nodes(ui_sql_node *nodes, int n)
{
    for (int i = 0; i < n; i++) {
        free(nodes[i].name);
        free(nodes[i].desc);
    }
    free(nodes);
}

/* ---- records ------------------------------------------------------------------------------- */

static size_t sql_pos(const ui_store *st, int64_t id, bool *found)
{
    size_t lo = 0, hi = st->nsql;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->sql[mid]->id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = lo < st->nsql && st->sql[lo]->id == id;
    return lo;
}

static void exec_free(ui_sql_exec *e)
{
    free(e->description);
    free(e->plan_description);
    free(e->error);
    free_nodes(e->nodes, e->num_nodes);
    free(e->job_ids);
    free(e->job_status);
    free(e);
}

/* Past spark.sql.ui.retainedExecutions: the oldest finished queries, max(limit / 10, excess) of
 * them, as Spark's SQLAppStatusListener.cleanupExecutions; then, if still past it, the oldest
 * records that only jobs named (a log whose queries never started cannot grow the store). */
static void trim(ui_store *st)
{
    size_t limit = (size_t)st->lim.retained_executions;
    if (st->nsql <= limit) return;
    size_t drop = st->nsql - limit, tenth = limit / 10;
    if (tenth > drop) drop = tenth;
    for (int pass = 0; pass < 2 && st->nsql > limit; pass++) {
        size_t w = 0;
        for (size_t i = 0; i < st->nsql; i++) {
            ui_sql_exec *e = st->sql[i];
            bool go = pass == 0 ? e->completion_ms > 0 : !e->started;
            if (drop > 0 && go) {
                exec_free(e);
                drop--;
                continue;
            }
            st->sql[w++] = e;
        }
        st->nsql = w;
        drop = st->nsql > limit ? st->nsql - limit : 0;
    }
}

/* The query's record, made when new. */
static ui_sql_exec *get_or_create(ui_store *st, int64_t id)
{
    bool found;
    size_t pos = sql_pos(st, id, &found);
    if (found) return st->sql[pos];
    if (st->nsql == st->capsql) {
        st->capsql = st->capsql ? 2 * st->capsql : 16;
        st->sql = cs_xrealloc(st->sql, st->capsql * sizeof *st->sql);
    }
    ui_sql_exec *e = cs_xcalloc(1, sizeof *e);
    e->id = id;
    e->description = dup_str("");
    e->plan_description = dup_str("");
    memmove(st->sql + pos + 1, st->sql + pos, (st->nsql - pos) * sizeof *st->sql);
    st->sql[pos] = e;
    st->nsql++;
    return e;
}

/* ---- events -------------------------------------------------------------------------------- */

void cs_ui_sql_start(ui_store *st, const cs_event *ev)
{
    ui_sql_exec *e = get_or_create(st, ev->sql_execution_id);
    if (e->started) return; /* a duplicate start: keep the first */
    e->started = true;
    free(e->description);
    free(e->plan_description);
    e->description = dup_str(ev->sql_description);
    e->plan_description = dup_str(ev->sql_plan);
    e->submission_ms = ev->time_ms;
    json_t *info = ev->sql_plan_info ? json_loads(ev->sql_plan_info, 0, NULL) : NULL;
    graph g = {0};
    add_nodes(&g, info, -1, 0);
    json_decref(info);
    e->nodes = g.nodes;
    e->num_nodes = g.n;
    trim(st);
}

void cs_ui_sql_end(ui_store *st, const cs_event *ev)
{
    bool found;
    size_t pos = sql_pos(st, ev->sql_execution_id, &found);
    if (!found) return; /* an end without a start: Spark shows nothing either */
    ui_sql_exec *e = st->sql[pos];
    if (e->completion_ms > 0) return;
    e->completion_ms = ev->time_ms > 0 ? ev->time_ms : 1;
    if (ev->succeeded) /* else a reason, or none (the log of an older Spark) */
        e->error = dup_str("");
    else if (ev->reason)
        e->error = dup_str(ev->reason[0] ? ev->reason : "failed");
    trim(st);
}

void cs_ui_sql_job(ui_store *st, int64_t exec_id, int job_id, ui_job_status status)
{
    bool known;
    sql_pos(st, exec_id, &known);
    ui_sql_exec *e = get_or_create(st, exec_id);
    if (!known) {
        trim(st);
        e = get_or_create(st, exec_id); /* made again if the trim took it */
    }
    int lo = 0, hi = e->num_jobs;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (e->job_ids[mid] < job_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < e->num_jobs && e->job_ids[lo] == job_id) {
        e->job_status[lo] = status;
        return;
    }
    if (e->num_jobs == e->cap_jobs) {
        e->cap_jobs = e->cap_jobs ? 2 * e->cap_jobs : 4;
        e->job_ids = cs_xrealloc(e->job_ids, (size_t)e->cap_jobs * sizeof *e->job_ids);
        e->job_status = cs_xrealloc(e->job_status, (size_t)e->cap_jobs * sizeof *e->job_status);
    }
    memmove(e->job_ids + lo + 1, e->job_ids + lo, (size_t)(e->num_jobs - lo) * sizeof *e->job_ids);
    memmove(e->job_status + lo + 1, e->job_status + lo,
            (size_t)(e->num_jobs - lo) * sizeof *e->job_status);
    e->job_ids[lo] = job_id;
    e->job_status[lo] = status;
    e->num_jobs++;
}

void cs_ui_sql_free(ui_store *st)
{
    for (size_t i = 0; i < st->nsql; i++)
        exec_free(st->sql[i]);
    free(st->sql);
    st->sql = NULL;
    st->nsql = st->capsql = 0;
}

/* ---- reading ------------------------------------------------------------------------------- */

ui_sql_status cs_ui_sql_status(const ui_sql_exec *e)
{
    if (e->error) return e->error[0] ? UI_SQL_FAILED : UI_SQL_COMPLETED;
    if (e->completion_ms == 0) return UI_SQL_RUNNING;
    for (int i = 0; i < e->num_jobs; i++)
        if (e->job_status[i] == UI_JOB_FAILED) return UI_SQL_FAILED;
    return UI_SQL_COMPLETED;
}

const char *cs_ui_sql_status_name(ui_sql_status s)
{
    switch (s) {
    case UI_SQL_RUNNING:
        return "RUNNING";
    case UI_SQL_FAILED:
        return "FAILED";
    case UI_SQL_COMPLETED:
        break;
    }
    return "COMPLETED";
}

int64_t cs_ui_sql_duration_ms(const ui_sql_exec *e, int64_t now_ms)
{
    int64_t end = e->completion_ms > 0 ? e->completion_ms : now_ms;
    return end - e->submission_ms;
}

size_t cs_ui_store_num_sql(const ui_store *st)
{
    return st->nsql;
}

const ui_sql_exec *cs_ui_store_sql_at(const ui_store *st, size_t i)
{
    return i < st->nsql ? st->sql[i] : NULL;
}

const ui_sql_exec *cs_ui_store_sql(const ui_store *st, int64_t id)
{
    bool found;
    size_t pos = sql_pos(st, id, &found);
    return found ? st->sql[pos] : NULL;
}
