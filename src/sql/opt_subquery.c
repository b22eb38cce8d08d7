/*
 * opt_subquery.c — the optimizer's rules for IN / EXISTS subqueries and the pull-up of
 * correlated predicates, as Catalyst's subquery.scala (scalar subqueries and
 * OptimizeSubqueries: opt_scalar_subquery.c; the helpers both share are declared in
 * opt_subquery_internal.h):
 *
 *   PullupCorrelatedPredicates (cs_opt_pull_up_correlated): the conjuncts of a subquery's
 *     filters that read outer attributes (OUTER_ATTR) leave its plan and become the
 *     expression's join_cond (outer attributes as plain ATTRs); the projects and aggregates
 *     between them and the subquery's top gain the inner attributes they read (an aggregate
 *     groups by them too), so the subquery is an uncorrelated plan joined on join_cond.
 *     Through an aggregate only `inner_attr = outer_expr` is allowed (anything else would
 *     change its groups); pulling through LIMIT, OFFSET, windows, set operations or the null
 *     side of an outer join, or an outer reference anywhere but a filter, is refused with
 *     Spark's error class. A subquery whose columns repeat the outer plan's ids is renamed
 *     under a Project (Spark's dedup of a subquery on a self join).
 *   RewritePredicateSubquery (cs_opt_rewrite_predicate_subquery): conjuncts of a FILTER that
 *     are [NOT] EXISTS / [NOT] IN become LEFT_SEMI / LEFT_ANTI joins on join_cond (and
 *     `value = column` for IN). NOT IN is null-aware as Spark: each equality e is
 *     `e OR isnull(e)`, and a one-column NOT IN without correlation is marked null_aware for
 *     the planner. IN and EXISTS anywhere else (under OR / NOT, in select lists and
 *     aggregates) become EXISTENCE joins adding a boolean `exists` attribute. Spark's
 *     ExistenceJoin for IN is two-valued; here an IN whose sides may be null keeps SQL's
 *     three-valued answer with a second existence join on the null-aware condition:
 *       CASE WHEN exists THEN true WHEN exists_null_aware THEN null ELSE false END.
 *
 * Every rule also applies itself inside the plans of nested subquery expressions and pulls
 * up the correlated predicates of the subqueries it rewrites, so neither nesting (Q20's IN
 * inside an IN) nor the order in which optimizer.c runs the rules changes the result.
 * Called by optimizer.c's batches; everything is made in the context's arena.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/opt_subquery_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

/* ---- small tree helpers ------------------------------------------------------------------ */

void cs_optsq_push(cs_sql_arena *a, cs_optsq_list *l, cs_sql_expr *e)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 8;
        cs_sql_expr **v = cs_sql_alloc(a, sizeof *v * (size_t)cap);
        if (l->n) memcpy(v, l->v, sizeof *v * (size_t)l->n);
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = e;
}

bool cs_optsq_is_fn(const cs_sql_expr *e, const char *fn)
{
    return e && e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, fn) == 0;
}

static cs_sql_expr *func2(cs_opt_ctx *c, const char *fn, cs_col_type *t, bool nullable, int n,
                          cs_sql_expr *a0, cs_sql_expr *a1)
{
    cs_sql_expr *e = cs_sql_expr_new(c->arena, CS_EX_FUNC, n);
    e->fn = fn;
    e->name = fn;
    e->args[0] = a0;
    if (n > 1) e->args[1] = a1;
    e->type = t;
    e->nullable = nullable;
    e->resolved = true;
    return e;
}

cs_col_type *cs_optsq_boolean(void)
{
    return cs_col_type_primitive(CS_TYPE_BOOLEAN);
}

static cs_sql_expr *and2(cs_opt_ctx *c, cs_sql_expr *a, cs_sql_expr *b)
{
    if (!a) return b;
    if (!b) return a;
    return func2(c, "and", cs_optsq_boolean(), a->nullable || b->nullable, 2, a, b);
}

static cs_sql_expr *or2(cs_opt_ctx *c, cs_sql_expr *a, cs_sql_expr *b)
{
    return func2(c, "or", cs_optsq_boolean(), a->nullable || b->nullable, 2, a, b);
}

cs_sql_expr *cs_optsq_isnull(cs_opt_ctx *c, cs_sql_expr *a)
{
    return func2(c, "isnull", cs_optsq_boolean(), false, 1, a, NULL);
}

