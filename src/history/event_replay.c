/* event_replay.c — Spark's JSON event log, line by line, back into cs_events (see
 * event_replay.h).
 *
 * Field names are JsonProtocol's. A task's end reason becomes the event's reason the way the live
 * scheduler words it: ExceptionFailure its description, TaskKilled its kill reason (with the
 * event's end_reason saying TaskKilled, which the store counts as killed, as the live scheduler's
 * event does), FetchFailed and ExecutorLostFailure their message. A task
 * end is preceded by a task start built from its Task Info (the store ignores it when the real
 * start was replayed already), so a log whose start lines were dropped still shows the task.
 * The cached blocks a task end lists (Task Metrics' Updated Blocks), block updates, unpersisted
 * RDDs, RDD Infos' storage levels and the named Accumulables of task ends and stage completions
 * come back as the live scheduler posted them, so the Storage and Executors figures and the
 * stages' accumulators replay as the live UI showed them. SQL queries' starts and ends
 * (Spark's SQLExecutionStart / End, with their plans) come back for the SQL tab; the jobs name
 * their query through their Properties' spark.sql.execution.id.
 */
#define _GNU_SOURCE
#include "history/event_replay.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/err.h"
#include "common/log.h"
#include "cspark.h"
#include "sched/event_log_reader.h"
#include "sched/locality.h"

#define MAX_LINE (64 * 1024 * 1024) /* a longer line is not an event cspark or Spark writes */

void cs_replay_summary_free(replay_summary *s)
{
    if (!s) return;
    free(s->app_id);
    free(s->app_name);
    free(s->user);
    free(s->spark_version);
    memset(s, 0, sizeof *s);
}

static int64_t geti(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
}

