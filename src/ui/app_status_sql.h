/* app_status_sql.h — the SQL queries of an application as the SQL tab and /api/v1/.../sql show
 * them: Spark's SQLAppStatusListener and SQLAppStatusStore, kept inside the status store
 * (app_status.h) and fed by the same listener.
 *
 * A query (Spark's SQLExecutionUIData) is made by its SQLExecutionStart, or, as Spark's
 * listener does, by the first job carrying its spark.sql.execution.id when that job came first
 * (cspark runs a query's scalar subqueries while planning it, before the start is posted); its
 * SQLExecutionEnd ends it. It keeps the statement, the
 * physical plan as EXPLAIN prints it, the plan graph (Spark's SparkPlanGraph of the event's
 * sparkPlanInfo: nodes numbered in pre-order from 0, an edge from each child to its parent), its
 * times, the error message of the end event, and the jobs that carried its execution id with
 * their status. Retention is Spark's spark.sql.ui.retainedExecutions (1000): past it, the oldest
 * finished queries go, a tenth of the limit at a time.
 *
 * Threads and ownership: as app_status.h — read with the store locked; every pointer is borrowed
 * until unlock.
 */
#ifndef CSPARK_UI_APP_STATUS_SQL_H
#define CSPARK_UI_APP_STATUS_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ui/app_status.h"

/* A node of a query's plan graph (Spark's SparkPlanGraphNode). */
typedef struct ui_sql_node {
    int64_t id;
    char *name;   /* nodeName, trimmed: "HashAggregate" */
    char *desc;   /* simpleString: "HashAggregate(keys=[k], functions=[count(1)])" */
    int parent;   /* index of its parent in the nodes, -1 for the root */
    int children; /* how many nodes have it as parent */
} ui_sql_node;

/* Spark's execution statuses (SQLExecutionUIData.executionStatus). */
typedef enum { UI_SQL_RUNNING, UI_SQL_COMPLETED, UI_SQL_FAILED } ui_sql_status;

typedef struct ui_sql_exec {
    int64_t id;
    char *description;      /* the statement ("" until the start is seen) */
    char *plan_description; /* physicalPlanDescription (the same) */
    bool started;           /* its SQLExecutionStart was seen (else only jobs named it) */
    int64_t submission_ms;
    int64_t completion_ms; /* 0 while running */
    char *error;           /* the end's errorMessage: NULL when absent, "" for success */
    ui_sql_node *nodes;    /* the plan graph in pre-order (node i has id i) */
    int num_nodes;
    int *job_ids; /* ascending */
    ui_job_status *job_status;
    int num_jobs, cap_jobs;
} ui_sql_exec;

/* Spark's status of the query: FAILED when its end carries an error message or, for an end
 * without one, when a job failed; RUNNING until it ended; else COMPLETED. */
ui_sql_status cs_ui_sql_status(const ui_sql_exec *e);
/* "RUNNING", "COMPLETED", "FAILED". Static. */
const char *cs_ui_sql_status_name(ui_sql_status s);
/* Duration as Spark's REST API: completion (now while running) - submission, in ms. */
int64_t cs_ui_sql_duration_ms(const ui_sql_exec *e, int64_t now_ms);

/* The queries in ascending id order (as Spark's, those only jobs named so far included). */
size_t cs_ui_store_num_sql(const ui_store *st);
const ui_sql_exec *cs_ui_store_sql_at(const ui_store *st, size_t i);
/* NULL when unknown. */
const ui_sql_exec *cs_ui_store_sql(const ui_store *st, int64_t id);

#endif /* CSPARK_UI_APP_STATUS_SQL_H */
