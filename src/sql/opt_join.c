/*
 * opt_join.c — the optimizer's join and set operation rules, as Catalyst's joins.scala and the
 * set operation rewrites of Optimizer.scala:
 *
 *   ReorderJoin (cs_opt_reorder_join): a tree of inner / cross joins without hints, with the
 *     filters right above its joins, is flattened into its inputs and conjuncts and rebuilt
 *     left-deep in Spark's order: from the first input, the next one joined is the first that
 *     a condition connects to what is joined so far (else the next in order: a cartesian
 *     product), except that a connected small filtered relation (a filter over a relation of at
 *     most spark.sql.autoBroadcastJoinThreshold bytes) goes first, narrowing the rows the big
 *     inputs are joined and shuffled with; each conjunct goes on the lowest join that has its
 *     columns. With
 *     spark.sql.cbo.enabled and spark.sql.cbo.joinReorder.enabled and a size known for every
 *     input (stat_rows, else stat_bytes, of the input or of the relation under its filters and
 *     projects), the inputs are first sorted by that size, so the smallest connected input is
 *     joined next (a greedy order, where Spark's CostBasedJoinReorder runs a dynamic program).
 *     A Project restores the column order when it changed. A tree already in that shape is
 *     returned as it is (the executor's fixed point compares pointers).
 *   EliminateOuterJoin (cs_opt_eliminate_outer_join): a FILTER over an outer join with a
 *     conjunct that is null or false when the null side's columns are null (null-intolerant
 *     predicates, as Spark's canFilterOutNull with the IsNotNull constraints it infers: `u.c >
 *     1`, and also `t.b = u.c`) makes it inner / left / right; an aggregate with only
 *     grouping columns of the preserved side over a LEFT / RIGHT outer join drops the join.
 *   Set operations (cs_opt_rewrite_set_ops):
 *     INTERSECT DISTINCT -> Aggregate(all columns) over LEFT_SEMI join on `l <=> r` per column
 *       (ReplaceIntersectWithSemiJoin + ReplaceDistinctWithAggregate);
 *     EXCEPT DISTINCT -> the same with LEFT_ANTI (ReplaceExceptWithAntiJoin);
 *     INTERSECT ALL / EXCEPT ALL -> not Spark's RewriteIntersectAll / RewriteExceptAll (the
 *       engine has no replicate_rows generator) but a plan of the same multiset that the
 *       planner runs with windows and hash joins: each side numbers the copies of each
 *       distinct row (row_number() OVER (PARTITION BY every column)), and the left side keeps
 *       copy i when the right side has (INTERSECT ALL: LEFT_SEMI) or has not (EXCEPT ALL:
 *       LEFT_ANTI) a copy i of the same row: min(l, r) and max(l - r, 0) copies, as Spark.
 *
 * Called by optimizer.c's batches; everything is made in the context's arena. The tree
 * helpers are opt_subquery.c's (opt_subquery_internal.h).
 */
#include <string.h>

#include "sql/opt_subquery_internal.h"

static cs_sql_expr *bool_fn(cs_opt_ctx *c, const char *fn, bool nullable, cs_sql_expr *a,
                            cs_sql_expr *b)
{
    cs_sql_expr *e = cs_sql_expr_new(c->arena, CS_EX_FUNC, 2);
    e->fn = fn;
    e->name = fn;
    e->args[0] = a;
    e->args[1] = b;
    e->type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    e->nullable = nullable;
    e->resolved = true;
    return e;
}

static bool has_id(cs_sql_expr *const *v, int n, cs_expr_id id)
{
    for (int i = 0; i < n; i++)
        if (v[i]->id == id) return true;
    return false;
}

/* Whether every attribute e reads is one of v[0..n) (and, with nonempty, it reads one). */
static bool refs_within(const cs_sql_expr *e, cs_sql_expr *const *v, int n, int *count)
{
    if (!e) return true;
    if (e->kind == CS_EX_ATTR || e->kind == CS_EX_OUTER_ATTR) {
        if (count) (*count)++;
        return e->kind == CS_EX_ATTR && has_id(v, n, e->id);
    }
    for (int i = 0; i < e->n_args; i++)
        if (!refs_within(e->args[i], v, n, count)) return false;
    /* a subquery's pulled-up correlation reads the outer query's attributes */
    if (!refs_within(e->join_cond, v, n, count)) return false;
    return refs_within(e->filter, v, n, count);
}

