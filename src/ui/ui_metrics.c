/* ui_metrics.c — the driver's metrics as Spark's MetricsSystem shows them, and the executors'
 * Prometheus text (see ui_metrics.h).
 *
 * The driver's metrics and their Spark registry names (<ns>.driver.<source>.<name>):
 *   gauges DAGScheduler.job.activeJobs / allJobs, DAGScheduler.stage.runningStages /
 *   waitingStages / failedStages, ExecutorAllocationManager.executors.numberAllExecutors /
 *   numberTargetExecutors, ExecutorMetrics.ProcessTreeJVMRSSMemory / ProcessTreeJVMVMemory and
 *   JVMCPU.jvmCpuTime (the driver process's own figures: there is no JVM);
 *   counters LiveListenerBus.numEventsPosted, LiveListenerBus.queue.shared.numDroppedEvents,
 *   appStatus.jobs.succeededJobs / failedJobs, appStatus.stages.completedStages / failedStages /
 *   skippedStages, appStatus.tasks.completedTasks / failedTasks / killedTasks / skippedTasks;
 *   cspark's own, under the source "cspark": the gauge cspark.tasks.activeTasks and the counter
 *   cspark.ui.httpRequests.
 * They are collected once per request into a table sorted as Dropwizard's registry (by name,
 * gauges then counters) and printed either as PrometheusServlet's text or MetricsServlet's JSON.
 */
#include "ui/ui_metrics.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cspark.h"
#include "common/procstat.h"

/* ---- driver ------------------------------------------------------------------------------- */

typedef struct metric {
    const char *name; /* within the driver: "DAGScheduler.job.activeJobs" */
    bool counter;
    int64_t value;
} metric;

enum { MAX_DRIVER_METRICS = 32 };

static int by_kind_then_name(const void *a, const void *b)
{
    const metric *x = a, *y = b;
    if (x->counter != y->counter) return x->counter ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Fills ms with the driver's metrics in registry order; returns how many. */
static size_t driver_metrics(const ui_driver_metrics *m, metric *ms)
{
    ui_store_counters c;
    cs_ui_store_counters(m->st, &c);
    int64_t rss, vmem, cpu;
    cs_process_usage(&rss, &vmem, &cpu);
    int executors = 0;
    for (size_t i = 0; i < cs_ui_store_num_executors(m->st); i++) {
        const ui_executor *e = cs_ui_store_executor_at(m->st, i);
        executors += e->active && strcmp(e->id, "driver") != 0;
    }
    const metric all[] = {
        {"DAGScheduler.job.activeJobs", false, c.active_jobs},
        {"DAGScheduler.job.allJobs", false, (int64_t)cs_ui_store_num_jobs(m->st)},
        {"DAGScheduler.stage.runningStages", false, c.active_stages},
        {"DAGScheduler.stage.waitingStages", false, c.pending_stages},
        {"DAGScheduler.stage.failedStages", false, c.stages_failed},
        {"LiveListenerBus.numEventsPosted", true, c.events},
        {"LiveListenerBus.queue.shared.numDroppedEvents", true, m->dropped_events},
        {"appStatus.jobs.succeededJobs", true, c.jobs_succeeded},
        {"appStatus.jobs.failedJobs", true, c.jobs_failed},
        {"appStatus.stages.completedStages", true, c.stages_completed},
        {"appStatus.stages.failedStages", true, c.stages_failed},
        {"appStatus.stages.skippedStages", true, c.stages_skipped},
        {"appStatus.tasks.completedTasks", true, c.tasks_completed},
        {"appStatus.tasks.failedTasks", true, c.tasks_failed},
        {"appStatus.tasks.killedTasks", true, c.tasks_killed},
        {"appStatus.tasks.skippedTasks", true, c.tasks_skipped},
        {"ExecutorAllocationManager.executors.numberAllExecutors", false, executors},
        {"ExecutorAllocationManager.executors.numberTargetExecutors", false, c.allocation_target},
        {"ExecutorMetrics.ProcessTreeJVMRSSMemory", false, rss},
        {"ExecutorMetrics.ProcessTreeJVMVMemory", false, vmem},
        {"JVMCPU.jvmCpuTime", false, cpu},
        {"cspark.tasks.activeTasks", false, c.active_tasks},
        {"cspark.ui.httpRequests", true, m->http_requests},
    };
    size_t n = sizeof all / sizeof all[0];
    _Static_assert(sizeof all / sizeof all[0] <= MAX_DRIVER_METRICS, "raise MAX_DRIVER_METRICS");
    memcpy(ms, all, sizeof all);
    qsort(ms, n, sizeof *ms, by_kind_then_name);
    return n;
}

static void reset(cs_sbuf *b)
{
    b->len = 0;
    if (b->data) b->data[0] = '\0';
}

/* PrometheusServlet's normalizeKey: "metrics_" + key with [^a-zA-Z0-9] as '_' + "_". */
static void normalize_key(cs_sbuf *out, const char *ns, const char *name)
{
    cs_sbuf_puts(out, "metrics_");
    for (const char *parts[] = {ns, ".driver.", name}, **p = parts; p < parts + 3; p++)
        for (const char *s = *p; *s; s++)
            cs_sbuf_putc(out, isalnum((unsigned char)*s) ? *s : '_');
    cs_sbuf_putc(out, '_');
}

void cs_ui_metrics_driver(const ui_driver_metrics *m, cs_sbuf *out)
{
    metric ms[MAX_DRIVER_METRICS];
    size_t n = driver_metrics(m, ms);
    cs_sbuf key = CS_SBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        reset(&key);
        normalize_key(&key, m->ns, ms[i].name);
        const char *k = cs_sbuf_str(&key);
        long long v = (long long)ms[i].value;
        if (ms[i].counter)
            cs_sbuf_printf(out, "%sCount{type=\"counters\"} %lld\n", k, v);
        else
            cs_sbuf_printf(out, "%sNumber{type=\"gauges\"} %lld\n%sValue{type=\"gauges\"} %lld\n",
                           k, v, k, v);
    }
    cs_sbuf_free(&key);
}