/* x = y, y cast to x's type when the analyzer widened x only (IN's values) */
static cs_sql_expr *eq2(cs_opt_ctx *c, cs_sql_expr *x, cs_sql_expr *y)
{
    if (!cs_col_type_equal(x->type, y->type)) {
        cs_col_type *t = cs_tc_wider(c->arena, x->type, y->type);
        if (t) {
            x = cs_tc_cast(c->arena, x, t);
            y = cs_tc_cast(c->arena, y, t);
        }
    }
    return func2(c, "=", cs_optsq_boolean(), x->nullable || y->nullable, 2, x, y);
}

void cs_optsq_conjuncts(cs_opt_ctx *c, cs_sql_expr *e, cs_optsq_list *out)
{
    if (!e) return;
    if (cs_optsq_is_fn(e, "and")) {
        cs_optsq_conjuncts(c, e->args[0], out);
        cs_optsq_conjuncts(c, e->args[1], out);
        return;
    }
    cs_optsq_push(c->arena, out, e);
}

static cs_sql_expr *new_attr(cs_opt_ctx *c, const char *name, cs_col_type *t, bool nullable)
{
    cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ATTR, 0);
    a->name = name;
    a->type = t;
    a->nullable = nullable;
    a->id = cs_catalog_next_expr_id(c->catalog);
    a->resolved = true;
    return a;
}

cs_sql_expr *cs_optsq_alias(cs_opt_ctx *c, cs_sql_expr *e, const char *name, cs_expr_id id)
{
    cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
    al->args[0] = e;
    al->name = name;
    al->type = e->type;
    al->nullable = e->nullable;
    al->id = id ? id : cs_catalog_next_expr_id(c->catalog);
    al->resolved = true;
    return al;
}

cs_sql_expr *cs_optsq_literal(cs_opt_ctx *c, cs_col_type *t, const void *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    if (v)
        cs_col_builder_append_values(b, v, 1, NULL);
    else
        cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

/* Whether f holds for e or a node under it (arguments, FILTER, window spec; not the plans of
 * subquery expressions). */
static bool any_expr(const cs_sql_expr *e, bool (*f)(const cs_sql_expr *))
{
    if (!e) return false;
    if (f(e)) return true;
    for (int i = 0; i < e->n_args; i++)
        if (any_expr(e->args[i], f)) return true;
    if (any_expr(e->filter, f)) return true;
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            if (any_expr(e->window->partition[i], f)) return true;
        for (int i = 0; i < e->window->n_order; i++)
            if (any_expr(e->window->order[i], f)) return true;
    }
    return false;
}

static bool is_outer(const cs_sql_expr *e)
{
    return e->kind == CS_EX_OUTER_ATTR;
}

static bool is_in_or_exists(const cs_sql_expr *e)
{
    return e->kind == CS_EX_IN_SUBQUERY || e->kind == CS_EX_EXISTS;
}

bool cs_optsq_is_subquery(const cs_sql_expr *e)
{
    return is_in_or_exists(e) || e->kind == CS_EX_SCALAR_SUBQUERY;
}

cs_sql_expr *cs_optsq_xform(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    if (!e || m->rc) return e;
    cs_sql_expr *r = e;
    for (int i = 0; i < e->n_args; i++) {
        cs_sql_expr *a = cs_optsq_xform(c, m, e->args[i]);
        if (a == e->args[i]) continue;
        if (r == e) r = cs_sql_expr_copy(c->arena, e);
        r->args[i] = a;
    }
    cs_sql_expr *fl = cs_optsq_xform(c, m, e->filter);
    if (fl != e->filter) {
        if (r == e) r = cs_sql_expr_copy(c->arena, e);
        r->filter = fl;
    }
    if (e->window) {
        cs_window_spec *w = NULL;
        for (int k = 0; k < 2; k++) {
            int n = k ? e->window->n_order : e->window->n_partition;
            cs_sql_expr **src = k ? e->window->order : e->window->partition;
            for (int i = 0; i < n; i++) {
                cs_sql_expr *a = cs_optsq_xform(c, m, src[i]);
                if (a == src[i]) continue;
                if (!w) {
                    w = cs_sql_alloc(c->arena, sizeof *w);
                    *w = *e->window;
                    w->partition =
                        cs_sql_alloc(c->arena, sizeof *w->partition * (size_t)(w->n_partition + 1));
                    memcpy(w->partition, e->window->partition,
                           sizeof *w->partition * (size_t)w->n_partition);
                    w->order = cs_sql_alloc(c->arena, sizeof *w->order * (size_t)(w->n_order + 1));
                    memcpy(w->order, e->window->order, sizeof *w->order * (size_t)w->n_order);
                }
                (k ? w->order : w->partition)[i] = a;
            }
        }
        if (w) {
            if (r == e) r = cs_sql_expr_copy(c->arena, e);
            r->window = w;
        }
    }
    if (m->rc) return r;
    return m->f(c, m, r);
}