static const char *gets(const json_t *o, const char *k)
{
    const json_t *v = json_object_get(o, k);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static bool getb(const json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

static void read_metrics(const json_t *m, cs_task_metrics *out)
{
    memset(out, 0, sizeof *out);
    if (!json_is_object(m)) return;
    out->run_time_ms = geti(m, "Executor Run Time");
    out->cpu_time_ns = geti(m, "Executor CPU Time");
    out->result_size = geti(m, "Result Size");
    out->peak_execution_memory = geti(m, "Peak Execution Memory");
    out->memory_bytes_spilled = geti(m, "Memory Bytes Spilled");
    out->disk_bytes_spilled = geti(m, "Disk Bytes Spilled");
    const json_t *in = json_object_get(m, "Input Metrics");
    out->bytes_read = geti(in, "Bytes Read");
    out->records_read = geti(in, "Records Read");
    const json_t *o = json_object_get(m, "Output Metrics");
    out->bytes_written = geti(o, "Bytes Written");
    out->records_written = geti(o, "Records Written");
    const json_t *sr = json_object_get(m, "Shuffle Read Metrics");
    out->shuffle_remote_bytes_read = geti(sr, "Remote Bytes Read");
    out->shuffle_bytes_read = out->shuffle_remote_bytes_read + geti(sr, "Local Bytes Read");
    out->shuffle_remote_blocks_fetched = geti(sr, "Remote Blocks Fetched");
    out->shuffle_local_blocks_fetched = geti(sr, "Local Blocks Fetched");
    out->shuffle_records_read = geti(sr, "Total Records Read");
    const json_t *sw = json_object_get(m, "Shuffle Write Metrics");
    out->shuffle_bytes_written = geti(sw, "Shuffle Bytes Written");
    out->shuffle_records_written = geti(sw, "Shuffle Records Written");
}

/* The reason text of a failed task end, into buf. */
static void end_reason(const json_t *r, char *buf, size_t cap)
{
    const char *kind = gets(r, "Reason");
    const char *desc = gets(r, "Description");
    if (!kind) kind = "UnknownReason";
    if (strcmp(kind, "ExceptionFailure") == 0) {
        snprintf(buf, cap, "%s", desc ? desc : gets(r, "Class Name") ? gets(r, "Class Name") : "");
    } else if (strcmp(kind, "TaskKilled") == 0) {
        const char *why = gets(r, "Kill Reason");
        snprintf(buf, cap, "%s", why ? why : "killed");
    } else if (strcmp(kind, "FetchFailed") == 0) {
        const char *msg = gets(r, "Message");
        snprintf(buf, cap, "FetchFailed(shuffle %lld, map %lld): %s",
                 (long long)geti(r, "Shuffle ID"), (long long)geti(r, "Map ID"), msg ? msg : "");
    } else if (strcmp(kind, "ExecutorLostFailure") == 0) {
        const char *why = gets(r, "Loss Reason");
        snprintf(buf, cap, "ExecutorLostFailure (executor %s exited%s%s)",
                 gets(r, "Executor ID") ? gets(r, "Executor ID") : "?", why ? ": " : "",
                 why ? why : "");
    } else {
        snprintf(buf, cap, "%s", kind);
    }
}

/* A cspark_storage_level from Spark's StorageLevel JSON (Use Disk, Use Memory). */
static int storage_level_of(const json_t *lv)
{
    bool disk = getb(lv, "Use Disk"), mem = getb(lv, "Use Memory");
    return mem && disk ? CSPARK_MEMORY_AND_DISK
           : mem       ? CSPARK_MEMORY_ONLY
           : disk      ? CSPARK_DISK_ONLY
                       : CSPARK_STORAGE_NONE;
}

/* An RDD block's status into out: false for a block that is not rdd_<id>_<partition>. */
static bool block_of(const char *block_id, const json_t *status, cs_block_status *out)
{
    int rdd, part, end = 0;
    if (!block_id || sscanf(block_id, "rdd_%d_%d%n", &rdd, &part, &end) != 2 ||
        block_id[end] != '\0')
        return false;
    *out = (cs_block_status){.rdd_id = rdd,
                             .partition = part,
                             .level = storage_level_of(json_object_get(status, "Storage Level")),
                             .memory_size = geti(status, "Memory Size"),
                             .disk_size = geti(status, "Disk Size")};
    return true;
}

/* A task end's "Updated Blocks": *out malloc'd (the caller frees it), the count returned. */
static int updated_blocks(const json_t *metrics, cs_block_status **out)
{
    const json_t *a = json_object_get(metrics, "Updated Blocks");
    size_t n = json_array_size(a);
    int k = 0;
    *out = cs_xcalloc(n + 1, sizeof **out);
    for (size_t i = 0; i < n; i++) {
        const json_t *b = json_array_get(a, i);
        if (block_of(gets(b, "Block ID"), json_object_get(b, "Status"), &(*out)[k])) k++;
    }
    return k;
}

/* Accumulables (Spark's AccumulableInfo list) as the live scheduler posts them: the named ones,
 * values as text (Spark writes an external accumulator's as a string; a number is printed). The
 * strings point into the JSON or into *texts, which the caller frees with the array. */
typedef struct accum_list {
    cs_accumulable *a;
    char *texts;
    int n;
} accum_list;

static const char *value_text(const json_t *v, char *buf, size_t cap)
{
    if (json_is_string(v)) return json_string_value(v);
    if (json_is_integer(v)) {
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
        return buf;
    }
    if (json_is_real(v)) {
        snprintf(buf, cap, "%.17g", json_real_value(v));
        return buf;
    }
    return NULL;
}

static void accums_read(const json_t *arr, accum_list *out)
{
    size_t n = json_array_size(arr);
    enum { TEXT = 32 };
    out->a = cs_xcalloc(n + 1, sizeof *out->a);
    out->texts = cs_xcalloc(2 * n + 1, TEXT);
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *x = json_array_get(arr, i);
        const char *name = gets(x, "Name");
        if (!name || getb(x, "Internal") || strncmp(name, "internal.", 9) == 0) continue;
        char *t = out->texts + 2 * i * TEXT;
        out->a[out->n++] =
            (cs_accumulable){.id = geti(x, "ID"),
                             .name = name,
                             .update = value_text(json_object_get(x, "Update"), t, TEXT),
                             .value = value_text(json_object_get(x, "Value"), t + TEXT, TEXT)};
    }
}

static void accums_free(accum_list *l)
{
    free(l->a);
    free(l->texts);
}

static void replay_job_start(const json_t *o, listener_fn fn, void *arg)
{
    const json_t *infos = json_object_get(o, "Stage Infos");
    size_t n = json_array_size(infos);
    int *ids = cs_xcalloc(n + 1, sizeof *ids), *tasks = cs_xcalloc(n + 1, sizeof *tasks);
    int *nparents = cs_xcalloc(n + 1, sizeof *nparents);
    size_t total_parents = 0;
    for (size_t i = 0; i < n; i++)
        total_parents += json_array_size(json_object_get(json_array_get(infos, i), "Parent IDs"));
    int *parents = cs_xcalloc(total_parents + 1, sizeof *parents);
    const char **names = cs_xcalloc(n + 1, sizeof *names);
    const json_t *pj = json_object_get(o, "Properties"); /* the job's local properties */
    const char **props = cs_xcalloc(2 * json_object_size(pj) + 1, sizeof *props);
    int nprops = 0;
    const char *key;
    const json_t *val;
    json_object_foreach((json_t *)pj, key, val)
    {
        if (!json_is_string(val)) continue;
        props[2 * nprops] = key;
        props[2 * nprops++ + 1] = json_string_value(val);
    }
    const char *name = "";
    int last = -1, k = 0;
    for (size_t i = 0; i < n; i++) {
        const json_t *si = json_array_get(infos, i);
        ids[i] = (int)geti(si, "Stage ID");
        tasks[i] = (int)geti(si, "Number of Tasks");
        const json_t *pids = json_object_get(si, "Parent IDs");
        nparents[i] = (int)json_array_size(pids);
        names[i] = gets(si, "Stage Name") ? gets(si, "Stage Name") : "";
        for (size_t p = 0; p < json_array_size(pids); p++)
            parents[k++] = (int)json_integer_value(json_array_get(pids, p));
        if (last < 0 || ids[i] > last) {
            last = ids[i];
            name = gets(si, "Stage Name") ? gets(si, "Stage Name") : "";
        }
    }
    cs_event ev = {.kind = CS_EV_JOB_START,
                   .job_id = (int)geti(o, "Job ID"),
                   .time_ms = geti(o, "Submission Time"),
                   .stage_ids = ids,
                   .num_stage_ids = (int)n,
                   .stage_num_tasks = tasks,
                   .stage_num_parents = nparents,
                   .stage_parents = parents,
                   .stage_names = names,
                   .job_properties = props,
                   .num_job_properties = nprops,
                   .stage_name = name};
    fn(arg, &ev);
    free(names);
    free(props);
    free(ids);
    free(tasks);
    free(nparents);
    free(parents);
}

/* The task start a TaskStart or TaskEnd line tells (its Task Info). */
static cs_event task_start_of(const json_t *o)
{
    const json_t *ti = json_object_get(o, "Task Info");
    return (cs_event){.kind = CS_EV_TASK_START,
                      .stage_id = (int)geti(o, "Stage ID"),
                      .stage_attempt = (int)geti(o, "Stage Attempt ID"),
                      .task_id = geti(ti, "Task ID"),
                      .partition = (int)geti(ti, "Index"),
                      .attempt = (int)geti(ti, "Attempt"),
                      .executor_id = gets(ti, "Executor ID"),
                      .host = gets(ti, "Host"),
                      .speculative = getb(ti, "Speculative"),
                      .locality = cs_locality_parse(gets(ti, "Locality")),
                      .task_type = gets(o, "Task Type"),
                      .time_ms = geti(ti, "Launch Time"),
                      .job_id = -1};
}

static void replay_task_end(const json_t *o, listener_fn fn, void *arg)
{
    const json_t *ti = json_object_get(o, "Task Info");
    const json_t *r = json_object_get(o, "Task End Reason");
    cs_event ev = task_start_of(o);
    fn(arg, &ev);
    char reason[2048] = "";
    const char *kind = gets(r, "Reason");
    ev.kind = CS_EV_TASK_END;
    ev.succeeded = kind && strcmp(kind, "Success") == 0;
    cs_task_end_reason killed = {.kind = CS_END_TASK_KILLED};
    if (!ev.succeeded) {
        end_reason(r, reason, sizeof reason);
        ev.reason = reason;
        if (kind && strcmp(kind, "TaskKilled") == 0) ev.end_reason = &killed;
    }
    ev.time_ms = geti(ti, "Finish Time");
    read_metrics(json_object_get(o, "Task Metrics"), &ev.metrics);
    cs_block_status *blocks;
    ev.num_updated_blocks = updated_blocks(json_object_get(o, "Task Metrics"), &blocks);
    ev.updated_blocks = blocks;
    accum_list acc;
    accums_read(json_object_get(ti, "Accumulables"), &acc);
    ev.accumulables = acc.a;
    ev.num_accumulables = acc.n;
    fn(arg, &ev);
    free(blocks);
    accums_free(&acc);
}

/* Spark's SparkListenerBlockUpdated: one block of one executor. */
static void replay_block_updated(const json_t *o, listener_fn fn, void *arg)
{
    const json_t *info = json_object_get(o, "Block Updated Info");
    const json_t *bm = json_object_get(info, "Block Manager ID");
    cs_block_status b;
    if (!block_of(gets(info, "Block ID"), info, &b)) return; /* not an RDD's block */
    cs_event ev = {.kind = CS_EV_BLOCK_UPDATED,
                   .executor_id = gets(bm, "Executor ID"),
                   .host = gets(bm, "Host"),
                   .block_port = (int)geti(bm, "Port"),
                   .updated_blocks = &b,
                   .num_updated_blocks = 1,
                   .job_id = -1};
    fn(arg, &ev);
}

static void replay_stage(const json_t *o, bool completed, listener_fn fn, void *arg)
{
    const json_t *si = json_object_get(o, "Stage Info");
    const char *failure = gets(si, "Failure Reason");
    const json_t *rinfo = json_object_get(si, "RDD Info"),
                 *pids = json_object_get(si, "Parent IDs");
    size_t nr = json_array_size(rinfo), np = json_array_size(pids);
    cs_rdd_info *rdds = cs_xcalloc(nr + 1, sizeof *rdds);
    int *parents = cs_xcalloc(np + 1, sizeof *parents);
    for (size_t i = 0; i < nr; i++) {
        const json_t *r = json_array_get(rinfo, i);
        const json_t *rp = json_object_get(r, "Parent IDs");
        rdds[i].id = (int)geti(r, "RDD ID");
        rdds[i].name = gets(r, "Name");
        rdds[i].callsite = gets(r, "Callsite");
        rdds[i].num_partitions = (int)geti(r, "Number of Partitions");
        rdds[i].storage_level = storage_level_of(json_object_get(r, "Storage Level"));
        rdds[i].cached_partitions = (int)geti(r, "Number of Cached Partitions");
        rdds[i].memory_size = geti(r, "Memory Size");
        rdds[i].disk_size = geti(r, "Disk Size");
        for (size_t k = 0; k < json_array_size(rp) && k < 2; k++)
            rdds[i].parent_ids[rdds[i].num_parents++] =
                (int)json_integer_value(json_array_get(rp, k));
    }
    for (size_t i = 0; i < np; i++)
        parents[i] = (int)json_integer_value(json_array_get(pids, i));
    accum_list acc;
    accums_read(json_object_get(si, "Accumulables"), &acc);
    cs_event ev = {.kind = completed ? CS_EV_STAGE_COMPLETED : CS_EV_STAGE_SUBMITTED,
                   .stage_id = (int)geti(si, "Stage ID"),
                   .stage_attempt = (int)geti(si, "Stage Attempt ID"),
                   .stage_name = gets(si, "Stage Name"),
                   .num_tasks = (int)geti(si, "Number of Tasks"),
                   .time_ms = geti(si, completed ? "Completion Time" : "Submission Time"),
                   .succeeded = !failure,
                   .reason = failure,
                   .job_id = -1,
                   .rdd_infos = rdds,
                   .num_rdd_infos = (int)nr,
                   .parent_stage_ids = parents,
                   .num_parent_stage_ids = (int)np,
                   .accumulables = acc.a,
                   .num_accumulables = acc.n};
    fn(arg, &ev);
    free(rdds);
    free(parents);
    accums_free(&acc);
}

static void replay_environment(const json_t *o, listener_fn fn, void *arg)
{
    const json_t *props = json_object_get(o, "Spark Properties");
    cs_conf *conf = cs_conf_new();
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)props, k, v)
    {
        if (json_is_string(v)) cs_conf_set(conf, k, json_string_value(v));
    }
    cs_event ev = {.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = conf};
    fn(arg, &ev);
    cs_conf_free(conf);
}

