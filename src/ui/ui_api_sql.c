/* ui_api_sql.c — /api/v1/applications/<id>/sql and /sql/<executionId>: the SQL queries of an
 * application as Spark 4's SqlResource answers them (its ExecutionData class, field by field).
 *
 *   sql?details=true&planDescription=true&offset=0&length=-1
 *       every query in ascending id order (length > 0: the queries [offset, offset + length))
 *   sql/<executionId>?details=true&planDescription=true
 *       one query, or 404 "unknown query execution id: <id>"
 *
 * ExecutionData: id, status (RUNNING, COMPLETED, FAILED), description, planDescription (""
 * with planDescription=false), submissionTime, duration (until now while running),
 * runningJobIds, successJobIds, failedJobIds (ascending), nodes (the plan graph's nodes by
 * descending id: nodeId, nodeName, metrics — cspark's operators keep no SQL metrics yet, so
 * every list is empty, as Spark's for a node without metric values) and edges (fromId, the child,
 * toId, its parent; in the graph's pre-order); details=false leaves nodes and edges empty.
 * Booleans read as Jersey reads them ("true" in any case is true, anything else false); a
 * number that does not read is Spark's 404 for a parameter it cannot convert.
 *
 * Called by ui_api.c's dispatch with the store locked (ui_api.h); builds into `out`.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/json_text.h"
#include "common/strutil.h"
#include "ui/app_status_sql.h"
#include "ui/ui_api.h"

static bool bool_arg(const ui_api_req *r, const char *name)
{
    const char *v = r->arg(r->arg_ctx, name, 0);
    return v ? cs_str_ieq(v, "true") : true; /* both of Spark's flags default to true */
}

static json_t *job_ids(const ui_sql_exec *e, ui_job_status status)
{
    json_t *a = json_array();
    for (int i = 0; i < e->num_jobs; i++)
        if (e->job_status[i] == status) json_array_append_new(a, json_integer(e->job_ids[i]));
    return a;
}

static json_t *execution_data(const ui_api_req *r, const ui_sql_exec *e, bool details,
                              bool plan_description)
{
    json_t *o = json_object();
    char date[48];
    cs_ui_api_date(e->submission_ms, date, sizeof date);
    json_object_set_new(o, "id", json_integer(e->id));
    json_object_set_new(o, "status", json_string(cs_ui_sql_status_name(cs_ui_sql_status(e))));
    json_object_set_new(o, "description", cs_json_text(e->description));
    json_object_set_new(o, "planDescription",
                        cs_json_text(plan_description ? e->plan_description : ""));
    json_object_set_new(o, "submissionTime", json_string(date));
    json_object_set_new(o, "duration", json_integer(cs_ui_sql_duration_ms(e, r->now_ms)));
    json_object_set_new(o, "runningJobIds", job_ids(e, UI_JOB_RUNNING));
    json_object_set_new(o, "successJobIds", job_ids(e, UI_JOB_SUCCEEDED));
    json_object_set_new(o, "failedJobIds", job_ids(e, UI_JOB_FAILED));
    json_t *nodes = json_array(), *edges = json_array();
    for (int i = details ? e->num_nodes : 0; i-- > 0;) {
        json_t *n = json_object();
        json_object_set_new(n, "nodeId", json_integer(e->nodes[i].id));
        json_object_set_new(n, "nodeName", cs_json_text(e->nodes[i].name));
        json_object_set_new(n, "metrics", json_array());
        json_array_append_new(nodes, n);
    }
    for (int i = 0; details && i < e->num_nodes; i++) {
        if (e->nodes[i].parent < 0) continue;
        json_t *edge = json_object();
        json_object_set_new(edge, "fromId", json_integer(e->nodes[i].id));
        json_object_set_new(edge, "toId", json_integer(e->nodes[e->nodes[i].parent].id));
        json_array_append_new(edges, edge);
    }
    json_object_set_new(o, "nodes", nodes);
    json_object_set_new(o, "edges", edges);
    return o;
}

/* A query parameter of type Int (absent: dflt); false when it does not read as one. */
static bool int_arg(const ui_api_req *r, const char *name, int64_t dflt, int64_t *out)
{
    const char *v = r->arg(r->arg_ctx, name, 0);
    *out = dflt;
    return !v || cs_str_to_int_in(v, INT_MIN, INT_MAX, out);
}

int cs_ui_api_sql(const ui_api_req *r, const char *rest, cs_sbuf *out)
{
    bool details = bool_arg(r, "details"), plan = bool_arg(r, "planDescription");
    if (*rest == '\0' || strcmp(rest, "/") == 0) {
        int64_t offset, length;
        if (!int_arg(r, "offset", 0, &offset) || !int_arg(r, "length", -1, &length)) {
            cs_sbuf_puts(out, "a query parameter of /sql is not a number\n");
            return 404;
        }
        size_t n = cs_ui_store_num_sql(r->st), first = 0, end = n;
        if (length > 0) {
            first = offset > 0 ? (size_t)offset : 0;
            if (first > n) first = n;
            end = (size_t)length < n - first ? first + (size_t)length : n;
        }
        json_t *a = json_array();
        for (size_t i = first; i < end; i++)
            json_array_append_new(a,
                                  execution_data(r, cs_ui_store_sql_at(r->st, i), details, plan));
        cs_ui_api_dump(a, out);
        return 200;
    }
    const char *p = rest + 1;
    size_t len = strcspn(p, "/");
    char digits[24];
    int64_t id;
    bool ok = len > 0 && len < sizeof digits && (p[len] == '\0' || strcmp(p + len, "/") == 0);
    if (ok) {
        memcpy(digits, p, len);
        digits[len] = '\0';
        ok = strspn(digits, "0123456789") == len && cs_str_to_int_in(digits, 0, INT64_MAX, &id);
    }
    if (!ok) {
        cs_sbuf_printf(out, "unknown path /sql%s\n", rest);
        return 404;
    }
    const ui_sql_exec *e = cs_ui_store_sql(r->st, id);
    if (!e) {
        cs_sbuf_printf(out, "unknown query execution id: %lld\n", (long long)id);
        return 404;
    }
    cs_ui_api_dump(execution_data(r, e, details, plan), out);
    return 200;
}