static bool nondeterministic(const cs_sql_expr *e)
{
    if (!e) return false;
    if (e->kind == CS_EX_IN_SUBQUERY || e->kind == CS_EX_EXISTS) return true;
    if (e->kind == CS_EX_FUNC && e->fn && !cs_opt_deterministic(e)) return true;
    for (int i = 0; i < e->n_args; i++)
        if (nondeterministic(e->args[i])) return true;
    return false;
}

/* p with its children rewritten by rule (copied when one changed). */
static int map_children(cs_opt_ctx *c, cs_logical_plan *p, cs_opt_rule_fn rule,
                        cs_logical_plan **out, cs_error *err)
{
    cs_logical_plan *r = p;
    for (int i = 0; i < p->n_children; i++) {
        cs_logical_plan *ch = NULL;
        int rc = rule(c, p->children[i], &ch, err);
        if (rc) return rc;
        if (ch == p->children[i]) continue;
        if (r == p) r = cs_logical_plan_copy(c->arena, p);
        r->children[i] = ch;
    }
    if (r != p && r->kind == CS_LP_JOIN) cs_optsq_set_join_output(c, r, NULL);
    *out = r;
    return 0;
}

/* ---- ReorderJoin ------------------------------------------------------------------------- */

typedef struct join_item {
    cs_logical_plan *plan;
    cs_join_type type; /* INNER or CROSS: the join that brought it in */
} join_item;

typedef struct join_input {
    join_item *items;
    int n, cap;
    cs_optsq_list conds;
} join_input;

static bool is_inner_like(const cs_logical_plan *p)
{
    return p->kind == CS_LP_JOIN &&
           (p->join_type == CS_JOIN_INNER || p->join_type == CS_JOIN_CROSS) && !p->left_hint &&
           !p->right_hint;
}

static void add_item(cs_opt_ctx *c, join_input *in, cs_logical_plan *p, cs_join_type t)
{
    if (in->n == in->cap) {
        int cap = in->cap ? in->cap * 2 : 8;
        join_item *v = cs_sql_alloc(c->arena, sizeof *v * (size_t)cap);
        if (in->n) memcpy(v, in->items, sizeof *v * (size_t)in->n);
        in->items = v;
        in->cap = cap;
    }
    in->items[in->n++] = (join_item){p, t};
}

/* Spark's ExtractFiltersAndInnerJoins.flattenJoin */
static void flatten_join(cs_opt_ctx *c, cs_logical_plan *p, cs_join_type parent, join_input *in)
{
    if (is_inner_like(p)) {
        flatten_join(c, p->children[0], p->join_type, in);
        add_item(c, in, p->children[1], p->join_type);
        cs_optsq_conjuncts(c, p->condition, &in->conds);
        return;
    }
    if (p->kind == CS_LP_FILTER && is_inner_like(p->children[0]) &&
        !nondeterministic(p->condition)) {
        flatten_join(c, p->children[0], CS_JOIN_INNER, in);
        cs_optsq_conjuncts(c, p->condition, &in->conds);
        return;
    }
    add_item(c, in, p, parent);
}

static bool has_correlated_scalar(const cs_sql_expr *e)
{
    if (!e) return false;
    if (e->kind == CS_EX_SCALAR_SUBQUERY && e->join_cond) return true;
    for (int i = 0; i < e->n_args; i++)
        if (has_correlated_scalar(e->args[i])) return true;
    return false;
}

/* Spark's canEvaluateWithinJoin: deterministic, no IN / EXISTS, no correlated scalar
 * subquery (RewriteCorrelatedScalarSubquery rewrites filters, not join conditions) */
static bool within_join(const cs_sql_expr *e)
{
    return !nondeterministic(e) && !has_correlated_scalar(e);
}

