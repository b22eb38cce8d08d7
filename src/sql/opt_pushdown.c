/*
 * opt_pushdown.c — moving filters down the plan, as Spark's PushDownPredicates,
 * CombineFilters, PushPredicateThroughJoin and InferFiltersFromConstraints (the part that adds
 * isnotnull on join keys and filter columns, and equalities through join keys).
 *
 * Rules of correctness kept from Spark:
 *   - only deterministic conjuncts move (a non-deterministic one stays where it was, and a
 *     filter below a non-deterministic projection or aggregate does not move past it);
 *   - through an aggregate only conjuncts over grouping columns move; through a window only
 *     those over its partition columns; through a generator those over its child's columns;
 *     into every branch of a UNION ALL with its columns renamed;
 *   - over a join: inner joins take conjuncts into each side and the rest into the join
 *     condition; outer joins only into their preserved side (left outer: left, right outer:
 *     right; full outer: none), the rest stays above; join conditions that name one side
 *     move into that side for inner and semi joins, and into the null side only for outer and
 *     anti joins (a condition on the preserved side of an outer join must stay in the join:
 *     it decides which rows get nulls, it never removes a row).
 * Called by optimizer.c's batches.
 */
#include <string.h>

#include "sql/optimizer_internal.h"

/* ---- conjunct lists ------------------------------------------------------------------------ */

typedef struct conj_list {
    cs_sql_expr **xs;
    int n, cap;
} conj_list;

static void push(cs_opt_ctx *c, conj_list *l, cs_sql_expr *e)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        cs_sql_expr **xs = cs_sql_alloc(c->arena, sizeof *xs * (size_t)cap);
        if (l->n) memcpy(xs, l->xs, sizeof *xs * (size_t)l->n);
        l->xs = xs;
        l->cap = cap;
    }
    l->xs[l->n++] = e;
}

static bool list_has(const conj_list *l, const cs_sql_expr *e)
{
    for (int i = 0; i < l->n; i++)
        if (cs_opt_expr_equal(l->xs[i], e)) return true;
    return false;
}

static cs_sql_expr *conj_and(cs_opt_ctx *c, const conj_list *l)
{
    return cs_opt_and_all(c, l->xs, l->n);
}

static cs_logical_plan *filter_over(cs_opt_ctx *c, const conj_list *l, cs_logical_plan *child)
{
    return l->n ? cs_opt_filter(c, conj_and(c, l), child) : child;
}

/* A subquery in e whose plan outputs an attribute of `below` (a self-join of the same
 * relation): the conjunct cannot move there (Spark's canPushThroughCondition). */
static bool subquery_conflicts(const cs_sql_expr *e, const cs_logical_plan *below)
{
    if (!e) return false;
    if (e->subquery) {
        for (int i = 0; i < e->subquery->n_output; i++)
            if (cs_opt_output_find(below, e->subquery->output[i]->id)) return true;
    }
    for (int i = 0; i < e->n_args; i++)
        if (subquery_conflicts(e->args[i], below)) return true;
    return false;
}

/* A scalar subquery that reads the enclosing query (a pulled-up condition, or outer
 * references left in its plan): RewriteCorrelatedScalarSubquery must see it where it is. */
static bool correlated_scalar(cs_opt_ctx *c, const cs_sql_expr *e)
{
    if (!e) return false;
    if (e->kind == CS_EX_SCALAR_SUBQUERY) {
        if (e->join_cond) return true;
        cs_opt_attrs refs = {0};
        cs_opt_refs(c, e, &refs);
        if (refs.n) return true;
    }
    for (int i = 0; i < e->n_args; i++)
        if (correlated_scalar(c, e->args[i])) return true;
    return false;
}

/* Spark's canEvaluateWithinJoin: deterministic, no IN / EXISTS subquery, no correlated scalar
 * subquery (an uncorrelated one becomes a literal). */
static bool can_evaluate_within_join(cs_opt_ctx *c, const cs_sql_expr *e)
{
    return cs_opt_deterministic(e) && !cs_opt_contains_kind(e, CS_EX_IN_SUBQUERY) &&
           !cs_opt_contains_kind(e, CS_EX_EXISTS) && !correlated_scalar(c, e);
}

/* ---- filters through unary nodes ----------------------------------------------------------- */

