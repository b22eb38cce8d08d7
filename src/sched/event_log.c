/* event_log.c — writes listener events as Spark's JSON event log (one object per line).
 *
 * Mirrors Spark's EventLoggingListener + JsonProtocol: the file `<dir>/<app>.inprogress` starts
 * with SparkListenerLogStart, then one line per event with Spark's event and field names, and is
 * renamed to `<dir>/<app>` when the application ends (cs_event_log_close). Our events carry less
 * than Spark's (no JVM figures, no internal accumulators), so fields the history server requires
 * are written with neutral values (empty arrays/objects, 0). The log
 * remembers what later events need but do not carry: each running stage's submission time, name
 * and task count (for StageCompleted) and each running task's launch time (for TaskEnd's Task
 * Info). Spark Properties are redacted with spark.redaction.regex. Called from the bus's
 * dispatch thread only (listener.c).
 *
 * Where it goes (src/fs): a local directory, written through stdio and renamed at the end as
 * above; or an object store (spark.eventLog.dir=s3a://bucket/prefix), written as a multipart
 * upload in parts of fs.s3a.multipart.size and visible, under its final name, when the
 * application ends. With spark.eventLog.compress=true the log is compressed with
 * spark.eventLog.compression.codec (zstd by default, as Spark; or lz4) and named, as Spark does,
 * `<app>.<codec>` (`.inprogress` appended while it is written locally).
 */
#include "sched/event_log.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cspark.h"
#include "common/clock.h"
#include "common/hmap.h"
#include "common/json_text.h"
#include "common/log.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "sched/locality.h"

#define DEFAULT_DIR "file:/tmp/spark-events"
#define KEY_DIR "spark.eventLog.dir"

typedef struct el_stage {
    int stage_id, attempt, num_tasks;
    int64_t submitted_ms;
    char *name;
} el_stage;

struct event_log {
    FILE *fp;
    char *buf;         /* stdio buffer */
    cs_fs_writer *w;   /* instead of fp: an object store or a compressed log */
    size_t wlen, wcap; /* bytes of buf waiting for w */
    char *path_inprogress;
    char *path_final;
    bool overwrite;
    bool failed; /* a write failed: stop writing, report at close */
    int saved_errno;

    bool have_regex;
    regex_t regex;

    char *line; /* serialisation buffer, reused */
    size_t line_cap;

    el_stage *stages;
    size_t nstages, capstages;

    cs_hmap tasks;          /* running task id -> launch time */
    bool log_block_updates; /* spark.eventLog.logBlockUpdates.enabled */
};

/* ---- small helpers -------------------------------------------------------------------------- */

static void set_str(json_t *o, const char *k, const char *v)
{
    json_object_set_new(o, k, cs_json_text(v));
}

static void set_int(json_t *o, const char *k, int64_t v)
{
    json_object_set_new(o, k, json_integer((json_int_t)v));
}

static void set_bool(json_t *o, const char *k, bool v)
{
    json_object_set_new(o, k, json_boolean(v));
}

/* Spark's JsonProtocol.taskEndReasonToJson: the reason's class name and its fields. */
static void task_end_reason(json_t *r, const cs_event *ev)
{
    const char *why = ev->reason ? ev->reason : "task failed";
    const cs_task_end_reason *e = ev->end_reason;
    switch (e ? e->kind : CS_END_EXCEPTION) {
    case CS_END_FETCH_FAILED:
        set_str(r, "Reason", "FetchFailed");
        if (e->bm_executor_id[0] && e->bm_port > 0) { /* Spark's BlockManagerId needs a port */
            json_t *bm = json_object();
            set_str(bm, "Executor ID", e->bm_executor_id);
            set_str(bm, "Host", e->bm_host);
            set_int(bm, "Port", e->bm_port);
            json_object_set_new(r, "Block Manager Address", bm);
        }
        set_int(r, "Shuffle ID", e->shuffle_id);
        set_int(r, "Map ID", e->map_id);
        set_int(r, "Map Index", e->map_id);
        set_int(r, "Reduce ID", e->reduce_id);
        set_str(r, "Message", why);
        break;
    case CS_END_EXECUTOR_LOST:
        set_str(r, "Reason", "ExecutorLostFailure");
        set_str(r, "Executor ID", e->lost_executor_id);
        json_object_set_new(r, "Exit Caused By App", json_boolean(e->exit_caused_by_app));
        set_str(r, "Loss Reason", e->loss_reason);
        break;
    case CS_END_TASK_KILLED:
        set_str(r, "Reason", "TaskKilled");
        set_str(r, "Kill Reason", why);
        json_object_set_new(r, "Accumulator Updates", json_array());
        break;
    case CS_END_EXCEPTION:
        set_str(r, "Reason", "ExceptionFailure");
        set_str(r, "Class Name", "cspark.TaskFailure");
        set_str(r, "Description", why);
        json_object_set_new(r, "Stack Trace", json_array());
        set_str(r, "Full Stack Trace", why);
        json_object_set_new(r, "Accumulator Updates", json_array());
        break;
    }
}

static json_t *event_obj(cs_event_kind kind)
{
    json_t *o = json_object();
    set_str(o, "Event", cs_event_log_event_name(kind));
    return o;
}

