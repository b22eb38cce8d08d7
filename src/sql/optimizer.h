/*
 * optimizer.h — Spark's Optimizer in C: rewrites a resolved logical plan (analyzer.h) into an
 * equivalent one that is cheaper to run, by batches of rules run to a fixed point as Catalyst's
 * RuleExecutor does. The planner (planner.h) takes its output.
 *
 * What an optimized tree looks like (what the planner may rely on):
 *   - SUBQUERY_ALIAS, WITH and HINT nodes are gone (a BROADCAST / MERGE / SHUFFLE_HASH hint is
 *     kept on its join as join_hint, left / right); DISTINCT is an AGGREGATE over every column;
 *     INTERSECT / EXCEPT [ALL] are semi / anti joins (DISTINCT) or the Spark rewrites (ALL);
 *   - constant expressions are folded to literals (ConstantFolding, NullPropagation,
 *     BooleanSimplification, SimplifyCasts, LikeSimplification, ...) and filters that are
 *     always true are gone (always false: an empty LOCAL_RELATION);
 *   - filters are split into conjuncts and pushed as far down as Spark pushes them: through
 *     projects, aggregates (on grouping columns), unions, windows (on partition columns) and
 *     joins (into each side for inner joins, the preserved side's conditions for outer joins;
 *     join conditions that name one side only go into that side); a FILTER sits directly on a
 *     RELATION with the conjuncts the scan can use;
 *   - every JOIN's condition is a conjunction whose equalities between the two sides are the
 *     equi-keys the planner extracts; inner joins with no condition are CROSS; outer joins whose
 *     null side is filtered by a null-rejecting condition became inner / left / right
 *     (EliminateOuterJoin); inner joins are ordered as Spark's ReorderJoin does without CBO
 *     (joins with conditions before cartesian products), or by table statistics (stat_bytes,
 *     stat_rows) when spark.sql.cbo.enabled and spark.sql.cbo.joinReorder.enabled are set;
 *   - correlated subqueries are joins: IN / EXISTS / NOT EXISTS / NOT IN are LEFT_SEMI /
 *     LEFT_ANTI (null-aware for NOT IN) joins, or EXISTENCE joins under OR
 *     (RewritePredicateSubquery); a correlated scalar subquery is a LEFT_OUTER join with its
 *     aggregate grouped by the correlation keys (RewriteCorrelatedScalarSubquery, with the
 *     count bug handled as Spark does). Uncorrelated scalar subqueries stay as
 *     SCALAR_SUBQUERY expressions (their plans optimized): the planner runs them first;
 *   - columns no one reads are pruned (ColumnPruning): a RELATION's output lists only the
 *     columns read, which is what the scan reads;
 *   - LIMIT is pushed through projects and into both sides of UNION ALL and the preserved side
 *     of outer joins as a local limit (LimitPushDown); SORT + LIMIT stay adjacent (the planner
 *     makes a TopN of them); adjacent projects and filters are combined.
 *
 * Ownership: the input plan is read only; rewritten nodes are made in `arena` (unchanged
 * subtrees are shared). Expression ids come from the catalog (cs_catalog_next_expr_id).
 * Single-threaded.
 */
#ifndef CSPARK_SQL_OPTIMIZER_H
#define CSPARK_SQL_OPTIMIZER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "sql/catalog.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

/* The settings the rules read (Spark's keys; cs_sql_optimizer_conf_default gives Spark 4's
 * defaults). */
typedef struct cs_sql_optimizer_conf {
    bool cbo;          /* spark.sql.cbo.enabled (false) */
    bool join_reorder; /* spark.sql.cbo.joinReorder.enabled (false) */
    bool cross_join;   /* spark.sql.crossJoin.enabled (true): implicit cartesian products */
    /* spark.sql.autoBroadcastJoinThreshold (10 MB; -1 none): ReorderJoin joins a filtered input
     * whose relation is at most this size as soon as a condition connects it */
    int64_t broadcast_threshold;
    int max_iterations;         /* spark.sql.optimizer.maxIterations (100) */
    const char *excluded_rules; /* spark.sql.optimizer.excludedRules (NULL): rule names */
    /* what ConstantFolding evaluates under, as the engine would at run time */
    bool ansi;              /* spark.sql.ansi.enabled (true) */
    const char *session_tz; /* spark.sql.session.timeZone (NULL: "UTC") */
} cs_sql_optimizer_conf;

void cs_sql_optimizer_conf_default(cs_sql_optimizer_conf *c);

/* Optimizes a resolved plan: 0 and *out, or a negative code with err (an internal error names
 * the rule; a user error, such as a scalar subquery over several columns, carries Spark's
 * error class). */
/* The user current_user() folds to and DESCRIBE DATABASE names as owner: SPARK_USER, else the
 * login name (Spark's Utils.getCurrentUserName). Borrowed from the environment. */
const char *cs_sql_current_user(void);

int cs_sql_optimize(cs_catalog *catalog, cs_sql_arena *arena, const cs_sql_optimizer_conf *conf,
                    const cs_logical_plan *plan, cs_logical_plan **out, cs_error *err);

#endif /* CSPARK_SQL_OPTIMIZER_H */
