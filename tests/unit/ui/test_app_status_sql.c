/* test_app_status_sql.c — unit tests for the SQL queries of the UI's status store
 * (ui/app_status_sql.c) and their REST answers (ui/ui_api_sql.c), fed the events the session
 * posts: the plan graph of a query's sparkPlanInfo (pre-order ids, an edge per child), the jobs
 * that carry spark.sql.execution.id with their status (also a job seen before its query's start,
 * as a scalar subquery's), Spark's statuses from the end's errorMessage and the jobs, the
 * spark.sql.ui.retainedExecutions retention (also of queries only jobs named), a malformed deep
 * plan, and /sql, /sql/<id> with
 * Spark's fields and parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/strutil.h"
#include "sched/listener.h"
#include "ui/app_status.h"
#include "ui/app_status_sql.h"
#include "ui/ui_api.h"

#define PLAN_INFO                                                                                  \
    "{\"nodeName\":\"Sort\",\"simpleString\":\"Sort [k ASC NULLS FIRST], true, 0\",\"children\":[" \
    "{\"nodeName\":\"Exchange\",\"simpleString\":\"Exchange SinglePartition\",\"children\":["      \
    "{\"nodeName\":\" HashAggregate \",\"simpleString\":\"HashAggregate(keys=[k])\","              \
    "\"children\":[{\"nodeName\":\"Range\",\"simpleString\":\"Range (0, 10, step=1, splits=2)\","  \
    "\"children\":[],\"metadata\":{},\"metrics\":[]}],\"metadata\":{},\"metrics\":[]},"            \
    "{\"nodeName\":\"LocalTableScan\",\"simpleString\":\"LocalTableScan [x]\",\"children\":[],"    \
    "\"metadata\":{},\"metrics\":[]}],\"metadata\":{},\"metrics\":[]}],\"metadata\":{},"           \
    "\"metrics\":[]}"

static void sql_start(ui_store *st, int64_t id, const char *text, int64_t t)
{
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_START,
                   .job_id = -1,
                   .sql_execution_id = id,
                   .sql_description = text,
                   .sql_plan = "== Physical Plan ==\nSort [k ASC NULLS FIRST], true, 0\n",
                   .sql_plan_info = PLAN_INFO,
                   .time_ms = t};
    cs_ui_store_listener(st, &ev);
}

static void sql_end(ui_store *st, int64_t id, bool ok, const char *reason, int64_t t)
{
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_END,
                   .job_id = -1,
                   .sql_execution_id = id,
                   .succeeded = ok,
                   .reason = reason,
                   .time_ms = t};
    cs_ui_store_listener(st, &ev);
}

static void job(ui_store *st, int job_id, const char *exec_id, bool end, bool ok)
{
    const char *props[] = {"spark.job.description", "q", "spark.sql.execution.id", exec_id};
    int stage = job_id;
    cs_event ev = {.kind = end ? CS_EV_JOB_END : CS_EV_JOB_START,
                   .job_id = job_id,
                   .stage_ids = &stage,
                   .num_stage_ids = 1,
                   .stage_name = "collect",
                   .job_properties = props,
                   .num_job_properties = exec_id ? 2 : 1,
                   .succeeded = ok,
                   .reason = ok ? NULL : "boom",
                   .time_ms = 1000 + job_id};
    cs_ui_store_listener(st, &ev);
}

static void test_plan_graph_and_jobs(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    job(st, 0, "0", false, true); /* a scalar subquery's job: before its query's start */
    job(st, 0, "0", true, true);
    sql_start(st, 0, "SELECT k FROM t ORDER BY k", 500);
    job(st, 1, "0", false, true);
    job(st, 2, NULL, false, true); /* an RDD job: no query */
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_sql(st), 1);
    const ui_sql_exec *e = cs_ui_store_sql(st, 0);
    assert_non_null(e);
    assert_string_equal(e->description, "SELECT k FROM t ORDER BY k");
    assert_int_equal(cs_ui_sql_status(e), UI_SQL_RUNNING);
    assert_int_equal(e->num_nodes, 5);
    static const char *const names[] = {"Sort", "Exchange", "HashAggregate", "Range",
                                        "LocalTableScan"};
    static const int parents[] = {-1, 0, 1, 2, 1}, children[] = {1, 2, 1, 0, 0};
    for (int i = 0; i < 5; i++) {
        assert_int_equal(e->nodes[i].id, i);
        assert_string_equal(e->nodes[i].name, names[i]);
        assert_int_equal(e->nodes[i].parent, parents[i]);
        assert_int_equal(e->nodes[i].children, children[i]);
    }
    assert_string_equal(e->nodes[3].desc, "Range (0, 10, step=1, splits=2)");
    assert_int_equal(e->num_jobs, 2);
    assert_int_equal(e->job_ids[0], 0);
    assert_int_equal(e->job_status[0], UI_JOB_SUCCEEDED);
    assert_int_equal(e->job_ids[1], 1);
    assert_int_equal(e->job_status[1], UI_JOB_RUNNING);
    assert_int_equal(cs_ui_store_job(st, 1)->sql_execution_id, 0);
    assert_int_equal(cs_ui_store_job(st, 2)->sql_execution_id, -1);
    cs_ui_store_unlock(st);

    job(st, 1, "0", true, false);
    sql_end(st, 0, false, "[DIVIDE_BY_ZERO] Division by zero.", 900);
    cs_ui_store_lock(st);
    assert_int_equal(e->job_status[1], UI_JOB_FAILED);
    assert_int_equal(cs_ui_sql_status(e), UI_SQL_FAILED);
    assert_int_equal(cs_ui_sql_duration_ms(e, 99999), 400);
    assert_string_equal(e->error, "[DIVIDE_BY_ZERO] Division by zero.");
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void test_statuses(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    sql_start(st, 1, "a", 10); /* succeeded: Spark 4's errorMessage "" */
    job(st, 0, "1", false, true);
    job(st, 0, "1", true, true);
    sql_end(st, 1, true, NULL, 20);
    sql_start(st, 2, "b", 30); /* an end without errorMessage (Spark 3.3's log): from the jobs */
    job(st, 1, "2", false, true);
    job(st, 1, "2", true, false);
    sql_end(st, 2, false, NULL, 40);
    sql_start(st, 3, "c", 50); /* the same, its jobs all succeeded */
    sql_end(st, 3, false, NULL, 60);
    sql_start(st, 4, "d", 70);      /* still running */
    sql_end(st, 9, true, NULL, 80); /* an end without a start: ignored */
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_sql(st), 4);
    assert_int_equal(cs_ui_sql_status(cs_ui_store_sql(st, 1)), UI_SQL_COMPLETED);
    assert_int_equal(cs_ui_sql_status(cs_ui_store_sql(st, 2)), UI_SQL_FAILED);
    assert_int_equal(cs_ui_sql_status(cs_ui_store_sql(st, 3)), UI_SQL_COMPLETED);
    assert_int_equal(cs_ui_sql_status(cs_ui_store_sql(st, 4)), UI_SQL_RUNNING);
    assert_int_equal(cs_ui_sql_duration_ms(cs_ui_store_sql(st, 4), 100), 30);
    assert_null(cs_ui_store_sql(st, 9));
    assert_string_equal(cs_ui_sql_status_name(UI_SQL_FAILED), "FAILED");
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void test_retention(void **state)
{
    (void)state;
    ui_store_limits lim = {100, 100, 100, 100, 3};
    ui_store *st = cs_ui_store_new(&lim);
    sql_start(st, 0, "running", 1); /* never ends: kept */
    for (int i = 1; i <= 5; i++) {
        sql_start(st, i, "q", 10 * i);
        sql_end(st, i, true, NULL, 10 * i + 5);
    }
    cs_ui_store_lock(st);
    /* past 3, the oldest finished go (at least a tenth of the limit at a time) */
    assert_int_equal(cs_ui_store_num_sql(st), 3);
    assert_int_equal(cs_ui_store_sql_at(st, 0)->id, 0);
    assert_int_equal(cs_ui_store_sql_at(st, 1)->id, 4);
    assert_int_equal(cs_ui_store_sql_at(st, 2)->id, 5);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);

    /* jobs naming queries that never start (a malformed log) do not grow the store */
    st = cs_ui_store_new(&lim);
    char id[16];
    for (int i = 0; i < 50; i++) {
        snprintf(id, sizeof id, "%d", 100 + i);
        job(st, i, id, false, true);
    }
    cs_ui_store_lock(st);
    assert_true(cs_ui_store_num_sql(st) <= 4);
    assert_int_equal(cs_ui_store_sql_at(st, cs_ui_store_num_sql(st) - 1)->id, 149);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);

    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.sql.ui.retainedExecutions", "0");
    cs_error err = {0};
    assert_int_not_equal(cs_ui_store_limits_read(c, &lim, &err), 0);
    assert_non_null(strstr(err.msg, "spark.sql.ui.retainedExecutions"));
    cs_conf_set(c, "spark.sql.ui.retainedExecutions", "7");
    assert_int_equal(cs_ui_store_limits_read(c, &lim, &err), 0);
    assert_int_equal(lim.retained_executions, 7);
    cs_conf_free(c);
}

