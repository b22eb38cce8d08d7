/*
 * completion_queue.c — the DAG scheduler's inbox (see scheduler.h): backends, the allocation
 * manager, the web UI and the context report task ends, executor losses, cancellations (of a job,
 * a stage or a job group), aborts and callbacks from their own threads; each becomes a completion
 * queued under the scheduler's lock for the job thread holding dag_lock (dag_scheduler.c), which
 * pops them in order; the threads of the other running jobs wait here for a completion or for
 * their own job's news (cs_dag_wait / cs_dag_wake). Ownership: a queued
 * completion (and the task result moved into it) belongs to the queue, then to the job thread,
 * and so does the task's descriptor — shared with the task's thread when the reaper leaves that
 * thread running (cs_scheduler_task_retain: the last of the two to let go frees it).
 *
 * Also here: the scheduler's side of the task reaper (common/shutdown.h, docs/stopping.md) — once
 * a job has ended, the job thread waits for the completions of its killed tasks only until
 * spark.task.reaper.killTimeout has passed, then asks the backend to end what still runs; and
 * Spark's TaskEndReason of a finished task for the listeners (FetchFailed with the block's place,
 * ExecutorLostFailure, TaskKilled for status TASK_KILLED — the status says so, never the error's
 * text — ExceptionFailure otherwise), with the backends' report of a task lost with its executor.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/sync.h"
#include "sched/allocation_manager.h"
#include "sched/block_registry.h"
#include "sched/dag_scheduler_internal.h"

completion *cs_dag_try_pop(scheduler *s)
{
    pthread_mutex_lock(&s->lock);
    completion *c = s->head;
    if (c) {
        s->head = c->next;
        if (!s->head) s->tail = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return c;
}

bool cs_dag_wait(scheduler *s, job *j, int64_t deadline_ms)
{
    bool in_time = true;
    pthread_mutex_unlock(&s->dag_lock);
    pthread_mutex_lock(&s->lock);
    while (!s->head && !atomic_exchange(&j->wake, 0)) {
        if (deadline_ms < 0) {
            pthread_cond_wait(&s->cond, &s->lock);
            continue;
        }
        int64_t left = deadline_ms - cs_mono_ms();
        if (left <= 0 || cs_shutdown_hurried()) {
            in_time = false;
            break;
        }
        cs_cond_wait_ms(&s->cond, &s->lock, left < 100 ? left : 100);
    }
    pthread_mutex_unlock(&s->lock);
    pthread_mutex_lock(&s->dag_lock);
    return in_time;
}

void cs_dag_wake(scheduler *s, job *j)
{
    atomic_store(&j->wake, 1);
    pthread_mutex_lock(&s->lock);
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

int cs_dag_jobs_in_engine(scheduler *s, int delta)
{
    pthread_mutex_lock(&s->lock);
    int n = s->jobs_in_engine += delta;
    pthread_mutex_unlock(&s->lock);
    return n;
}

/* Appends c to the queue and wakes the job threads (each waits for its own reasons too); lock
 * held. */
static void enqueue_locked(scheduler *s, completion *c)
{
    c->next = NULL;
    if (s->tail)
        s->tail->next = c;
    else
        s->head = c;
    s->tail = c;
    pthread_cond_broadcast(&s->cond);
}

static void push_completion(scheduler *s, completion *c)
{
    pthread_mutex_lock(&s->lock);
    enqueue_locked(s, c);
    pthread_mutex_unlock(&s->lock);
}

void cs_scheduler_task_done(scheduler *s, const task_desc *t, task_result *r)
{
    const sched_task *stk = (const sched_task *)t;
    cs_block_registry_task_done(s->blocks, s->opt.bus, stk->started ? stk->executor : "driver",
                                stk->host, r);
    if (s->alloc) cs_am_task_ended(s->alloc, stk->started ? stk->executor : NULL);
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_TASK_DONE;
    c->task = (task_desc *)t;
    c->result = *r;
    memset(r, 0, sizeof *r);
    push_completion(s, c);
}

static void task_ended(scheduler *s, const task_desc *t, task_status status, const char *fmt,
                       va_list ap)
{
    task_result r;
    cs_task_result_init(&r);
    r.status = status;
    if (vasprintf(&r.error, fmt, ap) < 0) r.error = NULL;
    cs_scheduler_task_done(s, t, &r);
}

void cs_scheduler_task_failed(scheduler *s, const task_desc *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    task_ended(s, t, TASK_FAILED, fmt, ap);
    va_end(ap);
}

void cs_scheduler_task_killed(scheduler *s, const task_desc *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    task_ended(s, t, TASK_KILLED, fmt, ap);
    va_end(ap);
}

void cs_scheduler_task_retain(const task_desc *t)
{
    __atomic_store_n(&((sched_task *)t)->holders, 2, __ATOMIC_RELEASE);
}

void cs_scheduler_task_release(const task_desc *t)
{
    sched_task *stk = (sched_task *)t;
    /* 0: never retained, its completion is the only holder */
    if (__atomic_load_n(&stk->holders, __ATOMIC_ACQUIRE) == 0 ||
        __atomic_sub_fetch(&stk->holders, 1, __ATOMIC_ACQ_REL) == 0)
        free(stk);
}

void cs_scheduler_executor_lost(scheduler *s, const char *executor_id, const char *reason)
{
    if (s->alloc) cs_am_executor_removed(s->alloc, executor_id);
    cs_block_registry_executor_lost(s->blocks, executor_id); /* recomputed from lineage */
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_EXECUTOR_LOST;
    c->executor_id = cs_xstrdup(executor_id);
    c->reason = cs_xstrdup(reason ? reason : "");
    push_completion(s, c);
}