/* Whether a condition of conds connects left and pl: it reads both and nothing else. */
static bool connected(cs_opt_ctx *c, const cs_logical_plan *left, const cs_logical_plan *pl,
                      const cs_optsq_list *conds)
{
    for (int i = 0; i < conds->n; i++) {
        int cnt = 0;
        const cs_sql_expr *e = conds->v[i];
        if (refs_within(e, left->output, left->n_output, &cnt) && cnt) continue;
        cnt = 0;
        if (refs_within(e, pl->output, pl->n_output, &cnt) && cnt) continue;
        /* every reference in left or pl */
        cs_sql_expr **both =
            cs_sql_alloc(c->arena, sizeof *both * (size_t)(left->n_output + pl->n_output + 1));
        memcpy(both, left->output, sizeof *both * (size_t)left->n_output);
        memcpy(both + left->n_output, pl->output, sizeof *both * (size_t)pl->n_output);
        if (refs_within(e, both, left->n_output + pl->n_output, NULL)) return true;
    }
    return false;
}

static int64_t input_size(const cs_logical_plan *p, bool rows);

/* Whether an input is small: its size (input_size's bytes: its own, or its relation's under
 * filters and projects) at most spark.sql.autoBroadcastJoinThreshold; *filtered: whether a
 * filter is on it. */
static bool small_input(const cs_opt_ctx *c, const cs_logical_plan *p, bool *filtered)
{
    int64_t thr = c->conf ? c->conf->broadcast_threshold : -1, size = input_size(p, false);
    *filtered = false;
    for (const cs_logical_plan *q = p;
         q->n_children == 1 &&
         (q->kind == CS_LP_FILTER || q->kind == CS_LP_PROJECT || q->kind == CS_LP_SUBQUERY_ALIAS);
         q = q->children[0])
        *filtered |= q->kind == CS_LP_FILTER;
    return thr >= 0 && size >= 0 && size <= thr;
}

static bool attr_equality(const cs_sql_expr *e)
{
    return e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "=") == 0 && e->n_args == 2 &&
           e->args[0]->kind == CS_EX_ATTR && e->args[1]->kind == CS_EX_ATTR;
}

/* The references e makes to the attributes v[0..n) (v NULL: to any attribute). */
static int refs_into(const cs_sql_expr *e, cs_sql_expr *const *v, int n)
{
    if (!e) return 0;
    if (e->kind == CS_EX_ATTR || e->kind == CS_EX_OUTER_ATTR)
        return !v || (e->kind == CS_EX_ATTR && has_id(v, n, e->id));
    int k = refs_into(e->join_cond, v, n) + refs_into(e->filter, v, n);
    for (int i = 0; i < e->n_args; i++)
        k += refs_into(e->args[i], v, n);
    return k;
}

/* Whether items[k] is a small relation a condition narrows: a filter of its own, or a
 * condition other than a key equality that reads it and otherwise only small inputs (TPC-H
 * q07's `(n1.n_name = 'FRANCE' AND n2.n_name = 'GERMANY') OR (...)` between its two nations). */
static bool small_filtered(const cs_opt_ctx *c, const join_item *items, int n, int k,
                           const cs_optsq_list *conds)
{
    bool filtered;
    if (!small_input(c, items[k].plan, &filtered)) return false;
    if (filtered) return true;
    for (int i = 0; i < conds->n; i++) {
        const cs_sql_expr *e = conds->v[i];
        if (attr_equality(e) || !within_join(e)) continue;
        int total = refs_into(e, NULL, 0), seen = 0;
        bool narrows = refs_into(e, items[k].plan->output, items[k].plan->n_output) > 0;
        for (int m = 0; m < n && narrows; m++) {
            const cs_logical_plan *q = items[m].plan;
            int here = refs_into(e, q->output, q->n_output);
            seen += here;
            narrows = here == 0 || m == k || small_input(c, q, &filtered);
        }
        if (narrows && seen == total) return true;
    }
    return false;
}

/* Spark's createOrderedJoin over items[0..n) (consumed) and conds, except that a small filtered
 * input a condition connects is joined before the other connected ones: it narrows what is
 * joined so far (and is broadcast), so that the big inputs after it are joined, and shuffled,
 * with fewer rows (q07's suppliers of two nations before lineitem). */