/* A malformed log's plan nested 2000 levels deep: the first 501 levels are kept, no recursion
 * past them. */
static void test_deep_plan(void **state)
{
    (void)state;
    cs_sbuf b = CS_SBUF_INIT;
    for (int i = 0; i < 2000; i++)
        cs_sbuf_puts(&b, "{\"nodeName\":\"Filter\",\"simpleString\":\"Filter x\",\"children\":[");
    for (int i = 0; i < 2000; i++)
        cs_sbuf_puts(&b, "]}");
    ui_store *st = cs_ui_store_new(NULL);
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_START,
                   .job_id = -1,
                   .sql_execution_id = 0,
                   .sql_description = "deep",
                   .sql_plan_info = cs_sbuf_str(&b),
                   .time_ms = 1};
    cs_ui_store_listener(st, &ev);
    cs_ui_store_lock(st);
    const ui_sql_exec *e = cs_ui_store_sql(st, 0);
    assert_non_null(e); /* jansson's own depth limit may refuse the text: then no graph */
    assert_true(e->num_nodes == 0 || e->num_nodes == 501);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
    cs_sbuf_free(&b);
}

/* ---- REST ---- */

typedef struct args {
    const char *k[4], *v[4];
} args;

static const char *get_arg(void *ctx, const char *name, int index)
{
    args *a = ctx;
    for (int i = 0; i < 4 && a->k[i]; i++)
        if (strcmp(a->k[i], name) == 0 && index == 0) return a->v[i];
    return NULL;
}

