/* ui_metrics.c — Prometheus text for the driver and the executors (see ui_metrics.h).
 *
 * The driver's families and the Spark metric each one stands for:
 *   DAGScheduler.job.activeJobs / allJobs, DAGScheduler.stage.runningStages / waitingStages /
 *   failedStages (gauges); LiveListenerBus.numEventsPosted and
 *   LiveListenerBus.queue.shared.numDroppedEvents (counters); appStatus.jobs.succeededJobs /
 *   failedJobs, appStatus.stages.completedStages / failedStages / skippedStages,
 *   appStatus.tasks.completedTasks / failedTasks / killedTasks / skippedTasks (counters);
 *   ExecutorAllocationManager.executors.numberTargetExecutors / numberAllExecutors (gauges);
 *   ExecutorMetrics.ProcessTreeJVMRSSMemory / ProcessTreeJVMVMemory and JVMCPU.jvmCpuTime of the
 *   driver process (gauges; there is no JVM: the process's own figures).
 */
#include "ui/ui_metrics.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/procstat.h"

void cs_ui_metrics_snake(cs_sbuf *out, const char *name)
{
    size_t n = strlen(name);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (!isalnum(c)) {
            cs_sbuf_putc(out, '_');
            continue;
        }
        if (isupper(c) && i > 0) {
            unsigned char prev = (unsigned char)name[i - 1];
            unsigned char next = i + 1 < n ? (unsigned char)name[i + 1] : 0;
            /* a new word: after a lower-case letter or digit ("activeJobs"), or the last capital
             * of an acronym before a lower-case letter ("DAGScheduler") */
            if (islower(prev) || isdigit(prev) || (isupper(prev) && islower(next)))
                cs_sbuf_putc(out, '_');
        }
        cs_sbuf_putc(out, (char)tolower(c));
    }
}

/* ---- driver ------------------------------------------------------------------------------- */

typedef struct family {
    const char *spark_name; /* e.g. "DAGScheduler.job.activeJobs" */
    const char *help;
    bool counter;
    int64_t value;
} family;

static void driver_family(cs_sbuf *out, const char *ns, const family *f)
{
    cs_sbuf name = CS_SBUF_INIT;
    cs_sbuf_puts(&name, "metrics_");
    cs_ui_metrics_snake(&name, ns);
    cs_sbuf_puts(&name, "_driver_");
    cs_ui_metrics_snake(&name, f->spark_name);
    if (f->counter) cs_sbuf_puts(&name, "_total");
    const char *n = cs_sbuf_str(&name);
    bool spark = strncmp(f->spark_name, "ui.", 3) != 0; /* ui.* are cspark's own */
    cs_sbuf_printf(out, "# HELP %s %s (%s%s).\n# TYPE %s %s\n%s{type=\"%s\"} %lld\n", n, f->help,
                   spark ? "Spark: " : "cspark", spark ? f->spark_name : "", n,
                   f->counter ? "counter" : "gauge", n, f->counter ? "counters" : "gauges",
                   (long long)f->value);
    cs_sbuf_free(&name);
}