static cs_logical_plan *ordered_join(cs_opt_ctx *c, join_item *items, int n, cs_optsq_list *conds)
{
    if (n == 2) {
        cs_optsq_list jc = {0}, others = {0};
        for (int i = 0; i < conds->n; i++)
            cs_optsq_push(c->arena, within_join(conds->v[i]) ? &jc : &others, conds->v[i]);
        cs_join_type t = items[0].type == CS_JOIN_INNER && items[1].type == CS_JOIN_INNER
                             ? CS_JOIN_INNER
                             : CS_JOIN_CROSS;
        cs_logical_plan *j =
            cs_optsq_join(c, items[0].plan, items[1].plan, t, cs_opt_and_all(c, jc.v, jc.n), NULL);
        return others.n ? cs_opt_filter(c, cs_opt_and_all(c, others.v, others.n), j) : j;
    }
    cs_logical_plan *left = items[0].plan;
    int pick = -1, small = -1;
    for (int k = 1; k < n && small < 0; k++) {
        if (!connected(c, left, items[k].plan, conds)) continue;
        if (pick < 0) pick = k;
        if (small_filtered(c, items, n, k, conds)) small = k;
    }
    pick = small >= 0 ? small : pick >= 0 ? pick : 1;
    cs_logical_plan *right = items[pick].plan;
    int nb = left->n_output + right->n_output;
    cs_sql_expr **both = cs_sql_alloc(c->arena, sizeof *both * (size_t)(nb + 1));
    memcpy(both, left->output, sizeof *both * (size_t)left->n_output);
    memcpy(both + left->n_output, right->output, sizeof *both * (size_t)right->n_output);
    cs_optsq_list jc = {0}, others = {0};
    for (int i = 0; i < conds->n; i++)
        cs_optsq_push(
            c->arena,
            refs_within(conds->v[i], both, nb, NULL) && within_join(conds->v[i]) ? &jc : &others,
            conds->v[i]);
    cs_logical_plan *joined =
        cs_optsq_join(c, left, right, items[pick].type, cs_opt_and_all(c, jc.v, jc.n), NULL);
    join_item *rest = cs_sql_alloc(c->arena, sizeof *rest * (size_t)n);
    int m = 0;
    rest[m++] = (join_item){joined, CS_JOIN_INNER};
    for (int k = 1; k < n; k++)
        if (k != pick) rest[m++] = items[k];
    return ordered_join(c, rest, m, &others);
}

/* The estimated size of an input: its own statistics, or the relation's under its filters and
 * projects; -1 when unknown. */
static int64_t input_size(const cs_logical_plan *p, bool rows)
{
    for (;;) {
        int64_t v = rows ? p->stat_rows : p->stat_bytes;
        if (v >= 0) return v;
        if (p->n_children != 1 || (p->kind != CS_LP_FILTER && p->kind != CS_LP_PROJECT &&
                                   p->kind != CS_LP_SUBQUERY_ALIAS && p->kind != CS_LP_SORT))
            return -1;
        p = p->children[0];
    }
}

/* CBO: the inputs sorted by size (stable), when every size is known. */
static void greedy_order(join_item *items, int n)
{
    for (int pass = 0; pass < 2; pass++) {
        bool rows = pass == 0, known = true;
        for (int i = 0; i < n && known; i++)
            known = input_size(items[i].plan, rows) >= 0;
        if (!known) continue;
        for (int i = 1; i < n; i++) {
            join_item x = items[i];
            int64_t s = input_size(x.plan, rows);
            int k = i;
            while (k > 0 && input_size(items[k - 1].plan, rows) > s) {
                items[k] = items[k - 1];
                k--;
            }
            items[k] = x;
        }
        return;
    }
}

/* Whether two trees are the same joins and filters over the same inputs and conjuncts. */
static bool same_shape(cs_opt_ctx *c, const cs_logical_plan *a, const cs_logical_plan *b)
{
    if (a == b) return true;
    if (a->kind != b->kind || a->n_children != b->n_children) return false;
    if (a->kind == CS_LP_JOIN && a->join_type != b->join_type) return false;
    if (a->kind != CS_LP_JOIN && a->kind != CS_LP_FILTER) return false;
    cs_optsq_list x = {0}, y = {0};
    cs_optsq_conjuncts(c, a->condition, &x);
    cs_optsq_conjuncts(c, b->condition, &y);
    if (x.n != y.n) return false;
    for (int i = 0; i < x.n; i++)
        if (x.v[i] != y.v[i]) return false;
    for (int i = 0; i < a->n_children; i++)
        if (!same_shape(c, a->children[i], b->children[i])) return false;
    return true;
}

