/*
 * optimizer_internal.h — what the optimizer's files share: the rule context, the rules defined
 * outside optimizer.c (which orders them in batches, as Spark's Optimizer.defaultBatches), and
 * the tree helpers every rule uses (opt_util.c).
 *
 * A rule takes a resolved plan and returns the rewritten plan in *out (p itself when nothing
 * changed: the executor compares pointers to find the fixed point). New nodes and expressions
 * go in c->arena; new expression ids come from cs_catalog_next_expr_id(c->catalog).
 *
 * Ownership: everything in the arena; nothing here frees.
 */
#ifndef CSPARK_SQL_OPTIMIZER_INTERNAL_H
#define CSPARK_SQL_OPTIMIZER_INTERNAL_H

#include "sql/optimizer.h"

typedef struct cs_opt_ctx cs_opt_ctx;
struct cs_opt_ctx {
    cs_catalog *catalog;
    cs_sql_arena *arena;
    const cs_sql_optimizer_conf *conf;
    /* The whole optimizer over one subquery's plan (OptimizeSubqueries runs it on the plans of
     * the uncorrelated scalar subqueries left in expressions); set by optimizer.c, NULL leaves
     * those plans as they are. */
    int (*optimize_plan)(cs_opt_ctx *c, const cs_logical_plan *p, cs_logical_plan **out,
                         cs_error *err);
};

typedef int (*cs_opt_rule_fn)(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                              cs_error *err);

/* ---- opt_subquery.c: subqueries to joins ---- */
int cs_opt_rewrite_predicate_subquery(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                      cs_error *err); /* IN / EXISTS / NOT IN / NOT EXISTS */
int cs_opt_rewrite_scalar_subquery(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                   cs_error *err); /* correlated scalar subqueries */
int cs_opt_pull_up_correlated(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                              cs_error *err); /* PullupCorrelatedPredicates */
/* Optimizes the plans of the subquery expressions of p's nodes (OptimizeSubqueries) with
 * c->optimize_plan; always returns new nodes when p has subqueries: run it Once. */
int cs_opt_subqueries(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err);

/* ---- opt_join.c: joins and set operations ---- */
int cs_opt_reorder_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                        cs_error *err); /* ReorderJoin (and CostBasedJoinReorder with cbo) */
int cs_opt_eliminate_outer_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err);
int cs_opt_rewrite_set_ops(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                           cs_error *err); /* INTERSECT / EXCEPT [ALL] as Spark rewrites them */

#endif /* CSPARK_SQL_OPTIMIZER_INTERNAL_H */