const char *cs_event_log_event_name(cs_event_kind kind)
{
    switch (kind) {
    case CS_EV_APPLICATION_START:
        return "SparkListenerApplicationStart";
    case CS_EV_APPLICATION_END:
        return "SparkListenerApplicationEnd";
    case CS_EV_JOB_START:
        return "SparkListenerJobStart";
    case CS_EV_JOB_END:
        return "SparkListenerJobEnd";
    case CS_EV_STAGE_SUBMITTED:
        return "SparkListenerStageSubmitted";
    case CS_EV_STAGE_COMPLETED:
        return "SparkListenerStageCompleted";
    case CS_EV_TASK_START:
        return "SparkListenerTaskStart";
    case CS_EV_TASK_END:
        return "SparkListenerTaskEnd";
    case CS_EV_EXECUTOR_ADDED:
        return "SparkListenerExecutorAdded";
    case CS_EV_EXECUTOR_REMOVED:
        return "SparkListenerExecutorRemoved";
    case CS_EV_ENVIRONMENT_UPDATE:
        return "SparkListenerEnvironmentUpdate";
    case CS_EV_LOG_START:
        return "SparkListenerLogStart";
    case CS_EV_ALLOCATION_TARGET:
        /* not a Spark event: a fully qualified name, which Spark's history server skips */
        return "org.cspark.scheduler.ExecutorAllocationTargetUpdate";
    case CS_EV_EXECUTOR_METRICS:
        return "SparkListenerExecutorMetricsUpdate";
    case CS_EV_BLOCK_UPDATED:
        return "SparkListenerBlockUpdated";
    case CS_EV_UNPERSIST_RDD:
        return "SparkListenerUnpersistRDD";
    }
    return "SparkListenerUnknown";
}

/* ---- remembered state ----------------------------------------------------------------------- */

static el_stage *stage_find(event_log *el, int stage_id, int attempt)
{
    for (size_t i = 0; i < el->nstages; i++)
        if (el->stages[i].stage_id == stage_id && el->stages[i].attempt == attempt)
            return &el->stages[i];
    return NULL;
}

static void stage_remove(event_log *el, el_stage *s)
{
    free(s->name);
    *s = el->stages[--el->nstages];
}

static void task_put(event_log *el, int64_t id, int64_t launch)
{
    cs_hmap_put(&el->tasks, (uint64_t)id, (uint64_t)launch);
}

/* Removes id; returns its launch time or -1. */
static int64_t task_take(event_log *el, int64_t id)
{
    uint64_t launch;
    if (!cs_hmap_get(&el->tasks, (uint64_t)id, &launch)) return -1;
    cs_hmap_del(&el->tasks, (uint64_t)id);
    return (int64_t)launch;
}

/* ---- JSON building blocks ------------------------------------------------------------------- */

/* Spark's StorageLevel as JsonProtocol writes it (cspark keeps blocks serialized in batches). */
static json_t *storage_level_json(int level)
{
    json_t *o = json_object();
    set_bool(o, "Use Disk", level == CSPARK_MEMORY_AND_DISK || level == CSPARK_DISK_ONLY);
    set_bool(o, "Use Memory", level == CSPARK_MEMORY_ONLY || level == CSPARK_MEMORY_AND_DISK);
    set_bool(o, "Use Off Heap", false);
    set_bool(o, "Deserialized", level == CSPARK_MEMORY_ONLY || level == CSPARK_MEMORY_AND_DISK);
    set_int(o, "Replication", 1);
    return o;
}

/* Spark's RDDInfo, with the storage level and the cached partitions the driver knows of. */
static json_t *rdd_info(const cs_rdd_info *r)
{
    json_t *o = json_object();
    set_int(o, "RDD ID", r->id);
    set_str(o, "Name", r->name);
    set_str(o, "Callsite", r->callsite);
    json_t *parents = json_array();
    for (int i = 0; i < r->num_parents && i < 2; i++)
        json_array_append_new(parents, json_integer(r->parent_ids[i]));
    json_object_set_new(o, "Parent IDs", parents);
    json_object_set_new(o, "Storage Level", storage_level_json(r->storage_level));
    set_bool(o, "Barrier", false);
    set_str(o, "DeterministicLevel", "DETERMINATE");
    set_int(o, "Number of Partitions", r->num_partitions);
    set_int(o, "Number of Cached Partitions", r->cached_partitions);
    set_int(o, "Memory Size", r->memory_size);
    set_int(o, "Disk Size", r->disk_size);
    return o;
}

/* Spark's AccumulableInfo as JsonProtocol writes an external accumulator's: ID, Name, Update (a
 * task's), Value, Internal, Count Failed Values. */
static json_t *accumulables(const cs_event *ev)
{
    json_t *a = json_array();
    for (int i = 0; ev && i < ev->num_accumulables; i++) {
        const cs_accumulable *x = &ev->accumulables[i];
        json_t *o = json_object();
        set_int(o, "ID", x->id);
        if (x->name) set_str(o, "Name", x->name);
        if (x->update) set_str(o, "Update", x->update);
        if (x->value) set_str(o, "Value", x->value);
        set_bool(o, "Internal", false);
        set_bool(o, "Count Failed Values", false);
        json_array_append_new(a, o);
    }
    return a;
}

