/*
 * opt_scalar_subquery.c — the optimizer's rules for scalar subqueries, as Catalyst's
 * subquery.scala (the rules for IN / EXISTS and the pull-up of correlated predicates are in
 * opt_subquery.c, whose helpers this file shares through opt_subquery_internal.h):
 *
 *   RewriteCorrelatedScalarSubquery (cs_opt_rewrite_scalar_subquery): a correlated scalar
 *     subquery in a filter, select list or aggregate (Project / SubqueryAlias* over an optional
 *     HAVING filter over an Aggregate, grouped by its correlation columns once pulled up)
 *     becomes a LEFT_OUTER join of the outer plan with the subquery on its join_cond, the
 *     value read from the subquery's first column. When the value over no rows is not surely
 *     null (count is 0), Spark's count-bug fix adds `true AS alwaysTrue` to the subquery and
 *     takes `if(isnull(alwaysTrue), <value over no rows>, value)`; with a HAVING clause, the
 *     clause moves above the join: CASE WHEN isnull(alwaysTrue) THEN <no rows> WHEN NOT
 *     <having> THEN null ELSE value END. Refused (Spark's error classes): a correlated scalar
 *     subquery that is not aggregated, or grouped by other columns than its correlation.
 *   OptimizeSubqueries (cs_opt_subqueries): the plans of the subquery expressions are
 *     optimized by ctx->optimize_plan (a correlated scalar one below its aggregate, which
 *     must survive until its rewrite), and a sort on their top is dropped (a subquery's rows
 *     have no order).
 *
 * Called by optimizer.c's batches; everything is made in the context's arena.
 */
#include <string.h>

#include "sql/opt_subquery_internal.h"

/* ---- RewriteCorrelatedScalarSubquery ----------------------------------------------------- */

static cs_sql_expr *funcn(cs_opt_ctx *c, const char *fn, cs_col_type *t, bool nullable, int n,
                          cs_sql_expr **args)
{
    cs_sql_expr *e = cs_sql_expr_new(c->arena, CS_EX_FUNC, n);
    e->fn = fn;
    e->name = fn;
    memcpy(e->args, args, sizeof *args * (size_t)n);
    e->type = t;
    e->nullable = nullable;
    e->resolved = true;
    return e;
}

/* Functions whose result is null when an argument is null (Spark's NullIntolerant). */
static bool null_intolerant(const cs_sql_expr *e)
{
    static const char *const names[] = {
        "+",        "-",        "*",      "/",    "%",     "div",   "pmod",
        "negative", "positive", "abs",    "=",    "<",     "<=",    ">",
        ">=",       "!=",       "not",    "like", "ilike", "rlike", "substring",
        "upper",    "lower",    "length", "sqrt", "floor", "ceil",  "round"};
    if (e->kind == CS_EX_CAST) return true;
    if (e->kind != CS_EX_FUNC || !e->fn) return false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(e->fn, names[i]) == 0) return true;
    return false;
}

/* Whether e is null for sure (a null literal, or a null-intolerant function of one). */
static bool surely_null(const cs_sql_expr *e)
{
    if (cs_opt_is_null_literal(e)) return true;
    if (e->kind == CS_EX_ALIAS) return surely_null(e->args[0]);
    if (!null_intolerant(e)) return false;
    for (int i = 0; i < e->n_args; i++)
        if (surely_null(e->args[i])) return true;
    return false;
}

typedef struct zero_state {
    const cs_logical_plan *child; /* the plan the expression reads */
} zero_state;

static int zero_of(cs_opt_ctx *c, const cs_logical_plan *p, cs_expr_id id, cs_sql_expr **out,
                   cs_error *err);

static int must_aggregate(cs_error *err)
{
    return cs_optsq_unsupported(
        err,
        "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.MUST_AGGREGATE_CORRELATED_"
        "SCALAR_SUBQUERY",
        "Correlated scalar subqueries must be aggregated to return at most one "
        "row.");
}