/* A copy of the array src[0..n) with room for `extra` more. */
cs_sql_expr **cs_optsq_copy_list(cs_opt_ctx *c, cs_sql_expr **src, int n, int extra)
{
    cs_sql_expr **v = cs_sql_alloc(c->arena, sizeof *v * (size_t)(n + extra + 1));
    if (n) memcpy(v, src, sizeof *v * (size_t)n);
    return v;
}

/* p with f applied to each of its expressions (p itself when none changed). */
cs_logical_plan *cs_optsq_map_node_exprs(cs_opt_ctx *c, cs_logical_plan *p, cs_optsq_map *m)
{
    cs_logical_plan *r = p;
    struct {
        cs_sql_expr ***list;
        int n;
    } lists[] = {{&p->exprs, p->n_exprs},
                 {&p->group_by, p->n_group_by},
                 {&p->order, p->n_order},
                 {&p->partition, p->n_partition}};
    for (int k = 0; k < 4; k++) {
        cs_sql_expr **src = *lists[k].list, **dst = NULL;
        for (int i = 0; i < lists[k].n; i++) {
            cs_sql_expr *x = cs_optsq_xform(c, m, src[i]);
            if (x == src[i]) continue;
            if (!dst) dst = cs_optsq_copy_list(c, src, lists[k].n, 0);
            dst[i] = x;
        }
        if (!dst) continue;
        if (r == p) r = cs_logical_plan_copy(c->arena, p);
        if (k == 0) r->exprs = dst;
        if (k == 1) r->group_by = dst;
        if (k == 2) r->order = dst;
        if (k == 3) r->partition = dst;
    }
    cs_sql_expr *cond = cs_optsq_xform(c, m, p->condition);
    if (cond != p->condition) {
        if (r == p) r = cs_logical_plan_copy(c->arena, p);
        r->condition = cond;
    }
    return r;
}

/* The output of a PROJECT / AGGREGATE from its list. */
cs_sql_expr *cs_optsq_nullable_attr(cs_opt_ctx *c, cs_sql_expr *a)
{
    if (a->nullable) return a;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, a);
    r->nullable = true;
    return r;
}

void cs_optsq_set_join_output(cs_opt_ctx *c, cs_logical_plan *j, cs_sql_expr *exists)
{
    const cs_logical_plan *l = j->children[0], *r = j->children[1];
    cs_join_type t = j->join_type;
    if (t == CS_JOIN_EXISTENCE && !exists && j->n_output > 0) exists = j->output[j->n_output - 1];
    bool right_cols = t != CS_JOIN_LEFT_SEMI && t != CS_JOIN_LEFT_ANTI && t != CS_JOIN_EXISTENCE;
    int n = l->n_output + (right_cols ? r->n_output : 0) + (exists ? 1 : 0);
    j->output = cs_sql_alloc(c->arena, sizeof *j->output * (size_t)(n + 1));
    j->n_output = 0;
    for (int i = 0; i < l->n_output; i++)
        j->output[j->n_output++] = t == CS_JOIN_RIGHT_OUTER || t == CS_JOIN_FULL_OUTER
                                       ? cs_optsq_nullable_attr(c, l->output[i])
                                       : l->output[i];
    if (right_cols)
        for (int i = 0; i < r->n_output; i++)
            j->output[j->n_output++] = t == CS_JOIN_LEFT_OUTER || t == CS_JOIN_FULL_OUTER
                                           ? cs_optsq_nullable_attr(c, r->output[i])
                                           : r->output[i];
    if (exists && t == CS_JOIN_EXISTENCE) j->output[j->n_output++] = exists;
    j->resolved = true;
}

cs_logical_plan *cs_optsq_join(cs_opt_ctx *c, cs_logical_plan *l, cs_logical_plan *r,
                               cs_join_type t, cs_sql_expr *cond, cs_sql_expr *exists)
{
    cs_logical_plan *j = cs_logical_plan_new(c->arena, CS_LP_JOIN, 2);
    j->children[0] = l;
    j->children[1] = r;
    j->join_type = t;
    j->condition = cond;
    cs_optsq_set_join_output(c, j, exists);
    return j;
}

