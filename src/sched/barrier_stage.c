/*
 * barrier_stage.c — barrier execution mode in the DAG scheduler (Spark's RDDBarrier, barrier
 * stages and the DAGScheduler's rules for them; dag_scheduler_internal.h declares the functions):
 *
 *   - a stage is a barrier stage when its RDD or one it reads narrowly is a barrier node
 *     (cs_rdd_is_barrier: mapInPandas(f, schema, barrier=True)'s stage);
 *   - before a job starts, every barrier stage of its lineage must fit the cluster's slots
 *     (Spark's checkBarrierStageWithNumSlots: its partitions <= the backend's cores); when it does
 *     not, the check runs again every spark.scheduler.barrier.maxConcurrentTasksCheck.interval
 *     (executors may still come), and after .maxFailures failed checks the job fails with Spark's
 *     "[SPARK-24819]: ..." text (BarrierJobSlotsNumberCheckFailed, not a stage failure);
 *   - each attempt's task set launches all its tasks in one round of offers or none
 *     (task_scheduler.c), and its tasks carry the attempt's cs_barrier_launch (task count, the
 *     tasks' addresses) to their BarrierTaskContext;
 *   - a failed task fails its whole stage attempt (Spark's handleTaskCompletion for a barrier
 *     task): the attempt's other running tasks are killed, the attempt counts against
 *     spark.stage.maxConsecutiveAttempts, and then a shuffle-map stage drops all its map outputs
 *     and runs every task again, while a result stage fails its job ("Could not recover from a
 *     failed barrier ResultStage", as its output may already be used);
 *   - the coordinator's state of an attempt goes when the attempt ends (dag_scheduler.c's
 *     stage_finished), and cs_scheduler_barrier_sync serves this process's tasks (local mode).
 *
 * Threads: the check runs on the job's thread before it takes dag_lock; the rest with dag_lock
 * held (the job thread's event loop), but for cs_scheduler_barrier_sync (task threads).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "sched/barrier_sync.h"
#include "sched/dag_scheduler_internal.h"

/* Partitions of the first barrier stage in the lineage of rdd (its own stage, then those of the
 * shuffles it reads) that need more than `slots` tasks at once; 0 when none. seen[] (ids) keeps
 * a node shared by several paths from being walked twice. */
static int too_wide(cspark_rdd *rdd, int slots, int **seen, int *nseen, int *cap)
{
    for (int i = 0; i < *nseen; i++)
        if ((*seen)[i] == rdd->id) return 0;
    if (*nseen == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *seen = cs_xrealloc(*seen, (size_t)*cap * sizeof **seen);
    }
    (*seen)[(*nseen)++] = rdd->id;
    if (rdd->barrier && rdd->num_partitions > slots) return rdd->num_partitions;
    for (int i = 0; i < rdd->num_parents; i++) {
        int w = too_wide(rdd->parents[i], slots, seen, nseen, cap);
        if (w) return w;
    }
    for (int i = 0; i < rdd->num_deps; i++) {
        int w = too_wide(rdd->deps[i]->parent, slots, seen, nseen, cap);
        if (w) return w;
    }
    return 0;
}

static int barrier_width(scheduler *s, cspark_rdd *rdd, shuffle_dep *const *map_deps, int n,
                         int slots)
{
    int *seen = NULL, nseen = 0, cap = 0, w = 0;
    if (map_deps)
        for (int i = 0; i < n && !w; i++)
            w = too_wide(map_deps[i]->parent, slots, &seen, &nseen, &cap);
    else
        w = too_wide(rdd, slots, &seen, &nseen, &cap);
    (void)s;
    free(seen);
    return w;
}

int cs_dag_barrier_check_slots(scheduler *s, cspark_rdd *rdd, shuffle_dep *const *map_deps, int n,
                               cs_error *err)
{
    for (int failures = 0;;) {
        int slots = s->backend->total_cores(s->backend);
        int width = barrier_width(s, rdd, map_deps, n, slots);
        if (width == 0) return 0;
        failures++;
        CS_WARN("scheduler",
                "event=barrier_slots_check_failed tasks=%d slots=%d failures=%d max_failures=%d",
                width, slots, failures, s->opt.barrier_check_max_failures);
        if (failures > s->opt.barrier_check_max_failures) {
            cs_error_set(err, CS_ETASK,
                         "[SPARK-24819]: Barrier execution mode does not allow run a barrier "
                         "stage that requires more slots than the total number of slots in the "
                         "cluster currently. Please init a new cluster with more resources(e.g. "
                         "CPU, GPU) or repartition the input RDD(s) to reduce the number of "
                         "slots required to run this barrier stage.");
            return -1;
        }
        int64_t ms =
            s->opt.barrier_check_interval_ms > 0 ? s->opt.barrier_check_interval_ms : 15000;
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (nanosleep(&ts, &ts) != 0) {
        }
    }
}

