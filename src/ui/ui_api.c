/* ui_api.c — /api/v1 of one application from its store (see ui_api.h).
 *
 * Objects are built with jansson in the field order of Spark's api.v1 classes. Metrics cspark does
 * not have (JVM deserialisation and GC times, push-based shuffle, fetch wait time) are 0, as a
 * Spark application that never used them reports. Shuffle reads are split local/remote as the
 * task end events give them.
 * Executor metrics follow ExecutorMetricType's names: the process's resident and virtual memory
 * are ProcessTreeJVMRSSMemory / ProcessTreeJVMVMemory (the executor process; there is no JVM), the
 * task memory in use is OnHeapExecutionMemory.
 */
#include "ui/ui_api.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cspark.h"
#include "common/json_text.h"
#include "sched/locality.h"
#include "ui/ui_metrics.h"

/* ---- building blocks ---------------------------------------------------------------------- */

static void seti(json_t *o, const char *k, int64_t v)
{
    json_object_set_new(o, k, json_integer((json_int_t)v));
}

static void setb(json_t *o, const char *k, bool v)
{
    json_object_set_new(o, k, json_boolean(v));
}

static void sets(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, cs_json_text(v));
}

void cs_ui_api_date(int64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
    int millis = (int)(ms - (int64_t)t * 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    char base[24];
    strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03dGMT", base, millis);
}

static void setd(json_t *o, const char *k, int64_t ms)
{
    char buf[48];
    cs_ui_api_date(ms, buf, sizeof buf);
    sets(o, k, buf);
}

/* An optional date: left out when 0. */
static void setd_opt(json_t *o, const char *k, int64_t ms)
{
    if (ms > 0) setd(o, k, ms);
}

void cs_ui_api_dump(json_t *j, cs_sbuf *out)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) {
        cs_sbuf_puts(out, s);
        cs_sbuf_putc(out, '\n');
        free(s);
    }
    json_decref(j);
}