int cs_optsq_find_id(cs_sql_expr **v, int n, cs_expr_id id)
{
    for (int i = 0; i < n; i++)
        if (v[i]->id == id) return i;
    return -1;
}

int cs_optsq_unsupported(cs_error *err, const char *sub_class, const char *what)
{
    return cs_sql_error_set(err, CS_EINVAL, sub_class, "0A000",
                            "Unsupported subquery expression: %s", what);
}

/* ---- PullupCorrelatedPredicates ---------------------------------------------------------- */

static void collect_attr_refs(cs_opt_ctx *c, const cs_sql_expr *e, cs_optsq_list *out)
{
    if (!e) return;
    if (e->kind == CS_EX_ATTR && cs_optsq_find_id(out->v, out->n, e->id) < 0)
        cs_optsq_push(c->arena, out, (cs_sql_expr *)e);
    for (int i = 0; i < e->n_args; i++)
        collect_attr_refs(c, e->args[i], out);
    collect_attr_refs(c, e->filter, out);
}

static bool is_attr(const cs_sql_expr *e)
{
    return e->kind == CS_EX_ATTR;
}

bool cs_optsq_node_has(const cs_logical_plan *p, bool (*f)(const cs_sql_expr *))
{
    for (int i = 0; i < p->n_exprs; i++)
        if (any_expr(p->exprs[i], f)) return true;
    for (int i = 0; i < p->n_group_by; i++)
        if (any_expr(p->group_by[i], f)) return true;
    for (int i = 0; i < p->n_order; i++)
        if (any_expr(p->order[i], f)) return true;
    for (int i = 0; i < p->n_partition; i++)
        if (any_expr(p->partition[i], f)) return true;
    return any_expr(p->condition, f) || any_expr(p->limit, f) || any_expr(p->generator, f);
}

static bool plan_has_outer(const cs_logical_plan *p)
{
    if (cs_optsq_node_has(p, is_outer)) return true;
    for (int i = 0; i < p->n_children; i++)
        if (plan_has_outer(p->children[i])) return true;
    return false;
}

/* Whether correlated predicates found under child i of p may move above p unchanged. */
static bool passes(const cs_logical_plan *p, int i)
{
    switch (p->kind) {
    case CS_LP_FILTER:
    case CS_LP_PROJECT:
    case CS_LP_AGGREGATE:
    case CS_LP_SUBQUERY_ALIAS:
    case CS_LP_SORT:
    case CS_LP_DISTINCT:
        return true;
    case CS_LP_JOIN:
        switch (p->join_type) {
        case CS_JOIN_INNER:
        case CS_JOIN_CROSS:
            return true;
        case CS_JOIN_LEFT_OUTER:
        case CS_JOIN_LEFT_SEMI:
        case CS_JOIN_LEFT_ANTI:
        case CS_JOIN_EXISTENCE:
            return i == 0;
        case CS_JOIN_RIGHT_OUTER:
            return i == 1;
        default:
            return false;
        }
    default:
        return false;
    }
}

/* After a child gained columns: the pass-through node p (filter, sort, join, ...) lists them
 * too. */
static void extend_output(cs_opt_ctx *c, cs_logical_plan *p)
{
    if (p->kind == CS_LP_PROJECT || p->kind == CS_LP_AGGREGATE) return;
    int nc = p->n_children;
    if (p->kind == CS_LP_JOIN &&
        (p->join_type == CS_JOIN_LEFT_SEMI || p->join_type == CS_JOIN_LEFT_ANTI ||
         p->join_type == CS_JOIN_EXISTENCE))
        nc = 1;
    int extra = 0;
    for (int k = 0; k < nc; k++)
        for (int i = 0; i < p->children[k]->n_output; i++)
            if (cs_optsq_find_id(p->output, p->n_output, p->children[k]->output[i]->id) < 0)
                extra++;
    if (!extra) return;
    cs_sql_expr **o = cs_optsq_copy_list(c, p->output, p->n_output, extra);
    int n = p->n_output;
    for (int k = 0; k < nc; k++)
        for (int i = 0; i < p->children[k]->n_output; i++)
            if (cs_optsq_find_id(o, n, p->children[k]->output[i]->id) < 0)
                o[n++] = p->children[k]->output[i];
    p->output = o;
    p->n_output = n;
}

