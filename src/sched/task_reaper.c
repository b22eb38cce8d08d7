/*
 * task_reaper.c — the scheduler's side of the task reaper (common/shutdown.h, docs/stopping.md):
 * once a job has ended, dag_scheduler.c waits for the completions of its killed tasks only until
 * spark.task.reaper.killTimeout has passed, then asks the backend to end what still runs. Called
 * on the job thread; the completion queue is under the scheduler's lock.
 */
#include <stdio.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/sync.h"
#include "sched/dag_scheduler_internal.h"

completion *cs_dag_pop_completion_until(scheduler *s, int64_t deadline_ms)
{
    pthread_mutex_lock(&s->lock);
    while (!s->head) {
        int64_t left = deadline_ms - cs_mono_ms();
        if (left <= 0 || cs_shutdown_hurried()) break;
        cs_cond_wait_ms(&s->cond, &s->lock, left < 100 ? left : 100);
    }
    completion *c = s->head;
    if (c) {
        s->head = c->next;
        if (!s->head) s->tail = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return c;
}

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
    bool in = s->in_job;
    pthread_mutex_unlock(&s->lock);
    return in;
}
