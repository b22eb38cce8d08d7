/* json_protocol.c — Spark's JsonProtocol: listener events as the JSON objects Spark's event log
 * holds, with Spark's event and field names (see json_protocol.h). Our events carry less than
 * Spark's (no JVM figures, no internal accumulators), so fields the history server requires are
 * written with neutral values (empty arrays/objects, 0). The protocol remembers what later events
 * need but do not carry: each running stage's submission time, name and task count (for
 * StageCompleted) and each running task's launch time (for TaskEnd's Task Info). Spark Properties
 * are redacted with spark.redaction.regex.
 *
 * Ownership: a cs_json_protocol is owned by its event log (event_log.c), which calls it from the
 * listener bus's dispatch thread only; each object it returns is the caller's (json_decref).
 */
#include "sched/json_protocol.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cspark.h"
#include "common/conf_entries.h"
#include "common/hmap.h"
#include "common/json_text.h"
#include "sched/locality.h"

typedef struct jp_stage {
    int stage_id, attempt, num_tasks;
    int64_t submitted_ms;
    char *name;
} jp_stage;

struct cs_json_protocol {
    bool have_regex;
    regex_t regex;
    jp_stage *stages;
    size_t nstages, capstages;
    cs_hmap tasks; /* running task id -> launch time */
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
    set_str(o, "Event", cs_json_protocol_event_name(kind));
    return o;
}

const char *cs_json_protocol_event_name(cs_event_kind kind)
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
    case CS_EV_SQL_EXECUTION_START:
        return "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart";
    case CS_EV_SQL_EXECUTION_END:
        return "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd";
    }
    return "SparkListenerUnknown";
}

/* ---- remembered state ----------------------------------------------------------------------- */

static jp_stage *stage_find(cs_json_protocol *jp, int stage_id, int attempt)
{
    for (size_t i = 0; i < jp->nstages; i++)
        if (jp->stages[i].stage_id == stage_id && jp->stages[i].attempt == attempt)
            return &jp->stages[i];
    return NULL;
}

static void stage_remove(cs_json_protocol *jp, jp_stage *s)
{
    free(s->name);
    *s = jp->stages[--jp->nstages];
}

static void task_put(cs_json_protocol *jp, int64_t id, int64_t launch)
{
    cs_hmap_put(&jp->tasks, (uint64_t)id, (uint64_t)launch);
}

/* Removes id; returns its launch time or -1. */
static int64_t task_take(cs_json_protocol *jp, int64_t id)
{
    uint64_t launch;
    if (!cs_hmap_get(&jp->tasks, (uint64_t)id, &launch)) return -1;
    cs_hmap_del(&jp->tasks, (uint64_t)id);
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

/* Spark's TaskInfo: an ended attempt is failed or killed, never both (TaskInfo.markFinished), and
 * its status (what the History Server and the REST API show) says FAILED before KILLED. */
static json_t *task_info(const cs_event *ev, int64_t launch, int64_t finish, bool failed,
                         bool killed)
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
    set_bool(o, "Killed", killed);
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
    cs_json_protocol *jp;
    json_t *obj;
} props_ctx;

static void add_prop(void *arg, const char *key, const char *value)
{
    props_ctx *pc = arg;
    const char *v = value;
    if (cs_conf_entry_is_secret(key)) {
        v = CS_REDACTED; /* a credential, whatever spark.redaction.regex says */
    } else if (pc->jp->have_regex) {
        if (regexec(&pc->jp->regex, key, 0, NULL, 0) == 0 ||
            (value && regexec(&pc->jp->regex, value, 0, NULL, 0) == 0))
            v = CS_REDACTED;
    } else {
        v = cs_conf_redact(key, value ? value : "");
    }
    set_str(pc->obj, key, v);
}

/* ---- events --------------------------------------------------------------------------------- */

