/* ui_metrics.h — Prometheus text exposition of the driver's metrics (/metrics/prometheus, Spark's
 * PrometheusServlet) and of every executor (/metrics/executors/prometheus, Spark's
 * PrometheusResource).
 *
 * Driver metrics keep Spark's structure, metrics_<namespace>_driver_<Source>_<name>, with each
 * part in snake_case so that the output passes `promtool check metrics` (Spark's camelCase parts,
 * "DAGScheduler.job.activeJobs", become dag_scheduler_job_active_jobs; counters end in _total);
 * every family has # HELP and # TYPE and keeps Spark's type label ({type="gauges"} or
 * {type="counters"}). The namespace is spark.metrics.namespace, else the application id, as Spark.
 * Executor metrics keep Spark's PrometheusResource names exactly (metrics_executor_activeTasks,
 * metrics_executor_completedTasks_total, ...) with its application_id, application_name and
 * executor_id labels, grouped by family, plus cspark's process CPU time and spill totals.
 *
 * Both functions read a store locked by the caller and append to `out`; no state.
 */
#ifndef CSPARK_UI_METRICS_H
#define CSPARK_UI_METRICS_H

#include <stdint.h>

#include "common/strutil.h"
#include "ui/app_status.h"

typedef struct ui_driver_metrics {
    const ui_store *st;     /* locked */
    const char *ns;         /* spark.metrics.namespace or the application id */
    int64_t dropped_events; /* the listener bus's (cs_listener_bus_dropped) */
    int64_t http_requests;  /* served by the UI so far */
} ui_driver_metrics;

void cs_ui_metrics_driver(const ui_driver_metrics *m, cs_sbuf *out);
void cs_ui_metrics_executors(const ui_store *st, cs_sbuf *out);

/* "DAGScheduler" -> "dag_scheduler", "activeJobs" -> "active_jobs", "numEventsPosted" ->
 * "num_events_posted"; any character outside [A-Za-z0-9] becomes '_'. Appends to out. */
void cs_ui_metrics_snake(cs_sbuf *out, const char *name);

#endif /* CSPARK_UI_METRICS_H */
