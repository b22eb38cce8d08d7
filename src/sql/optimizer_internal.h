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

/* ---- opt_python_udf.c: ExtractPythonUDFFromJoinCondition, ExtractPythonUDFFromAggregate ---- */
int cs_opt_extract_python_udf_from_join_condition(cs_opt_ctx *c, cs_logical_plan *p,
                                                  cs_logical_plan **out, cs_error *err);
int cs_opt_extract_python_udf_from_aggregate(cs_opt_ctx *c, cs_logical_plan *p,
                                             cs_logical_plan **out, cs_error *err);

/* ---- opt_util.c: tree helpers every rule uses ----
 *
 * Transforms copy only the nodes that change (a callback returns its argument when it leaves
 * it alone), so unchanged subtrees are shared and a rule that changes nothing returns the same
 * pointer. Expression transforms do not enter subquery plans (OptimizeSubqueries does).
 * Attribute sets hold expression ids (Spark's AttributeSet). Nothing here fails: the arena
 * aborts on exhaustion. */
typedef cs_sql_expr *(*cs_opt_expr_fn)(cs_opt_ctx *c, cs_sql_expr *e, void *ud);
typedef cs_logical_plan *(*cs_opt_plan_fn)(cs_opt_ctx *c, cs_logical_plan *p, void *ud);

/* fn applied to every node of e, children first (up) or the node first (down: fn's result's
 * children are then visited). */
cs_sql_expr *cs_opt_expr_up(cs_opt_ctx *c, cs_sql_expr *e, cs_opt_expr_fn fn, void *ud);
cs_sql_expr *cs_opt_expr_down(cs_opt_ctx *c, cs_sql_expr *e, cs_opt_expr_fn fn, void *ud);
/* cs_opt_expr_up over every expression a plan node holds (lists, condition, limit, generator,
 * VALUES rows); p itself when none changed. The node's output is kept. */
cs_logical_plan *cs_opt_node_exprs_up(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_expr_fn fn,
                                      void *ud);
/* fn applied to every plan node, children first (up) or the node first (down). */
cs_logical_plan *cs_opt_plan_up(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_plan_fn fn, void *ud);
cs_logical_plan *cs_opt_plan_down(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_plan_fn fn, void *ud);
/* A copy of p over new children (n = p->n_children) with its output recomputed from them as
 * the analyzer computes it (pass-through nodes: the child's; JOIN: both sides', nullable on
 * an outer join's null side; WINDOW / GENERATE: the child's plus p's own new attributes);
 * p itself when every child is the same. */
cs_logical_plan *cs_opt_with_children(cs_opt_ctx *c, cs_logical_plan *p,
                                      cs_logical_plan **children);
cs_logical_plan *cs_opt_with_child(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan *child);
/* New nodes: output set. cs_opt_unary: a node of kind whose output is its child's (FILTER,
 * LIMIT, REPARTITION, HINT); cs_opt_project's exprs are named expressions (ATTR or ALIAS). */
cs_logical_plan *cs_opt_unary(cs_opt_ctx *c, cs_plan_kind kind, cs_logical_plan *child);
cs_logical_plan *cs_opt_filter(cs_opt_ctx *c, cs_sql_expr *cond, cs_logical_plan *child);
cs_logical_plan *cs_opt_project(cs_opt_ctx *c, cs_sql_expr **exprs, int n, cs_logical_plan *child);
/* An empty LOCAL_RELATION with p's output (PropagateEmptyRelation, always-false filters). */
cs_logical_plan *cs_opt_empty_relation(cs_opt_ctx *c, const cs_logical_plan *p);
bool cs_opt_is_empty_relation(const cs_logical_plan *p);

/* Attribute sets */
typedef struct cs_opt_attrs {
    cs_expr_id *ids;
    int n, cap;
} cs_opt_attrs;
void cs_opt_attrs_add(cs_opt_ctx *c, cs_opt_attrs *s, cs_expr_id id);
bool cs_opt_attrs_has(const cs_opt_attrs *s, cs_expr_id id);
/* The attributes e reads (ATTR nodes, and the outer references of its subqueries' plans). */
void cs_opt_refs(cs_opt_ctx *c, const cs_sql_expr *e, cs_opt_attrs *s);
/* Every attribute the expressions of node p read. */
void cs_opt_node_refs(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s);
/* Whether every attribute e reads is in the output of p (Spark's references.subsetOf). */
bool cs_opt_refs_within(const cs_sql_expr *e, cs_sql_expr *const *attrs, int n);
/* The attribute with this id in p's output, or NULL. */
cs_sql_expr *cs_opt_output_find(const cs_logical_plan *p, cs_expr_id id);
int cs_opt_output_index(const cs_logical_plan *p, cs_expr_id id);

