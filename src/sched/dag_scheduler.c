/*
 * dag_scheduler.c — Spark's DAGScheduler for one application (see scheduler.h). The job threads
 * run an event loop over task completions, one at a time; backends push completions from their
 * threads onto a queue (completion_queue.c). Each stage attempt is a task set of the task scheduler
 * (task_scheduler.c), whose manager (task_set_manager.c) decides retries, aborts and zombies;
 * this file creates the task descriptors and acts on those decisions. Stages for shuffle
 * dependencies are created once per application and their map outputs kept (the map-output
 * tracker, whose queries from other threads are map_output_tracker.c), so later jobs skip stages
 * whose outputs are all available. The listener bus's events are posted by dag_events.c. The
 * types and the lock rules are in dag_scheduler_internal.h.
 *
 * A stage's states (stage.running / stage.waiting; a task attempt's are in task_set_manager.h):
 *
 *   IDLE --submit_stage, parents' outputs available--> RUNNING (attempt n: a task set of the
 *        partitions still missing)
 *   IDLE --submit_stage, a parent missing outputs--> WAITING (the parents are submitted first)
 *   WAITING --submit_waiting: every parent's outputs available--> RUNNING
 *   WAITING --a parent idle with outputs missing (lost after it finished)--> that parent RUNNING
 *   RUNNING --every partition's output registered--> IDLE (done; a later job skips it)
 *   RUNNING --FetchFailed--> IDLE (zombie attempt; its parent and it resubmitted, attempt n+1,
 *        up to spark.stage.maxConsecutiveAttempts)
 *   RUNNING --a task out of spark.task.maxFailures, abort, cancel--> IDLE, the job failed
 *   IDLE --executor lost with some of its outputs--> IDLE, missing them: submitted again when a
 *        waiting stage or a later job needs it
 * After every event, a job with no task running or pending and stages still waiting is stalled:
 * it resubmits them once, then fails naming them (event=stalled).
 *
 * Jobs at once (Spark's activeJobs): several threads may each run a job. Stages are shared: a
 * shuffle-map stage runs once for every job that needs it, its attempt attributed to the oldest
 * active job needing it (Spark's activeJobForStage: the task set's priority and the events' job
 * id); a result stage belongs to its job. A task failure, an abort or too many fetch failures of a
 * stage fail every active job that needs the stage (Spark's abortStage). A job that ends (done,
 * failed or cancelled) ends only the stages no other active job needs: their pending attempts are
 * dropped and their running ones killed (each task's own cancelled flag), and the job's thread
 * waits for those alone (Spark's failJobAndIndependentStages). The thread holding dag_lock acts
 * on every event for every job; a job's results are handed to its own thread (job.results), which
 * calls on_result without the lock.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/strutil.h"
#include "common/sync.h"
#include "sched/accumulators.h"
#include "sched/allocation_manager.h"
#include "sched/barrier_sync.h"
#include "sched/block_registry.h"
#include "sched/dag_scheduler_internal.h"
#include "sched/listener.h"
#include "sched/scheduler.h"
#include "sched/stage_rdds.h"
#include "sched/task_scheduler.h"

static bool outputs_available(scheduler *s, const shuffle_dep *d)
{
    const shuffle_slot *slot = cs_dag_shuffle(s, d->shuffle_id);
    return slot && slot->outputs.maps && slot->outputs.available == slot->outputs.num_maps;
}

/* The oldest active job that needs st (Spark's activeJobForStage), NULL when none does: the job a
 * new attempt of st runs for. */
static job *job_for_stage(scheduler *s, const stage *st)
{
    if (!st->dep) return st->job && !st->job->ended && !st->job->failed ? st->job : NULL;
    for (int i = 0; i < s->num_jobs; i++)
        if (!s->jobs[i]->ended && !s->jobs[i]->failed && cs_dag_job_needs(s, s->jobs[i], st))
            return s->jobs[i];
    return NULL;
}

/* Whether an active job other than `except` needs st. */
static bool needed_by_other(scheduler *s, const stage *st, const job *except)
{
    for (int i = 0; i < s->num_jobs; i++)
        if (s->jobs[i] != except && !s->jobs[i]->ended && cs_dag_job_needs(s, s->jobs[i], st))
            return true;
    return false;
}

static void remove_waiting(scheduler *s, stage *st)
{
    for (int i = 0; i < s->num_waiting; i++)
        if (s->waiting[i] == st) {
            s->waiting[i] = s->waiting[--s->num_waiting];
            break;
        }
    st->waiting = false;
}

/* Whether job j has what it runs for: every result partition, or (a map-stage job) every map
 * output of the shuffles it materializes. */
static bool job_done(scheduler *s, const job *j)
{
    if (!j->map_stages) return j->num_finished == j->final->num_tasks;
    for (int p = 0; p < j->final->num_parents; p++)
        if (!outputs_available(s, j->final->parents[p]->dep)) return false;
    return true;
}

/* ---- submitting ---------------------------------------------------------------------------- */

static int task_partition(const stage *st, int index)
{
    return st->partitions ? st->partitions[index] : index;
}

static bool task_needed(scheduler *s, stage *st, int index)
{
    if (st->dep) return cs_dag_shuffle(s, st->dep->shuffle_id)->outputs.maps[index] == NULL;
    return !st->job->finished[index];
}

/* The attempts in flight, for killing those of stages no job needs any more (dag_lock). */
static void track_task(scheduler *s, sched_task *stk)
{
    stk->next = s->tasks_head.next;
    stk->prev = &s->tasks_head;
    s->tasks_head.next->prev = stk;
    s->tasks_head.next = stk;
    stk->st->in_flight++;
    s->in_flight++;
}