static bool same_output(const cs_logical_plan *a, const cs_logical_plan *b)
{
    if (a->n_output != b->n_output) return false;
    for (int i = 0; i < a->n_output; i++)
        if (a->output[i]->id != b->output[i]->id) return false;
    return true;
}

int cs_opt_reorder_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    bool top = is_inner_like(p) || (p->kind == CS_LP_FILTER && is_inner_like(p->children[0]) &&
                                    !nondeterministic(p->condition));
    if (top) {
        join_input in = {0};
        flatten_join(c, p, CS_JOIN_INNER, &in);
        if (in.n > 2 && in.conds.n > 0) {
            /* the inputs first (their own join trees), then this tree */
            for (int i = 0; i < in.n; i++) {
                int rc = cs_opt_reorder_join(c, in.items[i].plan, &in.items[i].plan, err);
                if (rc) return rc;
            }
            if (c->conf && c->conf->cbo && c->conf->join_reorder) greedy_order(in.items, in.n);
            cs_logical_plan *r = ordered_join(c, in.items, in.n, &in.conds);
            if (same_shape(c, r, p)) {
                *out = p;
                return 0;
            }
            if (!same_output(r, p)) {
                cs_sql_expr **cols =
                    cs_sql_alloc(c->arena, sizeof *cols * (size_t)(p->n_output + 1));
                memcpy(cols, p->output, sizeof *cols * (size_t)p->n_output);
                r = cs_opt_project(c, cols, p->n_output, r);
            }
            *out = r;
            return 0;
        }
    }
    return map_children(c, p, cs_opt_reorder_join, out, err);
}

/* ---- EliminateOuterJoin ------------------------------------------------------------------ */

/* Functions null when an argument is null (Spark's NullIntolerant), for the analysis below. */
static bool strict_fn(const cs_sql_expr *e)
{
    static const char *const names[] = {
        "+",        "-",     "*",     "/",     "%",         "div",        "pmod",     "negative",
        "positive", "abs",   "=",     "<",     "<=",        ">",          ">=",       "!=",
        "not",      "like",  "ilike", "rlike", "substring", "upper",      "lower",    "length",
        "trim",     "ltrim", "rtrim", "year",  "month",     "dayofmonth", "date_add", "date_sub"};
    if (e->kind == CS_EX_CAST) return true;
    if (e->kind != CS_EX_FUNC || !e->fn) return false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(e->fn, names[i]) == 0) return true;
    return false;
}

/* e is null when the attributes of `side` are null, whatever the others are */
static bool null_on_nulls(const cs_sql_expr *e, const cs_logical_plan *side)
{
    switch (e->kind) {
    case CS_EX_ATTR:
        return has_id(side->output, side->n_output, e->id);
    case CS_EX_LITERAL:
        return e->literal && e->literal->null_count > 0;
    case CS_EX_ALIAS:
        return null_on_nulls(e->args[0], side);
    default:
        break;
    }
    if (cs_optsq_is_fn(e, "and") || cs_optsq_is_fn(e, "or"))
        return null_on_nulls(e->args[0], side) && null_on_nulls(e->args[1], side);
    if (!strict_fn(e)) return false;
    for (int i = 0; i < e->n_args; i++)
        if (null_on_nulls(e->args[i], side)) return true;
    return false;
}

/* e is null or false when the attributes of `side` are null (Spark's canFilterOutNull over
 * the conjuncts and the IsNotNull constraints it infers from null-intolerant ones) */
static bool filters_out_nulls(const cs_sql_expr *e, const cs_logical_plan *side)
{
    if (nondeterministic(e)) return false;
    if (cs_optsq_is_fn(e, "and"))
        return filters_out_nulls(e->args[0], side) || filters_out_nulls(e->args[1], side);
    if (cs_optsq_is_fn(e, "or"))
        return filters_out_nulls(e->args[0], side) && filters_out_nulls(e->args[1], side);
    if (cs_optsq_is_fn(e, "not") || cs_optsq_is_fn(e, "isnotnull") ||
        cs_optsq_is_fn(e, "between") || e->kind == CS_EX_IN_LIST)
        return null_on_nulls(e->args[0], side);
    return null_on_nulls(e, side);
}