/* `inner_attr = outer_expr` (either way round): the only correlated predicate an aggregate
 * may be grouped for. */
static bool equi_correlation(const cs_sql_expr *e)
{
    if (!cs_optsq_is_fn(e, "=")) return false;
    for (int k = 0; k < 2; k++) {
        const cs_sql_expr *in = e->args[k], *out = e->args[1 - k];
        while (in->kind == CS_EX_CAST)
            in = in->args[0];
        if (in->kind == CS_EX_ATTR && any_expr(out, is_outer) && !any_expr(out, is_attr))
            return true;
    }
    return false;
}

/* The correlated conjuncts of p's filters moved into acc; the rewritten plan in *out. */
static int pull(cs_opt_ctx *c, cs_logical_plan *p, bool scalar, cs_optsq_list *acc,
                cs_logical_plan **out, cs_error *err)
{
    cs_logical_plan *r = p;
    int first = acc->n;
    for (int i = 0; i < p->n_children; i++) {
        int before = acc->n;
        cs_logical_plan *ch = NULL;
        int rc = pull(c, p->children[i], scalar, acc, &ch, err);
        if (rc) return rc;
        if (acc->n > before && !passes(p, i))
            return cs_optsq_unsupported(
                err, CS_OPTSQ_OUTER_NOT_ALLOWED,
                "Accessing outer query column is not allowed in this location.");
        /* a global aggregate has one row even over no input: grouped by the correlation it
         * would have none, which only a scalar subquery's count-bug fix makes up for */
        if (acc->n > before && !scalar && p->kind == CS_LP_AGGREGATE && p->n_group_by == 0)
            return cs_optsq_unsupported(err, CS_OPTSQ_OUTER_NOT_ALLOWED,
                                        "a correlated IN or EXISTS subquery over an aggregate "
                                        "without GROUP BY.");
        if (ch == p->children[i]) continue;
        if (r == p) r = cs_logical_plan_copy(c->arena, p);
        r->children[i] = ch;
    }
    if (r != p) extend_output(c, r);
    if (p->kind != CS_LP_FILTER && cs_optsq_node_has(p, is_outer))
        return cs_optsq_unsupported(
            err, CS_OPTSQ_OUTER_NOT_ALLOWED,
            "Accessing outer query column is not allowed in this location.");
    if (p->kind == CS_LP_FILTER) {
        cs_optsq_list all = {0}, local = {0};
        cs_optsq_conjuncts(c, p->condition, &all);
        int moved = 0;
        for (int i = 0; i < all.n; i++) {
            if (any_expr(all.v[i], is_outer)) {
                cs_optsq_push(c->arena, acc, all.v[i]);
                moved++;
            } else {
                cs_optsq_push(c->arena, &local, all.v[i]);
            }
        }
        if (moved)
            r = local.n ? cs_opt_filter(c, cs_opt_and_all(c, local.v, local.n), r->children[0])
                        : r->children[0];
    } else if ((p->kind == CS_LP_PROJECT || p->kind == CS_LP_AGGREGATE) && acc->n > first) {
        bool agg = p->kind == CS_LP_AGGREGATE;
        cs_optsq_list refs = {0};
        for (int i = first; i < acc->n; i++) {
            if (agg && !equi_correlation(acc->v[i])) {
                cs_sbuf b = {0};
                cs_sql_expr_print(acc->v[i], &b);
                cs_sql_error_set(err, CS_EINVAL,
                                 "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_COLUMN_IS_"
                                 "NOT_ALLOWED_IN_PREDICATE",
                                 "0A000",
                                 "Unsupported subquery expression: Correlated column is not "
                                 "allowed in predicate: %s.",
                                 cs_sbuf_str(&b));
                cs_sbuf_free(&b);
                return CS_EINVAL;
            }
            collect_attr_refs(c, acc->v[i], &refs);
        }
        const cs_logical_plan *child = r->children[0];
        int missing = 0;
        for (int i = 0; i < refs.n; i++)
            if (cs_optsq_find_id(r->output, r->n_output, refs.v[i]->id) < 0)
                refs.v[missing++] = refs.v[i];
        if (missing) {
            if (r == p) r = cs_logical_plan_copy(c->arena, p);
            r->exprs = cs_optsq_copy_list(c, r->exprs, r->n_exprs, missing);
            if (agg) r->group_by = cs_optsq_copy_list(c, r->group_by, r->n_group_by, missing);
            for (int i = 0; i < missing; i++) {
                int at = cs_optsq_find_id(child->output, child->n_output, refs.v[i]->id);
                cs_sql_expr *a = at >= 0 ? child->output[at] : refs.v[i];
                r->exprs[r->n_exprs++] = a;
                if (agg && cs_optsq_find_id(r->group_by, r->n_group_by, a->id) < 0)
                    r->group_by[r->n_group_by++] = a;
            }
            cs_logical_plan_output_of_list(c->arena, r);
        }
    }
    *out = r;
    return 0;
}