void cs_ui_metrics_driver_json(const ui_driver_metrics *m, cs_sbuf *out)
{
    metric ms[MAX_DRIVER_METRICS];
    size_t n = driver_metrics(m, ms);
    json_t *gauges = json_object(), *counters = json_object();
    cs_sbuf key = CS_SBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        reset(&key);
        cs_sbuf_printf(&key, "%s.driver.%s", m->ns, ms[i].name);
        json_object_set_new(
            ms[i].counter ? counters : gauges, cs_sbuf_str(&key),
            json_pack("{sI}", ms[i].counter ? "count" : "value", (json_int_t)ms[i].value));
    }
    cs_sbuf_free(&key);
    /* Dropwizard metrics-json's MetricsModule, as Spark's MetricsServlet writes the registry */
    json_t *j = json_pack("{ss so so s{} s{} s{}}", "version", "4.0.0", "gauges", gauges,
                          "counters", counters, "histograms", "meters", "timers");
    char *text = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);
    cs_sbuf_puts(out, text);
    free(text);
    json_decref(j);
}

/* ---- executors ---------------------------------------------------------------------------- */

/* ExecutorMetricType's names in Spark's order (peakMemoryMetrics); cspark fills the process's
 * memory and the task memory in use, the JVM's figures are 0. */
static const char *const peak_names[] = {"JVMHeapMemory",
                                         "JVMOffHeapMemory",
                                         "OnHeapExecutionMemory",
                                         "OffHeapExecutionMemory",
                                         "OnHeapStorageMemory",
                                         "OffHeapStorageMemory",
                                         "OnHeapUnifiedMemory",
                                         "OffHeapUnifiedMemory",
                                         "DirectPoolMemory",
                                         "MappedPoolMemory",
                                         "ProcessTreeJVMVMemory",
                                         "ProcessTreeJVMRSSMemory",
                                         "ProcessTreePythonVMemory",
                                         "ProcessTreePythonRSSMemory",
                                         "ProcessTreeOtherVMemory",
                                         "ProcessTreeOtherRSSMemory",
                                         "MinorGCCount",
                                         "MinorGCTime",
                                         "MajorGCCount",
                                         "MajorGCTime",
                                         "TotalGCTime",
                                         "ConcurrentGCCount",
                                         "ConcurrentGCTime"};

const char *cs_ui_metrics_peak_name(size_t i)
{
    return i < sizeof peak_names / sizeof peak_names[0] ? peak_names[i] : NULL;
}

int64_t cs_ui_metrics_peak_value(const cs_executor_metrics *m, const char *name)
{
    if (strcmp(name, "ProcessTreeJVMRSSMemory") == 0) return m->rss_bytes;
    if (strcmp(name, "ProcessTreeJVMVMemory") == 0) return m->vmem_bytes;
    if (strcmp(name, "OnHeapExecutionMemory") == 0 || strcmp(name, "OnHeapUnifiedMemory") == 0)
        return m->task_memory_used;
    return 0;
}

/* A label value: backslash, quote and newline escaped as the exposition format wants. */
static void label_value(cs_sbuf *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\' || *s == '"')
            cs_sbuf_putc(out, '\\'), cs_sbuf_putc(out, *s);
        else if (*s == '\n')
            cs_sbuf_puts(out, "\\n");
        else
            cs_sbuf_putc(out, *s);
    }
}

/* A double as Java's Double.toString prints it ("0.0", "1.25", "1.0E7"), Spark's values being
 * Scala doubles (ms * 0.001). */