/* rdds/parents: the stage's RDDs and parent stages (NULL/0 when the event has none). */
static json_t *stage_info(int stage_id, int attempt, const char *name, int num_tasks,
                          const cs_event *rdds, int64_t submitted, int64_t completed,
                          const char *failure)
{
    json_t *o = json_object();
    set_int(o, "Stage ID", stage_id);
    set_int(o, "Stage Attempt ID", attempt);
    set_str(o, "Stage Name", name);
    set_int(o, "Number of Tasks", num_tasks);
    json_t *infos = json_array(), *parents = json_array();
    for (int i = 0; rdds && i < rdds->num_rdd_infos; i++)
        json_array_append_new(infos, rdd_info(&rdds->rdd_infos[i]));
    for (int i = 0; rdds && i < rdds->num_parent_stage_ids; i++)
        json_array_append_new(parents, json_integer(rdds->parent_stage_ids[i]));
    json_object_set_new(o, "RDD Info", infos);
    json_object_set_new(o, "Parent IDs", parents);
    set_str(o, "Details", "");
    if (submitted > 0) set_int(o, "Submission Time", submitted);
    if (completed > 0) set_int(o, "Completion Time", completed);
    if (failure) set_str(o, "Failure Reason", failure);
    json_object_set_new(o, "Accumulables", accumulables(rdds));
    set_int(o, "Resource Profile Id", 0);
    set_bool(o, "Shuffle Push Enabled", false);
    set_int(o, "Shuffle Push Mergers Count", 0);
    return o;
}

static json_t *task_info(const cs_event *ev, int64_t launch, int64_t finish, bool failed)
{
    json_t *o = json_object();
    set_int(o, "Task ID", ev->task_id);
    set_int(o, "Index", ev->partition);
    set_int(o, "Attempt", ev->attempt);
    set_int(o, "Partition ID", ev->partition);
    set_int(o, "Launch Time", launch);
    set_str(o, "Executor ID", ev->executor_id);
    set_str(o, "Host", ev->host);
    set_str(o, "Locality", cs_locality_name((cs_locality_level)ev->locality));
    set_bool(o, "Speculative", ev->speculative);
    set_int(o, "Getting Result Time", 0);
    set_int(o, "Finish Time", finish);
    set_bool(o, "Failed", failed);
    set_bool(o, "Killed", false);
    json_object_set_new(o, "Accumulables", accumulables(ev));
    return o;
}