static cs_sql_expr *strip_outer_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    (void)m;
    if (e->kind != CS_EX_OUTER_ATTR) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    r->kind = CS_EX_ATTR;
    return r;
}

typedef struct remap {
    cs_expr_id *from, *to;
    int n;
} remap;

static cs_sql_expr *remap_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    (void)c;
    remap *rm = m->state;
    if (e->kind != CS_EX_ATTR) return e;
    for (int i = 0; i < rm->n; i++) {
        if (e->id != rm->from[i]) continue;
        cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
        r->id = rm->to[i];
        return r;
    }
    return e;
}

/* Whether id is an attribute of one of p's children. */
static bool child_attr(const cs_logical_plan *p, cs_expr_id id)
{
    for (int k = 0; k < p->n_children; k++)
        if (cs_optsq_find_id(p->children[k]->output, p->children[k]->n_output, id) >= 0)
            return true;
    return false;
}

static bool outer_refs_in(const cs_logical_plan *host, const cs_sql_expr *e)
{
    if (!e) return true;
    if (e->kind == CS_EX_OUTER_ATTR && !child_attr(host, e->id)) return false;
    for (int i = 0; i < e->n_args; i++)
        if (!outer_refs_in(host, e->args[i])) return false;
    return true;
}

/* Whether p returns exactly one row: projects over an aggregate without GROUP BY. */
static bool one_row(const cs_logical_plan *p)
{
    while (p->kind == CS_LP_PROJECT || p->kind == CS_LP_SUBQUERY_ALIAS)
        p = p->children[0];
    return p->kind == CS_LP_AGGREGATE && p->n_group_by == 0;
}

/* The subquery expression e of host's expressions with its correlated predicates pulled out
 * of its plan into join_cond, and its output renamed where it repeats an attribute of host's
 * children (Spark's dedup of a subquery on a self join). */
static int pull_subquery(cs_opt_ctx *c, const cs_logical_plan *host, cs_sql_expr *e,
                         cs_sql_expr **out, cs_error *err)
{
    *out = e;
    cs_logical_plan *sub = e->subquery;
    cs_optsq_list acc = {0};
    if (e->kind == CS_EX_EXISTS && !e->join_cond && one_row(sub)) {
        bool yes = true; /* EXISTS over an aggregate without GROUP BY: it has its one row */
        *out = cs_optsq_literal(c, cs_optsq_boolean(), &yes);
        return 0;
    }
    if (plan_has_outer(sub)) {
        int rc = pull(c, e->subquery, e->kind == CS_EX_SCALAR_SUBQUERY, &acc, &sub, err);
        if (rc) return rc;
    }
    for (int i = 0; i < acc.n; i++)
        if (!outer_refs_in(host, acc.v[i]))
            return cs_optsq_unsupported(
                err, CS_OPTSQ_OUTER_NOT_ALLOWED,
                "a correlated reference to a query more than one level out.");
    remap rm = {0};
    for (int i = 0; i < sub->n_output; i++) {
        if (!child_attr(host, sub->output[i]->id)) continue;
        if (!rm.n) {
            rm.from = cs_sql_alloc(c->arena, sizeof *rm.from * (size_t)sub->n_output);
            rm.to = cs_sql_alloc(c->arena, sizeof *rm.to * (size_t)sub->n_output);
        }
        rm.from[rm.n] = sub->output[i]->id;
        rm.to[rm.n++] = cs_catalog_next_expr_id(c->catalog);
    }
    if (!acc.n && !rm.n) return 0;
    cs_sql_expr *cond = cs_opt_and_all(c, acc.v, acc.n);
    if (rm.n) {
        cs_sql_expr **list = cs_optsq_copy_list(c, sub->output, sub->n_output, 0);
        for (int i = 0; i < sub->n_output; i++) {
            int k = -1;
            for (int j = 0; j < rm.n; j++)
                if (rm.from[j] == list[i]->id) k = j;
            if (k >= 0) list[i] = cs_optsq_alias(c, list[i], list[i]->name, rm.to[k]);
        }
        sub = cs_opt_project(c, list, sub->n_output, sub);
        cs_optsq_map m = {remap_f, &rm, 0, err};
        cond = cs_optsq_xform(c, &m, cond);
    }
    cs_optsq_map strip = {strip_outer_f, NULL, 0, err};
    cond = cs_optsq_xform(c, &strip, cond);
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    r->subquery = sub;
    r->join_cond = and2(c, e->join_cond, cond);
    *out = r;
    return 0;
}

