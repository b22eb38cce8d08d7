/*
 * jobs.c — what a job carries from the API into the scheduler, and job groups: the action's call
 * site ("count at app.so:cspark_main", Spark's job name) and the calling thread's local
 * properties set by cspark_set_job_description / cspark_set_job_group (Spark's
 * spark.job.description, spark.jobGroup.id and spark.job.interruptOnCancel; with
 * cspark_set_local_property also spark.scheduler.pool, the FAIR scheduling pool), and
 * cspark_cancel_job_group, which kills the group's running jobs through the scheduler's cancel
 * path (the one the web UI's kill links use). Called by every action of src/api (cs_api_run_job)
 * and by the job's own code.
 *
 * Threads: as Spark's SparkContext.localProperties, the properties are each thread's own: the
 * context keeps one entry per thread that set some (sc->local_props, under sc->lock), read when
 * that thread starts a job, so that two threads running actions at once each name and group
 * their own jobs. A thread starts with none (Spark's child threads inherit their parent's; a
 * cspark thread sets its own). cspark_cancel_job_group is called from any thread.
 * Ownership: the entries and their strings are the context's, freed with it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "api/rdd_internal.h"
#include "sched/scheduler.h"

/* One thread's local properties. */
typedef struct cs_local_props {
    struct cs_local_props *next;
    pthread_t thread;
    char *description; /* spark.job.description, NULL: not set */
    char *group;       /* spark.jobGroup.id, NULL: not set */
    char *pool;        /* spark.scheduler.pool, NULL: not set ("default") */
    bool interrupt_on_cancel;
} cs_local_props;

/* The calling thread's entry, created when `create` (else NULL when it has none). sc->lock held. */
static cs_local_props *thread_props(cspark_context *sc, bool create)
{
    pthread_t self = pthread_self();
    for (cs_local_props *p = sc->local_props; p; p = p->next)
        if (pthread_equal(p->thread, self)) return p;
    if (!create) return NULL;
    cs_local_props *p = cs_xcalloc(1, sizeof *p);
    p->thread = self;
    p->next = sc->local_props;
    sc->local_props = p;
    return p;
}

void cs_context_local_props_free(cspark_context *sc)
{
    while (sc->local_props) {
        cs_local_props *p = sc->local_props;
        sc->local_props = p->next;
        free(p->description);
        free(p->group);
        free(p->pool);
        free(p);
    }
}

int cs_api_run_job(cspark_context *sc, cspark_rdd *rdd, const int *partitions, int num_partitions,
                   const task_sink *sink, job_result_fn on_result, void *arg, const char *op,
                   const void *caller, cs_error *err)
{
    char call_site[512];
    cs_api_call_site(op, caller, call_site, sizeof call_site);
    job_properties props = {.call_site = call_site};
    pthread_mutex_lock(&sc->lock);
    const cs_local_props *mine = thread_props(sc, false);
    char *description = mine && mine->description ? cs_xstrdup(mine->description) : NULL;
    char *group = mine && mine->group ? cs_xstrdup(mine->group) : NULL;
    char *pool = mine && mine->pool ? cs_xstrdup(mine->pool) : NULL;
    props.interrupt_on_cancel = mine && mine->interrupt_on_cancel;
    pthread_mutex_unlock(&sc->lock);
    props.description = description;
    props.group_id = group;
    props.pool = pool;
    int rc = cs_scheduler_run_job(sc->sched, rdd, partitions, num_partitions, &props, sink,
                                  on_result, arg, err);
    free(description);
    free(group);
    free(pool);
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
    set_property(&thread_props(sc, true)->description, description);
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_set_job_group(cspark_context *sc, const char *group_id, const char *description,
                         bool interrupt_on_cancel)
{
    if (!sc) return cs_context_null_argument("set_job_group", "context");
    if (!group_id) return cs_context_null_argument("set_job_group", "group id");
    pthread_mutex_lock(&sc->lock); /* as Spark's setJobGroup: the description is the job's */
    cs_local_props *p = thread_props(sc, true);
    set_property(&p->description, description);
    set_property(&p->group, group_id);
    p->interrupt_on_cancel = interrupt_on_cancel;
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_clear_job_group(cspark_context *sc)
{
    if (!sc) return cs_context_null_argument("clear_job_group", "context");
    pthread_mutex_lock(&sc->lock);
    cs_local_props *p = thread_props(sc, false);
    if (p) {
        set_property(&p->description, NULL);
        set_property(&p->group, NULL);
        p->interrupt_on_cancel = false;
    }
    pthread_mutex_unlock(&sc->lock);
    return 0;
}

int cspark_set_local_property(cspark_context *sc, const char *key, const char *value)
{
    if (!sc) return cs_context_null_argument("set_local_property", "context");
    if (!key) return cs_context_null_argument("set_local_property", "key");
    static const char *const keys[] = {"spark.scheduler.pool", "spark.job.description",
                                       "spark.jobGroup.id", "spark.job.interruptOnCancel"};
    int k = 0;
    while (k < 4 && strcmp(key, keys[k]) != 0)
        k++;
    if (k == 4 || (k == 3 && value && strcmp(value, "true") != 0 && strcmp(value, "false") != 0)) {
        cs_error e;
        if (k == 4)
            cs_error_set(&e, CS_EINVAL,
                         "set_local_property: unknown key '%s' (expected spark.scheduler.pool, "
                         "spark.job.description, spark.jobGroup.id or spark.job.interruptOnCancel)",
                         key);
        else
            cs_error_set(&e, CS_EINVAL,
                         "set_local_property: invalid value for spark.job.interruptOnCancel: '%s' "
                         "(expected true or false)",
                         value);
        return cs_context_fail(sc, &e);
    }
    pthread_mutex_lock(&sc->lock);
    cs_local_props *p = thread_props(sc, true);
    if (k == 0) set_property(&p->pool, value);
    if (k == 1) set_property(&p->description, value);
    if (k == 2) set_property(&p->group, value);
    if (k == 3) p->interrupt_on_cancel = value && strcmp(value, "true") == 0;
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
