/*
 * stage_cut.h — questions the driver asks of a physical subtree while cutting a query's plan
 * into stages (session/query_run.c): how many shuffles its stage reads, whether it reads a range
 * exchange (whose partitions are known only once sampled), and how many partitions a
 * CoalesceExec makes of its child's.
 *
 * Pure functions over borrowed trees.
 */
#ifndef CSPARK_SESSION_STAGE_CUT_H
#define CSPARK_SESSION_STAGE_CUT_H

#include <stdbool.h>

#include "sqlexec/phys_plan.h"

/* The shuffles a subtree's stage reads (exchanges not below another exchange, and the
 * materialized shuffles adaptive execution left as SHUFFLE_READ leaves numbered below 0). */
int cs_stage_subtree_reads(const cs_phys_node *n);
/* Whether a subtree's stage reads a RANGE exchange. */
bool cs_stage_reads_range(const cs_phys_node *n);
/* The partitions of Spark's CoalescedRDD over np partitions asked for n (n >= 1): at most n of
 * them (coalesce never adds partitions), and one empty partition for coalesce(1) of none (as
 * CoalesceExec's EmptyRDDWithPartitions); -1 when np is (a subtree without partitions). */
int cs_stage_coalesced_parts(int np, int n);

#endif /* CSPARK_SESSION_STAGE_CUT_H */