/* Filter(cond) over u, whose child is g: the deterministic conjuncts `pushable` accepts go
 * below u (rewritten by `rewrite` when set), the rest stay above. */
typedef bool (*pushable_fn)(cs_opt_ctx *c, const cs_sql_expr *conj, const cs_logical_plan *u);

static cs_logical_plan *push_through_unary(cs_opt_ctx *c, cs_logical_plan *f, cs_logical_plan *u,
                                           pushable_fn ok, cs_sql_expr *const *aliases,
                                           int n_aliases)
{
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, f->condition, &conj);
    conj_list down = {0}, up = {0};
    bool blocked = false; /* conjuncts after a non-deterministic one keep their order above */
    const cs_logical_plan *g = u->children[0];
    for (int i = 0; i < n; i++) {
        if (!cs_opt_deterministic(conj[i])) blocked = true;
        cs_sql_expr *moved =
            n_aliases ? cs_opt_replace_alias(c, conj[i], aliases, n_aliases) : conj[i];
        /* what moves must read only g's columns, also through a subquery's outer references
         * (which the alias replacement does not enter) */
        if (!blocked && ok(c, conj[i], u) && !subquery_conflicts(conj[i], g) &&
            cs_opt_refs_within(moved, g->output, g->n_output))
            push(c, &down, moved);
        else
            push(c, &up, conj[i]);
    }
    if (!down.n) return f;
    cs_logical_plan *nu = cs_opt_with_child(c, u, filter_over(c, &down, u->children[0]));
    return filter_over(c, &up, nu);
}

static bool refs_in_child(cs_opt_ctx *c, const cs_sql_expr *e, const cs_logical_plan *u)
{
    (void)c;
    const cs_logical_plan *g = u->children[0];
    return cs_opt_refs_within(e, g->output, g->n_output);
}

static bool any_pushable(cs_opt_ctx *c, const cs_sql_expr *e, const cs_logical_plan *u)
{
    (void)c;
    (void)u;
    (void)e;
    return true;
}

/* Aggregate: the conjunct, with the aggregate's non-aggregate aliases replaced, reads only the
 * child's columns and reads something (a constant predicate stays: it decides whether a
 * global aggregate returns its row). */
static bool agg_pushable(cs_opt_ctx *c, const cs_sql_expr *e, const cs_logical_plan *u)
{
    cs_opt_attrs refs = {0};
    cs_opt_refs(c, e, &refs);
    if (refs.n == 0) return false;
    cs_sql_expr *r = cs_opt_replace_alias(c, (cs_sql_expr *)e, u->exprs, u->n_exprs);
    if (cs_opt_contains_kind(r, CS_EX_AGG) || cs_sql_expr_has_python_agg(r)) return false;
    return refs_in_child(c, r, u);
}

/* Window: only the partition columns. */
static bool window_pushable(cs_opt_ctx *c, const cs_sql_expr *e, const cs_logical_plan *u)
{
    cs_opt_attrs refs = {0};
    cs_opt_refs(c, e, &refs);
    for (int i = 0; i < refs.n; i++) {
        bool in = false;
        for (int k = 0; !in && k < u->n_partition; k++)
            in = u->partition[k]->kind == CS_EX_ATTR && u->partition[k]->id == refs.ids[i];
        if (!in) return false;
    }
    return true;
}

static cs_sql_expr *rename_one(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)c;
    cs_logical_plan **pair = ud; /* [union, branch] */
    if (e->kind != CS_EX_ATTR) return e;
    int i = cs_opt_output_index(pair[0], e->id);
    return i >= 0 && i < pair[1]->n_output ? pair[1]->output[i] : e;
}

/* Filter over UNION ALL: the deterministic conjuncts into every branch. */
static cs_logical_plan *push_through_union(cs_opt_ctx *c, cs_logical_plan *f, cs_logical_plan *u)
{
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, f->condition, &conj);
    conj_list down = {0}, up = {0};
    for (int i = 0; i < n; i++) {
        if (cs_opt_deterministic(conj[i]) && !cs_opt_has_subquery(conj[i]))
            push(c, &down, conj[i]);
        else
            push(c, &up, conj[i]);
    }
    if (!down.n) return f;
    cs_logical_plan **kids = cs_sql_alloc(c->arena, sizeof *kids * (size_t)u->n_children);
    cs_sql_expr *cond = conj_and(c, &down);
    for (int k = 0; k < u->n_children; k++) {
        cs_logical_plan *pair[2] = {u, u->children[k]};
        cs_sql_expr *ck = k == 0 ? cond : cs_opt_expr_up(c, cond, rename_one, pair);
        kids[k] = cs_opt_filter(c, ck, u->children[k]);
    }
    return filter_over(c, &up, cs_opt_with_children(c, u, kids));
}