/* A SQL query's start: its plan tree goes on as the JSON text the live driver posts. */
static void replay_sql_start(const json_t *o, listener_fn fn, void *arg)
{
    const json_t *info = json_object_get(o, "sparkPlanInfo");
    char *info_text = json_is_object(info) ? json_dumps(info, JSON_COMPACT) : NULL;
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_START,
                   .job_id = -1,
                   .sql_execution_id = geti(o, "executionId"),
                   .sql_description = gets(o, "description"),
                   .sql_plan = gets(o, "physicalPlanDescription"),
                   .sql_plan_info = info_text,
                   .time_ms = geti(o, "time")};
    fn(arg, &ev);
    free(info_text);
}

static void replay_object(const json_t *o, listener_fn fn, void *arg, char **version)
{
    const char *name = gets(o, "Event");
    if (!name) return;
    if (strcmp(name, "SparkListenerLogStart") == 0) {
        const char *v = gets(o, "Spark Version");
        if (v && version) {
            free(*version);
            *version = strdup(v);
        }
    } else if (strcmp(name, "SparkListenerApplicationStart") == 0) {
        cs_event ev = {.kind = CS_EV_APPLICATION_START,
                       .app_name = gets(o, "App Name"),
                       .app_id = gets(o, "App ID"),
                       .user = gets(o, "User"),
                       .time_ms = geti(o, "Timestamp")};
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerApplicationEnd") == 0) {
        cs_event ev = {.kind = CS_EV_APPLICATION_END, .time_ms = geti(o, "Timestamp")};
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerEnvironmentUpdate") == 0) {
        replay_environment(o, fn, arg);
    } else if (strcmp(name, "SparkListenerJobStart") == 0) {
        replay_job_start(o, fn, arg);
    } else if (strcmp(name, "SparkListenerJobEnd") == 0) {
        const json_t *r = json_object_get(o, "Job Result");
        const char *res = gets(r, "Result");
        const char *msg = gets(json_object_get(r, "Exception"), "Message");
        cs_event ev = {.kind = CS_EV_JOB_END,
                       .job_id = (int)geti(o, "Job ID"),
                       .time_ms = geti(o, "Completion Time"),
                       .succeeded = res && strcmp(res, "JobSucceeded") == 0,
                       .reason = msg};
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerStageSubmitted") == 0) {
        replay_stage(o, false, fn, arg);
    } else if (strcmp(name, "SparkListenerStageCompleted") == 0) {
        replay_stage(o, true, fn, arg);
    } else if (strcmp(name, "SparkListenerTaskStart") == 0) {
        cs_event ev = task_start_of(o);
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerTaskEnd") == 0) {
        replay_task_end(o, fn, arg);
    } else if (strcmp(name, "SparkListenerExecutorAdded") == 0) {
        const json_t *info = json_object_get(o, "Executor Info");
        cs_event ev = {.kind = CS_EV_EXECUTOR_ADDED,
                       .executor_id = gets(o, "Executor ID"),
                       .host = gets(info, "Host"),
                       .executor_cores = (int)geti(info, "Total Cores"),
                       .time_ms = geti(o, "Timestamp")};
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerExecutorRemoved") == 0) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_REMOVED,
                       .executor_id = gets(o, "Executor ID"),
                       .reason = gets(o, "Removed Reason"),
                       .time_ms = geti(o, "Timestamp")};
        fn(arg, &ev);
    } else if (strcmp(name, "SparkListenerBlockUpdated") == 0) {
        replay_block_updated(o, fn, arg);
    } else if (strcmp(name, "SparkListenerUnpersistRDD") == 0) {
        cs_event ev = {.kind = CS_EV_UNPERSIST_RDD, .rdd_id = (int)geti(o, "RDD ID"), .job_id = -1};
        fn(arg, &ev);
    } else if (strcmp(name, "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart") ==
               0) {
        replay_sql_start(o, fn, arg);
    } else if (strcmp(name, "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd") ==
               0) {
        const char *msg = gets(o, "errorMessage"); /* Spark 4: "" success; absent: older Spark */
        cs_event ev = {.kind = CS_EV_SQL_EXECUTION_END,
                       .job_id = -1,
                       .sql_execution_id = geti(o, "executionId"),
                       .time_ms = geti(o, "time"),
                       .succeeded = msg && !msg[0],
                       .reason = msg && msg[0] ? msg : NULL};
        fn(arg, &ev);
    } else if (strcmp(name, "org.cspark.scheduler.ExecutorAllocationTargetUpdate") == 0) {
        cs_event ev = {.kind = CS_EV_ALLOCATION_TARGET,
                       .target_executors = (int)geti(o, "Target Executors"),
                       .previous_target = (int)geti(o, "Previous Target"),
                       .pending_tasks = (int)geti(o, "Pending Tasks"),
                       .running_tasks = (int)geti(o, "Running Tasks"),
                       .reason = gets(o, "Reason"),
                       .time_ms = geti(o, "Timestamp")};
        fn(arg, &ev);
    }
}