void cs_dag_barrier_attempt(scheduler *s, stage *st, int missing)
{
    (void)s;
    st->barrier = NULL;
    if (!cs_rdd_is_barrier(st->rdd)) return;
    /* room for every task's "host:port," */
    size_t cap = (size_t)missing * 300 + 1;
    cs_barrier_launch *b = cs_dag_stage_alloc(st, sizeof *b + cap);
    b->num_tasks = missing;
    b->addresses = (char *)(b + 1);
    b->addresses_cap = cap;
    st->barrier = b;
    cs_task_set_set_barrier(st->task_set, missing);
}

/* The failed task's reason as Spark's TaskFailedReason.toErrorString shows it in a barrier stage's
 * failure: a Python worker's exception ("[PYTHON_EXCEPTION] <traceback> SQLSTATE: 38000") as
 * "org.apache.spark.api.python.PythonException: <traceback>" — the stage's failure is Spark's
 * SparkException of that text, not the task's error (Spark aborts a barrier stage without the
 * task's exception as its cause); other reasons as they are. */
static void failure_text(const char *error, char *out, size_t cap)
{
    static const char py[] = "[PYTHON_EXCEPTION] ", state[] = " SQLSTATE: 38000";
    if (!error) error = "";
    if (strncmp(error, py, sizeof py - 1) != 0) {
        snprintf(out, cap, "%s", error);
        return;
    }
    const char *text = error + sizeof py - 1;
    size_t n = strlen(text);
    if (n >= sizeof state - 1 && strcmp(text + n - (sizeof state - 1), state) == 0)
        n -= sizeof state - 1;
    snprintf(out, cap, "org.apache.spark.api.python.PythonException: %.*s", (int)n, text);
}

/* Spark's Task.toString: "ResultTask(stage, partition)" / "ShuffleMapTask(stage, partition)". */
void cs_dag_barrier_task_failed(scheduler *s, stage *st, const task_desc *t, const char *error)
{
    if (t->stage_attempt != st->attempt || !st->running) return; /* an attempt that ended */
    char task[96];
    snprintf(task, sizeof task, "%s(%d, %d)", st->dep ? "ShuffleMapTask" : "ResultTask", st->id,
             t->partition);
    char why[1024], msg[1400];
    failure_text(error, why, sizeof why);
    snprintf(msg, sizeof msg, "Stage failed because barrier task %s finished unsuccessfully.\n%s",
             task, why);
    CS_WARN("scheduler", "stage=%d attempt=%d event=barrier_stage_failed task=%s", st->id,
            st->attempt, task);
    /* Spark's killAllTaskAttempts: the attempt's other tasks stop (their ends are then ignored) */
    int killed = 0;
    for (sched_task *k = s->tasks_head.next; k != &s->tasks_head; k = k->next)
        if (k->st == st && k->set == st->task_set && &k->t != t) {
            atomic_store(&k->cancelled, 1);
            killed++;
        }
    if (killed > 0) s->backend->cancel_all(s->backend);
    if (cs_dag_attempt_failed(s, st, msg) < 0) return;
    if (!st->dep) {
        cs_dag_abort_stage(s, st,
                           "Could not recover from a failed barrier ResultStage. Most recent "
                           "failure reason: %s",
                           msg);
        return;
    }
    /* every map output of the stage goes, so that its next attempt runs every task */
    shuffle_slot *slot = cs_dag_shuffle(s, st->dep->shuffle_id);
    if (slot) {
        pthread_mutex_lock(&s->outputs_lock);
        for (int i = 0; i < slot->outputs.num_maps; i++)
            if (slot->outputs.maps[i]) {
                cs_dag_bury(s, slot->outputs.maps[i]);
                slot->outputs.maps[i] = NULL;
            }
        slot->outputs.available = 0;
        pthread_mutex_unlock(&s->outputs_lock);
    }
    cs_dag_resubmit_stage(s, st, t->stage_attempt, msg);
}

int cs_scheduler_barrier_sync(scheduler *s, const task_desc *t, int epoch, int method,
                              const char *message, char ***msgs, int *n, cs_error *err)
{
    if (!t->barrier)
        return cs_error_set(err, CS_EINVAL, "task %lld is not a barrier task",
                            (long long)t->task_id);
    cs_barrier_request r = {.stage_id = t->stage_id,
                            .stage_attempt = t->stage_attempt,
                            .num_tasks = t->barrier->num_tasks,
                            .partition = t->partition,
                            .task_attempt_id = t->task_id,
                            .epoch = epoch,
                            .method = (cs_barrier_method)method,
                            .message = message};
    return cs_barrier_sync_call(s->barrier, &r, t->cancelled, msgs, n, err);
}

void cs_scheduler_barrier_post(scheduler *s, const cs_barrier_request *r, cs_barrier_reply_fn reply,
                               void *arg)
{
    cs_barrier_sync_post(s->barrier, r, reply, arg);
}

void cs_scheduler_barrier_tick(scheduler *s)
{
    cs_barrier_sync_tick(s->barrier);
}
