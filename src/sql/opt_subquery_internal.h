/*
 * opt_subquery_internal.h — the tree helpers the optimizer's subquery and join rules share
 * (defined in opt_subquery.c, with PullupCorrelatedPredicates and RewritePredicateSubquery;
 * used by opt_scalar_subquery.c and opt_join.c). Private to those files: the helpers are
 * theirs until they are merged with opt_util.c's.
 *
 * Ownership: everything is made in the context's arena; nothing here frees.
 */
#ifndef CSPARK_SQL_OPT_SUBQUERY_INTERNAL_H
#define CSPARK_SQL_OPT_SUBQUERY_INTERNAL_H

#include "sql/optimizer_internal.h"

/* A growing list of expressions in the arena. */
typedef struct cs_optsq_list {
    cs_sql_expr **v;
    int n, cap;
} cs_optsq_list;

/* e rebuilt bottom-up with f applied to every node (f returns its argument to keep it). */
typedef struct cs_optsq_map {
    cs_sql_expr *(*f)(cs_opt_ctx *c, struct cs_optsq_map *m, cs_sql_expr *e);
    void *state;
    int rc; /* set by f on failure */
    cs_error *err;
} cs_optsq_map;

#define CS_OPTSQ_OUTER_NOT_ALLOWED                                                                 \
    "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_ALLOWED"

typedef int (*cs_optsq_node_rule_fn)(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                     cs_error *err);

/* ---- expressions ---- */
void cs_optsq_push(cs_sql_arena *a, cs_optsq_list *l, cs_sql_expr *e);
cs_col_type *cs_optsq_boolean(void);
bool cs_optsq_is_fn(const cs_sql_expr *e, const char *fn); /* a FUNC with canonical name fn */
/* The conjuncts of e (split at `and`) appended to out. */
void cs_optsq_conjuncts(cs_opt_ctx *c, cs_sql_expr *e, cs_optsq_list *out);
cs_sql_expr *cs_optsq_isnull(cs_opt_ctx *c, cs_sql_expr *a);
/* e AS name with expression id `id` (0: a new one). */
cs_sql_expr *cs_optsq_alias(cs_opt_ctx *c, cs_sql_expr *e, const char *name, cs_expr_id id);
/* A literal of type t: *v, or null when v is NULL. */
cs_sql_expr *cs_optsq_literal(cs_opt_ctx *c, cs_col_type *t, const void *v);
bool cs_optsq_is_subquery(const cs_sql_expr *e); /* IN_SUBQUERY, EXISTS, SCALAR_SUBQUERY */
/* e rebuilt bottom-up with m->f applied to every node (not entering subquery plans). */
cs_sql_expr *cs_optsq_xform(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e);
/* A copy of src[0..n) with room for `extra` more. */
cs_sql_expr **cs_optsq_copy_list(cs_opt_ctx *c, cs_sql_expr **src, int n, int extra);
cs_sql_expr *cs_optsq_nullable_attr(cs_opt_ctx *c, cs_sql_expr *a);
int cs_optsq_find_id(cs_sql_expr **v, int n, cs_expr_id id); /* index in v, or -1 */

/* ---- plans ---- */
/* p with m applied to each of its expressions (p itself when none changed; output kept). */
cs_logical_plan *cs_optsq_map_node_exprs(cs_opt_ctx *c, cs_logical_plan *p, cs_optsq_map *m);
/* Whether f holds for a node of one of p's expressions. */
bool cs_optsq_node_has(const cs_logical_plan *p, bool (*f)(const cs_sql_expr *));
/* j's output from its children and type: left (nullable under RIGHT / FULL), then right
 * (nullable under LEFT / FULL) unless semi / anti; an EXISTENCE join's last attribute is
 * `exists` (or its current last one when exists is NULL). */
void cs_optsq_set_join_output(cs_opt_ctx *c, cs_logical_plan *j, cs_sql_expr *exists);
/* A new JOIN, its output set as above. */
cs_logical_plan *cs_optsq_join(cs_opt_ctx *c, cs_logical_plan *l, cs_logical_plan *r,
                               cs_join_type t, cs_sql_expr *cond, cs_sql_expr *exists);
/* Spark's UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY errors: CS_EINVAL with err set. */
int cs_optsq_unsupported(cs_error *err, const char *sub_class, const char *what);
/* p's children rewritten by `whole`, then the plans of p's subquery expressions by `whole`
 * (their correlated predicates pulled up over p when pull_up), then node(p) when not NULL. */
int cs_optsq_transform_up(cs_opt_ctx *c, cs_logical_plan *p, cs_optsq_node_rule_fn whole,
                          bool pull_up, cs_optsq_node_rule_fn node, cs_logical_plan **out,
                          cs_error *err);

#endif /* CSPARK_SQL_OPT_SUBQUERY_INTERNAL_H */
