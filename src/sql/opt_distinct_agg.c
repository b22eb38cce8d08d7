/*
 * opt_distinct_agg.c — Spark's RewriteDistinctAggregates: an aggregate with DISTINCT
 * aggregates over several different argument sets (count(DISTINCT a), sum(DISTINCT b)), or a
 * DISTINCT aggregate with a FILTER, becomes two aggregates over an Expand, which the planner
 * runs with ordinary partial / final aggregates:
 *
 *   Expand: one projection per distinct group i (gid = i + 1: the group keys, that group's
 *           arguments, the others null, and the conditions of its FILTERs) and one for the
 *           regular (non-distinct) aggregates (gid = 0: their arguments);
 *   Aggregate 1 groups by the keys, every distinct argument and gid (making each group's
 *           arguments distinct) and computes the regular aggregates (over gid 0's rows) and
 *           max(condition) of each distinct FILTER;
 *   Aggregate 2 groups by the keys: each distinct aggregate without DISTINCT over its
 *           group's rows (FILTER gid = i + 1 [AND the max condition]), each regular one as
 *           first(its result, true) FILTER gid = 0 (coalesced to 0 for counts, which have a
 *           result over no rows).
 *
 * An aggregate with one distinct argument of one column, no distinct FILTER and regular
 * aggregates whose results merge (counts, sums, min, max, bool_and / bool_or) is left alone:
 * the planner's two-level plan runs it, as Spark's planAggregateWithOneDistinct (which merges
 * any buffers; cspark's merges results, so the other one-distinct cases come here). Runs once, in
 * the batch "Distinct Aggregate Rewrite" (optimizer.c), where Spark runs it.
 *
 * Called by optimizer.c. Ownership: every node in the query's arena.
 */
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/catalog.h"
#include "sql/optimizer_internal.h"

static void collect(cs_sql_expr *e, cs_sql_expr **out, int *n)
{
    if (!e) return;
    if (e->kind == CS_EX_AGG) {
        for (int i = 0; i < *n; i++)
            if (cs_opt_expr_equal(out[i], e)) return;
        out[(*n)++] = e;
        return;
    }
    if (e->kind == CS_EX_SCALAR_SUBQUERY || e->kind == CS_EX_WINDOW) return;
    for (int i = 0; i < e->n_args; i++)
        collect(e->args[i], out, n);
}

static int count_nodes(const cs_sql_expr *e)
{
    if (!e) return 0;
    int n = 1;
    for (int i = 0; i < e->n_args; i++)
        n += count_nodes(e->args[i]);
    return n + count_nodes(e->filter);
}

/* The arguments that make a distinct aggregate's group: its non-foldable arguments, or its
 * first one when all are foldable (Spark's unfoldableChildren). */
static int group_args(const cs_sql_expr *a, cs_sql_expr **out)
{
    int n = 0;
    for (int i = 0; i < a->n_args; i++)
        if (!cs_opt_foldable(a->args[i])) out[n++] = a->args[i];
    if (n == 0 && a->n_args > 0) out[n++] = a->args[0];
    return n;
}

static int index_of(cs_sql_expr *const *xs, int n, const cs_sql_expr *e)
{
    for (int i = 0; i < n; i++)
        if (cs_opt_expr_equal(xs[i], e)) return i;
    return -1;
}

/* Whether the two argument lists hold the same expressions (as sets). */
static bool same_set(cs_sql_expr *const *a, int na, cs_sql_expr *const *b, int nb)
{
    for (int i = 0; i < na; i++)
        if (index_of(b, nb, a[i]) < 0) return false;
    for (int i = 0; i < nb; i++)
        if (index_of(a, na, b[i]) < 0) return false;
    return true;
}