/* The attempt completed or was withdrawn: no longer in flight. */
static void untrack_task(scheduler *s, sched_task *stk)
{
    if (!stk->prev) return;
    stk->prev->next = stk->next;
    stk->next->prev = stk->prev;
    stk->prev = stk->next = NULL;
    stk->st->in_flight--;
    s->in_flight--;
    if (stk->drain_job && --stk->drain_job->draining == 0) cs_dag_wake(s, stk->drain_job);
    stk->drain_job = NULL;
}

/* A new attempt of task `index` of st's running attempt (for job j), counted in flight; not
 * queued yet. */
static const task_desc *new_task(scheduler *s, job *j, stage *st, int index)
{
    cs_block_location locs[CS_MAX_BLOCK_LOCS]; /* kept after the task, freed with it */
    int nlocs = cs_block_registry_task_locations(s->blocks, st->rdd, task_partition(st, index),
                                                 locs, CS_MAX_BLOCK_LOCS);
    sched_task *stk = cs_xcalloc(1, sizeof *stk + (size_t)nlocs * sizeof *locs);
    stk->t.block_locs = memcpy(stk + 1, locs, (size_t)nlocs * sizeof *locs);
    stk->t.num_block_locs = nlocs;
    stk->st = st;
    stk->index = index;
    task_desc *t = &stk->t;
    t->task_id = s->next_task_id++;
    t->job_id = j->id;
    t->stage_id = st->id;
    t->stage_attempt = st->attempt;
    t->partition = task_partition(st, index);
    t->attempt = cs_task_set_next_attempt(st->task_set, index);
    stk->set = st->task_set;
    t->rdd = st->rdd;
    t->sink = st->dep ? &st->shuffle_sink : j->sink;
    t->inputs = st->inputs;
    t->num_inputs = st->num_reads;
    t->cancelled = &stk->cancelled;
    t->barrier = st->barrier;
    track_task(s, stk);
    if (s->alloc) cs_am_task_submitted(s->alloc);
    return t;
}

/* Queues a new attempt of task `index` in st's task set and has the backend offer its cores;
 * nothing when no active job needs st any more. */
static void launch_task(scheduler *s, stage *st, int index)
{
    job *j = job_for_stage(s, st);
    if (!j) return;
    const task_desc *t = new_task(s, j, st, index);
    cs_task_scheduler_add(s->tasks, st->task_set, &t, &index, 1);
    s->backend->revive_offers(s->backend);
}

/* The stage attempt of st ended (completed, failed, or its job ended): its task set becomes a
 * zombie and its attempts that never launched are dropped — never started, they end without an
 * event. Again for the same attempt: nothing. */
static void end_task_set(scheduler *s, stage *st)
{
    if (!st->task_set) return;
    const task_desc **withdrawn;
    int n = cs_task_scheduler_remove(s->tasks, st->task_set, &withdrawn);
    for (int i = 0; i < n; i++) {
        untrack_task(s, (sched_task *)withdrawn[i]);
        if (s->alloc) cs_am_task_ended(s->alloc, NULL);
        cs_scheduler_task_release(withdrawn[i]);
    }
    free(withdrawn);
}

static void submit_waiting(scheduler *s);

static void submit_missing_tasks(scheduler *s, stage *st)
{
    job *j = job_for_stage(s, st);
    if (!j) { /* every job that needed it has ended */
        st->running = false;
        return;
    }
    int missing = 0;
    for (int i = 0; i < st->num_tasks; i++)
        missing += task_needed(s, st, i);
    if (missing == 0) { /* everything arrived meanwhile: nothing to run */
        st->running = false;
        if (st->dep) submit_waiting(s);
        return;
    }
    st->run_job_id = j->id;
    st->attempt++;
    st->attempt_tasks = missing;
    st->running = true;
    st->submit_ms = cs_now_ms();
    st->task_set = cs_task_scheduler_submit(s->tasks, j->id, st->id, st->attempt, st->num_tasks,
                                            st->failures, st->attempts, cs_mono_ms());
    cs_task_scheduler_set_pool(s->tasks, st->task_set, j->props->pool);
    cs_dag_barrier_attempt(s, st, missing); /* a barrier stage: its tasks launch together */
    st->task_sets =
        cs_xrealloc(st->task_sets, (size_t)(st->num_task_sets + 1) * sizeof *st->task_sets);
    st->task_sets[st->num_task_sets++] = st->task_set;
    /* each attempt reads an immutable copy: a fetch failure may unregister outputs while
     * tasks of this attempt still run; the statuses themselves live until the app stops */
    shuffle_input *inputs = cs_dag_stage_alloc(st, ((size_t)st->num_reads + 1) * sizeof *inputs);
    pthread_mutex_lock(&s->outputs_lock); /* decommissioning may move outputs meanwhile */
    for (int i = 0; i < st->num_reads; i++) {
        const map_outputs *o = &cs_dag_shuffle(s, st->reads[i]->shuffle_id)->outputs;
        cs_map_status **copy = cs_dag_stage_alloc(st, ((size_t)o->num_maps + 1) * sizeof *copy);
        memcpy(copy, o->maps, (size_t)o->num_maps * sizeof *copy);
        inputs[i].shuffle_id = st->reads[i]->shuffle_id;
        inputs[i].maps = (const cs_map_status *const *)copy;
        inputs[i].num_maps = o->num_maps;
    }
    st->inputs = inputs;
    pthread_mutex_unlock(&s->outputs_lock);
    if (s->alloc) cs_am_stage_submitted(s->alloc);
    cs_event ev = {.kind = CS_EV_STAGE_SUBMITTED,
                   .stage_id = st->id,
                   .stage_attempt = st->attempt,
                   .num_tasks = missing,
                   .stage_name = cs_dag_stage_name(st),
                   .job_id = j->id};
    cs_dag_post_stage_event(s, st, &ev);
    /* the whole task set is queued at once, then offered */
    const task_desc **batch = cs_xcalloc((size_t)missing, sizeof *batch);
    int *indexes = cs_xcalloc((size_t)missing, sizeof *indexes);
    int n = 0;
    for (int i = 0; i < st->num_tasks && n < missing; i++)
        if (task_needed(s, st, i)) {
            batch[n] = new_task(s, j, st, i);
            indexes[n++] = i;
        }
    cs_task_scheduler_add(s->tasks, st->task_set, batch, indexes, n);
    free(batch);
    free(indexes);
    s->backend->revive_offers(s->backend);
}

