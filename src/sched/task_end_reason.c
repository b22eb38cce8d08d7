/*
 * task_end_reason.c — Spark's TaskEndReason of a failed task, for the listeners (the event log's
 * "Task End Reason"): FetchFailed with the shuffle block's place, ExecutorLostFailure, TaskKilled
 * for status TASK_KILLED (stopped because its job ended, or given up on by the task reaper: the
 * status says so, never the error's text), ExceptionFailure otherwise; and the backends' report
 * of a task whose executor was lost. Called by the DAG scheduler's job thread
 * (dag_scheduler.c) and by backends (cs_scheduler_task_lost, any thread).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/dag_scheduler_internal.h"

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