static int not_found(cs_sbuf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int not_found(cs_sbuf *out, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_sbuf_puts(out, msg);
    cs_sbuf_putc(out, '\n');
    return 404;
}

static int bad_request(cs_sbuf *out, const char *msg)
{
    cs_sbuf_puts(out, msg);
    cs_sbuf_putc(out, '\n');
    return 400;
}

/* Spark's BadParameterException text for a query parameter that is not a number in range. */
static int bad_number(cs_sbuf *out, const char *name, const char *value)
{
    cs_sbuf_printf(out, "Bad value for parameter \"%s\".  Expected a int, got \"%s\"\n", name,
                   value);
    return 400;
}

/* An id segment of the path at *p (after its '/'): digits only and within an int, as Spark's
 * {id: \\d+} Int parameters; moves *p past it. False (the caller answers 404, as Spark does
 * for a path that matches no resource) for "-1", "abc", "4294967296" or an empty segment. */
static bool path_id(const char **p, int *out)
{
    const char *seg = *p, *end = seg + strcspn(seg, "/");
    char buf[24];
    int64_t v;
    if (end == seg || (size_t)(end - seg) >= sizeof buf) return false;
    memcpy(buf, seg, (size_t)(end - seg));
    buf[end - seg] = '\0';
    if (!cs_str_to_int_in(buf, 0, INT_MAX, &v)) return false;
    *out = (int)v;
    *p = end;
    return true;
}

/* The rest of a path after its last id: nothing or one '/'. */
static bool path_end(const char *p)
{
    return *p == '\0' || strcmp(p, "/") == 0;
}

static json_t *int_array(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* ---- application -------------------------------------------------------------------------- */

json_t *cs_ui_api_application_info(const char *id, const char *name, const char *user,
                                   const char *version, int64_t start_ms, int64_t end_ms,
                                   int64_t last_updated_ms, bool completed)
{
    json_t *app = json_object();
    sets(app, "id", id);
    sets(app, "name", name);
    json_t *a = json_object();
    int64_t end = completed ? end_ms : -1;
    setd(a, "startTime", start_ms);
    setd(a, "endTime", end);
    setd(a, "lastUpdated", last_updated_ms);
    seti(a, "duration", completed && end_ms > start_ms ? end_ms - start_ms : (completed ? 0 : -1));
    sets(a, "sparkUser", user);
    setb(a, "completed", completed);
    sets(a, "appSparkVersion", version ? version : CSPARK_VERSION);
    seti(a, "startTimeEpoch", start_ms);
    seti(a, "endTimeEpoch", end);
    seti(a, "lastUpdatedEpoch", last_updated_ms);
    json_t *attempts = json_array();
    json_array_append_new(attempts, a);
    json_object_set_new(app, "attempts", attempts);
    return app;
}

static json_t *app_info(const ui_api_req *r)
{
    const ui_app *app = cs_ui_store_app(r->st);
    int64_t updated = r->last_updated_ms;
    if (updated <= 0) updated = app->completed ? app->end_ms : r->now_ms;
    return cs_ui_api_application_info(app->id, app->name, app->user, app->spark_version,
                                      app->start_ms, app->end_ms, updated, app->completed);
}

/* ---- jobs --------------------------------------------------------------------------------- */

static json_t *job_json(const ui_job *j)
{
    json_t *o = json_object();
    seti(o, "jobId", j->job_id);
    sets(o, "name", j->name);
    if (j->description) sets(o, "description", j->description); /* Options: absent when unset */
    setd_opt(o, "submissionTime", j->submission_ms);
    if (j->status != UI_JOB_RUNNING) setd_opt(o, "completionTime", j->completion_ms);
    json_object_set_new(o, "stageIds", int_array(j->stage_ids, j->num_stages));
    if (j->group) sets(o, "jobGroup", j->group);
    json_object_set_new(o, "jobTags", json_array());
    sets(o, "status", cs_ui_job_status_name(j->status));
    seti(o, "numTasks", j->num_tasks);
    seti(o, "numActiveTasks", j->active_tasks);
    seti(o, "numCompletedTasks", j->completed_tasks);
    seti(o, "numSkippedTasks", j->skipped_tasks);
    seti(o, "numFailedTasks", j->failed_tasks);
    seti(o, "numKilledTasks", j->killed_tasks);
    seti(o, "numCompletedIndices", j->completed_indices);
    seti(o, "numActiveStages", j->active_stages);
    seti(o, "numCompletedStages", j->completed_stages);
    seti(o, "numSkippedStages", j->skipped_stages);
    seti(o, "numFailedStages", j->failed_stages);
    json_t *killed = json_object();
    if (j->killed_tasks > 0) seti(killed, j->error ? j->error : "killed", j->killed_tasks);
    json_object_set_new(o, "killedTasksSummary", killed);
    return o;
}

/* True when the request names no status, or names this one (case-insensitive). */
static bool status_wanted(const ui_api_req *r, const char *status)
{
    const char *first = r->arg(r->arg_ctx, "status", 0);
    if (!first) return true;
    for (int i = 0;; i++) {
        const char *v = r->arg(r->arg_ctx, "status", i);
        if (!v) return false;
        if (cs_str_ieq(v, status)) return true;
    }
}

/* The optional offset and length of a list (cspark's addition to Spark's jobs and stages lists,
 * named as taskList's): the rows [offset, offset + length) of the list in its order; absent: all.
 * False with a 400 in out on a value that is not a whole number. */
static bool list_window(const ui_api_req *r, cs_sbuf *out, int *status, int64_t *offset,
                        int64_t *length)
{
    const char *a_off = r->arg(r->arg_ctx, "offset", 0), *a_len = r->arg(r->arg_ctx, "length", 0);
    *offset = 0;
    *length = INT64_MAX;
    if (a_off && !cs_str_to_int_in(a_off, 0, INT64_MAX, offset)) {
        *status = bad_number(out, "offset", a_off);
        return false;
    }
    if (a_len && !cs_str_to_int_in(a_len, 0, INT64_MAX, length)) {
        *status = bad_number(out, "length", a_len);
        return false;
    }
    return true;
}

static int jobs(const ui_api_req *r, const char *rest, cs_sbuf *out)
{
    if (*rest == '/') {
        const char *p = rest + 1;
        int id;
        if (!path_id(&p, &id) || !path_end(p)) return not_found(out, "unknown job path %s", rest);
        const ui_job *j = cs_ui_store_job(r->st, id);
        if (!j) return not_found(out, "unknown job: %d", id);
        cs_ui_api_dump(job_json(j), out);
        return 200;
    }
    int64_t offset, length, rank = 0;
    int status;
    if (!list_window(r, out, &status, &offset, &length)) return status;
    json_t *a = json_array();
    for (size_t i = cs_ui_store_num_jobs(r->st); i-- > 0 && rank - offset < length;) {
        const ui_job *j = cs_ui_store_job_at(r->st, i);
        if (status_wanted(r, cs_ui_job_status_name(j->status)) && rank++ >= offset)
            json_array_append_new(a, job_json(j));
    }
    cs_ui_api_dump(a, out);
    return 200;
}

/* ---- tasks -------------------------------------------------------------------------------- */

static json_t *shuffle_push_read(void)
{
    static const char *const names[] = {
        "corruptMergedBlockChunks", "mergedFetchFallbackCount",  "remoteMergedBlocksFetched",
        "localMergedBlocksFetched", "remoteMergedChunksFetched", "localMergedChunksFetched",
        "remoteMergedBytesRead",    "localMergedBytesRead",      "remoteMergedReqsDuration"};
    json_t *o = json_object();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        seti(o, names[i], 0);
    return o;
}

/* The fields a task's metrics and a stage's totals share (Spark's TaskMetrics / StageData). */
static void put_run_metrics(json_t *o, const cs_task_metrics *m)
{
    seti(o, "executorDeserializeTime", 0);
    seti(o, "executorDeserializeCpuTime", 0);
    seti(o, "executorRunTime", m->run_time_ms);
    seti(o, "executorCpuTime", m->cpu_time_ns);
    seti(o, "resultSize", m->result_size);
    seti(o, "jvmGcTime", 0);
    seti(o, "resultSerializationTime", 0);
    seti(o, "memoryBytesSpilled", m->memory_bytes_spilled);
    seti(o, "diskBytesSpilled", m->disk_bytes_spilled);
    seti(o, "peakExecutionMemory", m->peak_execution_memory);
    seti(o, "peakOnHeapExecutionMemory", m->peak_execution_memory);
    seti(o, "peakOffHeapExecutionMemory", 0);
}

static json_t *task_metrics_json(const cs_task_metrics *m)
{
    json_t *o = json_object();
    put_run_metrics(o, m);
    json_t *in = json_object();
    seti(in, "bytesRead", m->bytes_read);
    seti(in, "recordsRead", m->records_read);
    json_object_set_new(o, "inputMetrics", in);
    json_t *outm = json_object();
    seti(outm, "bytesWritten", m->bytes_written);
    seti(outm, "recordsWritten", m->records_written);
    json_object_set_new(o, "outputMetrics", outm);
    json_t *sr = json_object();
    seti(sr, "remoteBlocksFetched", m->shuffle_remote_blocks_fetched);
    seti(sr, "localBlocksFetched", m->shuffle_local_blocks_fetched);
    seti(sr, "fetchWaitTime", 0);
    seti(sr, "remoteBytesRead", m->shuffle_remote_bytes_read);
    seti(sr, "remoteBytesReadToDisk", 0);
    seti(sr, "localBytesRead", m->shuffle_bytes_read - m->shuffle_remote_bytes_read);
    seti(sr, "recordsRead", m->shuffle_records_read);
    seti(sr, "remoteReqsDuration", 0);
    json_object_set_new(sr, "shufflePushReadMetrics", shuffle_push_read());
    json_object_set_new(o, "shuffleReadMetrics", sr);
    json_t *sw = json_object();
    seti(sw, "bytesWritten", m->shuffle_bytes_written);
    seti(sw, "writeTime", 0);
    seti(sw, "recordsWritten", m->shuffle_records_written);
    json_object_set_new(o, "shuffleWriteMetrics", sw);
    return o;
}

/* Spark's AccumulableInfo list: a stage's accumulators (update absent) or a task's updates, named
 * by the stage's (names_from). */
static json_t *accums_json(const ui_accum *a, int n, const ui_stage *names_from)
{
    json_t *arr = json_array();
    for (int i = 0; i < n; i++) {
        const char *name = a[i].name;
        for (int k = 0; !name && names_from && k < names_from->num_accums; k++)
            if (names_from->accums[k].id == a[i].id) name = names_from->accums[k].name;
        json_t *o = json_object();
        seti(o, "id", a[i].id);
        sets(o, "name", name ? name : "");
        if (a[i].update) sets(o, "update", a[i].update);
        sets(o, "value", a[i].value ? a[i].value : "");
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *task_json(const ui_api_req *r, const ui_stage *s, const ui_task *t)
{
    json_t *o = json_object();
    seti(o, "taskId", t->task_id);
    seti(o, "index", t->index);
    seti(o, "attempt", t->attempt);
    seti(o, "partitionId", t->partition);
    setd(o, "launchTime", t->launch_ms);
    int64_t duration = cs_ui_task_duration_ms(t, r->now_ms);
    seti(o, "duration", duration);
    sets(o, "executorId", t->executor_id);
    sets(o, "host", t->host);
    sets(o, "status", cs_ui_task_status_name(t->status));
    sets(o, "taskLocality", cs_locality_name((cs_locality_level)t->locality));
    setb(o, "speculative", t->speculative);
    json_object_set_new(o, "accumulatorUpdates", accums_json(t->accums, t->num_accums, s));
    if (t->error) sets(o, "errorMessage", t->error);
    if (t->status != UI_TASK_RUNNING)
        json_object_set_new(o, "taskMetrics", task_metrics_json(&t->m));
    json_object_set_new(o, "executorLogs", json_object());
    int64_t delay = t->status != UI_TASK_RUNNING ? duration - t->m.run_time_ms : 0;
    seti(o, "schedulerDelay", delay > 0 ? delay : 0);
    seti(o, "gettingResultTime", 0);
    return o;
}

/* ---- stages ------------------------------------------------------------------------------- */

static json_t *exec_stage_json(const ui_exec_stage *e)
{
    json_t *o = json_object();
    seti(o, "taskTime", e->task_time_ms);
    seti(o, "failedTasks", e->failed);
    seti(o, "succeededTasks", e->succeeded);
    seti(o, "killedTasks", e->killed);
    seti(o, "inputBytes", e->m.bytes_read);
    seti(o, "inputRecords", e->m.records_read);
    seti(o, "outputBytes", e->m.bytes_written);
    seti(o, "outputRecords", e->m.records_written);
    seti(o, "shuffleRead", e->m.shuffle_bytes_read);
    seti(o, "shuffleReadRecords", e->m.shuffle_records_read);
    seti(o, "shuffleWrite", e->m.shuffle_bytes_written);
    seti(o, "shuffleWriteRecords", e->m.shuffle_records_written);
    seti(o, "memoryBytesSpilled", e->m.memory_bytes_spilled);
    seti(o, "diskBytesSpilled", e->m.disk_bytes_spilled);
    setb(o, "isBlacklistedForStage", false);
    setb(o, "isExcludedForStage", false);
    return o;
}

static json_t *stage_json(const ui_api_req *r, const ui_stage *s, bool details)
{
    const cs_task_metrics *m = &s->m;
    json_t *o = json_object();
    sets(o, "status", cs_ui_stage_status_name(s->status));
    seti(o, "stageId", s->stage_id);
    seti(o, "attemptId", s->attempt);
    seti(o, "numTasks", s->num_tasks);
    seti(o, "numActiveTasks", s->active);
    seti(o, "numCompleteTasks", s->complete);
    seti(o, "numFailedTasks", s->failed);
    seti(o, "numKilledTasks", s->killed);
    seti(o, "numCompletedIndices", s->completed_indices);
    setd_opt(o, "submissionTime", s->submission_ms);
    setd_opt(o, "firstTaskLaunchedTime", s->first_launch_ms);
    setd_opt(o, "completionTime", s->completion_ms);
    if (s->failure_reason) sets(o, "failureReason", s->failure_reason);
    put_run_metrics(o, m);
    seti(o, "inputBytes", m->bytes_read);
    seti(o, "inputRecords", m->records_read);
    seti(o, "outputBytes", m->bytes_written);
    seti(o, "outputRecords", m->records_written);
    seti(o, "shuffleRemoteBlocksFetched", m->shuffle_remote_blocks_fetched);
    seti(o, "shuffleLocalBlocksFetched", m->shuffle_local_blocks_fetched);
    seti(o, "shuffleFetchWaitTime", 0);
    seti(o, "shuffleRemoteBytesRead", m->shuffle_remote_bytes_read);
    seti(o, "shuffleRemoteBytesReadToDisk", 0);
    seti(o, "shuffleLocalBytesRead", m->shuffle_bytes_read - m->shuffle_remote_bytes_read);
    seti(o, "shuffleReadBytes", m->shuffle_bytes_read);
    seti(o, "shuffleReadRecords", m->shuffle_records_read);
    static const char *const push[] = {
        "shuffleCorruptMergedBlockChunks",  "shuffleMergedFetchFallbackCount",
        "shuffleMergedRemoteBlocksFetched", "shuffleMergedLocalBlocksFetched",
        "shuffleMergedRemoteChunksFetched", "shuffleMergedLocalChunksFetched",
        "shuffleMergedRemoteBytesRead",     "shuffleMergedLocalBytesRead",
        "shuffleRemoteReqsDuration",        "shuffleMergedRemoteReqsDuration"};
    for (size_t i = 0; i < sizeof push / sizeof push[0]; i++)
        seti(o, push[i], 0);
    seti(o, "shuffleWriteBytes", m->shuffle_bytes_written);
    seti(o, "shuffleWriteTime", 0);
    seti(o, "shuffleWriteRecords", m->shuffle_records_written);
    sets(o, "name", s->name ? s->name : "");
    sets(o, "details", "");
    sets(o, "schedulingPool", "default");
    json_t *rdd_ids = json_array();
    for (int i = 0; i < s->num_rdds; i++)
        json_array_append_new(rdd_ids, json_integer(s->rdds[i].id));
    json_object_set_new(o, "rddIds", rdd_ids);
    json_object_set_new(o, "accumulatorUpdates", accums_json(s->accums, s->num_accums, NULL));
    if (details) {
        json_t *tasks = json_object();
        for (size_t i = 0; i < s->num_tasks_kept; i++) {
            char key[24];
            snprintf(key, sizeof key, "%lld", (long long)s->tasks[i].task_id);
            json_object_set_new(tasks, key, task_json(r, s, &s->tasks[i]));
        }
        json_object_set_new(o, "tasks", tasks);
        json_t *execs = json_object();
        for (int i = 0; i < s->num_execs; i++)
            json_object_set_new(execs, s->execs[i].executor_id, exec_stage_json(&s->execs[i]));
        json_object_set_new(o, "executorSummary", execs);
    }
    json_t *killed = json_object();
    for (size_t i = 0; i < s->num_tasks_kept; i++) {
        const ui_task *t = &s->tasks[i];
        if (t->status != UI_TASK_KILLED) continue;
        const char *why = t->error ? t->error : "killed";
        json_t *c = json_object_get(killed, why);
        seti(killed, why, (c ? json_integer_value(c) : 0) + 1);
    }
    json_object_set_new(o, "killedTasksSummary", killed);
    seti(o, "resourceProfileId", 0);
    setb(o, "isShufflePushEnabled", false);
    seti(o, "shuffleMergersCount", 0);
    return o;
}

/* Parses "0.05,0.25,0.5" into q[]; returns the count or -1. */
static int parse_quantiles(const char *s, double *q, int cap)
{
    int n = 0;
    while (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || v < 0 || v > 1 || n == cap) return -1;
        q[n++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

static json_t *dist(const double *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_real(v[i]));
    return a;
}

static int task_summary(const ui_api_req *r, const ui_stage *s, cs_sbuf *out)
{
    double q[UI_MAX_QUANTILES];
    const char *arg = r->arg(r->arg_ctx, "quantiles", 0);
    int nq = parse_quantiles(arg ? arg : "0.05,0.25,0.5,0.75,0.95", q, UI_MAX_QUANTILES);
    if (nq <= 0)
        return bad_request(out, "quantiles must be a comma-separated list of numbers in [0, 1]");
    double v[UI_QM_COUNT][UI_MAX_QUANTILES];
    if (cs_ui_stage_quantiles(s, q, nq, v) == 0)
        return not_found(out, "No tasks reported metrics for %d / %d yet.", s->stage_id,
                         s->attempt);
    double zero[UI_MAX_QUANTILES] = {0};
    json_t *o = json_object();
    json_object_set_new(o, "quantiles", dist(q, nq));
    json_object_set_new(o, "duration", dist(v[UI_QM_DURATION], nq));
    json_object_set_new(o, "executorDeserializeTime", dist(zero, nq));
    json_object_set_new(o, "executorDeserializeCpuTime", dist(zero, nq));
    json_object_set_new(o, "executorRunTime", dist(v[UI_QM_RUN_TIME], nq));
    json_object_set_new(o, "executorCpuTime", dist(v[UI_QM_CPU_TIME], nq));
    json_object_set_new(o, "resultSize", dist(v[UI_QM_RESULT_SIZE], nq));
    json_object_set_new(o, "jvmGcTime", dist(zero, nq));
    json_object_set_new(o, "resultSerializationTime", dist(zero, nq));
    json_object_set_new(o, "gettingResultTime", dist(zero, nq));
    json_object_set_new(o, "schedulerDelay", dist(v[UI_QM_SCHEDULER_DELAY], nq));
    json_object_set_new(o, "peakExecutionMemory", dist(v[UI_QM_PEAK_MEMORY], nq));
    json_object_set_new(o, "peakOnHeapExecutionMemory", dist(v[UI_QM_PEAK_MEMORY], nq));
    json_object_set_new(o, "peakOffHeapExecutionMemory", dist(zero, nq));
    json_object_set_new(o, "memoryBytesSpilled", dist(v[UI_QM_MEMORY_SPILLED], nq));
    json_object_set_new(o, "diskBytesSpilled", dist(v[UI_QM_DISK_SPILLED], nq));
    json_t *in = json_object();
    json_object_set_new(in, "bytesRead", dist(v[UI_QM_INPUT_BYTES], nq));
    json_object_set_new(in, "recordsRead", dist(v[UI_QM_INPUT_RECORDS], nq));
    json_object_set_new(o, "inputMetrics", in);
    json_t *om = json_object();
    json_object_set_new(om, "bytesWritten", dist(v[UI_QM_OUTPUT_BYTES], nq));
    json_object_set_new(om, "recordsWritten", dist(v[UI_QM_OUTPUT_RECORDS], nq));
    json_object_set_new(o, "outputMetrics", om);
    json_t *sr = json_object();
    json_object_set_new(sr, "readBytes", dist(v[UI_QM_SHUFFLE_READ_BYTES], nq));
    json_object_set_new(sr, "readRecords", dist(v[UI_QM_SHUFFLE_READ_RECORDS], nq));
    static const char *const sr_zero[] = {
        "remoteBlocksFetched",   "localBlocksFetched", "fetchWaitTime",     "remoteBytesRead",
        "remoteBytesReadToDisk", "totalBlocksFetched", "remoteReqsDuration"};
    for (size_t i = 0; i < sizeof sr_zero / sizeof sr_zero[0]; i++)
        json_object_set_new(sr, sr_zero[i], dist(zero, nq));
    json_t *push = json_object();
    static const char *const push_names[] = {
        "corruptMergedBlockChunks", "mergedFetchFallbackCount",  "remoteMergedBlocksFetched",
        "localMergedBlocksFetched", "remoteMergedChunksFetched", "localMergedChunksFetched",
        "remoteMergedBytesRead",    "localMergedBytesRead",      "remoteMergedReqsDuration"};
    for (size_t i = 0; i < sizeof push_names / sizeof push_names[0]; i++)
        json_object_set_new(push, push_names[i], dist(zero, nq));
    json_object_set_new(sr, "shufflePushReadMetricsDist", push);
    json_object_set_new(o, "shuffleReadMetrics", sr);
    json_t *sw = json_object();
    json_object_set_new(sw, "writeBytes", dist(v[UI_QM_SHUFFLE_WRITE_BYTES], nq));
    json_object_set_new(sw, "writeRecords", dist(v[UI_QM_SHUFFLE_WRITE_RECORDS], nq));
    json_object_set_new(sw, "writeTime", dist(zero, nq));
    json_object_set_new(o, "shuffleWriteMetrics", sw);
    cs_ui_api_dump(o, out);
    return 200;
}

typedef struct task_order {
    const ui_task *t;
    int64_t key;
} task_order;

static int order_cmp(const void *a, const void *b)
{
    const task_order *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->t->task_id < y->t->task_id ? -1 : x->t->task_id > y->t->task_id;
}

static int task_list(const ui_api_req *r, const ui_stage *s, cs_sbuf *out)
{
    const char *a_off = r->arg(r->arg_ctx, "offset", 0), *a_len = r->arg(r->arg_ctx, "length", 0);
    const char *sort = r->arg(r->arg_ctx, "sortBy", 0);
    int64_t offset = 0, length = 20;
    if (a_off && !cs_str_to_int_in(a_off, 0, INT_MAX, &offset))
        return bad_number(out, "offset", a_off);
    if (a_len && !cs_str_to_int_in(a_len, 0, INT_MAX, &length))
        return bad_number(out, "length", a_len);
    int dir = 0; /* 0 by id, 1 increasing runtime, -1 decreasing */
    if (sort) {
        if (strcmp(sort, "runtime") == 0 || strcmp(sort, "increasingRuntime") == 0 ||
            strcmp(sort, "INCREASING_RUNTIME") == 0)
            dir = 1;
        else if (strcmp(sort, "-runtime") == 0 || strcmp(sort, "decreasingRuntime") == 0 ||
                 strcmp(sort, "DECREASING_RUNTIME") == 0)
            dir = -1;
        else if (!cs_str_ieq(sort, "ID"))
            return bad_request(out, "sortBy must be ID, runtime or -runtime");
    }
    size_t n = s->num_tasks_kept, k = 0;
    task_order *order = cs_xmalloc((n + 1) * sizeof *order);
    for (size_t i = 0; i < n; i++) {
        const ui_task *t = &s->tasks[i];
        if (!status_wanted(r, cs_ui_task_status_name(t->status))) continue;
        int64_t run = t->status == UI_TASK_RUNNING ? -1 : t->m.run_time_ms;
        order[k++] = (task_order){t, dir == 0 ? t->task_id : dir * run};
    }
    qsort(order, k, sizeof *order, order_cmp);
    json_t *arr = json_array();
    for (size_t i = (size_t)offset; i < k && (int64_t)(i - (size_t)offset) < length; i++)
        json_array_append_new(arr, task_json(r, s, order[i].t));
    free(order);
    cs_ui_api_dump(arr, out);
    return 200;
}

static bool details_arg(const ui_api_req *r, bool dflt)
{
    const char *d = r->arg(r->arg_ctx, "details", 0);
    return d ? cs_str_ieq(d, "true") : dflt;
}

static int stages(const ui_api_req *r, const char *rest, cs_sbuf *out)
{
    size_t n = cs_ui_store_num_stages(r->st);
    if (*rest == '\0' || strcmp(rest, "/") == 0) {
        bool details = details_arg(r, false);
        int64_t offset, length, rank = 0;
        int status;
        if (!list_window(r, out, &status, &offset, &length)) return status;
        json_t *a = json_array();
        for (size_t i = n; i-- > 0 && rank - offset < length;) {
            const ui_stage *s = cs_ui_store_stage_at(r->st, i);
            if (status_wanted(r, cs_ui_stage_status_name(s->status)) && rank++ >= offset)
                json_array_append_new(a, stage_json(r, s, details));
        }
        cs_ui_api_dump(a, out);
        return 200;
    }
    const char *p = rest + 1;
    int sid, attempt;
    if (!path_id(&p, &sid)) return not_found(out, "unknown stage path %s", rest);
    if (path_end(p)) { /* every attempt */
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            const ui_stage *s = cs_ui_store_stage_at(r->st, i);
            if (s->stage_id == sid)
                json_array_append_new(a, stage_json(r, s, details_arg(r, true)));
        }
        if (json_array_size(a) == 0) {
            json_decref(a);
            return not_found(out, "unknown stage: %d", sid);
        }
        cs_ui_api_dump(a, out);
        return 200;
    }
    p++; /* the '/' */
    if (!path_id(&p, &attempt)) return not_found(out, "unknown stage path %s", rest);
    const ui_stage *s = cs_ui_store_stage(r->st, sid, attempt);
    if (!s) return not_found(out, "unknown attempt for stage %d.  Found attempts: []", sid);
    const char *end = p;
    if (path_end(end)) {
        cs_ui_api_dump(stage_json(r, s, details_arg(r, true)), out);
        return 200;
    }
    if (strcmp(end, "/taskSummary") == 0) return task_summary(r, s, out);
    if (strcmp(end, "/taskList") == 0) return task_list(r, s, out);
    return not_found(out, "unknown stage path %s", rest);
}

/* ---- executors ---------------------------------------------------------------------------- */

/* ExecutorMetricType's names, in Spark's order; values from cspark's executor metrics. */
static json_t *peak_metrics(const cs_executor_metrics *m)
{
    json_t *o = json_object();
    for (size_t i = 0; cs_ui_metrics_peak_name(i); i++)
        seti(o, cs_ui_metrics_peak_name(i),
             cs_ui_metrics_peak_value(m, cs_ui_metrics_peak_name(i)));
    return o;
}

static json_t *executor_json(const ui_executor *e, const char *log_base)
{
    json_t *o = json_object();
    sets(o, "id", e->id);
    sets(o, "hostPort", e->host);
    setb(o, "isActive", e->active);
    seti(o, "rddBlocks", e->rdd_blocks);
    seti(o, "memoryUsed", e->memory_used);
    seti(o, "diskUsed", e->disk_used);
    seti(o, "totalCores", e->cores);
    seti(o, "maxTasks", e->cores);
    seti(o, "activeTasks", e->active_tasks);
    seti(o, "failedTasks", e->failed_tasks);
    seti(o, "completedTasks", e->completed_tasks);
    seti(o, "totalTasks", e->active_tasks + e->failed_tasks + e->completed_tasks);
    seti(o, "totalDuration", e->total_duration_ms);
    seti(o, "totalGCTime", 0);
    seti(o, "totalInputBytes", e->total_input_bytes);
    seti(o, "totalShuffleRead", e->total_shuffle_read);
    seti(o, "totalShuffleWrite", e->total_shuffle_write);
    setb(o, "isBlacklisted", false);
    seti(o, "maxMemory", 0);
    setd(o, "addTime", e->add_ms);
    if (!e->active) {
        setd(o, "removeTime", e->remove_ms);
        sets(o, "removeReason", e->remove_reason);
    }
    json_t *logs = json_object();
    if (log_base && strcmp(e->id, "driver") != 0) {
        static const char *const types[] = {"stdout", "stderr"};
        for (int i = 0; i < 2; i++) {
            cs_sbuf u = CS_SBUF_INIT;
            cs_sbuf_printf(&u, "%s/logPage/?executorId=%s&logType=%s", log_base, e->id, types[i]);
            sets(logs, types[i], cs_sbuf_str(&u));
            cs_sbuf_free(&u);
        }
    }
    json_object_set_new(o, "executorLogs", logs);
    json_object_set_new(o, "blacklistedInStages", json_array());
    if (e->have_metrics) json_object_set_new(o, "peakMemoryMetrics", peak_metrics(&e->peak));
    json_object_set_new(o, "attributes", json_object());
    json_object_set_new(o, "resources", json_object());
    seti(o, "resourceProfileId", 0);
    setb(o, "isExcluded", false);
    json_object_set_new(o, "excludedInStages", json_array());
    return o;
}

static int executors(const ui_api_req *r, bool all, cs_sbuf *out)
{
    json_t *a = json_array();
    for (size_t i = 0; i < cs_ui_store_num_executors(r->st); i++) {
        const ui_executor *e = cs_ui_store_executor_at(r->st, i);
        if (all || e->active) json_array_append_new(a, executor_json(e, r->log_base));
    }
    cs_ui_api_dump(a, out);
    return 200;
}

/* ---- environment and storage -------------------------------------------------------------- */

static int environment(const ui_api_req *r, cs_sbuf *out)
{
    json_t *o = json_object();
    json_t *rt = json_object();
    sets(rt, "javaVersion", "");
    sets(rt, "javaHome", "");
    sets(rt, "scalaVersion", "");
    json_object_set_new(o, "runtime", rt);
    json_t *props = json_array();
    for (size_t i = 0; i < cs_ui_store_num_props(r->st); i++) {
        const ui_prop *p = cs_ui_store_prop_at(r->st, i);
        json_t *pair = json_array();
        json_array_append_new(pair, cs_json_text(p->key));
        json_array_append_new(pair, cs_json_text(p->value));
        json_array_append_new(props, pair);
    }
    json_object_set_new(o, "sparkProperties", props);
    json_object_set_new(o, "hadoopProperties", json_array());
    json_object_set_new(o, "systemProperties", json_array());
    json_object_set_new(o, "metricsProperties", json_array());
    json_object_set_new(o, "classpathEntries", json_array());
    json_object_set_new(o, "resourceProfiles", json_array());
    cs_ui_api_dump(o, out);
    return 200;
}

/* Spark's RDDDataDistribution (one per executor holding a copy, in the executors' order) and
 * RDDPartitionInfo (one per cached partition, by partition) lists of one RDD. */
static void rdd_details(const ui_api_req *r, const ui_rdd *d, json_t *o)
{
    json_t *dist = json_array();
    for (size_t i = 0; i < cs_ui_store_num_executors(r->st); i++) {
        const ui_executor *e = cs_ui_store_executor_at(r->st, i);
        int64_t mem, disk;
        if (!cs_ui_rdd_share(d, e->id, &mem, &disk)) continue;
        json_t *x = json_object();
        sets(x, "address", e->host);
        seti(x, "memoryUsed", mem);
        seti(x, "memoryRemaining", 0); /* no storage memory limit is reported (maxMemory 0) */
        seti(x, "diskUsed", disk);
        json_array_append_new(dist, x);
    }
    json_object_set_new(o, "dataDistribution", dist);
    const ui_rdd_partition **sorted = cs_ui_rdd_parts_sorted(d);
    json_t *parts = json_array();
    for (int p = 0; p < d->num_parts; p++) {
        const ui_rdd_partition *part = sorted[p];
        char block[48];
        snprintf(block, sizeof block, "rdd_%d_%d", d->id, part->partition);
        json_t *x = json_object(), *execs = json_array();
        int64_t mem = 0, disk = 0;
        for (int c = 0; c < part->num_copies; c++) {
            mem += part->copies[c].memory_size;
            disk += part->copies[c].disk_size;
            json_array_append_new(execs, cs_json_text(part->copies[c].executor_id));
        }
        sets(x, "blockName", block);
        sets(x, "storageLevel", d->storage_level);
        seti(x, "memoryUsed", mem);
        seti(x, "diskUsed", disk);
        json_object_set_new(x, "executors", execs);
        json_array_append_new(parts, x);
    }
    free(sorted);
    json_object_set_new(o, "partitions", parts);
}

/* Spark's RDDStorageInfo; the list leaves out dataDistribution and partitions. */
static json_t *rdd_json(const ui_api_req *r, const ui_rdd *d, bool details)
{
    json_t *o = json_object();
    seti(o, "id", d->id);
    sets(o, "name", d->name ? d->name : "");
    seti(o, "numPartitions", d->num_partitions);
    seti(o, "numCachedPartitions", d->num_cached_partitions);
    sets(o, "storageLevel", d->storage_level);
    seti(o, "memoryUsed", d->memory_used);
    seti(o, "diskUsed", d->disk_used);
    if (details) rdd_details(r, d, o);
    return o;
}

/* storage/rdd lists the RDDs with a cached partition (Spark's rddList(cachedOnly = true));
 * storage/rdd/{id} any persisted RDD a block was reported of, until it is unpersisted. */
static int storage(const ui_api_req *r, const char *rest, cs_sbuf *out)
{
    if (*rest == '\0' || strcmp(rest, "/") == 0) {
        json_t *a = json_array();
        for (size_t i = 0; i < cs_ui_store_num_rdds(r->st); i++) {
            const ui_rdd *d = cs_ui_store_rdd_at(r->st, i);
            if (d->num_cached_partitions > 0) json_array_append_new(a, rdd_json(r, d, false));
        }
        cs_ui_api_dump(a, out);
        return 200;
    }
    const char *p = rest + 1;
    int id;
    if (!path_id(&p, &id) || !path_end(p)) return not_found(out, "unknown storage path %s", rest);
    const ui_rdd *d = cs_ui_store_rdd(r->st, id);
    if (!d || !d->reported) return not_found(out, "no rdd found w/ id %d", id);
    cs_ui_api_dump(rdd_json(r, d, true), out);
    return 200;
}

/* ---- dispatch ----------------------------------------------------------------------------- */

static bool take(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0 || ((*p)[n] != '\0' && (*p)[n] != '/')) return false;
    *p += n;
    return true;
}

/* p is word, or word and one trailing '/' */
static bool is_word(const char *p, const char *word)
{
    size_t n = strlen(word);
    return strncmp(p, word, n) == 0 && (p[n] == '\0' || strcmp(p + n, "/") == 0);
}

int cs_ui_api_app(const ui_api_req *r, cs_sbuf *out)
{
    const char *p = r->subpath;
    if (*p == '\0' || strcmp(p, "/") == 0) {
        cs_ui_api_dump(app_info(r), out);
        return 200;
    }
    p++; /* the '/' */
    if (take(&p, "jobs")) return jobs(r, p, out);
    if (take(&p, "stages")) return stages(r, p, out);
    if (is_word(p, "executors")) return executors(r, false, out);
    if (take(&p, "executors")) {
        const char *id = p + 1;
        size_t n = strcspn(id, "/");
        if (is_word(id + n, "/threads") && n < 64) {
            char executor_id[64];
            memcpy(executor_id, id, n);
            executor_id[n] = '\0';
            return cs_ui_api_threads(r, executor_id, out);
        }
        return not_found(out, "unknown path %s", r->subpath);
    }
    if (is_word(p, "allmiscellaneousprocess")) return cs_ui_api_misc_processes(r, out);
    if (is_word(p, "allexecutors")) return executors(r, true, out);
    if (is_word(p, "environment")) return environment(r, out);
    if (take(&p, "sql")) return cs_ui_api_sql(r, p, out);
    if (take(&p, "storage") && take(&p, "/rdd")) return storage(r, p, out);
    return not_found(out, "unknown path %s", r->subpath);
}