static bool side_rejects_nulls(const cs_optsq_list *conds, const cs_logical_plan *side)
{
    for (int i = 0; i < conds->n; i++)
        if (filters_out_nulls(conds->v[i], side)) return true;
    return false;
}

static cs_join_type new_join_type(cs_opt_ctx *c, const cs_logical_plan *f, const cs_logical_plan *j)
{
    cs_optsq_list conds = {0};
    cs_optsq_conjuncts(c, f->condition, &conds);
    bool l = side_rejects_nulls(&conds, j->children[0]);
    bool r = side_rejects_nulls(&conds, j->children[1]);
    switch (j->join_type) {
    case CS_JOIN_RIGHT_OUTER:
        return l ? CS_JOIN_INNER : j->join_type;
    case CS_JOIN_LEFT_OUTER:
        return r ? CS_JOIN_INNER : j->join_type;
    case CS_JOIN_FULL_OUTER:
        if (l && r) return CS_JOIN_INNER;
        if (l) return CS_JOIN_LEFT_OUTER;
        if (r) return CS_JOIN_RIGHT_OUTER;
        return j->join_type;
    default:
        return j->join_type;
    }
}

/* An aggregate whose list is its grouping columns, all of `side`. */
static bool groups_only_over(const cs_logical_plan *a, const cs_logical_plan *side)
{
    for (int i = 0; i < a->n_exprs; i++) {
        const cs_sql_expr *e = a->exprs[i];
        if (e->kind == CS_EX_ALIAS) e = e->args[0];
        if (e->kind != CS_EX_ATTR || !has_id(a->group_by, a->n_group_by, e->id)) return false;
    }
    for (int i = 0; i < a->n_group_by; i++)
        if (!refs_within(a->group_by[i], side->output, side->n_output, NULL)) return false;
    return true;
}

int cs_opt_eliminate_outer_join(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err)
{
    cs_logical_plan *r = p;
    if (p->kind == CS_LP_FILTER && p->children[0]->kind == CS_LP_JOIN) {
        cs_logical_plan *j = p->children[0];
        cs_join_type t = new_join_type(c, p, j);
        if (t != j->join_type) {
            cs_logical_plan *nj = cs_logical_plan_copy(c->arena, j);
            nj->join_type = t;
            cs_optsq_set_join_output(c, nj, NULL);
            r = cs_opt_filter(c, p->condition, nj);
        }
    } else if (p->kind == CS_LP_AGGREGATE && p->children[0]->kind == CS_LP_JOIN) {
        cs_logical_plan *j = p->children[0];
        int keep = j->join_type == CS_JOIN_LEFT_OUTER    ? 0
                   : j->join_type == CS_JOIN_RIGHT_OUTER ? 1
                                                         : -1;
        if (keep >= 0 && groups_only_over(p, j->children[keep])) {
            r = cs_logical_plan_copy(c->arena, p);
            r->children[0] = j->children[keep];
        }
    }
    cs_logical_plan *m = NULL;
    int rc = map_children(c, r, cs_opt_eliminate_outer_join, &m, err);
    if (rc) return rc;
    if (m != r && m->kind == CS_LP_FILTER) {
        m->output = m->children[0]->output;
        m->n_output = m->children[0]->n_output;
    }
    *out = m;
    return 0;
}

/* ---- INTERSECT / EXCEPT ------------------------------------------------------------------ */

static cs_sql_expr *null_safe_eq(cs_opt_ctx *c, cs_sql_expr *a, cs_sql_expr *b)
{
    return bool_fn(c, "<=>", false, a, b);
}

/* right with its columns renamed where they repeat an attribute of left (a self
 * intersect). */
static cs_logical_plan *dedup_right(cs_opt_ctx *c, cs_logical_plan *left, cs_logical_plan *right)
{
    bool clash = false;
    for (int i = 0; i < right->n_output; i++)
        clash |= has_id(left->output, left->n_output, right->output[i]->id);
    if (!clash) return right;
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(right->n_output + 1));
    for (int i = 0; i < right->n_output; i++) {
        cs_sql_expr *a = right->output[i];
        if (!has_id(left->output, left->n_output, a->id)) {
            list[i] = a;
            continue;
        }
        cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
        al->args[0] = a;
        al->name = a->name;
        al->type = a->type;
        al->nullable = a->nullable;
        al->id = cs_catalog_next_expr_id(c->catalog);
        al->resolved = true;
        list[i] = al;
    }
    return cs_opt_project(c, list, right->n_output, right);
}