void cs_scheduler_after_completions(scheduler *s, void (*fn)(void *arg), void *arg)
{
    pthread_mutex_lock(&s->lock);
    if (s->jobs_in_engine == 0) {
        pthread_mutex_unlock(&s->lock);
        fn(arg);
        return;
    }
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_CALLBACK;
    c->fn = fn;
    c->fn_arg = arg;
    enqueue_locked(s, c);
    pthread_mutex_unlock(&s->lock);
}

void cs_scheduler_abort(scheduler *s, const char *reason)
{
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_ABORT;
    c->reason = cs_xstrdup(reason ? reason : "the cluster backend failed");
    push_completion(s, c);
}

void cs_scheduler_cancel(scheduler *s, int job_id, int stage_id, const char *reason)
{
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_CANCEL;
    c->cancel_job = job_id;
    c->cancel_stage = stage_id;
    c->reason = cs_xstrdup(reason ? reason : "");
    push_completion(s, c);
}

void cs_scheduler_cancel_group(scheduler *s, const char *group_id)
{
    if (!group_id) return;
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_CANCEL;
    c->cancel_job = c->cancel_stage = -1;
    c->cancel_group = cs_xstrdup(group_id);
    if (asprintf(&c->reason, "part of cancelled job group %s", group_id) < 0)
        c->reason = cs_xstrdup("part of a cancelled job group");
    push_completion(s, c);
}

void cs_scheduler_cancel_all(scheduler *s)
{
    completion *c = cs_xcalloc(1, sizeof *c);
    c->kind = EV_CANCEL;
    c->cancel_job = c->cancel_stage = -1;
    c->cancel_all = true;
    c->reason = cs_xstrdup("as part of cancellation of all jobs");
    push_completion(s, c);
}

/* ---- the task reaper: bounded waits for killed tasks ---- */

int cs_dag_reap(scheduler *s, int job_id, int64_t reap_at)
{
    char why[160];
    snprintf(why, sizeof why,
             "not stopped %lld ms after it was killed (spark.task.reaper.killTimeout)",
             (long long)(cs_mono_ms() - reap_at + s->opt.task_kill_timeout_ms));
    CS_WARN("scheduler", "job=%d event=task_reaper running_tasks=%d reason=\"%s\"", job_id,
            s->in_flight, why);
    return s->backend->reap(s->backend, why);
}

void cs_dag_retain(scheduler *s, stage *fin)
{
    s->retained = cs_xrealloc(s->retained, (size_t)(s->num_retained + 1) * sizeof *s->retained);
    s->retained[s->num_retained++] = fin;
}

bool cs_scheduler_in_job(scheduler *s)
{
    pthread_mutex_lock(&s->lock);
    bool in = s->jobs_in_engine > 0;
    pthread_mutex_unlock(&s->lock);
    return in;
}

/* ---- Spark's TaskEndReason of a finished task; a task lost with its executor ---- */

void cs_dag_task_end_reason(const task_desc *t, const task_result *r, cs_task_end_reason *why)
{
    memset(why, 0, sizeof *why);
    why->kind = CS_END_EXCEPTION;
    if (r->status == TASK_FETCH_FAILED) {
        why->kind = CS_END_FETCH_FAILED;
        why->shuffle_id = r->fetch_shuffle_id;
        why->map_id = r->fetch_map_id;
        why->reduce_id = t->partition;
        for (int i = 0; i < t->num_inputs; i++) { /* where this attempt looked for the block */
            const shuffle_input *in = &t->inputs[i];
            if (in->shuffle_id != r->fetch_shuffle_id || r->fetch_map_id < 0 ||
                r->fetch_map_id >= in->num_maps || !in->maps[r->fetch_map_id])
                continue;
            const cs_map_status *m = in->maps[r->fetch_map_id];
            snprintf(why->bm_executor_id, sizeof why->bm_executor_id, "%s", m->executor_id);
            snprintf(why->bm_host, sizeof why->bm_host, "%s", m->host);
            why->bm_port = m->port;
        }
    } else if (r->lost_executor) {
        why->kind = CS_END_EXECUTOR_LOST;
        snprintf(why->lost_executor_id, sizeof why->lost_executor_id, "%s", r->lost_executor);
        snprintf(why->loss_reason, sizeof why->loss_reason, "%s",
                 r->loss_reason ? r->loss_reason : "");
        why->exit_caused_by_app = r->exit_caused_by_app;
    } else if (r->status == TASK_KILLED) {
        why->kind = CS_END_TASK_KILLED;
    }
}

void cs_scheduler_task_lost(scheduler *s, const task_desc *t, const char *executor_id,
                            const char *why, bool caused_by_app)
{
    task_result r;
    cs_task_result_init(&r);
    r.status = TASK_FAILED;
    if (asprintf(&r.error, "ExecutorLostFailure (executor %s exited %s) Reason: %s", executor_id,
                 caused_by_app ? "caused by one of the running tasks"
                               : "unrelated to the running tasks",
                 why) < 0)
        r.error = NULL;
    r.lost_executor = cs_xstrdup(executor_id);
    r.loss_reason = cs_xstrdup(why);
    r.exit_caused_by_app = caused_by_app;
    cs_scheduler_task_done(s, t, &r);
}