/* Conjuncts: e split at its top-level ANDs into *out (arena array); and back (NULL for 0). */
int cs_opt_split_conjuncts(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr ***out);
cs_sql_expr *cs_opt_and_all(cs_opt_ctx *c, cs_sql_expr **conj, int n);
cs_sql_expr *cs_opt_and(cs_opt_ctx *c, cs_sql_expr *l, cs_sql_expr *r);
cs_sql_expr *cs_opt_or(cs_opt_ctx *c, cs_sql_expr *l, cs_sql_expr *r);
cs_sql_expr *cs_opt_not(cs_opt_ctx *c, cs_sql_expr *e);
/* A resolved call of a builtin by its registry name (isnotnull, =, ...); NULL if it does
 * not resolve (never for the names the rules use). */
cs_sql_expr *cs_opt_call(cs_opt_ctx *c, const char *name, cs_sql_expr **args, int n);
cs_sql_expr *cs_opt_bool_literal(cs_opt_ctx *c, bool v);
cs_sql_expr *cs_opt_null_literal(cs_opt_ctx *c, cs_col_type *t);
/* Literal tests: a boolean literal true / false, a null literal of any type. */
bool cs_opt_is_true(const cs_sql_expr *e);
bool cs_opt_is_false(const cs_sql_expr *e);
bool cs_opt_is_null_literal(const cs_sql_expr *e);
/* FUNC named fn (canonical name) with n_args arguments (-1: any). */
bool cs_opt_is_call(const cs_sql_expr *e, const char *fn, int n_args);

/* Replaces the attributes defined by ALIAS entries of named[0..n) by their definitions (an
 * alias's child renamed to the attribute's name is what Spark's replaceAlias does; here the
 * child itself, names living only in named expressions); ATTR entries stay. */
cs_sql_expr *cs_opt_replace_alias(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr *const *named, int n);
/* Semantic equality (Spark's semanticEquals, without commutative canonicalization). */
bool cs_opt_expr_equal(const cs_sql_expr *a, const cs_sql_expr *b);
/* Spark's deterministic: no rand / randn / uuid / shuffle / monotonically_increasing_id /
 * spark_partition_id / input_file_name, nor first / last aggregates. */
bool cs_opt_deterministic(const cs_sql_expr *e);
bool cs_opt_deterministic_list(cs_sql_expr *const *xs, int n);
/* Foldable: literals and deterministic calls, casts, CASE and IN over foldable children
 * (no attributes, aggregates, windows, subqueries or current_* functions). */
bool cs_opt_foldable(const cs_sql_expr *e);
/* Whether e contains a node of kind (not entering subquery plans). */
bool cs_opt_contains_kind(const cs_sql_expr *e, cs_sql_expr_kind kind);
/* A node's expressions hold a subquery expression. */
bool cs_opt_has_subquery(const cs_sql_expr *e);

/* ---- opt_expr.c: expression rules (each applies to every expression of every node) ---- */
int cs_opt_compute_current_time(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err); /* ComputeCurrentTime: one instant per query */
int cs_opt_replace_expressions(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                               cs_error *err); /* ReplaceExpressions: between as >= AND <= */
int cs_opt_constant_folding(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_error *err);
int cs_opt_null_propagation(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_error *err);
int cs_opt_boolean_simplification(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                  cs_error *err);
int cs_opt_simplify_conditionals(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err);
int cs_opt_simplify_casts(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err);
int cs_opt_like_simplification(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                               cs_error *err);
int cs_opt_optimize_in(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err);
int cs_opt_replace_null_with_false(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                   cs_error *err); /* ReplaceNullWithFalseInPredicate */
int cs_opt_prune_filters(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                         cs_error *err); /* PruneFilters: true filters go, false ones empty */

/* ---- opt_pushdown.c: filters ---- */
int cs_opt_push_down_predicates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err); /* PushDownPredicates (+ CombineFilters) */
int cs_opt_push_predicate_through_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                       cs_error *err);
/* PushExtraPredicateThroughJoin: what a join condition over both sides implies about one
 * side alone ((l1 AND r1) OR (l2 AND r2) implies l1 OR l2), as a filter on that side. Run
 * once (Spark marks the joins it processed). */
int cs_opt_push_extra_predicates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err);
int cs_opt_infer_filters(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                         cs_error *err); /* InferFiltersFromConstraints (isnotnull on keys) */

/* ---- opt_prune.c: columns, projects, aliases, hints, distinct ---- */
int cs_opt_eliminate_subquery_aliases(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                      cs_error *err);
int cs_opt_collapse_repartition(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err);
int cs_opt_resolve_hints(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                         cs_error *err); /* ResolveHints + EliminateResolvedHint */
int cs_opt_replace_distinct(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_error *err); /* ReplaceDistinctWithAggregate */
int cs_opt_column_pruning(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err);
int cs_opt_collapse_project(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_error *err);
int cs_opt_remove_redundant_aliases(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                    cs_error *err);
int cs_opt_remove_noop_operators(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err);
/* ---- opt_distinct_agg.c ---- */
int cs_opt_rewrite_distinct_aggregates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                       cs_error *err); /* RewriteDistinctAggregates */
/* ---- opt_limit.c: limits and empty relations ---- */
int cs_opt_limit_push_down(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err);
int cs_opt_eliminate_limits(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                            cs_error *err);
int cs_opt_propagate_empty_relation(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                    cs_error *err);

#endif /* CSPARK_SQL_OPTIMIZER_INTERNAL_H */
