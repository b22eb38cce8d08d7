/*
 * query_run_internal.h — private to query_run.c and query_adaptive.c: one query's run (Spark's
 * QueryExecution with its AdaptiveSparkPlanExec): its state, and the stage-cutting steps the
 * adaptive waves share with the plain cut. query_run.c cuts stages and runs the final one;
 * query_adaptive.c runs the map stages wave by wave before that (adaptive execution).
 *
 * Single-threaded: the thread running the statement. Nodes given to cs_qrun_keep_cut are
 * freed with the query (qrun_end in query_run.c).
 */
#ifndef CSPARK_SESSION_QUERY_RUN_INTERNAL_H
#define CSPARK_SESSION_QUERY_RUN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "api/context.h"
#include "session/broadcast_jobs.h"
#include "session/query_lineage.h"
#include "session/session_internal.h"
#include "sqlexec/phys_canonical.h"
#include "sqlexec/phys_plan.h"

/* A shuffle whose map stage adaptive execution ran before its reader was built (Spark's
 * ShuffleQueryStageExec): read through SHUFFLE_READ leaves numbered -1 - its index until the
 * reading stage is cut. */
typedef struct materialized {
    shuffle_dep *dep;
    int parts;       /* its reduce partitions */
    bool fixed;      /* REPARTITION(n)'s: its partitions are the user's (never coalesced) */
    uint64_t *bytes; /* per reduce partition (MapOutputStatistics), once its map stage ran */
} materialized;

typedef struct qrun {
    cs_sql_session *s;
    cspark_context *sc;
    const char *text; /* the statement: the jobs' description */
    char group[96];   /* the jobs' group */
    int64_t execution_id;
    char execution_id_text[24]; /* the jobs' spark.sql.execution.id */
    cs_phys_node **cut;         /* subtrees detached at exchanges and unions (freed at the end) */
    int n_cut, cap_cut;
    cs_bcast_jobs *bjobs; /* its broadcast exchanges' jobs (their variables destroyed at the end) */
    cs_phys_node *root;   /* the plan being run (its broadcasts start as soon as they can) */
    cs_sql_adaptive_conf aqe;
    bool reuse; /* spark.sql.exchange.reuse */
    materialized *mat;
    int n_mat, cap_mat;
    cs_phys_canonical_map stage_cache; /* adaptive: q->mat's exchanges by canonical form */
    cs_phys_node **staged;             /* not adaptive: the exchanges given a map stage, */
    shuffle_dep **staged_dep;          /* and their shuffles (a ReusedExchange reads one) */
    int n_staged, cap_staged;
    /* adaptive: the plan's broadcast exchanges whose job runs (by form), and those that read
     * an equal one's instead (bcast_from[i] reads bcast_to[i]) */
    cs_phys_canonical_map bcast_cache;
    cs_phys_node **bcast_run, **bcast_from, **bcast_to;
    int n_bcast_run, n_bcast_alias, cap_bcast_run, cap_bcast_alias;
    cs_query_lineage nodes; /* what it adds to the lineage graph (given back at the end) */
} qrun;
/* Keeps n (a subtree detached from the plan) until the query ends. */
void cs_qrun_keep_cut(qrun *q, cs_phys_node *n);
/* The properties of the query's jobs (call_site: room for 160 bytes). */
job_properties cs_qrun_job_props(const qrun *q, const char *op, char *call_site);
/* A leaf of kind standing for replaced (its schema and id), reading input. */
cs_phys_node *cs_qrun_leaf(cs_phys_kind kind, const cs_phys_node *replaced, int input);
/* Starts every broadcast job of root that can start now. */
int cs_qrun_start_all(qrun *q, cs_phys_node *root, cs_error *err);
/* The map side of exchange ex (its tree cut below it) and the shuffle it writes. */
shuffle_dep *cs_qrun_map_stage(qrun *q, cs_phys_node *ex, cs_error *err);

/* Adaptive execution's waves of map stages over plan (query_adaptive.c). */
int cs_qrun_materialize_stages(qrun *q, cs_phys_node *plan, cs_error *err);

#endif /* CSPARK_SESSION_QUERY_RUN_INTERNAL_H */