bool cs_replay_line(const char *line, size_t len, listener_fn fn, void *arg, char **version)
{
    json_error_t jerr;
    json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!json_is_object(o)) {
        json_decref(o);
        return false;
    }
    replay_object(o, fn, arg, version);
    json_decref(o);
    return true;
}

typedef int (*line_fn)(void *ctx, const char *line, size_t len);

/* Calls fn for each line of the file, read in chunks: a line is held only while it is at most
 * max_line bytes long; a longer one is counted in st->overlong and skipped as it streams by, so
 * memory stays bounded by max_line whatever the input. A final line without its newline is
 * delivered too (an .inprogress log's last line is often half-written: fn tells). */
int cs_replay_each_line(FILE *f, size_t max_line, line_fn fn, void *ctx, replay_stats *st)
{
    char chunk[64 * 1024];
    char *line = NULL;
    size_t len = 0, cap = 0;
    bool overlong = false;
    int rc = 0;
    size_t n;
    while (rc == 0 && (n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        const char *p = chunk, *end = chunk + n;
        while (rc == 0 && p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t seg = (size_t)((nl ? nl : end) - p);
            if (!overlong && len + seg > max_line) {
                overlong = true;
                len = 0;
            }
            if (!overlong && seg > 0) {
                if (len + seg > cap) {
                    cap = cap ? cap : 4096;
                    while (cap < len + seg)
                        cap *= 2;
                    line = cs_xrealloc(line, cap);
                }
                memcpy(line + len, p, seg);
                len += seg;
            }
            p += seg;
            if (!nl) break;
            p++; /* the newline */
            st->lines++;
            if (overlong) {
                st->overlong++;
                if (!st->first_bad_line) st->first_bad_line = st->lines;
            } else {
                while (len > 0 && line[len - 1] == '\r')
                    len--;
                if (len > 0) rc = fn(ctx, line, len);
            }
            len = 0;
            overlong = false;
        }
    }
    if (rc == 0 && ferror(f)) {
        st->read_error = errno ? errno : EIO;
    } else if (rc == 0 && (len > 0 || overlong)) {
        st->lines++;
        st->last_unterminated = true;
        if (overlong) {
            st->overlong++;
            if (!st->first_bad_line) st->first_bad_line = st->lines;
        } else {
            rc = fn(ctx, line, len);
        }
    }
    free(line);
    return rc;
}

static int each_line(const char *path, line_fn fn, void *ctx, replay_stats *st, cs_error *err)
{
    FILE *f = cs_event_log_open_read(path, err); /* a rolled or compressed log too */
    if (!f) return err->code;
    int rc = cs_replay_each_line(f, MAX_LINE, fn, ctx, st);
    if (rc == 0 && st->read_error)
        rc = cs_error_set(err, CS_EIO, "cannot read event log %s after line %lld: %s", path,
                          (long long)st->lines, strerror(st->read_error));
    fclose(f);
    return rc;
}

typedef struct replay_ctx {
    listener_fn fn;
    void *arg;
    char **version;
    replay_stats *st;
} replay_ctx;

static int replay_cb(void *ctx, const char *line, size_t len)
{
    replay_ctx *r = ctx;
    if (!cs_replay_line(line, len, r->fn, r->arg, r->version)) {
        r->st->not_json++;
        r->st->last_not_json = r->st->lines; /* the line being read */
        if (!r->st->first_bad_line) r->st->first_bad_line = r->st->lines;
    }
    return 0;
}

int cs_replay_file(const char *path, listener_fn fn, void *arg, char **version, cs_error *err)
{
    replay_stats st = {0};
    replay_ctx r = {fn, arg, version, &st};
    int rc = each_line(path, replay_cb, &r, &st, err);
    /* a half-written last line of a log still being written is expected, not a defect */
    int64_t bad = st.not_json + st.overlong;
    if (st.last_unterminated && st.last_not_json == st.lines) bad--;
    if (rc == 0 && bad > 0)
        CS_WARN("history",
                "path=%s event=lines_skipped skipped=%lld not_json=%lld over_%dMiB=%lld "
                "first_line=%lld lines=%lld Skipped %lld lines of the event log that are not "
                "events (invalid JSON or UTF-8, or longer than %d MiB); the application is shown "
                "without them",
                cs_log_value(path), (long long)bad, (long long)st.not_json, MAX_LINE >> 20,
                (long long)st.overlong, (long long)st.first_bad_line, (long long)st.lines,
                (long long)bad, MAX_LINE >> 20);
    return rc;
}

static void summary_listener(void *arg, const cs_event *ev)
{
    replay_summary *s = arg;
    if (ev->kind == CS_EV_APPLICATION_START) {
        free(s->app_id);
        free(s->app_name);
        free(s->user);
        s->app_id = ev->app_id ? strdup(ev->app_id) : NULL;
        s->app_name = ev->app_name ? strdup(ev->app_name) : NULL;
        s->user = ev->user ? strdup(ev->user) : NULL;
        s->start_ms = ev->time_ms;
    } else if (ev->kind == CS_EV_APPLICATION_END) {
        s->end_ms = ev->time_ms;
        s->ended = true;
    }
}

static int summary_cb(void *ctx, const char *line, size_t len)
{
    replay_summary *s = ctx;
    /* only three kinds of line matter; the rest is skipped without parsing */
    if (!memmem(line, len, "SparkListenerApplication", 24) &&
        !memmem(line, len, "SparkListenerLogStart", 21))
        return 0;
    cs_replay_line(line, len, summary_listener, s, &s->spark_version);
    return 0;
}

int cs_replay_summary_read(const char *path, replay_summary *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    replay_stats st = {0};
    int rc = each_line(path, summary_cb, out, &st, err);
    if (rc < 0) cs_replay_summary_free(out);
    return rc;
}