/* Filter(fc) over Filter(nc): one filter, the lower's conjuncts first (CombineFilters). */
static cs_logical_plan *combine_filters(cs_opt_ctx *c, cs_logical_plan *f, cs_logical_plan *lower)
{
    if (!cs_opt_deterministic(lower->condition)) return f;
    cs_sql_expr **lc, **uc;
    int nl = cs_opt_split_conjuncts(c, lower->condition, &lc);
    int nu = cs_opt_split_conjuncts(c, f->condition, &uc);
    conj_list all = {0};
    for (int i = 0; i < nl; i++)
        push(c, &all, lc[i]);
    for (int i = 0; i < nu; i++)
        if (!list_has(&all, uc[i])) push(c, &all, uc[i]);
    return cs_opt_filter(c, conj_and(c, &all), lower->children[0]);
}

/* ---- joins --------------------------------------------------------------------------------- */

typedef struct split3 {
    conj_list left, right, common;
} split3;

/* Deterministic conjuncts over one side's columns go to that side's list. */
static void split_by_side(cs_opt_ctx *c, cs_sql_expr *cond, const cs_logical_plan *j, split3 *s)
{
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, cond, &conj);
    const cs_logical_plan *l = j->children[0], *r = j->children[1];
    for (int i = 0; i < n; i++) {
        cs_sql_expr *e = conj[i];
        if (cs_opt_deterministic(e) && cs_opt_refs_within(e, l->output, l->n_output) &&
            !subquery_conflicts(e, l))
            push(c, &s->left, e);
        else if (cs_opt_deterministic(e) && cs_opt_refs_within(e, r->output, r->n_output) &&
                 !subquery_conflicts(e, r))
            push(c, &s->right, e);
        else
            push(c, &s->common, e);
    }
}

static bool inner_like(cs_join_type t)
{
    return t == CS_JOIN_INNER || t == CS_JOIN_CROSS;
}

static cs_logical_plan *join_with(cs_opt_ctx *c, cs_logical_plan *j, cs_logical_plan *l,
                                  cs_logical_plan *r, cs_sql_expr *cond)
{
    cs_logical_plan *kids[2] = {l, r};
    cs_logical_plan *nj = cs_opt_with_children(c, j, kids);
    if (nj == j && cond == j->condition) return j;
    if (nj == j) nj = cs_logical_plan_copy(c->arena, j);
    nj->condition = cond;
    return nj;
}

/* Filter over a join (PushPredicateThroughJoin's first case). */
static cs_logical_plan *push_filter_into_join(cs_opt_ctx *c, cs_logical_plan *f, cs_logical_plan *j)
{
    split3 s = {0};
    split_by_side(c, f->condition, j, &s);
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    if (inner_like(j->join_type)) {
        conj_list in_join = {0}, above = {0};
        for (int i = 0; i < s.common.n; i++) {
            if (can_evaluate_within_join(c, s.common.xs[i]))
                push(c, &in_join, s.common.xs[i]);
            else
                push(c, &above, s.common.xs[i]);
        }
        if (!s.left.n && !s.right.n && !in_join.n) return f;
        cs_sql_expr *cond = cs_opt_and(c, j->condition, conj_and(c, &in_join));
        cs_logical_plan *nj =
            join_with(c, j, filter_over(c, &s.left, l), filter_over(c, &s.right, r), cond);
        return filter_over(c, &above, nj);
    }
    conj_list above = s.common;
    if (j->join_type == CS_JOIN_RIGHT_OUTER) {
        if (!s.right.n) return f;
        for (int i = 0; i < s.left.n; i++)
            push(c, &above, s.left.xs[i]);
        cs_logical_plan *nj = join_with(c, j, l, filter_over(c, &s.right, r), j->condition);
        return filter_over(c, &above, nj);
    }
    if (j->join_type == CS_JOIN_LEFT_OUTER || j->join_type == CS_JOIN_LEFT_SEMI ||
        j->join_type == CS_JOIN_LEFT_ANTI || j->join_type == CS_JOIN_EXISTENCE) {
        if (!s.left.n) return f;
        for (int i = 0; i < s.right.n; i++)
            push(c, &above, s.right.xs[i]);
        cs_logical_plan *nj = join_with(c, j, filter_over(c, &s.left, l), r, j->condition);
        return filter_over(c, &above, nj);
    }
    return f; /* FULL OUTER: nothing moves */
}

