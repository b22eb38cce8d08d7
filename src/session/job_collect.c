/*
 * job_collect.c — a job that collects every record of a query's stage node on the driver (see
 * session_internal.h): the final stage's rows (query_run.c), a range exchange's samples, a
 * broadcast exchange's rows (broadcast_jobs.c, on a thread of its own). The records of each
 * partition arrive as the batch its task returned and are kept as they are (moved, not copied).
 * Ownership: the caller's cs_session_collected holds the batches until cs_session_collected_free.
 */
#include <stdlib.h>

#include "api/context.h"
#include "plan/rdd.h"
#include "sched/scheduler.h"
#include "common/err.h"
#include "session/session_internal.h"

static void on_collect(void *arg, int partition, task_result *r)
{
    cs_session_collected *c = arg;
    if (partition < 0 || partition >= c->n) return;
    cs_batch_free(&c->parts[partition]);
    c->parts[partition] = r->data; /* moved */
    cs_batch_init(&r->data);
}

void cs_session_collected_free(cs_session_collected *c)
{
    for (int i = 0; i < c->n; i++)
        cs_batch_free(&c->parts[i]);
    free(c->parts);
    c->parts = NULL;
    c->n = 0;
}

int cs_session_collect(cspark_context *sc, cspark_rdd *r, const job_properties *props,
                       cs_session_collected *c, cs_error *err)
{
    c->n = r->num_partitions;
    c->parts = cs_xcalloc((size_t)c->n + 1, sizeof *c->parts);
    for (int i = 0; i < c->n; i++)
        cs_batch_init(&c->parts[i]);
    if (sc->failed || sc->interrupted)
        return cs_error_set(err, CS_ECANCELLED, "the application is stopping");
    task_sink sink = {.kind = SINK_COLLECT};
    int rc = cs_scheduler_run_job(sc->sched, r, NULL, 0, props, &sink, on_collect, c, err);
    return rc < 0 ? cs_session_job_error(err) : 0;
}
