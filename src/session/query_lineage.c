/*
 * query_lineage.c — a SQL execution's lineage, given back when it ends (see query_lineage.h).
 */
#include "session/query_lineage.h"

#include <stdlib.h>

#include "common/conf_entries.h"
#include "common/err.h"
#include "sched/scheduler.h"

cspark_rdd *cs_query_lineage_add_rdd(cs_query_lineage *l, cspark_rdd *r)
{
    if (!r) return NULL;
    if (l->n_rdds == l->cap_rdds) {
        l->cap_rdds = l->cap_rdds ? 2 * l->cap_rdds : 16;
        l->rdds = cs_xrealloc(l->rdds, (size_t)l->cap_rdds * sizeof *l->rdds);
    }
    l->rdds[l->n_rdds++] = r;
    return r;
}

shuffle_dep *cs_query_lineage_add_dep(cs_query_lineage *l, shuffle_dep *d)
{
    if (!d) return NULL;
    if (l->n_deps == l->cap_deps) {
        l->cap_deps = l->cap_deps ? 2 * l->cap_deps : 8;
        l->deps = cs_xrealloc(l->deps, (size_t)l->cap_deps * sizeof *l->deps);
    }
    l->deps[l->n_deps++] = d;
    return d;
}

void cs_query_lineage_release(cs_query_lineage *l, cspark_context *sc)
{
    bool tracking = true;
    cs_error err = {0};
    if (cs_conf_entry_bool(sc->conf, "spark.cleaner.referenceTracking", &tracking, &err) < 0)
        tracking = true; /* cs_conf_validate refused a bad value before the context started */
    if (tracking && sc->sched && cs_scheduler_remove_shuffles(sc->sched, l->deps, l->n_deps))
        cs_lineage_release(&sc->graph, l->rdds, l->n_rdds, l->deps, l->n_deps);
    free(l->rdds);
    free(l->deps);
    *l = (cs_query_lineage){0};
}