static void submit_stage(scheduler *s, stage *st)
{
    if (st->running || st->waiting || !job_for_stage(s, st)) return;
    bool missing = false;
    for (int p = 0; p < st->num_parents; p++) {
        if (outputs_available(s, st->parents[p]->dep)) continue;
        missing = true;
        submit_stage(s, st->parents[p]);
    }
    if (!missing) {
        submit_missing_tasks(s, st);
        return;
    }
    st->waiting = true;
    if (s->num_waiting == s->cap_waiting) {
        s->cap_waiting = s->cap_waiting ? s->cap_waiting * 2 : 8;
        s->waiting = cs_xrealloc(s->waiting, (size_t)s->cap_waiting * sizeof *s->waiting);
    }
    s->waiting[s->num_waiting++] = st;
}

static void stage_finished(scheduler *s, stage *st, bool ok, const char *reason)
{
    st->running = false;
    end_task_set(s, st);
    if (st->barrier) cs_barrier_sync_stage_done(s->barrier, st->id, st->attempt);
    cs_event ev = {.kind = CS_EV_STAGE_COMPLETED,
                   .stage_id = st->id,
                   .stage_attempt = st->attempt,
                   .num_tasks = st->attempt_tasks,
                   .stage_name = cs_dag_stage_name(st),
                   .succeeded = ok,
                   .reason = reason,
                   .job_id = st->run_job_id};
    cs_accumulable *accs = NULL;
    int naccs = 0;
    cs_acc_stage_done(s->opt.accums, st->id, st->attempt, &accs, &naccs);
    ev.accumulables = accs;
    ev.num_accumulables = naccs;
    cs_dag_post_stage_event(s, st, &ev);
    cs_accumulables_free(accs, naccs);
}

/* After a map stage completes, or outputs were lost: checks every waiting stage's parents again,
 * as Spark's submitWaitingChildStages -> submitStage. A stage whose parents are all available
 * runs; a parent that is missing outputs and is neither running nor waiting is submitted itself
 * (its outputs were lost after it finished: without this the waiting stage would wait for good). */
static void submit_waiting(scheduler *s)
{
    for (int i = 0; i < s->num_waiting;) {
        stage *w = s->waiting[i];
        bool ready = true, changed = false;
        for (int p = 0; p < w->num_parents; p++) {
            stage *parent = w->parents[p];
            if (outputs_available(s, parent->dep)) continue;
            ready = false;
            if (!parent->running && !parent->waiting) {
                CS_INFO("scheduler", "stage=%d event=resubmit_parent child=%d reason=%s",
                        parent->id, w->id, "missing map outputs");
                submit_stage(s, parent);
                changed = true;
                break; /* the array may have changed under w */
            }
        }
        if (ready) {
            remove_waiting(s, w);
            submit_missing_tasks(s, w);
            changed = true;
        }
        i = changed ? 0 : i + 1; /* each change starts or queues a stage: this ends */
    }
}