void cs_ui_metrics_driver(const ui_driver_metrics *m, cs_sbuf *out)
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
    const family families[] = {
        {"DAGScheduler.job.activeJobs", "Jobs running", false, c.active_jobs},
        {"DAGScheduler.job.allJobs", "Jobs submitted", false, (int64_t)cs_ui_store_num_jobs(m->st)},
        {"DAGScheduler.stage.runningStages", "Stage attempts running", false, c.active_stages},
        {"DAGScheduler.stage.waitingStages", "Stages waiting for their parents", false,
         c.pending_stages},
        {"DAGScheduler.stage.failedStages", "Stage attempts that failed", false, c.stages_failed},
        {"LiveListenerBus.numEventsPosted", "Listener events delivered to the UI", true, c.events},
        {"LiveListenerBus.queue.shared.numDroppedEvents",
         "Listener events dropped because the queue was full", true, m->dropped_events},
        {"appStatus.jobs.succeededJobs", "Jobs that succeeded", true, c.jobs_succeeded},
        {"appStatus.jobs.failedJobs", "Jobs that failed", true, c.jobs_failed},
        {"appStatus.stages.completedStages", "Stage attempts that completed", true,
         c.stages_completed},
        {"appStatus.stages.failedStages", "Stage attempts that failed", true, c.stages_failed},
        {"appStatus.stages.skippedStages", "Stages skipped because their output existed", true,
         c.stages_skipped},
        {"appStatus.tasks.completedTasks", "Tasks that succeeded", true, c.tasks_completed},
        {"appStatus.tasks.failedTasks", "Tasks that failed", true, c.tasks_failed},
        {"appStatus.tasks.killedTasks", "Tasks that were killed", true, c.tasks_killed},
        {"appStatus.tasks.skippedTasks", "Tasks of skipped stages", true, c.tasks_skipped},
        {"appStatus.tasks.activeTasks", "Tasks running now", false, c.active_tasks},
        {"ExecutorAllocationManager.executors.numberAllExecutors", "Executors registered", false,
         executors},
        {"ExecutorAllocationManager.executors.numberTargetExecutors",
         "Executors dynamic allocation asks for (-1: dynamic allocation is off)", false,
         c.allocation_target},
        {"ExecutorMetrics.ProcessTreeJVMRSSMemory",
         "Resident memory of the driver process in bytes", false, rss},
        {"ExecutorMetrics.ProcessTreeJVMVMemory", "Virtual memory of the driver process in bytes",
         false, vmem},
        {"JVMCPU.jvmCpuTime", "CPU time of the driver process in nanoseconds", false, cpu},
        {"ui.httpRequests", "HTTP requests the UI served", true, m->http_requests},
    };
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
        driver_family(out, m->ns, &families[i]);
}

/* ---- executors ---------------------------------------------------------------------------- */

typedef enum {
    X_RDD_BLOCKS,
    X_MEMORY_USED,
    X_DISK_USED,
    X_TOTAL_CORES,
    X_MAX_TASKS,
    X_ACTIVE_TASKS,
    X_FAILED_TASKS,
    X_COMPLETED_TASKS,
    X_TOTAL_TASKS,
    X_TOTAL_DURATION,
    X_TOTAL_GC_TIME,
    X_TOTAL_INPUT,
    X_TOTAL_SHUFFLE_READ,
    X_TOTAL_SHUFFLE_WRITE,
    X_MAX_MEMORY,
    X_RSS,
    X_VMEM,
    X_EXEC_MEMORY,
    X_CPU_TIME,
    X_MEMORY_SPILLED,
    X_DISK_SPILLED,
    X_COUNT
} xmetric;

static const struct {
    const char *name, *type, *help;
    bool needs_heartbeat; /* only for executors whose heartbeat reported metrics */
} xfamilies[X_COUNT] = {
    {"metrics_executor_rddBlocks", "gauge", "Cached RDD blocks", false},
    {"metrics_executor_memoryUsed_bytes", "gauge", "Storage memory used", false},
    {"metrics_executor_diskUsed_bytes", "gauge", "Disk space used by cached blocks", false},
    {"metrics_executor_totalCores", "gauge", "Cores of the executor", false},
    {"metrics_executor_maxTasks", "gauge", "Tasks the executor runs at once", false},
    {"metrics_executor_activeTasks", "gauge", "Tasks running now", false},
    {"metrics_executor_failedTasks_total", "counter", "Tasks that failed", false},
    {"metrics_executor_completedTasks_total", "counter", "Tasks that succeeded", false},
    {"metrics_executor_totalTasks_total", "counter", "Tasks run", false},
    {"metrics_executor_totalDuration_seconds_total", "counter", "Time spent running tasks", false},
    {"metrics_executor_totalGCTime_seconds_total", "counter", "Garbage collection time (none)",
     false},
    {"metrics_executor_totalInputBytes_bytes_total", "counter", "Bytes read from input", false},
    {"metrics_executor_totalShuffleRead_bytes_total", "counter", "Shuffle bytes read", false},
    {"metrics_executor_totalShuffleWrite_bytes_total", "counter", "Shuffle bytes written", false},
    {"metrics_executor_maxMemory_bytes", "gauge", "Storage memory available", false},
    {"metrics_executor_ProcessTreeJVMRSSMemory_bytes", "gauge",
     "Resident memory of the executor process (peak)", true},
    {"metrics_executor_ProcessTreeJVMVMemory_bytes", "gauge",
     "Virtual memory of the executor process (peak)", true},
    {"metrics_executor_OnHeapExecutionMemory_bytes", "gauge",
     "Task memory in use by shuffles and aggregations (peak)", true},
    {"metrics_executor_processCpuTime_seconds_total", "counter",
     "CPU time of the executor process (cspark)", true},
    {"metrics_executor_memoryBytesSpilled_bytes_total", "counter",
     "Bytes spilled from memory (cspark)", true},
    {"metrics_executor_diskBytesSpilled_bytes_total", "counter", "Bytes spilled to disk (cspark)",
     true},
};

