/*
 * dag_events.c — the DAG scheduler's events for the listener bus (dag_scheduler.c decides, this
 * file tells): JobStart with its stages, their task counts, parents and names and the job's local
 * properties (Spark's Properties), StageSubmitted / StageCompleted with the stage's RDDs (Spark's
 * StageInfo), TaskStart (cs_scheduler_task_started, from backends' threads) and TaskEnd with its
 * end reason. Names: a result stage is named after its job's action, a map stage after the RDD it
 * computes. Callers hold dag_lock except for cs_scheduler_task_started, which reads only the task.
 * Ownership: events and what they point to are borrowed by the bus for the post (it copies).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/strutil.h"
#include "sched/allocation_manager.h"
#include "sched/block_registry.h"
#include "sched/dag_scheduler_internal.h"
#include "sched/listener.h"
#include "sched/stage_rdds.h"

void cs_dag_post(scheduler *s, cs_event *ev)
{
    if (!s->opt.bus) return;
    ev->time_ms = cs_now_ms();
    cs_listener_bus_post(s->opt.bus, ev);
}

/* Spark's stage name: a result stage is named after its job's action, a shuffle-map stage after
 * the RDD it computes (both "<operation> at <object>:<function>"). */
const char *cs_dag_stage_name(const stage *st)
{
    return st->name ? st->name : st->rdd->name;
}

/* The stages of a job, as its start event lists them: ids, task counts and parents. */
typedef struct job_stages {
    int *ids, *ntasks, *nparents, *parents;
    const char **names; /* borrowed from the stages */
    int n, cap, np, capp;
} job_stages;

static void all_stages(stage *st, job_stages *js)
{
    for (int i = 0; i < js->n; i++)
        if (js->ids[i] == st->id) return;
    if (js->n == js->cap) {
        js->cap = js->cap ? js->cap * 2 : 8;
        js->ids = cs_xrealloc(js->ids, (size_t)js->cap * sizeof *js->ids);
        js->ntasks = cs_xrealloc(js->ntasks, (size_t)js->cap * sizeof *js->ntasks);
        js->nparents = cs_xrealloc(js->nparents, (size_t)js->cap * sizeof *js->nparents);
        js->names = cs_xrealloc(js->names, (size_t)js->cap * sizeof *js->names);
    }
    js->names[js->n] = cs_dag_stage_name(st);
    js->ids[js->n] = st->id;
    js->ntasks[js->n] = st->num_tasks;
    js->nparents[js->n++] = st->num_parents;
    for (int p = 0; p < st->num_parents; p++) {
        if (js->np == js->capp) {
            js->capp = js->capp ? js->capp * 2 : 8;
            js->parents = cs_xrealloc(js->parents, (size_t)js->capp * sizeof *js->parents);
        }
        js->parents[js->np++] = st->parents[p]->id;
    }
    for (int p = 0; p < st->num_parents; p++)
        all_stages(st->parents[p], js);
}

/* Posts a stage event with the stage's RDDs and parent stages (Spark's StageInfo). */
void cs_dag_post_stage_event(scheduler *s, const stage *st, cs_event *ev)
{
    cs_rdd_info *infos = NULL;
    int *parents = cs_xcalloc((size_t)st->num_parents + 1, sizeof *parents);
    for (int p = 0; p < st->num_parents; p++)
        parents[p] = st->parents[p]->id;
    ev->num_rdd_infos = cs_stage_rdd_infos(st->rdd, &infos);
    cs_block_registry_fill_rdd_infos(s->blocks, infos, ev->num_rdd_infos);
    ev->rdd_infos = infos;
    ev->parent_stage_ids = parents;
    ev->num_parent_stage_ids = st->num_parents;
    cs_dag_post(s, ev);
    free(infos);
    free(parents);
}

/* The listeners' TASK_END of a completion (also of a task that ends after its job did, so that
 * every started task is seen ending). */