static void abort_job(scheduler *s, job *j, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void abort_job(scheduler *s, job *j, const char *fmt, ...)
{
    if (j->failed) return;
    j->failed = true;
    va_list ap;
    va_start(ap, fmt);
    char msg[sizeof j->err.msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cs_error_set(&j->err, CS_ETASK, "Job aborted due to stage failure: %s", msg);
}

/* Spark's abortStage: every active job that needs st fails with msg. */
void cs_dag_abort_stage(scheduler *s, const stage *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char msg[sizeof((cs_error *)0)->msg];
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (int i = 0; i < s->num_jobs; i++)
        if (!s->jobs[i]->ended && cs_dag_job_needs(s, s->jobs[i], st))
            abort_job(s, s->jobs[i], "%s", msg);
}

/* ---- completions ------------------------------------------------------------------------- */

/* The running attempt of st cannot finish (a fetch failed, or an executor holding map outputs
 * it reads is lost): it ends as failed, counted against spark.stage.maxConsecutiveAttempts.
 * 0, or -1 when that aborted the job. */
int cs_dag_attempt_failed(scheduler *s, stage *st, const char *reason)
{
    stage_finished(s, st, false, reason);
    if (++st->fetch_failures < s->opt.max_stage_attempts) return 0;
    cs_dag_abort_stage(s, st,
                       "Stage %d has failed the maximum allowable number of times: %d. "
                       "Most recent failure reason: %s",
                       st->id, s->opt.max_stage_attempts, reason);
    return -1;
}

/* Submits st again after cs_dag_attempt_failed: the missing map outputs of its parents are computed
 * first, then a new attempt runs its missing partitions. */
void cs_dag_resubmit_stage(scheduler *s, stage *st, int failed_attempt, const char *reason)
{
    CS_WARN("scheduler", "stage=%d attempt=%d event=resubmit reason=%s", st->id, failed_attempt,
            cs_log_quote(reason));
    submit_stage(s, st);
}

static void handle_completion(scheduler *s, completion *c)
{
    task_desc *t = c->task;
    task_result *r = &c->result;
    sched_task *stk = (sched_task *)t;
    stage *st = stk->st;
    int index = stk->index;
    untrack_task(s, stk);
    cs_task_scheduler_task_ended(s->tasks, stk->set);
    /* the job it runs for: a result stage's own, or for a map stage any active job needing it
     * (none: every such job ended; the task only ends for the listeners) */
    job *j = job_for_stage(s, st);
    bool live = j != NULL;
    /* accumulator updates, as Spark's DAGScheduler.updateAccumulators: a successful shuffle-map
     * task's every time, a result task's only the first time its partition finishes */
    cs_accumulable *accs = NULL;
    int naccs = 0;
    char *merge_error = NULL;
    if (r->status == TASK_OK && r->accum_updates.n > 0 && live && (st->dep || !j->finished[index]))
        cs_acc_merge_updates(s->opt.accums, &r->accum_updates, st->id, t->stage_attempt, &accs,
                             &naccs, &merge_error);
    if (live || stk->started) /* one that never ran after its job ended: no event */
        cs_dag_post_task_end(s, c, accs, naccs);
    cs_accumulables_free(accs, naccs);
    if (merge_error) { /* the accumulator would be short of this update: never a success */
        cs_dag_abort_stage(s, st, "Task %d in stage %d.%d (TID %lld): %s", t->partition, st->id,
                           t->stage_attempt, (long long)t->task_id, merge_error);
        free(merge_error);
        return;
    }
    if (!live) return;

    if (r->status == TASK_OK) {
        cs_task_set_succeeded(stk->set, index);
        if (st->dep) {
            map_outputs *o = &cs_dag_shuffle(s, st->dep->shuffle_id)->outputs;
            cs_map_status *ms = cs_xmalloc(sizeof *ms);
            *ms = r->map_status;
            r->has_map_status = false;
            pthread_mutex_lock(&s->outputs_lock);
            if (o->maps[index])
                cs_dag_bury(s, o->maps[index]);
            else
                o->available++;
            o->maps[index] = ms;
            pthread_mutex_unlock(&s->outputs_lock);
            st->done_once[index] = true;
            if (o->available == o->num_maps) {
                /* complete, possibly through late results of an earlier attempt while the
                 * stage waited for a resubmitted parent */
                st->fetch_failures = 0;
                if (st->running) stage_finished(s, st, true, NULL);
                if (st->waiting) remove_waiting(s, st);
                submit_waiting(s);
            }
        } else if (!j->finished[index]) {
            j->result_bytes += r->metrics.result_size;
            if (s->opt.max_result_size > 0 && j->result_bytes > s->opt.max_result_size) {
                abort_job(s, j,
                          "Total size of serialized results of %d tasks (%.1f MiB) is bigger "
                          "than spark.driver.maxResultSize (%.1f MiB)",
                          j->num_finished + 1, (double)j->result_bytes / 1048576.0,
                          (double)s->opt.max_result_size / 1048576.0);
                return;
            }
            j->finished[index] = true;
            j->num_finished++;
            /* the job's own thread calls on_result (without dag_lock), in completion order */
            pending_result *pr = cs_xcalloc(1, sizeof *pr);
            pr->partition = t->partition;
            pr->result = *r;
            cs_task_result_init(r);
            if (j->results_tail)
                j->results_tail->next = pr;
            else
                j->results = pr;
            j->results_tail = pr;
            cs_dag_wake(s, j);
            if (j->num_finished == st->num_tasks) stage_finished(s, st, true, NULL);
        }
        return;
    }

    if (r->status == TASK_FETCH_FAILED) {
        if (t->stage_attempt != st->attempt || !st->running) return; /* already handled */
        char reason[1200];
        snprintf(reason, sizeof reason, "FetchFailed(shuffle %d, map %d): %s", r->fetch_shuffle_id,
                 r->fetch_map_id, r->error ? r->error : "");
        if (cs_dag_attempt_failed(s, st, reason) < 0) return;
        shuffle_slot *fetched = cs_dag_shuffle(s, r->fetch_shuffle_id);
        if (fetched) {
            map_outputs *o = &fetched->outputs;
            pthread_mutex_lock(&s->outputs_lock);
            /* only when the output is still where this attempt looked for it: it may have
             * been moved off a decommissioned executor since */
            const shuffle_input *in = NULL;
            for (int i = 0; i < t->num_inputs; i++)
                if (t->inputs[i].shuffle_id == r->fetch_shuffle_id) in = &t->inputs[i];
            const cs_map_status *seen = in && r->fetch_map_id >= 0 && r->fetch_map_id < in->num_maps
                                            ? in->maps[r->fetch_map_id]
                                            : NULL;
            if (o->maps && r->fetch_map_id >= 0 && r->fetch_map_id < o->num_maps &&
                o->maps[r->fetch_map_id] &&
                (!seen || strcmp(seen->executor_id, o->maps[r->fetch_map_id]->executor_id) == 0)) {
                cs_dag_bury(s, o->maps[r->fetch_map_id]);
                o->maps[r->fetch_map_id] = NULL;
                o->available--;
            }
            pthread_mutex_unlock(&s->outputs_lock);
        }
        cs_dag_resubmit_stage(s, st, t->stage_attempt, reason);
        return;
    }

    /* an ordinary task failure: retry up to the limit; an unlaunchable task has no retry. A
     * killed attempt (TaskKilled) is no failure: when its job ended, its stage attempt ended
     * too and nothing runs again; otherwise something else stopped it (its executor was
     * removed as it started: the executor cancels its tasks on StopExecutor) and, as Spark's
     * TaskSetManager re-queues a killed attempt of a live task set, the task runs again —
     * dropping it would leave its stage running with nothing in flight, a stalled job. */
    if (r->status == TASK_KILLED && cs_task_desc_cancelled(t)) return; /* on request */
    if (t->barrier) { /* Spark's rule: the whole stage attempt fails, never one task */
        cs_dag_barrier_task_failed(s, st, t, r->error);
        return;
    }
    /* the task set manager's rule: an executor removed by no fault of the task does not count */
    cs_failure_kind kind =
        r->status == TASK_UNLAUNCHABLE ? CS_FAILURE_UNLAUNCHABLE
        : r->status == TASK_KILLED || (r->lost_executor && !r->exit_caused_by_app)
            ? CS_FAILURE_NOT_COUNTED
            : CS_FAILURE_COUNTED;
    int failures;
    cs_task_failure_action action = cs_task_set_failed(stk->set, index, kind, &failures);
    if (r->status == TASK_KILLED)
        CS_INFO("scheduler",
                "event=task_killed task=%lld stage=%d.%d partition=%d attempt=%d reason=%s",
                (long long)t->task_id, st->id, t->stage_attempt, t->partition, t->attempt,
                cs_log_quote(r->error ? r->error : ""));
    else
        CS_WARN("scheduler",
                "event=task_failed task=%lld stage=%d.%d partition=%d attempt=%d error=%s",
                (long long)t->task_id, st->id, t->stage_attempt, t->partition, t->attempt,
                cs_log_quote(r->error ? r->error : ""));
    if (action == CS_TASK_ABORT) {
        stage_finished(s, st, false, r->error);
        if (r->status == TASK_UNLAUNCHABLE)
            cs_dag_abort_stage(s, st, "%s", r->error); /* TaskSetManager.abort */
        /* where the last attempt ran, as Spark's "(host executor id)" */
        cs_dag_abort_stage(
            s, st,
            "Task %d in stage %d.%d failed %d times, most recent failure: Lost task %d.%d "
            "in stage %d.%d (TID %lld) (%s executor %s): %s",
            t->partition, st->id, t->stage_attempt, failures, t->partition, t->attempt, st->id,
            t->stage_attempt, (long long)t->task_id,
            stk->started && stk->host[0] ? stk->host : "localhost",
            stk->started && stk->executor[0] ? stk->executor : "driver", r->error ? r->error : "");
        return;
    }
    /* a superseded attempt (Spark's zombie task set) launches nothing more: its stage's next
     * attempt runs every partition still missing */
    if (action == CS_TASK_RETRY && st->running && stk->set == st->task_set)
        launch_task(s, st, index);
}

static bool stage_in_job(const stage *st, int stage_id)
{
    if (st->id == stage_id) return st->running || st->waiting;
    for (int p = 0; p < st->num_parents; p++)
        if (stage_in_job(st->parents[p], stage_id)) return true;
    return false;
}

/* A kill request (the web UI's): job j fails as Spark's cancelJob / cancelStage when the request
 * names it. */
static void cancel_job(scheduler *s, job *j, const completion *c)
{
    if (j->failed || j->ended) return;
    const char *why = c->reason && *c->reason ? c->reason : NULL;
    if (c->cancel_all || c->cancel_job == j->id ||
        (c->cancel_group && j->props->group_id &&
         strcmp(c->cancel_group, j->props->group_id) == 0)) {
        cs_error_set(&j->err, CS_ECANCELLED, "Job %d cancelled%s%s", j->id, why ? " " : "",
                     why ? why : "");
    } else if (c->cancel_stage >= 0 && stage_in_job(j->final, c->cancel_stage)) {
        cs_error_set(&j->err, CS_ECANCELLED, "Job %d cancelled because Stage %d was cancelled%s%s",
                     j->id, c->cancel_stage, why ? ": " : "", why ? why : "");
    } else {
        return; /* not running (any more): nothing to do, as Spark */
    }
    j->failed = true;
    CS_WARN("scheduler", "job=%d event=cancelled reason=%s", j->id, cs_log_quote(j->err.msg));
}

static void completion_free(completion *c)
{
    if (c->kind == EV_TASK_DONE) {
        cs_task_result_free(&c->result);
        cs_scheduler_task_release(c->task);
    }
    free(c->executor_id);
    free(c->reason);
    free(c->cancel_group);
    free(c);
}

/* Every map output held by a lost executor is gone: later readers will recompute it. */
static void handle_executor_lost(scheduler *s, const char *exec_id, const char *reason)
{
    bool resubmit = false; /* some job runs: its stages go on without the lost outputs */
    for (int i = 0; i < s->num_jobs; i++)
        resubmit |= !s->jobs[i]->ended && !s->jobs[i]->failed;
    int removed = 0, nlive;
    pthread_mutex_lock(&s->outputs_lock);
    int *live = cs_dag_live_shuffles(s, &nlive); /* ascending: parents before their children */
    for (int k = 0; k < nlive; k++) {
        map_outputs *o = &cs_dag_shuffle(s, live[k])->outputs;
        for (int m = 0; o->maps && m < o->num_maps; m++) {
            if (o->maps[m] && strcmp(o->maps[m]->executor_id, exec_id) == 0) {
                cs_dag_bury(s, o->maps[m]);
                o->maps[m] = NULL;
                o->available--;
                removed++;
            }
        }
    }
    pthread_mutex_unlock(&s->outputs_lock);
    CS_WARN("scheduler", "event=executor_lost executor=%s map_outputs_lost=%d reason=%s",
            cs_log_value(exec_id), removed, cs_log_quote(reason));
    /* running attempts that were given outputs of the lost executor cannot finish: every fetch
     * from it now fails at once (the backend tells the executors), so each such attempt is
     * superseded here, as its first fetch failure would: it launches nothing more, and its
     * stage runs again once the lost outputs are recomputed */
    stage **superseded = NULL;
    int nsup = 0;
    for (int k = -s->num_jobs; resubmit && removed && k < nlive; k++) {
        stage *st = k < 0 ? s->jobs[-k - 1]->final : cs_dag_shuffle(s, live[k])->stage;
        if (!st || !st->running || !cs_dag_stage_reads_from(st, exec_id)) continue;
        superseded = cs_xrealloc(superseded, (size_t)(nsup + 1) * sizeof *superseded);
        superseded[nsup++] = st;
    }
    /* the map stages running now, before the superseded attempts are resubmitted: a stage
     * that resubmission starts launches its missing maps itself */
    bool *rerun = cs_xcalloc((size_t)nlive + 1, sizeof *rerun);
    for (int k = 0; resubmit && removed && k < nlive; k++) {
        stage *st = cs_dag_shuffle(s, live[k])->stage;
        rerun[k] = st->running;
        for (int i = 0; i < nsup; i++)
            rerun[k] &= superseded[i] != st;
    }
    char why[700];
    snprintf(why, sizeof why, "ExecutorLost(executor %s, which holds map outputs it reads): %s",
             exec_id, reason);
    for (int i = 0; i < nsup; i++)
        if (cs_dag_attempt_failed(s, superseded[i], why) == 0)
            cs_dag_resubmit_stage(s, superseded[i], superseded[i]->attempt, why);
    /* a running map stage would never complete without the outputs it lost: run them again
     * (Spark's "Resubmitted"; not counted as task failures) */
    for (int k = 0; k < nlive; k++) {
        shuffle_slot *slot = rerun[k] ? cs_dag_shuffle(s, live[k]) : NULL;
        stage *st = slot ? slot->stage : NULL;
        if (!st || !st->running) continue;
        map_outputs *o = &slot->outputs;
        for (int m = 0; m < o->num_maps; m++)
            if (!o->maps[m] && st->done_once[m]) {
                st->done_once[m] = false;
                launch_task(s, st, m);
            }
    }
    free(rerun);
    free(superseded);
    free(live);
    /* a finished stage that lost outputs is needed again by the stages waiting for it: start it
     * now, beside whatever still runs, rather than when a running parent completes */
    if (resubmit && removed) submit_waiting(s);
}

/* The job's watchdog, checked after every event: an unfinished job with no task running or
 * pending can only wait for good. Stages whose parents lost outputs are submitted again first;
 * if that still starts nothing, the job fails naming the stages it was waiting on, as a
 * scheduler bug must never be a hang. */
static void check_progress(scheduler *s, job *j)
{
    if (j->failed || job_done(s, j) || cs_dag_job_in_flight(s, j) > 0) return;
    submit_waiting(s);
    if (!j->final->running && !j->final->waiting) submit_stage(s, j->final);
    if (cs_dag_job_in_flight(s, j) > 0 || job_done(s, j) || j->failed) return;
    char waiting[400] = "";
    size_t len = 0;
    for (int i = 0; i < s->num_waiting && len < sizeof waiting - 16; i++) {
        if (!cs_dag_job_needs(s, j, s->waiting[i])) continue;
        len += (size_t)snprintf(waiting + len, sizeof waiting - len, "%s%d", len ? "," : "",
                                s->waiting[i]->id);
    }
    CS_ERROR("scheduler", "job=%d event=stalled waiting_stages=%s", j->id,
             waiting[0] ? waiting : "none");
    abort_job(s, j,
              "Job %d cannot make progress: no task is running or pending while %d of its %d "
              "result partitions are unfinished (stages waiting: %s)",
              j->id, j->final->num_tasks - j->num_finished, j->final->num_tasks,
              waiting[0] ? waiting : "none");
}

/* ---- jobs -------------------------------------------------------------------------------- */

/* Job j is done or failed: it leaves the active jobs, and the stages it ran that no other active
 * job needs end with it (Spark's failJobAndIndependentStages): their attempts not launched yet
 * are dropped, their running ones killed — j's thread waits for those (j->draining) — and, when
 * j failed, their running attempts end as failed. */
static void finish_job(scheduler *s, job *j)
{
    j->ended = true;
    j->final->job = NULL; /* its late completions only end for the listeners */
    stage **mine = cs_xcalloc((size_t)s->next_stage_id + 2, sizeof *mine);
    int nmine = 0;
    unsigned epoch = ++s->visit_epoch;
    mine[nmine++] = j->final;
    j->final->visit = epoch;
    for (int i = 0; i < nmine; i++)
        for (int p = 0; p < mine[i]->num_parents; p++)
            if (mine[i]->parents[p]->visit != epoch) {
                mine[i]->parents[p]->visit = epoch;
                mine[nmine++] = mine[i]->parents[p];
            }
    int killed = 0;
    for (int i = 0; i < nmine; i++) {
        stage *st = mine[i];
        if (st->dep && needed_by_other(s, st, j)) continue;
        end_task_set(s, st);
        if (j->failed && st->running) stage_finished(s, st, false, j->err.msg);
        if (st->waiting) remove_waiting(s, st);
        pthread_mutex_lock(&s->outputs_lock);
        st->running = false;
        pthread_mutex_unlock(&s->outputs_lock);
        for (sched_task *t = s->tasks_head.next; t != &s->tasks_head; t = t->next) {
            if (t->st != st || t->drain_job) continue;
            atomic_store(&t->cancelled, 1);
            t->drain_job = j;
            j->draining++;
            killed++;
        }
    }
    free(mine);
    if (killed > 0) s->backend->cancel_all(s->backend);
    pthread_mutex_lock(&s->outputs_lock);
    for (int i = 0; i < s->num_jobs; i++)
        if (s->jobs[i] == j) {
            memmove(s->jobs + i, s->jobs + i + 1, (size_t)(s->num_jobs - i - 1) * sizeof *s->jobs);
            s->num_jobs--;
            break;
        }
    cs_dag_mark_jobs_shuffles(s);
    pthread_mutex_unlock(&s->outputs_lock);
    cs_dag_wake(s, j);
}

/* After every event: jobs that are done or failed end; the others' watchdog runs (which may fail
 * one: it ends too). */
static void settle(scheduler *s)
{
    for (int i = 0; i < s->num_jobs;) {
        job *j = s->jobs[i];
        if (!j->failed && !job_done(s, j)) check_progress(s, j);
        if (j->failed || job_done(s, j)) {
            finish_job(s, j);
            i = 0; /* the array changed, and ending a job may free stages others wait for */
            continue;
        }
        i++;
    }
}

/* Acts on one completion for every job (dag_lock held), then frees it. */
static void handle_event(scheduler *s, completion *c)
{
    if (c->kind == EV_TASK_DONE) {
        handle_completion(s, c);
    } else if (c->kind == EV_EXECUTOR_LOST) {
        handle_executor_lost(s, c->executor_id, c->reason);
    } else if (c->kind == EV_CALLBACK) {
        c->fn(c->fn_arg);
    } else if (c->kind == EV_CANCEL) {
        for (int i = 0; i < s->num_jobs; i++)
            cancel_job(s, s->jobs[i], c);
    } else {
        if (!s->aborted) s->aborted = cs_xstrdup(c->reason);
        for (int i = 0; i < s->num_jobs; i++)
            abort_job(s, s->jobs[i], "%s", c->reason);
    }
    completion_free(c);
    settle(s);
}

/* Hands j's finished partitions to on_result on j's thread, without dag_lock (held on entry and
 * on return). */
static void deliver_results(scheduler *s, job *j)
{
    while (j->results) {
        pending_result *pr = j->results;
        j->results = j->results_tail = NULL;
        pthread_mutex_unlock(&s->dag_lock);
        while (pr) {
            pending_result *next = pr->next;
            j->on_result(j->arg, pr->partition, &pr->result);
            cs_task_result_free(&pr->result);
            free(pr);
            pr = next;
        }
        pthread_mutex_lock(&s->dag_lock);
    }
}

void cs_scheduler_executor_added(scheduler *s, const char *executor_id, int cores)
{
    (void)cores;
    if (s->alloc) cs_am_executor_added(s->alloc, executor_id);
}

void cs_scheduler_start_dynamic_allocation(scheduler *s, const alloc_settings *st)
{
    if (!st->enabled || !s->backend->request_total || s->alloc) return;
    s->alloc = cs_allocation_manager_new(st, s, s->backend, s->opt.bus);
}

/* A job: the result stage of rdd's partitions, or (map_deps) the map stages of those shuffles,
 * whose result stage is a placeholder without tasks or id, never posted. Runs beside the jobs of
 * other threads: this thread takes part in the event loop while its job runs, and returns once
 * the job has ended and the tasks it killed have completed. */
static int run_job(scheduler *s, cspark_rdd *rdd, const int *partitions, int num_partitions,
                   shuffle_dep *const *map_deps, int n_map_deps, const job_properties *props,
                   const task_sink *sink, job_result_fn on_result, void *arg, cs_error *err)
{
    static const job_properties no_props;
    if (cs_dag_barrier_check_slots(s, rdd, map_deps, n_map_deps, err) < 0) return err->code;
    job *j = cs_xcalloc(1, sizeof *j);
    j->props = props ? props : &no_props;
    j->sink = sink;
    j->on_result = on_result;
    j->arg = arg;
    j->map_stages = map_deps != NULL;

    cs_dag_jobs_in_engine(s, 1); /* callbacks queue from now on */
    pthread_mutex_lock(&s->dag_lock);
    /* what arrived while this thread waited (lost executors, moved outputs, late completions) is
     * applied before anything reads the map-output tracker */
    for (completion *c; (c = cs_dag_try_pop(s));)
        handle_event(s, c);
    j->id = s->next_job_id++;
    stage *fin = cs_xcalloc(1, sizeof *fin);
    fin->attempt = -1;
    fin->rdd = rdd;
    fin->num_tasks = map_deps ? 0 : partitions ? num_partitions : rdd->num_partitions;
    fin->partitions = partitions;
    fin->failures = cs_xcalloc((size_t)fin->num_tasks + 1, sizeof *fin->failures);
    fin->attempts = cs_xcalloc((size_t)fin->num_tasks + 1, sizeof *fin->attempts);
    fin->first_job = j->id;
    fin->run_job_id = j->id;
    fin->job = j;
    if (j->props->call_site) fin->name = cs_xstrdup(j->props->call_site);
    if (map_deps) {
        cs_dag_stage_link_shuffles(s, fin, map_deps, n_map_deps, j->id);
        fin->id = -1;
    } else {
        cs_dag_stage_link(s, fin, j->id);
        fin->id = s->next_stage_id++;
    }
    j->final = fin;
    j->finished = cs_xcalloc((size_t)fin->num_tasks + 1, sizeof *j->finished);
    pthread_mutex_lock(&s->outputs_lock);
    if (s->num_jobs == s->cap_jobs) {
        s->cap_jobs = s->cap_jobs ? s->cap_jobs * 2 : 4;
        s->jobs = cs_xrealloc(s->jobs, (size_t)s->cap_jobs * sizeof *s->jobs);
    }
    s->jobs[s->num_jobs++] = j; /* ids grow: the array stays in id order */
    cs_dag_mark_active_shuffles(s, fin, true);
    pthread_mutex_unlock(&s->outputs_lock);

    const char *job_name;
    cs_dag_post_job_start(s, j, &job_name);
    int64_t job_start_ms = cs_now_ms();
    if (s->aborted)
        abort_job(s, j, "%s", s->aborted);
    else if (fin->num_tasks > 0 || j->map_stages)
        submit_stage(s, fin);
    settle(s);
    /* the event loop, shared with the other jobs' threads; then the tasks this job killed are
     * collected, and those that have not stopped within spark.task.reaper.killTimeout ended */
    bool reap = s->backend->reap && s->opt.task_reaper;
    int64_t reap_at = -1;
    int left_running = 0;
    for (;;) {
        deliver_results(s, j);
        if (j->ended && j->draining == 0) break;
        completion *c = cs_dag_try_pop(s);
        if (c) {
            handle_event(s, c);
            continue;
        }
        if (j->ended && reap && reap_at < 0) reap_at = cs_mono_ms() + s->opt.task_kill_timeout_ms;
        if (!cs_dag_wait(s, j, j->ended && reap ? reap_at : -1)) {
            left_running = cs_dag_reap(s, j->id, reap_at);
            reap = false;
        }
    }
    /* the last job out applies what arrived meanwhile (callbacks run at once from now on) */
    if (cs_dag_jobs_in_engine(s, -1) == 0)
        for (completion *c; (c = cs_dag_try_pop(s));)
            handle_event(s, c);

    cs_event end = {.kind = CS_EV_JOB_END,
                    .job_id = j->id,
                    .succeeded = !j->failed,
                    .reason = j->failed ? j->err.msg : NULL};
    cs_dag_post(s, &end);
    if (j->failed)
        CS_WARN("scheduler", "job=%d event=finished result=failed duration_ms=%lld reason=%s",
                j->id, (long long)(cs_now_ms() - job_start_ms), cs_log_quote(j->err.msg));
    else
        CS_INFO("scheduler", "job=%d event=finished result=succeeded duration_ms=%lld", j->id,
                (long long)(cs_now_ms() - job_start_ms));
    /* every task of this job's result stage has completed: it can go, unless the task reaper left
     * some running in this process */
    if (left_running > 0)
        cs_dag_retain(s, fin);
    else
        cs_dag_stage_free(fin);
    pthread_mutex_unlock(&s->dag_lock);
    int rc = 0;
    if (j->failed) {
        if (err) *err = j->err;
        rc = j->err.code;
    }
    free(j->finished);
    free(j);
    return rc;
}

int cs_scheduler_run_job(scheduler *s, cspark_rdd *rdd, const int *partitions, int num_partitions,
                         const job_properties *props, const task_sink *sink,
                         job_result_fn on_result, void *arg, cs_error *err)
{
    return run_job(s, rdd, partitions, num_partitions, NULL, 0, props, sink, on_result, arg, err);
}

int cs_scheduler_run_map_stages(scheduler *s, shuffle_dep *const *deps, int n,
                                const job_properties *props, cs_error *err)
{
    if (n <= 0) return 0;
    return run_job(s, deps[0]->parent, NULL, 0, deps, n, props, NULL, NULL, NULL, err);
}

scheduler *cs_scheduler_new(const scheduler_options *o, sched_backend *backend)
{
    scheduler *s = cs_xcalloc(1, sizeof *s);
    s->opt = *o;
    s->backend = backend;
    s->tasks = cs_task_scheduler_new(&o->locality_waits, o->max_task_failures);
    if (o->fair) cs_task_scheduler_use_fair(s->tasks);
    backend->sched = s;
    backend->tasks = s->tasks;
    s->blocks = cs_block_registry_new();
    s->barrier = cs_barrier_sync_new(o->barrier_sync_timeout_ms > 0 ? o->barrier_sync_timeout_ms
                                                                    : 365LL * 86400 * 1000);
    pthread_mutex_init(&s->lock, NULL);
    pthread_mutex_init(&s->outputs_lock, NULL);
    pthread_mutex_init(&s->dag_lock, NULL);
    s->tasks_head.next = s->tasks_head.prev = &s->tasks_head;
    cs_cond_init_monotonic(&s->cond);
    return s;
}

void cs_scheduler_free(scheduler *s)
{
    if (!s) return;
    cs_allocation_manager_free(s->alloc); /* no more requests to the backend */
    s->alloc = NULL;
    if (s->backend) s->backend->stop(s->backend);
    if (cs_shutdown_exit_pending()) return; /* tasks may still read stages: none is freed */
    for (int i = 0; i < s->num_retained; i++)
        cs_dag_stage_free(s->retained[i]);
    free(s->retained);
    cs_dag_shuffles_free(s);
    for (int i = 0; i < s->num_graveyard; i++) {
        cs_map_status_free(s->graveyard[i]);
        free(s->graveyard[i]);
    }
    free(s->graveyard);
    free(s->waiting);
    while (s->head) {
        completion *c = s->head;
        s->head = c->next;
        completion_free(c);
    }
    free(s->aborted);
    cs_block_registry_free(s->blocks);
    cs_barrier_sync_free(s->barrier);
    cs_task_scheduler_free(s->tasks);
    pthread_mutex_destroy(&s->lock);
    pthread_mutex_destroy(&s->outputs_lock);
    pthread_mutex_destroy(&s->dag_lock);
    pthread_cond_destroy(&s->cond);
    free(s->jobs);
    free(s);
}