static void java_double(cs_sbuf *out, double v)
{
    char buf[40];
    double a = fabs(v);
    bool sci = a != 0 && (a < 1e-3 || a >= 1e7);
    int prec;
    for (prec = 1; prec < 17; prec++) { /* the shortest text that reads back as v */
        snprintf(buf, sizeof buf, sci ? "%.*E" : "%.*g", sci ? prec - 1 : prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    if (!sci) {
        snprintf(buf, sizeof buf, "%.*f", prec, v);
        /* trim to the shortest fraction of at least one digit that still reads back as v */
        char *dot = strchr(buf, '.');
        for (char *end = buf + strlen(buf) - 1; dot && end > dot + 1 && *end == '0'; end--)
            *end = '\0';
        cs_sbuf_puts(out, buf);
        return;
    }
    /* "1.5E+07" -> "1.5E7"; "1E-04" -> "1.0E-4" */
    char *e = strchr(buf, 'E');
    int exp = atoi(e + 1);
    *e = '\0';
    cs_sbuf_puts(out, buf);
    if (!strchr(buf, '.')) cs_sbuf_puts(out, ".0");
    cs_sbuf_printf(out, "E%d", exp);
}

static void sample(cs_sbuf *out, const char *prefix, const char *name, const char *labels,
                   int64_t v)
{
    cs_sbuf_printf(out, "%s%s%s %lld\n", prefix, name, labels, (long long)v);
}

static void sample_seconds(cs_sbuf *out, const char *prefix, const char *name, const char *labels,
                           double v)
{
    cs_sbuf_printf(out, "%s%s%s ", prefix, name, labels);
    java_double(out, v);
    cs_sbuf_putc(out, '\n');
}

void cs_ui_metrics_executors(const ui_store *st, cs_sbuf *out)
{
    const ui_app *app = cs_ui_store_app(st);
    const char *x = "metrics_executor_";
    cs_sbuf_puts(out, "spark_info{version=\"" CSPARK_VERSION "\", revision=\"\"} 1.0\n");
    cs_sbuf labels = CS_SBUF_INIT;
    for (size_t i = 0; i < cs_ui_store_num_executors(st); i++) {
        const ui_executor *e = cs_ui_store_executor_at(st, i);
        if (!e->active) continue;
        reset(&labels);
        cs_sbuf_puts(&labels, "{application_id=\"");
        label_value(&labels, app->id);
        cs_sbuf_puts(&labels, "\", application_name=\"");
        label_value(&labels, app->name);
        cs_sbuf_puts(&labels, "\", executor_id=\"");
        label_value(&labels, e->id);
        cs_sbuf_puts(&labels, "\"}");
        const char *l = cs_sbuf_str(&labels);
        sample(out, x, "rddBlocks", l, e->rdd_blocks);
        sample(out, x, "memoryUsed_bytes", l, e->memory_used);
        sample(out, x, "diskUsed_bytes", l, e->disk_used);
        sample(out, x, "totalCores", l, e->cores);
        sample(out, x, "maxTasks", l, e->cores);
        sample(out, x, "activeTasks", l, e->active_tasks);
        sample(out, x, "failedTasks_total", l, e->failed_tasks);
        sample(out, x, "completedTasks_total", l, e->completed_tasks);
        sample(out, x, "totalTasks_total", l,
               e->active_tasks + e->failed_tasks + e->completed_tasks);
        sample_seconds(out, x, "totalDuration_seconds_total", l, e->total_duration_ms * 0.001);
        sample_seconds(out, x, "totalGCTime_seconds_total", l, 0);
        sample(out, x, "totalInputBytes_bytes_total", l, e->total_input_bytes);
        sample(out, x, "totalShuffleRead_bytes_total", l, e->total_shuffle_read);
        sample(out, x, "totalShuffleWrite_bytes_total", l, e->total_shuffle_write);
        sample(out, x, "maxMemory_bytes", l, 0); /* no storage memory limit (REST's maxMemory) */
        if (!e->have_metrics) continue;
        cs_sbuf name = CS_SBUF_INIT;
        for (size_t k = 0; k < 16; k++) { /* the memory figures, as PrometheusResource */
            reset(&name);
            cs_sbuf_printf(&name, "%s_bytes", peak_names[k]);
            sample(out, x, cs_sbuf_str(&name), l,
                   cs_ui_metrics_peak_value(&e->peak, peak_names[k]));
        }
        static const char *const gc[] = {"MinorGCCount", "MajorGCCount", "ConcurrentGCCount"};
        static const char *const gc_time[] = {"MinorGCTime", "MajorGCTime", "ConcurrentGCTime"};
        for (int k = 0; k < 3; k++) { /* no garbage collector: 0 */
            reset(&name);
            cs_sbuf_printf(&name, "%s_total", gc[k]);
            sample(out, x, cs_sbuf_str(&name), l, 0);
        }
        for (int k = 0; k < 3; k++) {
            reset(&name);
            cs_sbuf_printf(&name, "%s_seconds_total", gc_time[k]);
            sample_seconds(out, x, cs_sbuf_str(&name), l, 0);
        }
        cs_sbuf_free(&name);
        /* cspark's own figures from the heartbeats */
        sample_seconds(out, "cspark_executor_", "processCpuTime_seconds_total", l,
                       (double)e->metrics.cpu_time_ns / 1e9);
        sample(out, "cspark_executor_", "memoryBytesSpilled_bytes_total", l,
               e->metrics.memory_bytes_spilled);
        sample(out, "cspark_executor_", "diskBytesSpilled_bytes_total", l,
               e->metrics.disk_bytes_spilled);
    }
    cs_sbuf_free(&labels);
}