void cs_dag_post_task_end(scheduler *s, const completion *c, const cs_accumulable *accs, int naccs)
{
    const task_desc *t = c->task;
    const task_result *r = &c->result;
    const sched_task *stk = (const sched_task *)t;
    cs_task_end_reason why;
    cs_dag_task_end_reason(t, r, &why);
    cs_event ev = {.kind = CS_EV_TASK_END,
                   .stage_id = t->stage_id,
                   .stage_attempt = t->stage_attempt,
                   .task_id = t->task_id,
                   .partition = t->partition,
                   .attempt = t->attempt,
                   .executor_id = stk->started && stk->executor[0] ? stk->executor : "driver",
                   .host = stk->started && stk->host[0] ? stk->host : "localhost",
                   .locality = stk->started ? stk->locality : 0,
                   .succeeded = r->status == TASK_OK,
                   .reason = r->error,
                   .task_type = stk->st->dep ? "ShuffleMapTask" : "ResultTask",
                   .metrics = r->metrics,
                   .job_id = t->job_id,
                   .accumulables = accs,
                   .num_accumulables = naccs,
                   .end_reason = r->status != TASK_OK && why.kind != CS_END_EXCEPTION ? &why : NULL,
                   .updated_blocks = r->updated_blocks,
                   .num_updated_blocks = r->num_updated_blocks};
    cs_dag_post(s, &ev);
}

void cs_scheduler_task_started(scheduler *s, const task_desc *t, const char *executor_id,
                               const char *host, int locality)
{
    sched_task *stk = (sched_task *)t;
    stk->started = true;
    stk->locality = locality;
    cs_str_copy(stk->executor, sizeof stk->executor, executor_id);
    cs_str_copy(stk->host, sizeof stk->host, host);
    if (s->alloc) cs_am_task_started(s->alloc, executor_id);
    cs_event ev = {.kind = CS_EV_TASK_START,
                   .stage_id = t->stage_id,
                   .stage_attempt = t->stage_attempt,
                   .task_id = t->task_id,
                   .partition = t->partition,
                   .attempt = t->attempt,
                   .executor_id = executor_id,
                   .host = host,
                   .locality = locality,
                   .task_type = stk->st->dep ? "ShuffleMapTask" : "ResultTask",
                   .job_id = t->job_id};
    cs_dag_post(s, &ev);
}

/* The job's local properties as Spark's JobStart carries them: key, value pairs in props_out
 * (room for 10). Returns how many strings. */
static int job_properties_pairs(const job_properties *p, const char **props_out)
{
    int n = 0;
    if (p->description) {
        props_out[n++] = "spark.job.description";
        props_out[n++] = p->description;
    }
    if (p->group_id) {
        props_out[n++] = "spark.jobGroup.id";
        props_out[n++] = p->group_id;
        props_out[n++] = "spark.job.interruptOnCancel";
        props_out[n++] = p->interrupt_on_cancel ? "true" : "false";
    }
    if (p->sql_execution_id) {
        props_out[n++] = "spark.sql.execution.id";
        props_out[n++] = p->sql_execution_id;
    }
    if (p->pool) {
        props_out[n++] = "spark.scheduler.pool";
        props_out[n++] = p->pool;
    }
    return n;
}

/* Posts job j's JobStart (dag_lock held). */
void cs_dag_post_job_start(scheduler *s, job *j, const char **job_name_out)
{
    stage *fin = j->final;
    job_stages js = {0};
    const char *job_name = cs_dag_stage_name(fin);
    if (j->map_stages) /* named after its last stage, as Spark's listener names any job */
        for (int p = 0, last = -1; p < fin->num_parents; p++) {
            all_stages(fin->parents[p], &js);
            if (fin->parents[p]->id <= last) continue;
            last = fin->parents[p]->id;
            job_name = cs_dag_stage_name(fin->parents[p]);
        }
    else
        all_stages(fin, &js);
    const char *pairs[10];
    cs_event ev = {.kind = CS_EV_JOB_START,
                   .job_id = j->id,
                   .stage_ids = js.ids,
                   .num_stage_ids = js.n,
                   .stage_num_tasks = js.ntasks,
                   .stage_num_parents = js.nparents,
                   .stage_parents = js.parents,
                   .stage_names = js.names,
                   .job_properties = pairs,
                   .num_job_properties = job_properties_pairs(j->props, pairs) / 2,
                   .stage_name = job_name};
    cs_dag_post(s, &ev);
    CS_INFO("scheduler", "job=%d event=started stages=%d tasks=%d name=%s", j->id, js.n,
            fin->num_tasks, cs_log_quote(job_name));
    *job_name_out = job_name;
    free(js.ids);
    free(js.names);
    free(js.ntasks);
    free(js.nparents);
    free(js.parents);
}