/* ---- running a rule over a plan and the plans of its subquery expressions ---------------- */

typedef struct sub_state {
    cs_optsq_node_rule_fn whole; /* the rule over a whole plan */
    const cs_logical_plan *host; /* pull_subquery's host, or NULL */
} sub_state;

/* Subquery expressions: the rule applied inside their plans, then pulled up over host. */
static cs_sql_expr *subplans_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    sub_state *st = m->state;
    if (!cs_optsq_is_subquery(e)) return e;
    cs_logical_plan *np = NULL;
    if ((m->rc = st->whole(c, e->subquery, &np, m->err))) return e;
    cs_sql_expr *r = e;
    if (np != e->subquery) {
        r = cs_sql_expr_copy(c->arena, e);
        r->subquery = np;
    }
    if (st->host) {
        cs_sql_expr *pulled = NULL;
        if ((m->rc = pull_subquery(c, st->host, r, &pulled, m->err))) return e;
        r = pulled;
    }
    return r;
}

/* p's children rewritten by the whole rule, then the subqueries of p's expressions (pulled
 * up over p when pull is set), then node(p). */
int cs_optsq_transform_up(cs_opt_ctx *c, cs_logical_plan *p, cs_optsq_node_rule_fn whole,
                          bool pull_up, cs_optsq_node_rule_fn node, cs_logical_plan **out,
                          cs_error *err)
{
    cs_logical_plan *r = p;
    for (int i = 0; i < p->n_children; i++) {
        cs_logical_plan *ch = NULL;
        int rc = cs_optsq_transform_up(c, p->children[i], whole, pull_up, node, &ch, err);
        if (rc) return rc;
        if (ch == p->children[i]) continue;
        if (r == p) r = cs_logical_plan_copy(c->arena, p);
        r->children[i] = ch;
    }
    if (whole && cs_optsq_node_has(r, cs_optsq_is_subquery)) {
        sub_state st = {whole, pull_up ? r : NULL};
        cs_optsq_map m = {subplans_f, &st, 0, err};
        r = cs_optsq_map_node_exprs(c, r, &m);
        if (m.rc) return m.rc;
    }
    if (!node) {
        *out = r;
        return 0;
    }
    return node(c, r, out, err);
}

int cs_opt_pull_up_correlated(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                              cs_error *err)
{
    return cs_optsq_transform_up(c, p, cs_opt_pull_up_correlated, true, NULL, out, err);
}

/* ---- RewritePredicateSubquery ------------------------------------------------------------ */

/* values[i] = the subquery's column i, each e made `e OR isnull(e)` when null_aware. */
static cs_sql_expr *in_condition(cs_opt_ctx *c, const cs_sql_expr *in, bool null_aware)
{
    cs_sql_expr *cond = NULL;
    for (int i = 0; i < in->n_args; i++) {
        cs_sql_expr *e = eq2(c, in->args[i], in->subquery->output[i]);
        if (null_aware) e = or2(c, e, cs_optsq_isnull(c, e));
        cond = and2(c, cond, e);
    }
    return and2(c, cond, in->join_cond);
}

static bool in_may_be_null(const cs_sql_expr *in)
{
    for (int i = 0; i < in->n_args; i++)
        if (in->args[i]->nullable || in->subquery->output[i]->nullable) return true;
    return false;
}

static cs_sql_expr *exists_attr(cs_opt_ctx *c)
{
    return new_attr(c, "exists", cs_optsq_boolean(), false);
}