/* Attributes of e replaced by their value over no input rows in zs->child. */
static cs_sql_expr *zero_attr_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    zero_state *zs = m->state;
    if (e->kind != CS_EX_ATTR) return e;
    cs_sql_expr *z = NULL;
    m->rc = zero_of(c, zs->child, e->id, &z, m->err);
    return m->rc ? e : z;
}

/* Aggregates replaced by their result over no rows (count: 0, others null), grouping
 * attributes by null. */
static cs_sql_expr *zero_agg_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    if (e->kind == CS_EX_ATTR) return cs_optsq_literal(c, e->type, NULL);
    if (e->kind != CS_EX_AGG) return e;
    if (strcmp(e->fn, "count") == 0 || strcmp(e->fn, "count_if") == 0 ||
        strcmp(e->fn, "approx_count_distinct") == 0) {
        int64_t zero = 0;
        return cs_optsq_literal(c, e->type, &zero);
    }
    if (strcmp(e->fn, "collect_list") == 0 || strcmp(e->fn, "collect_set") == 0) {
        m->rc = must_aggregate(m->err); /* an empty array: not made here */
        return e;
    }
    return cs_optsq_literal(c, e->type, NULL);
}

/* The value of attribute id of the scalar subquery plan p when its aggregate has no input
 * (Spark's evalSubqueryOnZeroTups). */
static int zero_of(cs_opt_ctx *c, const cs_logical_plan *p, cs_expr_id id, cs_sql_expr **out,
                   cs_error *err)
{
    switch (p->kind) {
    case CS_LP_SUBQUERY_ALIAS:
        return zero_of(c, p->children[0], id, out, err);
    case CS_LP_FILTER: {
        cs_sql_expr *v = NULL, *cond = NULL;
        int rc = zero_of(c, p->children[0], id, &v, err);
        if (rc) return rc;
        zero_state zs = {p->children[0]};
        cs_optsq_map m = {zero_attr_f, &zs, 0, err};
        cond = cs_optsq_xform(c, &m, p->condition);
        if (m.rc) return m.rc;
        cs_sql_expr *args[3] = {cond, v, cs_optsq_literal(c, v->type, NULL)};
        *out = funcn(c, "if", v->type, true, 3, args);
        return 0;
    }
    case CS_LP_PROJECT:
    case CS_LP_AGGREGATE: {
        int at = -1;
        for (int i = 0; i < p->n_exprs; i++)
            if (p->exprs[i]->id == id &&
                (p->exprs[i]->kind == CS_EX_ALIAS || p->exprs[i]->kind == CS_EX_ATTR))
                at = i;
        if (at < 0) return must_aggregate(err);
        cs_sql_expr *e = p->exprs[at];
        if (e->kind == CS_EX_ALIAS) e = e->args[0];
        if (p->kind == CS_LP_PROJECT) {
            zero_state zs = {p->children[0]};
            cs_optsq_map m = {zero_attr_f, &zs, 0, err};
            *out = cs_optsq_xform(c, &m, e);
            return m.rc;
        }
        if (e->kind == CS_EX_ATTR) {
            *out = cs_optsq_literal(c, e->type, NULL);
            return 0;
        }
        cs_optsq_map m = {zero_agg_f, NULL, 0, err};
        *out = cs_optsq_xform(c, &m, e);
        return m.rc;
    }
    default:
        return must_aggregate(err);
    }
}

static cs_sql_expr *replace_id_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    const cs_expr_id *ids = m->state; /* old, new */
    if ((e->kind != CS_EX_ATTR && e->kind != CS_EX_ALIAS) || e->id != ids[0]) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    r->id = ids[1];
    return r;
}