/* A join's own condition (PushPredicateThroughJoin's second case). */
static cs_logical_plan *push_join_condition(cs_opt_ctx *c, cs_logical_plan *j)
{
    if (!j->condition) return j;
    split3 s = {0};
    split_by_side(c, j->condition, j, &s);
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    switch (j->join_type) {
    case CS_JOIN_INNER:
    case CS_JOIN_CROSS:
    case CS_JOIN_LEFT_SEMI:
        if (!s.left.n && !s.right.n) return j;
        return join_with(c, j, filter_over(c, &s.left, l), filter_over(c, &s.right, r),
                         conj_and(c, &s.common));
    case CS_JOIN_RIGHT_OUTER: {
        if (!s.left.n) return j;
        conj_list keep = s.right;
        for (int i = 0; i < s.common.n; i++)
            push(c, &keep, s.common.xs[i]);
        return join_with(c, j, filter_over(c, &s.left, l), r, conj_and(c, &keep));
    }
    case CS_JOIN_LEFT_OUTER:
    case CS_JOIN_LEFT_ANTI:
    case CS_JOIN_EXISTENCE: {
        if (!s.right.n) return j;
        conj_list keep = s.left;
        for (int i = 0; i < s.common.n; i++)
            push(c, &keep, s.common.xs[i]);
        return join_with(c, j, l, filter_over(c, &s.right, r), conj_and(c, &keep));
    }
    case CS_JOIN_FULL_OUTER:
        return j;
    }
    return j;
}

/* ---- the rules ----------------------------------------------------------------------------- */

static cs_logical_plan *push_filter(cs_opt_ctx *c, cs_logical_plan *f)
{
    cs_logical_plan *u = f->children[0];
    switch (u->kind) {
    case CS_LP_FILTER:
        return combine_filters(c, f, u);
    case CS_LP_PROJECT:
        if (!cs_opt_deterministic_list(u->exprs, u->n_exprs)) return f;
        return push_through_unary(c, f, u, any_pushable, u->exprs, u->n_exprs);
    case CS_LP_AGGREGATE:
        if (!u->n_group_by || !cs_opt_deterministic_list(u->exprs, u->n_exprs)) return f;
        return push_through_unary(c, f, u, agg_pushable, u->exprs, u->n_exprs);
    case CS_LP_WINDOW:
        for (int i = 0; i < u->n_partition; i++)
            if (u->partition[i]->kind != CS_EX_ATTR) return f;
        return push_through_unary(c, f, u, window_pushable, NULL, 0);
    case CS_LP_GENERATE:
    case CS_LP_EXPAND:
        return push_through_unary(c, f, u, refs_in_child, NULL, 0);
    case CS_LP_SORT:
    case CS_LP_DISTINCT:
        return push_through_unary(c, f, u, refs_in_child, NULL, 0);
    case CS_LP_REPARTITION:
        if (!cs_opt_deterministic_list(u->exprs, u->n_exprs)) return f;
        return push_through_unary(c, f, u, refs_in_child, NULL, 0);
    case CS_LP_SET_OP:
        if (u->set_op != CS_SET_UNION || !u->all) return f;
        return push_through_union(c, f, u);
    case CS_LP_JOIN:
        return push_filter_into_join(c, f, u);
    default:
        return f;
    }
}

static cs_logical_plan *push_down_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind == CS_LP_FILTER) return push_filter(c, p);
    if (p->kind == CS_LP_JOIN) return push_join_condition(c, p);
    return p;
}

int cs_opt_push_down_predicates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_down(c, p, push_down_node, NULL);
    return 0;
}