/* row_number() OVER (PARTITION BY every column of p) AS name, over p */
static cs_logical_plan *number_copies(cs_opt_ctx *c, cs_logical_plan *p, const char *name)
{
    cs_sql_expr *rn = cs_sql_expr_new(c->arena, CS_EX_FUNC, 0);
    rn->fn = "row_number";
    rn->name = "row_number";
    rn->type = cs_col_type_primitive(CS_TYPE_INT);
    rn->resolved = true;
    cs_window_spec *w = cs_sql_alloc(c->arena, sizeof *w);
    w->n_partition = p->n_output;
    w->partition = p->output;
    w->has_frame = true;
    w->frame_type = CS_FRAME_ROWS;
    w->lower.kind = CS_BOUND_UNBOUNDED_PRECEDING;
    w->upper.kind = CS_BOUND_CURRENT_ROW;
    cs_sql_expr *we = cs_sql_expr_new(c->arena, CS_EX_WINDOW, 1);
    we->args[0] = rn;
    we->window = w;
    we->type = rn->type;
    we->resolved = true;
    cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
    al->args[0] = we;
    al->name = name;
    al->type = rn->type;
    al->id = cs_catalog_next_expr_id(c->catalog);
    al->resolved = true;
    cs_logical_plan *win = cs_logical_plan_new(c->arena, CS_LP_WINDOW, 1);
    win->children[0] = p;
    win->exprs = cs_sql_alloc(c->arena, sizeof *win->exprs * 2);
    win->exprs[0] = al;
    win->n_exprs = 1;
    win->partition = w->partition;
    win->n_partition = w->n_partition;
    win->n_output = p->n_output + 1;
    win->output = cs_sql_alloc(c->arena, sizeof *win->output * (size_t)(win->n_output + 1));
    memcpy(win->output, p->output, sizeof *win->output * (size_t)p->n_output);
    win->output[p->n_output] = cs_sql_expr_to_attr(c->arena, al);
    win->resolved = true;
    return win;
}

static cs_logical_plan *rewrite_set_op(cs_opt_ctx *c, cs_logical_plan *s)
{
    cs_logical_plan *left = s->children[0];
    cs_logical_plan *right = dedup_right(c, left, s->children[1]);
    cs_join_type t = s->set_op == CS_SET_INTERSECT ? CS_JOIN_LEFT_SEMI : CS_JOIN_LEFT_ANTI;
    int n = left->n_output;
    if (s->all) {
        left = number_copies(c, left, "vcol_l");
        right = number_copies(c, right, "vcol_r");
    }
    cs_sql_expr *cond = NULL;
    for (int i = 0; i < n; i++) {
        cs_sql_expr *e = null_safe_eq(c, left->output[i], right->output[i]);
        cond = cond ? bool_fn(c, "and", false, cond, e) : e;
    }
    if (s->all) {
        cs_sql_expr *e = bool_fn(c, "=", false, left->output[n], right->output[n]);
        cond = cond ? bool_fn(c, "and", false, cond, e) : e;
    }
    cs_logical_plan *j = cs_optsq_join(c, left, right, t, cond, NULL);
    cs_sql_expr **cols = cs_sql_alloc(c->arena, sizeof *cols * (size_t)(n + 1));
    memcpy(cols, s->output, sizeof *cols * (size_t)n);
    if (s->all) return cs_opt_project(c, cols, n, j);
    cs_logical_plan *agg = cs_opt_project(c, cols, n, j);
    agg->kind = CS_LP_AGGREGATE;
    agg->group_by = cols;
    agg->n_group_by = n;
    return agg;
}

int cs_opt_rewrite_set_ops(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    cs_logical_plan *r = NULL;
    int rc = map_children(c, p, cs_opt_rewrite_set_ops, &r, err);
    if (rc) return rc;
    if (r->kind == CS_LP_SET_OP && r->set_op != CS_SET_UNION && r->n_children == 2)
        r = rewrite_set_op(c, r);
    *out = r;
    return 0;
}