/* p with attribute / alias id old renamed new in every node's expressions and outputs. */
static cs_logical_plan *replace_id(cs_opt_ctx *c, cs_logical_plan *p, const cs_expr_id *ids)
{
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    for (int i = 0; i < p->n_children; i++)
        r->children[i] = replace_id(c, p->children[i], ids);
    cs_optsq_map m = {replace_id_f, (void *)ids, 0, NULL};
    cs_logical_plan *x = cs_optsq_map_node_exprs(c, r, &m);
    x->output = cs_optsq_copy_list(c, p->output, p->n_output, 0);
    for (int i = 0; i < p->n_output; i++)
        x->output[i] = cs_optsq_xform(c, &m, p->output[i]);
    return x;
}

static bool is_correlated_scalar(const cs_sql_expr *e)
{
    return e->kind == CS_EX_SCALAR_SUBQUERY && e->join_cond;
}

static cs_sql_expr *collect_scalar_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    cs_optsq_list *subs = m->state;
    if (!is_correlated_scalar(e)) return e;
    cs_optsq_push(c->arena, subs, e);
    return cs_sql_expr_to_attr(c->arena, e->subquery->output[0]);
}

static bool mentions_id(const cs_sql_expr *e, cs_expr_id id)
{
    if (!e) return false;
    if (e->kind == CS_EX_ATTR && e->id == id) return true;
    for (int i = 0; i < e->n_args; i++)
        if (mentions_id(e->args[i], id)) return true;
    return false;
}

/* Every grouping column of the subquery's aggregate must be a correlation column (Spark's
 * NON_CORRELATED_COLUMNS_IN_GROUP_BY): else it returns several rows per outer row. */
static bool grouped_by_keys(const cs_logical_plan *agg, const cs_sql_expr *join_cond)
{
    for (int i = 0; i < agg->n_group_by; i++)
        if (agg->group_by[i]->kind != CS_EX_ATTR || !mentions_id(join_cond, agg->group_by[i]->id))
            return false;
    return true;
}

static cs_sql_expr *case_when(cs_opt_ctx *c, cs_col_type *t, int n, cs_sql_expr **args)
{
    cs_sql_expr *cw = cs_sql_expr_new(c->arena, CS_EX_CASE, n);
    memcpy(cw->args, args, sizeof *args * (size_t)n);
    cw->has_else = n % 2 == 1;
    cw->type = t;
    cw->nullable = true;
    cw->resolved = true;
    return cw;
}

/* child LEFT OUTER JOIN the scalar subquery s, with its value as s's output[0] id (Spark's
 * constructLeftJoins). */
