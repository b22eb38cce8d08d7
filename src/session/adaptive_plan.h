/*
 * adaptive_plan.h — the tree questions adaptive execution asks of a physical plan between
 * waves of map stages (session/query_run.c runs the waves): which exchanges can run now, whether
 * a plan has an exchange at all (EXPLAIN's AdaptiveSparkPlan), and whether what sits above a
 * join needs its rows partitioned (a broadcast join may then drop its streamed side's shuffle).
 *
 * Pure functions over borrowed trees; the ready list's arrays are the caller's (free both).
 */
#ifndef CSPARK_SESSION_ADAPTIVE_PLAN_H
#define CSPARK_SESSION_ADAPTIVE_PLAN_H

#include <stdbool.h>

#include "sqlexec/phys_plan.h"

/* Exchanges (not the root) none of whose descendants is an exchange: the map stages adaptive
 * execution can run now, each as its parent and child index. A shuffled hash join's side waits
 * while the other side, which the join materializes first (adaptive_left_first /
 * adaptive_right_first: it may prove small enough to broadcast, and then this side's rows need
 * no shuffle), has not run. */
typedef struct cs_aqe_ready {
    cs_phys_node **parent;
    int *child;
    int n, cap;
} cs_aqe_ready;

/* Appends the ready exchanges below n to r. */
void cs_aqe_find_ready(cs_phys_node *n, cs_aqe_ready *r);
/* Whether n's tree has an exchange or a broadcast exchange (Spark's InsertAdaptiveSparkPlan). */
bool cs_aqe_has_exchange_anywhere(const cs_phys_node *n);
/* A shuffled hash join n (not broadcast) whose sides' shuffles came out lb and rb bytes (-1:
 * not materialized) builds the smaller side when its type gives the same rows either way
 * (inner, left semi, left anti). Returns whether n's build side changed. */
bool cs_aqe_build_smaller_side(cs_phys_node *n, int64_t lb, int64_t rb);

/* Whether the operators from a join up to its stage's boundary (an exchange, or the root) need
 * nothing of how the join's rows are partitioned: then the join's streamed side need not be
 * shuffled. path[0..depth) are the join's ancestors (root first), via[i] the child taken. */
bool cs_aqe_partitioning_unused(cs_phys_node *const *path, const int *via, int depth);

#endif /* CSPARK_SESSION_ADAPTIVE_PLAN_H */
