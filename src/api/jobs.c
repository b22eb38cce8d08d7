/*
 * jobs.c — what a job carries from the API into the scheduler, and job groups: the action's call
 * site ("count at app.so:cspark_main", Spark's job name) and the context's local properties set
 * by cspark_set_job_description / cspark_set_job_group (Spark's spark.job.description,
 * spark.jobGroup.id and spark.job.interruptOnCancel), and cspark_cancel_job_group, which kills
 * the group's running jobs through the scheduler's cancel path (the one the web UI's kill links
 * use). Called by every action of src/api (cs_api_run_job) and by the job's own code.
 *
 * Threads: the properties are the context's, set by the job's thread and read under sc->lock when
 * a job starts (Spark keeps them per thread; a cspark context runs the public API from one thread
 * at a time). cspark_cancel_job_group is called from any other thread of the driver.
 */
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "sched/scheduler.h"

int cs_api_run_job(cspark_context *sc, cspark_rdd *rdd, const int *partitions, int num_partitions,
                   const task_sink *sink, job_result_fn on_result, void *arg, const char *op,
                   const void *caller, cs_error *err)
{
    char call_site[512];
    cs_api_call_site(op, caller, call_site, sizeof call_site);
    job_properties props = {.call_site = call_site};
    pthread_mutex_lock(&sc->lock);
    char *description = sc->job_description ? cs_xstrdup(sc->job_description) : NULL;
    char *group = sc->job_group ? cs_xstrdup(sc->job_group) : NULL;
    props.interrupt_on_cancel = sc->job_interrupt_on_cancel;
    pthread_mutex_unlock(&sc->lock);
    props.description = description;
    props.group_id = group;
    int rc = cs_scheduler_run_job(sc->sched, rdd, partitions, num_partitions, &props, sink,
                                  on_result, arg, err);
    free(description);
    free(group);
    return rc;
}

int cs_api_action_failed(cspark_context *sc, const cs_error *err)
{
    /* CS_ECANCELLED from the scheduler: cancelled on request (cs_scheduler_cancel, _group) */
    return err->code == CS_ECANCELLED ? cs_context_job_cancelled(sc, err)
                                      : cs_context_fail(sc, err);
}

/* Replaces *slot with a copy of value (NULL clears it). sc->lock held. */
static void set_property(char **slot, const char *value)
{
    free(*slot);
    *slot = value ? cs_xstrdup(value) : NULL;
}

int cspark_set_job_description(cspark_context *sc, const char *description)
{
    if (!sc) return cs_context_null_argument("set_job_description", "context");
    pthread_mutex_lock(&sc->lock);
    set_property(&sc->job_description, description);
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_set_job_group(cspark_context *sc, const char *group_id, const char *description,
                         bool interrupt_on_cancel)
{
    if (!sc) return cs_context_null_argument("set_job_group", "context");
    if (!group_id) return cs_context_null_argument("set_job_group", "group id");
    pthread_mutex_lock(&sc->lock); /* as Spark's setJobGroup: the description is the job's */
    set_property(&sc->job_description, description);
    set_property(&sc->job_group, group_id);
    sc->job_interrupt_on_cancel = interrupt_on_cancel;
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_clear_job_group(cspark_context *sc)
{
    if (!sc) return cs_context_null_argument("clear_job_group", "context");
    pthread_mutex_lock(&sc->lock);
    set_property(&sc->job_description, NULL);
    set_property(&sc->job_group, NULL);
    sc->job_interrupt_on_cancel = false;
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_cancel_job_group(cspark_context *sc, const char *group_id)
{
    if (!sc) return cs_context_null_argument("cancel_job_group", "context");
    if (!group_id) return cs_context_null_argument("cancel_job_group", "group id");
    struct scheduler *s = __atomic_load_n(&sc->sched, __ATOMIC_ACQUIRE);
    if (s) cs_scheduler_cancel_group(s, group_id);
    return 0;
}