static int left_join_scalar(cs_opt_ctx *c, cs_logical_plan *child, cs_sql_expr *s,
                            cs_logical_plan **out, cs_error *err)
{
    cs_logical_plan *query = s->subquery;
    cs_sql_expr *orig = query->output[0];
    /* the chain: Project / SubqueryAlias*, [having Filter], Aggregate */
    cs_logical_plan *tops[64];
    int nt = 0;
    cs_logical_plan *q = query, *having = NULL;
    while (q->kind == CS_LP_PROJECT || q->kind == CS_LP_SUBQUERY_ALIAS) {
        if (nt == 64) return must_aggregate(err);
        tops[nt++] = q;
        q = q->children[0];
    }
    if (q->kind == CS_LP_FILTER && q->children[0]->kind == CS_LP_AGGREGATE) {
        having = q;
        q = q->children[0];
    }
    if (q->kind != CS_LP_AGGREGATE) return must_aggregate(err);
    cs_logical_plan *agg = q;
    if (!grouped_by_keys(agg, s->join_cond))
        return cs_optsq_unsupported(
            err,
            "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_CORRELATED_COLUMNS_IN_"
            "GROUP_BY",
            "A GROUP BY clause in a scalar correlated subquery cannot contain "
            "non-correlated columns.");
    cs_sql_expr *zero = NULL;
    int rc = zero_of(c, query, orig->id, &zero, err);
    if (rc) return rc;
    cs_sql_expr **cols = cs_optsq_copy_list(c, child->output, child->n_output, 1);
    if (surely_null(zero)) { /* no count bug */
        cs_logical_plan *j = cs_optsq_join(c, child, query, CS_JOIN_LEFT_OUTER, s->join_cond, NULL);
        cols[child->n_output] = cs_optsq_nullable_attr(c, orig);
        *out = cs_opt_project(c, cols, child->n_output + 1, j);
        return 0;
    }
    bool t = true;
    cs_sql_expr *always =
        cs_optsq_alias(c, cs_optsq_literal(c, cs_optsq_boolean(), &t), "alwaysTrue", 0);
    cs_sql_expr *always_ref = cs_optsq_nullable_attr(c, cs_sql_expr_to_attr(c->arena, always));
    cs_expr_id ids[2] = {orig->id, cs_catalog_next_expr_id(c->catalog)};
    cs_optsq_map rep = {replace_id_f, ids, 0, err};
    cs_logical_plan *root = query;
    cs_sql_expr *having_cond = NULL;
    if (having) {
        /* the HAVING clause goes above the join: the plans above it pass the aggregate's
         * columns through */
        root = agg;
        for (int i = nt - 1; i >= 0; i--) {
            if (tops[i]->kind == CS_LP_SUBQUERY_ALIAS) {
                cs_logical_plan *a = cs_logical_plan_copy(c->arena, tops[i]);
                a->children[0] = root;
                a->output = root->output;
                a->n_output = root->n_output;
                root = a;
                continue;
            }
            cs_sql_expr **list =
                cs_optsq_copy_list(c, tops[i]->exprs, tops[i]->n_exprs, agg->n_output);
            int n = tops[i]->n_exprs;
            for (int k = 0; k < agg->n_output; k++)
                if (cs_optsq_find_id(list, n, agg->output[k]->id) < 0) list[n++] = agg->output[k];
            root = cs_opt_project(c, list, n, root);
        }
        having_cond = cs_optsq_xform(c, &rep, having->condition);
    }
    cs_logical_plan *nq = replace_id(c, root, ids);
    cs_sql_expr *result = cs_optsq_xform(c, &rep, zero);
    cs_sql_expr *cond = cs_optsq_xform(c, &rep, s->join_cond);
    cs_sql_expr **right = cs_optsq_copy_list(c, nq->output, nq->n_output, 1);
    right[nq->n_output] = always;
    cs_logical_plan *rp = cs_opt_project(c, right, nq->n_output + 1, nq);
    cs_logical_plan *j = cs_optsq_join(c, child, rp, CS_JOIN_LEFT_OUTER, cond, NULL);
    cs_sql_expr *value = cs_optsq_nullable_attr(c, nq->output[0]);
    cs_sql_expr *v;
    if (!having) {
        cs_sql_expr *args[3] = {cs_optsq_isnull(c, always_ref), result, value};
        v = funcn(c, "if", orig->type, true, 3, args);
    } else {
        cs_sql_expr *args[5] = {cs_optsq_isnull(c, always_ref), result, cs_opt_not(c, having_cond),
                                cs_optsq_literal(c, orig->type, NULL), value};
        v = case_when(c, orig->type, 5, args);
    }
    cols[child->n_output] = cs_optsq_alias(c, v, orig->name, orig->id);
    *out = cs_opt_project(c, cols, child->n_output + 1, j);
    return 0;
}

static int construct_left_joins(cs_opt_ctx *c, cs_logical_plan *child, cs_optsq_list *subs,
                                cs_logical_plan **out, cs_error *err)
{
    for (int i = 0; i < subs->n; i++) {
        int rc = left_join_scalar(c, child, subs->v[i], &child, err);
        if (rc) return rc;
    }
    *out = child;
    return 0;
}