static cs_logical_plan *push_join_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind == CS_LP_FILTER && p->children[0]->kind == CS_LP_JOIN)
        return push_filter_into_join(c, p, p->children[0]);
    if (p->kind == CS_LP_JOIN) return push_join_condition(c, p);
    return p;
}

int cs_opt_push_predicate_through_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                       cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_down(c, p, push_join_node, NULL);
    return 0;
}

/* ---- PushExtraPredicateThroughJoin -------------------------------------------------------- */

/* The part of e that reads only `side`'s columns and is implied by e (Spark's
 * extractPredicatesWithinOutputSet): AND keeps either side's part, OR needs both. */
static cs_sql_expr *within_side(cs_opt_ctx *c, cs_sql_expr *e, const cs_logical_plan *side)
{
    if (cs_opt_is_call(e, "and", 2)) {
        cs_sql_expr *l = within_side(c, e->args[0], side);
        cs_sql_expr *r = within_side(c, e->args[1], side);
        return l && r ? cs_opt_and(c, l, r) : l ? l : r;
    }
    if (cs_opt_is_call(e, "or", 2)) {
        cs_sql_expr *l = within_side(c, e->args[0], side);
        cs_sql_expr *r = l ? within_side(c, e->args[1], side) : NULL;
        return l && r ? cs_opt_or(c, l, r) : NULL;
    }
    return cs_opt_refs_within(e, side->output, side->n_output) ? e : NULL;
}

static cs_logical_plan *extra_predicates(cs_opt_ctx *c, cs_logical_plan *j, void *ud)
{
    (void)ud;
    if (j->kind != CS_LP_JOIN || !j->condition || j->join_type == CS_JOIN_FULL_OUTER) return j;
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, j->condition, &conj);
    conj_list le = {0}, re = {0};
    for (int i = 0; i < n; i++) {
        cs_opt_attrs refs = {0};
        cs_opt_refs(c, conj[i], &refs);
        if (!cs_opt_deterministic(conj[i]) || refs.n == 0 ||
            cs_opt_refs_within(conj[i], l->output, l->n_output) ||
            cs_opt_refs_within(conj[i], r->output, r->n_output))
            continue;
        cs_sql_expr *x = within_side(c, conj[i], l);
        if (x) push(c, &le, x);
        x = within_side(c, conj[i], r);
        if (x) push(c, &re, x);
    }
    bool left_ok = inner_like(j->join_type) || j->join_type == CS_JOIN_LEFT_SEMI ||
                   j->join_type == CS_JOIN_RIGHT_OUTER;
    bool right_ok = inner_like(j->join_type) || j->join_type == CS_JOIN_LEFT_SEMI ||
                    j->join_type == CS_JOIN_LEFT_OUTER || j->join_type == CS_JOIN_LEFT_ANTI ||
                    j->join_type == CS_JOIN_EXISTENCE;
    cs_logical_plan *nl = left_ok ? filter_over(c, &le, l) : l;
    cs_logical_plan *nr = right_ok ? filter_over(c, &re, r) : r;
    return join_with(c, j, nl, nr, j->condition);
}

int cs_opt_push_extra_predicates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, extra_predicates, NULL);
    return 0;
}

/* ---- InferFiltersFromConstraints ----------------------------------------------------------- */

/* Spark's NullIntolerant expressions: null in, null out. */
static bool null_intolerant(const cs_sql_expr *e)
{
    static const char *const fns[] = {
        "=",        "<",     "<=",    ">",     ">=",         "!=",       "+",
        "-",        "*",     "/",     "%",     "div",        "not",      "negative",
        "positive", "like",  "ilike", "rlike", "startswith", "endswith", "contains",
        "abs",      "upper", "lower", "length"};
    if (e->kind == CS_EX_CAST) return e->cast_mode != CS_CAST_TRY;
    if (e->kind != CS_EX_FUNC || !e->fn) return false;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        if (strcmp(e->fn, fns[i]) == 0) return true;
    return false;
}