/* IN / EXISTS inside an expression: existence joins added over *m->state (a plan). */
static cs_sql_expr *existential_f(cs_opt_ctx *c, cs_optsq_map *m, cs_sql_expr *e)
{
    cs_logical_plan **plan = m->state;
    if (e->kind == CS_EX_EXISTS) {
        cs_sql_expr *x = exists_attr(c);
        *plan = cs_optsq_join(c, *plan, e->subquery, CS_JOIN_EXISTENCE, e->join_cond, x);
        return x;
    }
    if (e->kind != CS_EX_IN_SUBQUERY) return e;
    cs_sql_expr *x = exists_attr(c);
    *plan = cs_optsq_join(c, *plan, e->subquery, CS_JOIN_EXISTENCE, in_condition(c, e, false), x);
    if (!in_may_be_null(e)) return x;
    /* SQL's IN: true on a match, else null when some row compared null, else false */
    cs_sql_expr *xn = exists_attr(c);
    *plan = cs_optsq_join(c, *plan, e->subquery, CS_JOIN_EXISTENCE, in_condition(c, e, true), xn);
    cs_sql_expr *cw = cs_sql_expr_new(c->arena, CS_EX_CASE, 5);
    bool t = true;
    cw->args[0] = x;
    cw->args[1] = cs_optsq_literal(c, cs_optsq_boolean(), &t);
    cw->args[2] = xn;
    cw->args[3] = cs_optsq_literal(c, cs_optsq_boolean(), NULL);
    bool f = false;
    cw->args[4] = cs_optsq_literal(c, cs_optsq_boolean(), &f);
    cw->has_else = true;
    cw->type = cs_optsq_boolean();
    cw->nullable = true;
    cw->resolved = true;
    return cw;
}

static int rewrite_filter(cs_opt_ctx *c, cs_logical_plan *f, cs_logical_plan **out)
{
    cs_optsq_list all = {0}, with = {0}, without = {0};
    cs_optsq_conjuncts(c, f->condition, &all);
    for (int i = 0; i < all.n; i++)
        cs_optsq_push(c->arena, any_expr(all.v[i], is_in_or_exists) ? &with : &without, all.v[i]);
    cs_logical_plan *p = f->children[0];
    if (without.n) p = cs_opt_filter(c, cs_opt_and_all(c, without.v, without.n), p);
    for (int i = 0; i < with.n; i++) {
        cs_sql_expr *e = with.v[i];
        bool neg = cs_optsq_is_fn(e, "not") && is_in_or_exists(e->args[0]);
        cs_sql_expr *s = neg ? e->args[0] : e;
        if (s->kind == CS_EX_EXISTS) {
            p = cs_optsq_join(c, p, s->subquery, neg ? CS_JOIN_LEFT_ANTI : CS_JOIN_LEFT_SEMI,
                              s->join_cond, NULL);
        } else if (s->kind == CS_EX_IN_SUBQUERY) {
            p = cs_optsq_join(c, p, s->subquery, neg ? CS_JOIN_LEFT_ANTI : CS_JOIN_LEFT_SEMI,
                              in_condition(c, s, neg), NULL);
            p->null_aware = neg && s->n_args == 1 && !s->join_cond;
        } else {
            cs_logical_plan *in = p;
            cs_optsq_map m = {existential_f, &in, 0, NULL};
            cs_sql_expr *cond = cs_optsq_xform(c, &m, e);
            cs_logical_plan *keep = p;
            p = cs_opt_project(c, cs_optsq_copy_list(c, keep->output, keep->n_output, 0),
                               keep->n_output, cs_opt_filter(c, cond, in));
        }
    }
    *out = p;
    return 0;
}

static int predicate_node(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    *out = p;
    if (!cs_optsq_node_has(p, is_in_or_exists)) return 0;
    if (p->kind == CS_LP_FILTER) return rewrite_filter(c, p, out);
    if (p->kind != CS_LP_PROJECT && p->kind != CS_LP_AGGREGATE)
        return cs_optsq_unsupported(
            err, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.UNSUPPORTED_IN_EXISTS_SUBQUERY",
            "IN/EXISTS predicate subqueries can only be used in filters, joins, "
            "aggregations, window functions, projections, and UPDATE/MERGE/DELETE "
            "commands.");
    cs_logical_plan *child = p->children[0];
    cs_optsq_map m = {existential_f, &child, 0, err};
    cs_logical_plan *r = cs_optsq_map_node_exprs(c, p, &m);
    if (r == p) r = cs_logical_plan_copy(c->arena, p);
    r->children[0] = child;
    *out = r;
    return 0;
}

int cs_opt_rewrite_predicate_subquery(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                      cs_error *err)
{
    return cs_optsq_transform_up(c, p, cs_opt_rewrite_predicate_subquery, true, predicate_node, out,
                                 err);
}