static int scalar_node(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    *out = p;
    if (!cs_optsq_node_has(p, is_correlated_scalar)) return 0;
    if (p->kind != CS_LP_FILTER && p->kind != CS_LP_PROJECT && p->kind != CS_LP_AGGREGATE)
        return cs_optsq_unsupported(
            err, CS_OPTSQ_OUTER_NOT_ALLOWED,
            "a correlated scalar subquery outside a filter, a projection or an "
            "aggregate.");
    cs_optsq_list subs = {0};
    cs_optsq_map m = {collect_scalar_f, &subs, 0, err};
    cs_logical_plan *r = cs_optsq_map_node_exprs(c, p, &m);
    if (r == p) r = cs_logical_plan_copy(c->arena, p);
    int rc = construct_left_joins(c, p->children[0], &subs, &r->children[0], err);
    if (rc) return rc;
    if (p->kind == CS_LP_FILTER) {
        r->output = r->children[0]->output;
        r->n_output = r->children[0]->n_output;
        *out = cs_opt_project(c, cs_optsq_copy_list(c, p->output, p->n_output, 0), p->n_output, r);
        return 0;
    }
    *out = r;
    return 0;
}

int cs_opt_rewrite_scalar_subquery(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                   cs_error *err)
{
    return cs_optsq_transform_up(c, p, cs_opt_rewrite_scalar_subquery, true, scalar_node, out, err);
}

/* ---- OptimizeSubqueries ------------------------------------------------------------------ */

/* Rows of a subquery have no order: a sort on top, or under its top projects (and aliases,
 * when EliminateSubqueryAliases did not run), is dropped (Spark's removeTopLevelSort). */
static cs_logical_plan *without_top_sort(cs_opt_ctx *c, cs_logical_plan *p)
{
    if (p->kind == CS_LP_SORT) return p->children[0];
    if (p->kind != CS_LP_PROJECT && p->kind != CS_LP_SUBQUERY_ALIAS) return p;
    cs_logical_plan *child = without_top_sort(c, p->children[0]);
    if (child == p->children[0]) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->children[0] = child;
    return r;
}

/* A correlated scalar subquery (Project* [Filter] Aggregate once pulled up) is optimized below
 * its aggregate: grouped by the correlation, the aggregate of an empty input would become an
 * empty relation (PropagateEmptyRelation) and take with it the value of no rows that
 * RewriteCorrelatedScalarSubquery needs (count: 0). */
static int optimize_below_aggregate(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                    cs_error *err)
{
    *out = p;
    if (p->kind == CS_LP_AGGREGATE) {
        cs_logical_plan *child = NULL;
        int rc = c->optimize_plan(c, p->children[0], &child, err);
        if (rc || child == p->children[0]) return rc;
        *out = cs_logical_plan_copy(c->arena, p);
        (*out)->children[0] = child;
        return 0;
    }
    if (p->n_children != 1 ||
        (p->kind != CS_LP_PROJECT && p->kind != CS_LP_SUBQUERY_ALIAS && p->kind != CS_LP_FILTER))
        return c->optimize_plan(c, p, out, err);
    cs_logical_plan *child = NULL;
    int rc = optimize_below_aggregate(c, p->children[0], &child, err);
    if (rc || child == p->children[0]) return rc;
    *out = cs_logical_plan_copy(c->arena, p);
    (*out)->children[0] = child;
    return 0;
}

static cs_sql_expr *optimize_sub_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    if (!cs_optsq_is_subquery(e)) return e;
    cs_logical_plan *np = e->subquery;
    if (c->optimize_plan) {
        m->rc = is_correlated_scalar(e) ? optimize_below_aggregate(c, e->subquery, &np, m->err)
                                        : c->optimize_plan(c, e->subquery, &np, m->err);
        if (m->rc) return e;
    }
    np = without_top_sort(c, np);
    if (np == e->subquery) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    r->subquery = np;
    return r;
}

static int optimize_subs_node(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                              cs_error *err)
{
    *out = p;
    if (!cs_optsq_node_has(p, cs_optsq_is_subquery)) return 0;
    cs_optsq_map m = {optimize_sub_f, NULL, 0, err};
    cs_logical_plan *r = cs_optsq_map_node_exprs(c, p, &m);
    if (m.rc) return m.rc;
    *out = r;
    return 0;
}

int cs_opt_subqueries(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    return cs_optsq_transform_up(c, p, NULL, false, optimize_subs_node, out, err);
}