static json_t *to_json(cs_json_protocol *jp, const cs_event *ev, int64_t launch)
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
            props_ctx pc = {jp, props};
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
        jp_stage *s = stage_find(jp, ev->stage_id, ev->stage_attempt);
        if (!s) {
            if (jp->nstages == jp->capstages) {
                jp->capstages = jp->capstages ? 2 * jp->capstages : 16;
                jp->stages = cs_xrealloc(jp->stages, jp->capstages * sizeof *jp->stages);
            }
            s = &jp->stages[jp->nstages++];
            memset(s, 0, sizeof *s);
        }
        free(s->name);
        *s = (jp_stage){ev->stage_id, ev->stage_attempt, ev->num_tasks, ev->time_ms,
                        cs_xstrdup(ev->stage_name ? ev->stage_name : "")};
        json_object_set_new(o, "Stage Info",
                            stage_info(ev->stage_id, ev->stage_attempt, ev->stage_name,
                                       ev->num_tasks, ev, ev->time_ms, 0, NULL));
        json_object_set_new(o, "Properties", json_object());
        break;
    }
    case CS_EV_STAGE_COMPLETED: {
        jp_stage *s = stage_find(jp, ev->stage_id, ev->stage_attempt);
        const char *name = ev->stage_name ? ev->stage_name : (s ? s->name : "");
        int tasks = ev->num_tasks > 0 ? ev->num_tasks : (s ? s->num_tasks : 0);
        int64_t submitted = s ? s->submitted_ms : 0;
        const char *failure = ev->succeeded ? NULL : (ev->reason ? ev->reason : "stage failed");
        json_object_set_new(o, "Stage Info",
                            stage_info(ev->stage_id, ev->stage_attempt, name, tasks, ev, submitted,
                                       ev->time_ms, failure));
        if (s) stage_remove(jp, s);
        break;
    }
    case CS_EV_TASK_START:
        set_int(o, "Stage ID", ev->stage_id);
        set_int(o, "Stage Attempt ID", ev->stage_attempt);
        json_object_set_new(o, "Task Info", task_info(ev, ev->time_ms, 0, false, false));
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
        bool killed =
            !ev->succeeded && ev->end_reason && ev->end_reason->kind == CS_END_TASK_KILLED;
        json_object_set_new(o, "Task Info",
                            task_info(ev, launch, ev->time_ms, !ev->succeeded && !killed, killed));
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
    case CS_EV_SQL_EXECUTION_START: { /* Spark's field names (camelCase: a Jackson-written event) */
        set_int(o, "executionId", ev->sql_execution_id);
        set_int(o, "rootExecutionId", ev->sql_execution_id);
        set_str(o, "description", ev->sql_description ? ev->sql_description : "");
        set_str(o, "details", "");
        set_str(o, "physicalPlanDescription", ev->sql_plan ? ev->sql_plan : "");
        json_t *info = ev->sql_plan_info ? json_loads(ev->sql_plan_info, 0, NULL) : NULL;
        json_object_set_new(o, "sparkPlanInfo", info ? info : json_object());
        set_int(o, "time", ev->time_ms);
        json_object_set_new(o, "modifiedConfigs", json_object());
        json_object_set_new(o, "jobTags", json_array());
        json_object_set_new(o, "jobGroupId", json_null()); /* Spark 4's None: no group was set */
        break;
    }
    case CS_EV_SQL_EXECUTION_END: /* Spark 4 writes "" for a query that succeeded */
        set_int(o, "executionId", ev->sql_execution_id);
        set_int(o, "time", ev->time_ms);
        set_str(o, "errorMessage", ev->succeeded ? "" : ev->reason ? ev->reason : "failed");
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
json_t *cs_json_protocol_block_updated(const cs_event *ev, int i)
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

cs_json_protocol *cs_json_protocol_new(const cs_conf *conf, cs_error *err)
{
    cs_json_protocol *jp = cs_xcalloc(1, sizeof *jp);
    const char *re = conf ? cs_conf_get(conf, "spark.redaction.regex") : NULL;
    if (re) {
        int flags = REG_EXTENDED | REG_NOSUB;
        if (strncmp(re, "(?i)", 4) == 0) {
            re += 4;
            flags |= REG_ICASE;
        }
        if (regcomp(&jp->regex, re, flags) != 0) {
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.redaction.regex: '%s' (expected a regular "
                         "expression)",
                         cs_conf_get(conf, "spark.redaction.regex"));
            free(jp);
            return NULL;
        }
        jp->have_regex = true;
    }
    return jp;
}

void cs_json_protocol_free(cs_json_protocol *jp)
{
    if (!jp) return;
    for (size_t i = 0; i < jp->nstages; i++)
        free(jp->stages[i].name);
    free(jp->stages);
    cs_hmap_free(&jp->tasks);
    if (jp->have_regex) regfree(&jp->regex);
    free(jp);
}

json_t *cs_json_protocol_event(cs_json_protocol *jp, const cs_event *ev)
{
    if (ev->kind == CS_EV_EXECUTOR_METRICS || ev->kind == CS_EV_BLOCK_UPDATED) return NULL;
    int64_t launch = 0;
    if (ev->kind == CS_EV_TASK_START) {
        launch = ev->time_ms;
        task_put(jp, ev->task_id, launch);
    } else if (ev->kind == CS_EV_TASK_END) {
        launch = task_take(jp, ev->task_id);
        if (launch < 0) launch = ev->time_ms - ev->metrics.run_time_ms;
    }
    return to_json(jp, ev, launch);
}