/* The attributes whose null makes e null (scanNullIntolerantAttribute). */
static void null_intolerant_attrs(cs_opt_ctx *c, const cs_sql_expr *e, conj_list *attrs)
{
    if (e->kind == CS_EX_ATTR) {
        for (int i = 0; i < attrs->n; i++)
            if (attrs->xs[i]->id == e->id) return;
        push(c, attrs, (cs_sql_expr *)e);
        return;
    }
    if (!null_intolerant(e)) return;
    for (int i = 0; i < e->n_args; i++)
        null_intolerant_attrs(c, e->args[i], attrs);
}

static void add_constraint(cs_opt_ctx *c, conj_list *l, cs_sql_expr *e)
{
    if (!list_has(l, e)) push(c, l, e);
}

static cs_sql_expr *is_not_null(cs_opt_ctx *c, cs_sql_expr *a)
{
    return cs_opt_call(c, "isnotnull", &a, 1);
}

/* Conjuncts of cond plus the isnotnull of their nullable null-intolerant attributes. */
static void constraints_of_condition(cs_opt_ctx *c, cs_sql_expr *cond, conj_list *out)
{
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, cond, &conj);
    for (int i = 0; i < n; i++) {
        if (!cs_opt_deterministic(conj[i]) || cs_opt_has_subquery(conj[i])) continue;
        conj_list attrs = {0};
        null_intolerant_attrs(c, conj[i], &attrs);
        for (int k = 0; k < attrs.n; k++)
            if (attrs.xs[k]->nullable) add_constraint(c, out, is_not_null(c, attrs.xs[k]));
        add_constraint(c, out, conj[i]);
    }
}

static void keep_within(cs_opt_ctx *c, const conj_list *in, const cs_logical_plan *p,
                        conj_list *out)
{
    for (int i = 0; i < in->n; i++)
        if (cs_opt_refs_within(in->xs[i], p->output, p->n_output))
            add_constraint(c, out, in->xs[i]);
}

/* What is known true of every row of p (Spark's constraints, the subset the rule uses). */
static void constraints(cs_opt_ctx *c, const cs_logical_plan *p, conj_list *out)
{
    conj_list tmp = {0};
    switch (p->kind) {
    case CS_LP_FILTER:
        constraints(c, p->children[0], &tmp);
        constraints_of_condition(c, p->condition, &tmp);
        keep_within(c, &tmp, p, out);
        return;
    case CS_LP_PROJECT:
    case CS_LP_AGGREGATE:
    case CS_LP_SORT:
    case CS_LP_LIMIT:
    case CS_LP_DISTINCT:
    case CS_LP_REPARTITION:
        constraints(c, p->children[0], &tmp);
        keep_within(c, &tmp, p, out);
        return;
    case CS_LP_JOIN:
        switch (p->join_type) {
        case CS_JOIN_INNER:
        case CS_JOIN_CROSS:
            constraints(c, p->children[0], &tmp);
            constraints(c, p->children[1], &tmp);
            constraints_of_condition(c, p->condition, &tmp);
            break;
        case CS_JOIN_LEFT_SEMI:
            constraints(c, p->children[0], &tmp);
            constraints_of_condition(c, p->condition, &tmp);
            break;
        case CS_JOIN_LEFT_OUTER:
        case CS_JOIN_LEFT_ANTI:
        case CS_JOIN_EXISTENCE:
            constraints(c, p->children[0], &tmp);
            break;
        case CS_JOIN_RIGHT_OUTER:
            constraints(c, p->children[1], &tmp);
            break;
        case CS_JOIN_FULL_OUTER:
            break;
        }
        keep_within(c, &tmp, p, out);
        return;
    default:
        return;
    }
}

static cs_sql_expr *subst_attr(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)c;
    cs_sql_expr **pair = ud; /* [from, to] */
    return e->kind == CS_EX_ATTR && e->id == pair[0]->id ? pair[1] : e;
}

