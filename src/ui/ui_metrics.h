/* ui_metrics.h — the metrics endpoints of the live UI, with Spark's names and formats:
 * /metrics/prometheus (Spark's PrometheusServlet), /metrics/json (its MetricsServlet) and
 * /metrics/executors/prometheus (its PrometheusResource).
 *
 * The driver's metrics have the names Spark's MetricsSystem registers, <ns>.driver.<source>.<name>
 * ("app-1.driver.DAGScheduler.job.activeJobs"), <ns> being spark.metrics.namespace, else the
 * application id. In Prometheus text each becomes PrometheusServlet's
 * metrics_<key with [^a-zA-Z0-9] as _>_ followed by Number and Value {type="gauges"} for a gauge
 * and Count {type="counters"} for a counter, without # HELP or # TYPE lines, exactly as Spark
 * prints them, so dashboards and alert rules written for Spark work unchanged. Executors: Spark
 * 4's spark_info line, then per live executor PrometheusResource's metrics_executor_* samples
 * with its application_id, application_name and executor_id labels, and cspark's process CPU
 * time and spill totals as cspark_executor_*.
 *
 * Every function reads a store locked by the caller and appends to `out`; no state.
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
/* MetricsServlet's JSON of the same metrics: {"version":"4.0.0","gauges":{key:{"value":v}},
 * "counters":{key:{"count":n}},"histograms":{},"meters":{},"timers":{}}. */
void cs_ui_metrics_driver_json(const ui_driver_metrics *m, cs_sbuf *out);
void cs_ui_metrics_executors(const ui_store *st, cs_sbuf *out);

/* ExecutorMetricType's i-th name in Spark's order (NULL past the last) and cspark's value of it
 * in m (the process's memory, the task memory in use; 0 for the JVM's figures). */
const char *cs_ui_metrics_peak_name(size_t i);
int64_t cs_ui_metrics_peak_value(const cs_executor_metrics *m, const char *name);

#endif /* CSPARK_UI_METRICS_H */