static cs_sql_expr *new_attr(cs_opt_ctx *c, const cs_sql_expr *like, cs_col_type *t, bool nullable)
{
    cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ATTR, 0);
    if (like) {
        cs_sbuf s = {0};
        cs_sql_expr_pretty_name(like, &s);
        a->name = cs_sql_strdup(c->arena, cs_sbuf_str(&s));
        cs_sbuf_free(&s);
    } else {
        a->name = "gid";
    }
    a->type = t;
    a->nullable = nullable;
    a->id = cs_catalog_next_expr_id(c->catalog);
    a->resolved = true;
    return a;
}

static cs_sql_expr *alias(cs_opt_ctx *c, cs_sql_expr *e, const char *name)
{
    cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
    al->args[0] = e;
    al->name = name;
    al->type = e->type;
    al->nullable = e->nullable;
    al->id = cs_catalog_next_expr_id(c->catalog);
    al->resolved = true;
    return al;
}

static cs_sql_expr *int_literal(cs_opt_ctx *c, int32_t v)
{
    cs_col_type *t = cs_col_type_primitive(CS_TYPE_INT);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_values(b, &v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->type = t;
    e->resolved = true;
    return e;
}

static cs_sql_expr *null_of(cs_opt_ctx *c, const cs_sql_expr *e)
{
    cs_sql_expr *n = cs_opt_null_literal(c, e->type);
    n->type = e->type;
    n->resolved = true;
    return n;
}

static cs_sql_expr *gid_is(cs_opt_ctx *c, cs_sql_expr *gid, int v)
{
    cs_sql_expr *args[2] = {gid, int_literal(c, v)};
    return cs_opt_call(c, "=", args, 2);
}

/* e with every occurrence of from[i] replaced by to[i] (whole subexpressions). */
typedef struct subst {
    cs_sql_expr *const *from, *const *to;
    int n;
} subst;

static cs_sql_expr *subst_fn(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    (void)c;
    const subst *s = ud;
    int i = index_of(s->from, s->n, e);
    return i >= 0 ? s->to[i] : e;
}

static cs_sql_expr *replace(cs_opt_ctx *c, cs_sql_expr *e, cs_sql_expr *const *from,
                            cs_sql_expr *const *to, int n)
{
    subst s = {from, to, n};
    return e ? cs_opt_expr_down(c, e, subst_fn, &s) : NULL;
}

/* an aggregate's arguments (not its filter) with from[i] replaced by to[i] */
static cs_sql_expr *patch_args(cs_opt_ctx *c, cs_sql_expr *a, cs_sql_expr *const *from,
                               cs_sql_expr *const *to, int n)
{
    cs_sql_expr *x = cs_sql_expr_copy(c->arena, a);
    for (int i = 0; i < x->n_args; i++) {
        int k = index_of(from, n, x->args[i]);
        if (k >= 0) x->args[i] = to[k];
    }
    return x;
}

/* Whether the planner's one-distinct plan can merge the regular aggregate's results */
static bool merges_results(const cs_sql_expr *a)
{
    static const char *const names[] = {"count", "count_if", "sum",     "min",
                                        "max",   "bool_and", "bool_or", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(a->fn, names[i]) == 0) return a->n_args == 1 || strcmp(a->fn, "count") != 0;
    return false;
}

/* Whether the aggregate has a result over no rows (Spark's defaultResult): counts */
static bool counts(const cs_sql_expr *a)
{
    return strcmp(a->fn, "count") == 0 || strcmp(a->fn, "count_if") == 0 ||
           strcmp(a->fn, "regr_count") == 0;
}

static cs_sql_expr *zero_of(cs_opt_ctx *c, cs_col_type *t)
{
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    int64_t zero = 0;
    cs_col_builder_append_values(b, &zero, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(c->arena, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->type = t;
    e->resolved = true;
    return e;
}

static cs_logical_plan *rewrite(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_AGGREGATE) return p;
    int cap = 1;
    for (int i = 0; i < p->n_exprs; i++)
        cap += count_nodes(p->exprs[i]);
    cs_sql_expr **aggs = cs_sql_alloc(c->arena, sizeof *aggs * (size_t)cap);
    int n_aggs = 0;
    for (int i = 0; i < p->n_exprs; i++)
        collect(p->exprs[i], aggs, &n_aggs);

    /* the distinct groups */
    int n_dist = 0, n_groups = 0, n_filters = 0;
    bool any_filter = false, one_distinct_plan = true;
    cs_sql_expr ***gargs = cs_sql_alloc(c->arena, sizeof *gargs * (size_t)(n_aggs + 1));
    int *gn = cs_sql_alloc(c->arena, sizeof *gn * (size_t)(n_aggs + 1));
    int *group_of = cs_sql_alloc(c->arena, sizeof *group_of * (size_t)(n_aggs + 1));
    for (int i = 0; i < n_aggs; i++) {
        group_of[i] = -1;
        if (!aggs[i]->distinct) {
            one_distinct_plan &= merges_results(aggs[i]);
            continue;
        }
        n_dist++;
        any_filter |= aggs[i]->filter != NULL;
        cs_sql_expr **ga = cs_sql_alloc(c->arena, sizeof *ga * (size_t)(aggs[i]->n_args + 1));
        int na = group_args(aggs[i], ga);
        int g = 0;
        while (g < n_groups && !same_set(gargs[g], gn[g], ga, na))
            g++;
        if (g == n_groups) {
            gargs[g] = ga;
            gn[g] = na;
            n_groups++;
        }
        group_of[i] = g;
        if (aggs[i]->filter) n_filters++;
        one_distinct_plan &= na == 1;
    }
    if (n_dist == 0 || (n_groups <= 1 && !any_filter && one_distinct_plan)) return p;

    /* the distinct arguments, each once, and their attributes */
    int n_dc = 0;
    for (int g = 0; g < n_groups; g++)
        n_dc += gn[g];
    cs_sql_expr **dc = cs_sql_alloc(c->arena, sizeof *dc * (size_t)(n_dc + 1));
    n_dc = 0;
    for (int g = 0; g < n_groups; g++)
        for (int k = 0; k < gn[g]; k++)
            if (index_of(dc, n_dc, gargs[g][k]) < 0) dc[n_dc++] = gargs[g][k];
    cs_sql_expr **dca = cs_sql_alloc(c->arena, sizeof *dca * (size_t)(n_dc + 1));
    for (int k = 0; k < n_dc; k++)
        dca[k] = new_attr(c, dc[k], dc[k]->type, true);

    /* the distinct aggregates' filters: a condition attribute each, max()ed by aggregate 1 */
    cs_sql_expr **filt = cs_sql_alloc(c->arena, sizeof *filt * (size_t)(n_filters + 1));
    cs_sql_expr **filt_attr = cs_sql_alloc(c->arena, sizeof *filt_attr * (size_t)(n_filters + 1));
    cs_sql_expr **max_cond = cs_sql_alloc(c->arena, sizeof *max_cond * (size_t)(n_filters + 1));
    int *filt_of = cs_sql_alloc(c->arena, sizeof *filt_of * (size_t)(n_aggs + 1));
    n_filters = 0;
    for (int i = 0; i < n_aggs; i++) {
        filt_of[i] = -1;
        if (group_of[i] < 0 || !aggs[i]->filter) continue;
        int f = index_of(filt, n_filters, aggs[i]->filter);
        if (f < 0) {
            f = n_filters++;
            filt[f] = aggs[i]->filter;
            filt_attr[f] = new_attr(c, filt[f], filt[f]->type, true);
            cs_sql_expr *mx = cs_opt_call(c, "max", &filt_attr[f], 1);
            if (!mx) return p;
            max_cond[f] = alias(c, mx, filt_attr[f]->name);
        }
        filt_of[i] = f;
    }

    /* the regular aggregates' arguments and the attributes their filters read */
    int n_reg = n_aggs - n_dist, n_rc = 0, rc_cap = 1;
    for (int i = 0; i < n_aggs; i++)
        if (group_of[i] < 0) rc_cap += aggs[i]->n_args + count_nodes(aggs[i]->filter);
    cs_sql_expr **rc = cs_sql_alloc(c->arena, sizeof *rc * (size_t)rc_cap);
    for (int i = 0; i < n_aggs; i++) {
        if (group_of[i] >= 0) continue;
        for (int k = 0; k < aggs[i]->n_args; k++)
            if (!cs_opt_foldable(aggs[i]->args[k]) && index_of(rc, n_rc, aggs[i]->args[k]) < 0)
                rc[n_rc++] = aggs[i]->args[k];
        if (aggs[i]->filter) {
            cs_opt_attrs refs = {0};
            cs_opt_refs(c, aggs[i]->filter, &refs);
            for (int r = 0; r < refs.n; r++) {
                cs_sql_expr *a = cs_opt_output_find(p->children[0], refs.ids[r]);
                if (a && index_of(rc, n_rc, a) < 0) rc[n_rc++] = a;
            }
        }
    }
    cs_sql_expr **rca = cs_sql_alloc(c->arena, sizeof *rca * (size_t)(n_rc + 1));
    for (int k = 0; k < n_rc; k++)
        rca[k] = new_attr(c, rc[k], rc[k]->type, true);

    /* the group keys' attributes */
    int g = p->n_group_by;
    cs_sql_expr **gattr = cs_sql_alloc(c->arena, sizeof *gattr * (size_t)(g + 1));
    for (int i = 0; i < g; i++)
        gattr[i] =
            p->group_by[i]->kind == CS_EX_ATTR
                ? p->group_by[i]
                : new_attr(c, p->group_by[i], p->group_by[i]->type, p->group_by[i]->nullable);
    cs_sql_expr *gid = new_attr(c, NULL, cs_col_type_primitive(CS_TYPE_INT), false);

    /* the Expand */
    int per = g + n_dc + 1 + n_filters + n_rc, n_proj = n_groups + (n_reg > 0);
    cs_logical_plan *x = cs_logical_plan_new(c->arena, CS_LP_EXPAND, 1);
    x->children[0] = p->children[0];
    x->n_projections = n_proj;
    x->n_exprs = per;
    x->exprs = cs_sql_alloc(c->arena, sizeof *x->exprs * (size_t)(per * n_proj));
    for (int j = 0; j < n_proj; j++) {
        cs_sql_expr **row = x->exprs + (size_t)j * (size_t)per;
        int gi = n_reg > 0 ? j - 1 : j; /* -1: the regular projection */
        int at = 0;
        for (int i = 0; i < g; i++)
            row[at++] = p->group_by[i];
        for (int k = 0; k < n_dc; k++)
            row[at++] =
                gi >= 0 && index_of(gargs[gi], gn[gi], dc[k]) >= 0 ? dc[k] : null_of(c, dc[k]);
        row[at++] = int_literal(c, gi + 1);
        for (int f = 0; f < n_filters; f++) {
            bool mine = false;
            for (int i = 0; i < n_aggs && gi >= 0; i++)
                mine |= group_of[i] == gi && filt_of[i] == f;
            row[at++] = mine ? filt[f] : null_of(c, filt[f]);
        }
        for (int k = 0; k < n_rc; k++)
            row[at++] = gi < 0 ? rc[k] : null_of(c, rc[k]);
    }
    x->n_output = per;
    x->output = cs_sql_alloc(c->arena, sizeof *x->output * (size_t)per);
    int at = 0;
    for (int i = 0; i < g; i++)
        x->output[at++] = gattr[i];
    for (int k = 0; k < n_dc; k++)
        x->output[at++] = dca[k];
    x->output[at++] = gid;
    for (int f = 0; f < n_filters; f++)
        x->output[at++] = filt_attr[f];
    for (int k = 0; k < n_rc; k++)
        x->output[at++] = rca[k];
    x->resolved = true;

    /* aggregate 1: keys, distinct arguments, gid; the regular aggregates; the max conditions */
    int n_keys1 = g + n_dc + 1;
    cs_logical_plan *a1 = cs_logical_plan_new(c->arena, CS_LP_AGGREGATE, 1);
    a1->children[0] = x;
    a1->n_group_by = n_keys1;
    a1->group_by = x->output;
    a1->n_exprs = n_keys1 + n_reg + n_filters;
    a1->exprs = cs_sql_alloc(c->arena, sizeof *a1->exprs * (size_t)(a1->n_exprs + 1));
    memcpy(a1->exprs, x->output, sizeof *a1->exprs * (size_t)n_keys1);
    cs_sql_expr **reg_op = cs_sql_alloc(c->arena, sizeof *reg_op * (size_t)(n_aggs + 1));
    int e1 = n_keys1;
    for (int i = 0; i < n_aggs; i++) {
        if (group_of[i] >= 0) continue;
        cs_sql_expr *op = patch_args(c, aggs[i], rc, rca, n_rc);
        op->filter = replace(c, aggs[i]->filter, rc, rca, n_rc);
        cs_sbuf s = {0};
        cs_sql_expr_pretty_name(aggs[i], &s);
        reg_op[i] = alias(c, op, cs_sql_strdup(c->arena, cs_sbuf_str(&s)));
        cs_sbuf_free(&s);
        a1->exprs[e1++] = reg_op[i];
    }
    for (int f = 0; f < n_filters; f++)
        a1->exprs[e1++] = max_cond[f];
    a1->resolved = true;
    cs_logical_plan_output_of_list(c->arena, a1);

    /* aggregate 2 */
    cs_sql_expr **from = cs_sql_alloc(c->arena, sizeof *from * (size_t)(n_aggs + g + 1));
    cs_sql_expr **to = cs_sql_alloc(c->arena, sizeof *to * (size_t)(n_aggs + g + 1));
    int n_map = 0;
    for (int i = 0; i < g; i++)
        if (p->group_by[i]->kind != CS_EX_ATTR) {
            from[n_map] = p->group_by[i];
            to[n_map++] = gattr[i];
        }
    for (int i = 0; i < n_aggs; i++) {
        cs_sql_expr *r;
        if (group_of[i] >= 0) {
            r = patch_args(c, aggs[i], dc, dca, n_dc);
            r->distinct = false;
            cs_sql_expr *cond = gid_is(c, gid, group_of[i] + 1);
            if (filt_of[i] >= 0)
                cond = cs_opt_and(c, cond, cs_sql_expr_to_attr(c->arena, max_cond[filt_of[i]]));
            r->filter = cond;
        } else {
            cs_sql_expr *args[2] = {cs_sql_expr_to_attr(c->arena, reg_op[i]),
                                    cs_opt_bool_literal(c, true)};
            r = cs_opt_call(c, "first", args, 2);
            if (!r) return p;
            r->filter = gid_is(c, gid, 0);
            r->type = aggs[i]->type;
            if (counts(aggs[i])) {
                cs_sql_expr *cargs[2] = {r, zero_of(c, aggs[i]->type)};
                r = cs_opt_call(c, "coalesce", cargs, 2);
                if (!r) return p;
            }
        }
        from[n_map] = aggs[i];
        to[n_map++] = r;
    }
    cs_logical_plan *a2 = cs_logical_plan_new(c->arena, CS_LP_AGGREGATE, 1);
    a2->children[0] = a1;
    a2->n_group_by = g;
    a2->group_by = gattr;
    a2->n_exprs = p->n_exprs;
    a2->exprs = cs_sql_alloc(c->arena, sizeof *a2->exprs * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++)
        a2->exprs[i] = replace(c, p->exprs[i], from, to, n_map);
    a2->resolved = true;
    a2->n_output = p->n_output;
    a2->output = p->output;
    return a2;
}

int cs_opt_rewrite_distinct_aggregates(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                       cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, rewrite, NULL);
    return 0;
}
