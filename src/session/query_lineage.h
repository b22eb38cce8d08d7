/*
 * query_lineage.h — the lineage nodes and shuffle dependencies one SQL execution adds to the
 * application's graph, given back when the execution ends: its shuffles are removed from the
 * scheduler (their map statuses freed, their files deleted on every executor) and its nodes
 * freed, as Spark's ContextCleaner does once a finished query's ShuffleDependency is no longer
 * referenced (spark.cleaner.referenceTracking, default true; false keeps them until the
 * application stops, as in Spark). A long-lived driver (the Connect server, cspark-sql with
 * many statements) then keeps neither the files nor the nodes of the queries it ran.
 *
 * Called by query_run.c (every node it makes) and query_write.c (the write node), on the
 * query's thread. Ownership: the list owns its arrays; the nodes stay the graph's until
 * cs_query_lineage_release frees them.
 */
#ifndef CSPARK_SESSION_QUERY_LINEAGE_H
#define CSPARK_SESSION_QUERY_LINEAGE_H

#include "api/context.h"
#include "plan/rdd.h"

typedef struct cs_query_lineage {
    cspark_rdd **rdds;
    int n_rdds, cap_rdds;
    shuffle_dep **deps;
    int n_deps, cap_deps;
} cs_query_lineage;

/* Records a node (or dependency) the query made; returns it. */
cspark_rdd *cs_query_lineage_add_rdd(cs_query_lineage *l, cspark_rdd *r);
shuffle_dep *cs_query_lineage_add_dep(cs_query_lineage *l, shuffle_dep *d);
/* The query ended (all its jobs): removes its shuffles and frees its nodes, unless
 * spark.cleaner.referenceTracking is false or the scheduler still needs one of its shuffles
 * (then they stay until the application stops); empties l either way. */
void cs_query_lineage_release(cs_query_lineage *l, cspark_context *sc);

#endif