static int api(const ui_store *st, const char *path, args *a, json_t **out)
{
    ui_api_req r = {st, path, get_arg, a, 5000, 0, NULL, true};
    cs_sbuf b = CS_SBUF_INIT;
    int status = cs_ui_api_app(&r, &b);
    *out = status == 200 ? json_loads(cs_sbuf_str(&b), 0, NULL) : json_string(cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return status;
}

static void test_rest(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    sql_start(st, 0, "SELECT 1", 1000);
    job(st, 0, "0", false, true);
    job(st, 0, "0", true, true);
    sql_end(st, 0, true, NULL, 1250);
    sql_start(st, 1, "SELECT 2", 2000);
    job(st, 1, "1", false, true);
    sql_start(st, 2, "SELECT 3", 3000);
    cs_ui_store_lock(st);
    args none = {{NULL}, {NULL}};
    json_t *j;
    assert_int_equal(api(st, "/sql", &none, &j), 200);
    assert_int_equal(json_array_size(j), 3);
    json_t *e0 = json_array_get(j, 0);
    static const char *const fields[] = {
        "id",       "status",        "description",   "planDescription", "submissionTime",
        "duration", "runningJobIds", "successJobIds", "failedJobIds",    "nodes",
        "edges"};
    const char *key;
    json_t *v;
    size_t k = 0;
    json_object_foreach(e0, key, v)
    { /* jansson keeps insertion order: Spark's field order */
        assert_true(k < 11);
        assert_string_equal(key, fields[k++]);
    }
    assert_int_equal(k, 11);
    assert_string_equal(json_string_value(json_object_get(e0, "status")), "COMPLETED");
    assert_string_equal(json_string_value(json_object_get(e0, "submissionTime")),
                        "1970-01-01T00:00:01.000GMT");
    assert_int_equal(json_integer_value(json_object_get(e0, "duration")), 250);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(e0, "successJobIds"), 0)),
                     0);
    json_t *nodes = json_object_get(e0, "nodes"), *edges = json_object_get(e0, "edges");
    assert_int_equal(json_array_size(nodes), 5);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(nodes, 0), "nodeId")), 4);
    assert_string_equal(json_string_value(json_object_get(json_array_get(nodes, 2), "nodeName")),
                        "HashAggregate");
    assert_int_equal(json_array_size(edges), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(edges, 3), "fromId")), 4);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(edges, 3), "toId")), 1);
    json_t *e1 = json_array_get(j, 1);
    assert_string_equal(json_string_value(json_object_get(e1, "status")), "RUNNING");
    assert_int_equal(json_integer_value(json_object_get(e1, "duration")), 3000); /* now - start */
    assert_int_equal(json_array_size(json_object_get(e1, "runningJobIds")), 1);
    json_decref(j);

    args bare = {{"details", "planDescription"}, {"false", "FALSE"}};
    assert_int_equal(api(st, "/sql/0", &bare, &j), 200);
    assert_int_equal(json_array_size(json_object_get(j, "nodes")), 0);
    assert_int_equal(json_array_size(json_object_get(j, "edges")), 0);
    assert_string_equal(json_string_value(json_object_get(j, "planDescription")), "");
    json_decref(j);

    args window = {{"offset", "length"}, {"1", "1"}};
    assert_int_equal(api(st, "/sql/", &window, &j), 200);
    assert_int_equal(json_array_size(j), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "id")), 1);
    json_decref(j);

    assert_int_equal(api(st, "/sql/7", &none, &j), 404);
    assert_non_null(strstr(json_string_value(j), "unknown query execution id: 7"));
    json_decref(j);
    assert_int_equal(api(st, "/sql/-1", &none, &j), 404);
    json_decref(j);
    assert_int_equal(api(st, "/sql/1/x", &none, &j), 404);
    json_decref(j);
    args bad = {{"length"}, {"many"}};
    assert_int_equal(api(st, "/sql", &bad, &j), 404);
    json_decref(j);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_graph_and_jobs),
        cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_retention),
        cmocka_unit_test(test_deep_plan),
        cmocka_unit_test(test_rest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