/* Spark's inferAdditionalConstraints: with a = b, a constraint on a holds for b. */
static void infer_equalities(cs_opt_ctx *c, conj_list *cs)
{
    int n = cs->n;
    for (int i = 0; i < n; i++) {
        cs_sql_expr *eq = cs->xs[i];
        if (!cs_opt_is_call(eq, "=", 2) || eq->args[0]->kind != CS_EX_ATTR ||
            eq->args[1]->kind != CS_EX_ATTR)
            continue;
        for (int side = 0; side < 2; side++) {
            cs_sql_expr *pair[2] = {eq->args[side], eq->args[1 - side]};
            if (!cs_col_type_equal(pair[0]->type, pair[1]->type)) continue;
            for (int k = 0; k < n; k++) {
                if (k == i) continue;
                cs_sql_expr *x = cs_opt_expr_up(c, cs->xs[k], subst_attr, pair);
                if (x == cs->xs[k]) continue;
                /* a = b with a = b gives b = b: useless */
                if (cs_opt_is_call(x, "=", 2) && cs_opt_expr_equal(x->args[0], x->args[1]))
                    continue;
                add_constraint(c, cs, x);
            }
        }
    }
}

/* p with a filter of the constraints about its columns it does not already know. */
static cs_logical_plan *infer_new_filter(cs_opt_ctx *c, cs_logical_plan *p, const conj_list *all)
{
    conj_list known = {0}, add = {0};
    constraints(c, p, &known);
    for (int i = 0; i < all->n; i++) {
        cs_sql_expr *e = all->xs[i];
        cs_opt_attrs refs = {0};
        cs_opt_refs(c, e, &refs);
        if (refs.n == 0 || !cs_opt_refs_within(e, p->output, p->n_output)) continue;
        if (list_has(&known, e) || list_has(&add, e)) continue;
        /* isnotnull of an attribute that cannot be null is known */
        if (cs_opt_is_call(e, "isnotnull", 1) && e->args[0]->kind == CS_EX_ATTR) {
            cs_sql_expr *a = cs_opt_output_find(p, e->args[0]->id);
            if (a && !a->nullable) continue;
        }
        push(c, &add, e);
    }
    return filter_over(c, &add, p);
}

static cs_logical_plan *infer_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind == CS_LP_FILTER) {
        conj_list known = {0}, mine = {0}, add = {0};
        constraints(c, p->children[0], &known);
        constraints_of_condition(c, p->condition, &mine);
        infer_equalities(c, &mine);
        cs_sql_expr **conj;
        int n = cs_opt_split_conjuncts(c, p->condition, &conj);
        conj_list have = {0};
        for (int i = 0; i < n; i++)
            push(c, &have, conj[i]);
        for (int i = 0; i < mine.n; i++)
            if (!list_has(&known, mine.xs[i]) && !list_has(&have, mine.xs[i]) &&
                cs_opt_refs_within(mine.xs[i], p->output, p->n_output)) {
                if (cs_opt_is_call(mine.xs[i], "isnotnull", 1) &&
                    mine.xs[i]->args[0]->kind == CS_EX_ATTR) {
                    cs_sql_expr *a = cs_opt_output_find(p, mine.xs[i]->args[0]->id);
                    if (a && !a->nullable) continue;
                }
                push(c, &add, mine.xs[i]);
            }
        if (!add.n) return p;
        for (int i = 0; i < n; i++)
            push(c, &add, conj[i]);
        return cs_opt_filter(c, conj_and(c, &add), p->children[0]);
    }
    if (p->kind != CS_LP_JOIN) return p;
    cs_logical_plan *l = p->children[0], *r = p->children[1];
    conj_list all = {0};
    switch (p->join_type) {
    case CS_JOIN_INNER:
    case CS_JOIN_CROSS:
    case CS_JOIN_LEFT_SEMI:
        constraints(c, l, &all);
        constraints(c, r, &all);
        constraints_of_condition(c, p->condition, &all);
        infer_equalities(c, &all);
        return join_with(c, p, infer_new_filter(c, l, &all), infer_new_filter(c, r, &all),
                         p->condition);
    case CS_JOIN_RIGHT_OUTER:
        constraints(c, r, &all);
        constraints_of_condition(c, p->condition, &all);
        infer_equalities(c, &all);
        return join_with(c, p, infer_new_filter(c, l, &all), r, p->condition);
    case CS_JOIN_LEFT_OUTER:
    case CS_JOIN_LEFT_ANTI:
        constraints(c, l, &all);
        constraints_of_condition(c, p->condition, &all);
        infer_equalities(c, &all);
        return join_with(c, p, l, infer_new_filter(c, r, &all), p->condition);
    default:
        return p;
    }
}

int cs_opt_infer_filters(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, infer_node, NULL);
    return 0;
}