static double xvalue(const ui_executor *e, xmetric m)
{
    switch (m) {
    case X_RDD_BLOCKS:
        return e->rdd_blocks;
    case X_MEMORY_USED:
        return (double)e->memory_used;
    case X_DISK_USED:
        return (double)e->disk_used;
    case X_TOTAL_CORES:
    case X_MAX_TASKS:
        return e->cores;
    case X_ACTIVE_TASKS:
        return e->active_tasks;
    case X_FAILED_TASKS:
        return e->failed_tasks;
    case X_COMPLETED_TASKS:
        return e->completed_tasks;
    case X_TOTAL_TASKS:
        return e->active_tasks + e->failed_tasks + e->completed_tasks;
    case X_TOTAL_DURATION:
        return (double)e->total_duration_ms / 1000.0;
    case X_TOTAL_INPUT:
        return (double)e->total_input_bytes;
    case X_TOTAL_SHUFFLE_READ:
        return (double)e->total_shuffle_read;
    case X_TOTAL_SHUFFLE_WRITE:
        return (double)e->total_shuffle_write;
    case X_RSS:
        return (double)e->peak.rss_bytes;
    case X_VMEM:
        return (double)e->peak.vmem_bytes;
    case X_EXEC_MEMORY:
        return (double)e->peak.task_memory_used;
    case X_CPU_TIME:
        return (double)e->metrics.cpu_time_ns / 1e9;
    case X_MEMORY_SPILLED:
        return (double)e->metrics.memory_bytes_spilled;
    case X_DISK_SPILLED:
        return (double)e->metrics.disk_bytes_spilled;
    default:
        return 0;
    }
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

void cs_ui_metrics_executors(const ui_store *st, cs_sbuf *out)
{
    const ui_app *app = cs_ui_store_app(st);
    size_t n = cs_ui_store_num_executors(st);
    for (int m = 0; m < X_COUNT; m++) {
        bool any = false;
        for (size_t i = 0; i < n; i++) {
            const ui_executor *e = cs_ui_store_executor_at(st, i);
            if (!e->active || (xfamilies[m].needs_heartbeat && !e->have_metrics)) continue;
            if (!any) {
                cs_sbuf_printf(out, "# HELP %s %s.\n# TYPE %s %s\n", xfamilies[m].name,
                               xfamilies[m].help, xfamilies[m].name, xfamilies[m].type);
                any = true;
            }
            cs_sbuf_printf(out, "%s{application_id=\"", xfamilies[m].name);
            label_value(out, app->id);
            cs_sbuf_puts(out, "\", application_name=\"");
            label_value(out, app->name);
            cs_sbuf_puts(out, "\", executor_id=\"");
            label_value(out, e->id);
            double v = xvalue(e, (xmetric)m);
            if (v == (double)(int64_t)v)
                cs_sbuf_printf(out, "\"} %lld\n", (long long)v);
            else
                cs_sbuf_printf(out, "\"} %.3f\n", v);
        }
    }
}