/* Spark's "Updated Blocks": each block's id and BlockStatus. */
static json_t *updated_blocks(const cs_event *ev)
{
    json_t *a = json_array();
    for (int i = 0; i < ev->num_updated_blocks; i++) {
        const cs_block_status *b = &ev->updated_blocks[i];
        char id[64];
        snprintf(id, sizeof id, "rdd_%d_%d", b->rdd_id, b->partition);
        json_t *st = json_object();
        json_object_set_new(st, "Storage Level", storage_level_json(b->level));
        set_int(st, "Memory Size", b->memory_size);
        set_int(st, "Disk Size", b->disk_size);
        json_t *o = json_object();
        set_str(o, "Block ID", id);
        json_object_set_new(o, "Status", st);
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *task_metrics(const cs_task_metrics *m, const cs_event *ev)
{
    json_t *o = json_object();
    set_int(o, "Executor Deserialize Time", 0);
    set_int(o, "Executor Deserialize CPU Time", 0);
    set_int(o, "Executor Run Time", m->run_time_ms);
    set_int(o, "Executor CPU Time", m->cpu_time_ns);
    set_int(o, "Peak Execution Memory", m->peak_execution_memory);
    set_int(o, "Peak On Heap Execution Memory", m->peak_execution_memory);
    set_int(o, "Peak Off Heap Execution Memory", 0);
    set_int(o, "Result Size", m->result_size);
    set_int(o, "JVM GC Time", 0);
    set_int(o, "Result Serialization Time", 0);
    set_int(o, "Memory Bytes Spilled", m->memory_bytes_spilled);
    set_int(o, "Disk Bytes Spilled", m->disk_bytes_spilled);
    json_t *sr = json_object();
    set_int(sr, "Remote Blocks Fetched", m->shuffle_remote_blocks_fetched);
    set_int(sr, "Local Blocks Fetched", m->shuffle_local_blocks_fetched);
    set_int(sr, "Fetch Wait Time", 0);
    set_int(sr, "Remote Bytes Read", m->shuffle_remote_bytes_read);
    set_int(sr, "Remote Bytes Read To Disk", 0);
    set_int(sr, "Local Bytes Read", m->shuffle_bytes_read - m->shuffle_remote_bytes_read);
    set_int(sr, "Total Records Read", m->shuffle_records_read);
    set_int(sr, "Remote Requests Duration", 0);
    json_t *push = json_object();
    static const char *const push_fields[] = {
        "Corrupt Merged Block Chunks",    "Merged Fetch Fallback Count",
        "Merged Remote Blocks Fetched",   "Merged Local Blocks Fetched",
        "Merged Remote Chunks Fetched",   "Merged Local Chunks Fetched",
        "Merged Remote Bytes Read",       "Merged Local Bytes Read",
        "Merged Remote Requests Duration"};
    for (size_t i = 0; i < sizeof push_fields / sizeof push_fields[0]; i++)
        set_int(push, push_fields[i], 0);
    json_object_set_new(sr, "Shuffle Push Read Metrics", push);
    json_object_set_new(o, "Shuffle Read Metrics", sr);
    json_t *sw = json_object();
    set_int(sw, "Shuffle Bytes Written", m->shuffle_bytes_written);
    set_int(sw, "Shuffle Write Time", 0);
    set_int(sw, "Shuffle Records Written", m->shuffle_records_written);
    json_object_set_new(o, "Shuffle Write Metrics", sw);
    json_t *in = json_object();
    set_int(in, "Bytes Read", m->bytes_read);
    set_int(in, "Records Read", m->records_read);
    json_object_set_new(o, "Input Metrics", in);
    json_t *out = json_object();
    set_int(out, "Bytes Written", m->bytes_written);
    set_int(out, "Records Written", m->records_written);
    json_object_set_new(o, "Output Metrics", out);
    json_object_set_new(o, "Updated Blocks", updated_blocks(ev));
    return o;
}

typedef struct props_ctx {
    event_log *el;
    json_t *obj;
} props_ctx;

static void add_prop(void *arg, const char *key, const char *value)
{
    props_ctx *pc = arg;
    const char *v = value;
    if (pc->el->have_regex) {
        if (regexec(&pc->el->regex, key, 0, NULL, 0) == 0 ||
            (value && regexec(&pc->el->regex, value, 0, NULL, 0) == 0))
            v = CS_REDACTED;
    } else {
        v = cs_conf_redact(key, value ? value : "");
    }
    set_str(pc->obj, key, v);
}

/* ---- events --------------------------------------------------------------------------------- */

static json_t *to_json(event_log *el, const cs_event *ev, int64_t launch)
{
    json_t *o = event_obj(ev->kind);
    switch (ev->kind) {
    case CS_EV_LOG_START:
        set_str(o, "Spark Version", CSPARK_VERSION);
        break;
    case CS_EV_APPLICATION_START:
        set_str(o, "App Name", ev->app_name);
        if (ev->app_id) set_str(o, "App ID", ev->app_id);
        set_int(o, "Timestamp", ev->time_ms);
        set_str(o, "User", ev->user);
        break;
    case CS_EV_APPLICATION_END:
        set_int(o, "Timestamp", ev->time_ms);
        break;
    case CS_EV_ENVIRONMENT_UPDATE: {
        json_object_set_new(o, "JVM Information", json_object());
        json_t *props = json_object();
        if (ev->conf) {
            props_ctx pc = {el, props};
            cs_conf_foreach(ev->conf, add_prop, &pc);
        }
        json_object_set_new(o, "Spark Properties", props);
        json_object_set_new(o, "Hadoop Properties", json_object());
        json_object_set_new(o, "System Properties", json_object());
        json_object_set_new(o, "Metrics Properties", json_object());
        json_object_set_new(o, "Classpath Entries", json_object());
        break;
    }
    case CS_EV_JOB_START: {
        set_int(o, "Job ID", ev->job_id);
        set_int(o, "Submission Time", ev->time_ms);
        json_t *infos = json_array(), *ids = json_array();
        int last = -1;
        for (int i = 0; i < ev->num_stage_ids; i++)
            if (last < 0 || ev->stage_ids[i] > ev->stage_ids[last]) last = i;
        const int *parents = ev->stage_parents;
        for (int i = 0; i < ev->num_stage_ids; i++) {
            int tasks = ev->stage_num_tasks ? ev->stage_num_tasks[i] : 0;
            /* the job's stages with their parents (a skipped stage is never submitted: this is
             * where its place in the DAG is told) */
            int np = ev->stage_num_parents && parents ? ev->stage_num_parents[i] : 0;
            cs_event dag = {.parent_stage_ids = parents, .num_parent_stage_ids = np};
            const char *name = ev->stage_names ? ev->stage_names[i]
                               : i == last     ? ev->stage_name
                                               : "";
            json_array_append_new(infos, stage_info(ev->stage_ids[i], 0, name, tasks,
                                                    np > 0 ? &dag : NULL, 0, 0, NULL));
            if (np > 0) parents += np;
            json_array_append_new(ids, json_integer(ev->stage_ids[i]));
        }
        json_object_set_new(o, "Stage Infos", infos);
        json_object_set_new(o, "Stage IDs", ids);
        json_t *props = json_object(); /* the job's local properties, as Spark's */
        for (int i = 0; i < ev->num_job_properties; i++)
            set_str(props, ev->job_properties[2 * i], ev->job_properties[2 * i + 1]);
        json_object_set_new(o, "Properties", props);
        break;
    }
    case CS_EV_JOB_END: {
        set_int(o, "Job ID", ev->job_id);
        set_int(o, "Completion Time", ev->time_ms);
        json_t *r = json_object();
        if (ev->succeeded) {
            set_str(r, "Result", "JobSucceeded");
        } else {
            set_str(r, "Result", "JobFailed");
            json_t *ex = json_object();
            set_str(ex, "Message", ev->reason ? ev->reason : "job failed");
            json_object_set_new(ex, "Stack Trace", json_array());
            json_object_set_new(r, "Exception", ex);
        }
        json_object_set_new(o, "Job Result", r);
        break;
    }
    case CS_EV_STAGE_SUBMITTED: {
        el_stage *s = stage_find(el, ev->stage_id, ev->stage_attempt);
        if (!s) {
            if (el->nstages == el->capstages) {
                el->capstages = el->capstages ? 2 * el->capstages : 16;
                el->stages = cs_xrealloc(el->stages, el->capstages * sizeof *el->stages);
            }
            s = &el->stages[el->nstages++];
            memset(s, 0, sizeof *s);
        }
        free(s->name);
        *s = (el_stage){ev->stage_id, ev->stage_attempt, ev->num_tasks, ev->time_ms,
                        cs_xstrdup(ev->stage_name ? ev->stage_name : "")};
        json_object_set_new(o, "Stage Info",
                            stage_info(ev->stage_id, ev->stage_attempt, ev->stage_name,
                                       ev->num_tasks, ev, ev->time_ms, 0, NULL));
        json_object_set_new(o, "Properties", json_object());
        break;
    }
    case CS_EV_STAGE_COMPLETED: {
        el_stage *s = stage_find(el, ev->stage_id, ev->stage_attempt);
        const char *name = ev->stage_name ? ev->stage_name : (s ? s->name : "");
        int tasks = ev->num_tasks > 0 ? ev->num_tasks : (s ? s->num_tasks : 0);
        int64_t submitted = s ? s->submitted_ms : 0;
        const char *failure = ev->succeeded ? NULL : (ev->reason ? ev->reason : "stage failed");
        json_object_set_new(o, "Stage Info",
                            stage_info(ev->stage_id, ev->stage_attempt, name, tasks, ev, submitted,
                                       ev->time_ms, failure));
        if (s) stage_remove(el, s);
        break;
    }
    case CS_EV_TASK_START:
        set_int(o, "Stage ID", ev->stage_id);
        set_int(o, "Stage Attempt ID", ev->stage_attempt);
        json_object_set_new(o, "Task Info", task_info(ev, ev->time_ms, 0, false));
        break;
    case CS_EV_TASK_END: {
        set_int(o, "Stage ID", ev->stage_id);
        set_int(o, "Stage Attempt ID", ev->stage_attempt);
        set_str(o, "Task Type", ev->task_type ? ev->task_type : "ResultTask");
        json_t *r = json_object();
        if (ev->succeeded) {
            set_str(r, "Reason", "Success");
        } else {
            task_end_reason(r, ev);
        }
        json_object_set_new(o, "Task End Reason", r);
        json_object_set_new(o, "Task Info", task_info(ev, launch, ev->time_ms, !ev->succeeded));
        json_object_set_new(o, "Task Executor Metrics", json_object());
        json_object_set_new(o, "Task Metrics", task_metrics(&ev->metrics, ev));
        break;
    }
    case CS_EV_EXECUTOR_ADDED: {
        set_int(o, "Timestamp", ev->time_ms);
        set_str(o, "Executor ID", ev->executor_id);
        json_t *info = json_object();
        set_str(info, "Host", ev->host);
        set_int(info, "Total Cores", ev->executor_cores);
        json_object_set_new(info, "Log Urls", json_object());
        json_object_set_new(info, "Attributes", json_object());
        json_object_set_new(info, "Resources", json_object());
        set_int(info, "Resource Profile Id", 0);
        set_int(info, "Registration Time", ev->time_ms);
        json_object_set_new(o, "Executor Info", info);
        break;
    }
    case CS_EV_EXECUTOR_REMOVED:
        set_int(o, "Timestamp", ev->time_ms);
        set_str(o, "Executor ID", ev->executor_id);
        set_str(o, "Removed Reason", ev->reason);
        break;
    case CS_EV_ALLOCATION_TARGET:
        set_int(o, "Timestamp", ev->time_ms);
        set_int(o, "Target Executors", ev->target_executors);
        set_int(o, "Previous Target", ev->previous_target);
        set_int(o, "Pending Tasks", ev->pending_tasks);
        set_int(o, "Running Tasks", ev->running_tasks);
        set_str(o, "Reason", ev->reason);
        break;
    case CS_EV_UNPERSIST_RDD:
        set_int(o, "RDD ID", ev->rdd_id);
        break;
    case CS_EV_EXECUTOR_METRICS: /* not logged, as Spark's EventLoggingListener */
    case CS_EV_BLOCK_UPDATED:    /* one line per block: block_updated_json */
        break;
    }
    return o;
}

/* Spark's SparkListenerBlockUpdated for block i of ev (BlockUpdatedInfo: the block manager, the
 * block and its status). The block manager is the executor's block server; local mode has none
 * and names Spark's default port, 7079 (Spark refuses a port of 0). */
static json_t *block_updated_json(const cs_event *ev, int i)
{
    const cs_block_status *b = &ev->updated_blocks[i];
    json_t *o = json_object();
    set_str(o, "Event", "SparkListenerBlockUpdated");
    json_t *info = json_object(), *bm = json_object();
    set_str(bm, "Executor ID", ev->executor_id);
    set_str(bm, "Host", ev->host);
    set_int(bm, "Port", ev->block_port > 0 ? ev->block_port : 7079);
    json_object_set_new(info, "Block Manager ID", bm);
    char id[64];
    snprintf(id, sizeof id, "rdd_%d_%d", b->rdd_id, b->partition);
    set_str(info, "Block ID", id);
    json_object_set_new(info, "Storage Level", storage_level_json(b->level));
    set_int(info, "Memory Size", b->memory_size);
    set_int(info, "Disk Size", b->disk_size);
    json_object_set_new(o, "Block Updated Info", info);
    return o;
}

static void write_json(event_log *el, json_t *o)
{
    if (el->failed) return;
    /* json_dumpb into one reused buffer and a single fwrite: json_dumpf writes token by token,
     * which is several times slower on the task-event hot path. */
    size_t n = json_dumpb(o, el->line, el->line_cap, JSON_COMPACT);
    if (n + 1 > el->line_cap) {
        el->line_cap = 2 * (n + 1);
        el->line = cs_xrealloc(el->line, el->line_cap);
        n = json_dumpb(o, el->line, el->line_cap, JSON_COMPACT);
    }
    if (n == 0) return; /* cannot happen for objects we build */
    el->line[n++] = '\n';
    if (el->w) {
        cs_error e;
        if (el->wlen + n > el->wcap) {
            if (el->wlen && cs_fs_write(el->w, el->buf, el->wlen, &e) < 0) {
                el->failed = true;
                el->saved_errno = EIO;
                CS_WARN("eventlog",
                        "path=%s error=%s event log write failed; no further events "
                        "will be logged",
                        cs_log_value(el->path_inprogress), cs_log_quote(e.msg));
                return;
            }
            el->wlen = 0;
        }
        if (n > el->wcap) {
            if (cs_fs_write(el->w, el->line, n, &e) < 0) {
                el->failed = true;
                el->saved_errno = EIO;
            }
            return;
        }
        memcpy(el->buf + el->wlen, el->line, n);
        el->wlen += n;
        return;
    }
    if (fwrite(el->line, 1, n, el->fp) != n) {
        el->failed = true;
        el->saved_errno = errno;
        CS_WARN("eventlog",
                "path=%s error=%s event log write failed; no further events "
                "will be logged",
                cs_log_value(el->path_inprogress), cs_log_quote(strerror(errno)));
    }
}

static void flush_log(event_log *el)
{
    if (el->w) {
        cs_error e;
        if (!el->failed && el->wlen && cs_fs_write(el->w, el->buf, el->wlen, &e) < 0) {
            el->failed = true;
            el->saved_errno = EIO;
        }
        el->wlen = 0;
        return;
    }
    if (!el->failed && fflush(el->fp) != 0) {
        el->failed = true;
        el->saved_errno = errno;
        CS_WARN("eventlog",
                "path=%s error=%s event log flush failed; no further events "
                "will be logged",
                cs_log_value(el->path_inprogress), cs_log_quote(strerror(errno)));
    }
}

void cs_event_log_listener(void *arg, const cs_event *ev)
{
    event_log *el = arg;
    if (ev->kind == CS_EV_LOG_START || ev->kind == CS_EV_EXECUTOR_METRICS)
        return;                            /* written once, at open / not logged, as Spark */
    if (ev->kind == CS_EV_BLOCK_UPDATED) { /* as Spark: only when asked for */
        for (int i = 0; el->log_block_updates && i < ev->num_updated_blocks; i++) {
            json_t *b = block_updated_json(ev, i);
            write_json(el, b);
            json_decref(b);
        }
        return;
    }
    int64_t launch = 0;
    if (ev->kind == CS_EV_TASK_START) {
        launch = ev->time_ms;
        task_put(el, ev->task_id, launch);
    } else if (ev->kind == CS_EV_TASK_END) {
        launch = task_take(el, ev->task_id);
        if (launch < 0) launch = ev->time_ms - ev->metrics.run_time_ms;
    }
    json_t *o = to_json(el, ev, launch);
    write_json(el, o);
    json_decref(o);
    if (ev->kind == CS_EV_JOB_END || ev->kind == CS_EV_APPLICATION_END) flush_log(el);
}

/* ---- open / close --------------------------------------------------------------------------- */

/* file:/x, file:///x, file://localhost/x or a plain path -> malloc'd local path; NULL + err. */
static char *resolve_dir(const char *uri, cs_error *err)
{
    if (strncmp(uri, "file:", 5) == 0) {
        const char *p = uri + 5;
        if (strncmp(p, "//", 2) == 0) {
            p += 2;
            const char *slash = strchr(p, '/');
            size_t hostlen = slash ? (size_t)(slash - p) : strlen(p);
            if (!slash || (hostlen != 0 && !(hostlen == 9 && strncmp(p, "localhost", 9) == 0))) {
                cs_error_set(err, CS_EINVAL,
                             "invalid value for " KEY_DIR ": '%s' (expected a local directory: "
                             "file:/path, file:///path or /path)",
                             uri);
                return NULL;
            }
            p = slash;
        }
        if (*p == '\0') {
            cs_error_set(err, CS_EINVAL, "invalid value for " KEY_DIR ": '%s' (no path)", uri);
            return NULL;
        }
        return cs_xstrdup(p);
    }
    if (strncasecmp(uri, "s3a://", 6) == 0) { /* an object store: checked by src/fs */
        if (cs_fs_check_uri(uri, err) < 0) {
            cs_error_prefix(err, "invalid value for " KEY_DIR);
            return NULL;
        }
        return cs_xstrdup(uri);
    }
    const char *colon = strchr(uri, ':');
    const char *slash = strchr(uri, '/');
    if (colon && (!slash || colon < slash)) {
        cs_error_set(err, CS_EUNSUPPORTED,
                     "unsupported value for " KEY_DIR ": '%s' (expected a local directory "
                     "(file:/path, file:///path or /path) or s3a://bucket/prefix)",
                     uri);
        return NULL;
    }
    if (*uri == '\0') {
        cs_error_set(err, CS_EINVAL, "invalid value for " KEY_DIR ": '' (empty path)");
        return NULL;
    }
    return cs_xstrdup(uri);
}

static char *sanitize_name(const char *id);
static char *join_path(const char *dir, const char *name, const char *suffix);

/* The log through src/fs: `<dir>/<app>[.<codec>]`, staged as `.inprogress` on a local disk and
 * as an invisible multipart upload on an object store. */
static int open_writer(event_log *el, const char *dir, const char *uri, const char *app_id,
                       const cs_codec *codec, size_t buf_bytes, cs_error *err)
{
    char suffix[16] = "";
    if (codec) snprintf(suffix, sizeof suffix, ".%s", strcmp(codec->name, "zstd") ? "lz4" : "zstd");
    char *name = sanitize_name(app_id);
    char *base = join_path(dir, name, suffix);
    free(name);
    bool local = cs_fs_is_local(dir);
    el->path_final = cs_xstrdup(local ? cs_fs_local_path(base) : base);
    size_t n = strlen(el->path_final) + 16;
    el->path_inprogress = cs_xmalloc(n);
    snprintf(el->path_inprogress, n, "%s%s", el->path_final, local ? ".inprogress" : "");
    free(base);
    cs_fs_status st;
    if (cs_fs_stat(el->path_final, &st, err) < 0) {
        cs_error_prefix(err, "event log (" KEY_DIR "=%s)", uri);
        return err->code;
    }
    if (st.exists && !el->overwrite)
        return cs_error_set(err, CS_EEXIST,
                            "event log %s already exists (" KEY_DIR "=%s); remove it or set "
                            "spark.eventLog.overwrite=true",
                            el->path_final, uri);
    el->w = cs_fs_create(el->path_final, local ? el->path_inprogress : NULL, codec, err);
    if (!el->w) {
        cs_error_prefix(err, "cannot create event log (" KEY_DIR "=%s)", uri);
        return err->code;
    }
    el->wcap = buf_bytes;
    el->buf = cs_xmalloc(buf_bytes);
    cs_event ls = {.kind = CS_EV_LOG_START, .time_ms = cs_now_ms()};
    json_t *o = to_json(el, &ls, 0);
    write_json(el, o);
    json_decref(o);
    CS_INFO("eventlog", "path=%s event=started", cs_log_value(el->path_inprogress));
    return 0;
}

/* As Spark's Utils.sanitizeDirName. */
static char *sanitize_name(const char *id)
{
    char *s = cs_xstrdup(id);
    for (char *p = s; *p; p++) {
        if (*p == ' ' || *p == ':' || *p == '/')
            *p = '-';
        else if (strchr(".${}'\"", *p))
            *p = '_';
        else if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    }
    return s;
}

static char *join_path(const char *dir, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
    char *p = cs_xmalloc(n);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    snprintf(p, n, "%.*s/%s%s", (int)dl, dir, name, suffix);
    return p;
}

static void free_log(event_log *el)
{
    for (size_t i = 0; i < el->nstages; i++)
        free(el->stages[i].name);
    free(el->stages);
    cs_hmap_free(&el->tasks);
    if (el->have_regex) regfree(&el->regex);
    cs_fs_writer_abort(el->w);
    free(el->path_inprogress);
    free(el->path_final);
    free(el->buf);
    free(el->line);
    free(el);
}

event_log *cs_event_log_open(const cs_conf *conf, const char *app_id, cs_error *err)
{
    event_log *el = cs_xcalloc(1, sizeof *el);
    char *dir = NULL, *name = NULL;
    const char *uri = conf ? cs_conf_get(conf, KEY_DIR) : NULL;
    if (!uri) uri = DEFAULT_DIR;
    int64_t buf_bytes = 100 * 1024;
    if (conf &&
        (cs_conf_get_bool(conf, "spark.eventLog.overwrite", "false", &el->overwrite, err) < 0 ||
         cs_conf_get_bool(conf, "spark.eventLog.logBlockUpdates.enabled", "false",
                          &el->log_block_updates, err) < 0))
        goto fail;
    if (conf &&
        cs_conf_get_size(conf, "spark.eventLog.buffer.kb", "100k", CS_KiB, &buf_bytes, err) < 0)
        goto fail;
    if (buf_bytes < 1024) buf_bytes = 1024;
    const char *re = conf ? cs_conf_get(conf, "spark.redaction.regex") : NULL;
    if (re) {
        int flags = REG_EXTENDED | REG_NOSUB;
        if (strncmp(re, "(?i)", 4) == 0) {
            re += 4;
            flags |= REG_ICASE;
        }
        if (regcomp(&el->regex, re, flags) != 0) {
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.redaction.regex: '%s' (expected a regular "
                         "expression)",
                         cs_conf_get(conf, "spark.redaction.regex"));
            goto fail;
        }
        el->have_regex = true;
    }
    if (!app_id || !*app_id) {
        cs_error_set(err, CS_EINVAL, "event log: no application id");
        goto fail;
    }
    if (!(dir = resolve_dir(uri, err))) goto fail;
    bool compress = false;
    const cs_codec *codec = NULL;
    const char *codec_name = "zstd";
    if (conf && cs_conf_get_bool(conf, "spark.eventLog.compress", "false", &compress, err) < 0)
        goto fail;
    if (compress) {
        const char *v = cs_conf_get(conf, "spark.eventLog.compression.codec");
        if (v && *v) codec_name = v;
        if (strcasecmp(codec_name, "zstd") && strcasecmp(codec_name, "lz4")) {
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.eventLog.compression.codec: "
                         "'%s' (expected zstd or lz4)",
                         codec_name);
            goto fail;
        }
        codec = cs_codec_for_name(codec_name);
    }
    if (!cs_fs_is_local(dir) || codec) {
        if (open_writer(el, dir, uri, app_id, codec, (size_t)buf_bytes, err) < 0) goto fail;
        free(dir);
        return el;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO,
                     "event log directory %s (" KEY_DIR "=%s) %s; create it or set " KEY_DIR
                     " to an existing writable directory (spark.eventLog.enabled=true)",
                     dir, uri, errno == ENOENT ? "does not exist" : strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        cs_error_set(err, CS_EINVAL,
                     "event log directory %s (" KEY_DIR "=%s) is not a directory; set " KEY_DIR
                     " to an existing writable directory",
                     dir, uri);
        goto fail;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cs_error_set(err, CS_EIO,
                     "event log directory %s (" KEY_DIR "=%s) is not writable; set " KEY_DIR
                     " to a writable directory",
                     dir, uri);
        goto fail;
    }
    name = sanitize_name(app_id);
    el->path_final = join_path(dir, name, "");
    el->path_inprogress = join_path(dir, name, ".inprogress");
    if (!el->overwrite && access(el->path_final, F_OK) == 0) {
        cs_error_set(err, CS_EEXIST,
                     "event log %s already exists (" KEY_DIR "=%s); remove it or set "
                     "spark.eventLog.overwrite=true",
                     el->path_final, uri);
        goto fail;
    }
    int fd = open(el->path_inprogress, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0660);
    if (fd < 0 || !(el->fp = fdopen(fd, "w"))) {
        cs_error_set(err, CS_EIO, "cannot create event log %s (" KEY_DIR "=%s): %s",
                     el->path_inprogress, uri, strerror(errno));
        if (fd >= 0) close(fd);
        goto fail;
    }
    el->buf = cs_xmalloc((size_t)buf_bytes);
    setvbuf(el->fp, el->buf, _IOFBF, (size_t)buf_bytes);
    cs_event ls = {.kind = CS_EV_LOG_START, .time_ms = cs_now_ms()};
    json_t *o = to_json(el, &ls, 0);
    write_json(el, o);
    json_decref(o);
    free(dir);
    free(name);
    CS_INFO("eventlog", "path=%s event=started", cs_log_value(el->path_inprogress));
    return el;
fail:
    free(dir);
    free(name);
    free_log(el);
    return NULL;
}

const char *cs_event_log_path(const event_log *el)
{
    return el ? el->path_inprogress : NULL;
}

int cs_event_log_close(event_log *el, cs_error *err)
{
    if (!el) return CS_OK;
    int rc = CS_OK;
    flush_log(el);
    if (el->w) { /* finishing makes it visible under its final name */
        cs_fs_writer *w = el->w;
        el->w = NULL;
        if (el->failed) {
            cs_fs_writer_abort(w);
            rc = cs_error_set(err, CS_EIO, "event log %s: write failed", el->path_final);
        } else if (cs_fs_writer_finish(w, NULL, err) < 0) {
            rc = err ? err->code : CS_EIO;
        } else {
            CS_INFO("eventlog", "path=%s event=finished", cs_log_value(el->path_final));
        }
        free_log(el);
        return rc;
    }
    if (fclose(el->fp) != 0 && !el->failed) {
        el->failed = true;
        el->saved_errno = errno;
    }
    if (el->failed) {
        rc = cs_error_set(err, CS_EIO, "event log %s: write failed: %s", el->path_inprogress,
                          strerror(el->saved_errno));
    }
    /* Rename even after a write error: a truncated log is still more useful than none. */
    if (!el->overwrite && access(el->path_final, F_OK) == 0) {
        if (rc == CS_OK)
            rc = cs_error_set(err, CS_EEXIST,
                              "event log %s already exists; left %s in place (set "
                              "spark.eventLog.overwrite=true to replace it)",
                              el->path_final, el->path_inprogress);
    } else if (rename(el->path_inprogress, el->path_final) != 0) {
        if (rc == CS_OK)
            rc = cs_error_set(err, CS_EIO, "cannot rename event log %s to %s: %s",
                              el->path_inprogress, el->path_final, strerror(errno));
    } else {
        CS_INFO("eventlog", "path=%s event=finished", cs_log_value(el->path_final));
    }
    free_log(el);
    return rc;
}
