/*
 * analyzer_agg.c — a SELECT block's rules (see analyzer_internal.h):
 *   - the select list: `*` expanded, each item named as Spark names it;
 *   - aggregates: a select list with aggregate functions (or a GROUP BY) is an AGGREGATE;
 *     GROUP BY items may be ordinals (`GROUP BY 1`) or select aliases, GROUP BY ALL the items
 *     without aggregates (Spark 4's ResolveGroupByAll); every column outside an
 *     aggregate must be grouped (MISSING_AGGREGATION, or MISSING_GROUP_BY without GROUP BY);
 *   - HAVING: a FILTER over the AGGREGATE; aggregates it needs that the select list lacks are
 *     added to the aggregate and projected away afterwards, as Spark's ResolveAggregateFunctions;
 *   - ORDER BY: ordinals and select aliases; columns the select list dropped are added below the
 *     SORT and projected away (ResolveMissingReferences), aggregates too over an AGGREGATE;
 *   - windows: each window expression becomes an attribute of a WINDOW node (one per distinct
 *     PARTITION BY / ORDER BY); over an aggregate, the window's inputs are computed by the
 *     aggregate as `_wN` columns (ExtractWindowExpressions). A final PROJECT gives the names.
 */
#include <stdio.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/analyzer_internal.h"

typedef struct agg_state {
    cs_sql_expr **group; /* resolved grouping expressions */
    int n_group;
    cs_sql_expr **list; /* the aggregate's named expressions (grows with hidden ones) */
    int n, cap;
    int hidden; /* counter for _wN names */
} agg_state;

static cs_an_scope scope_of(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_an_scope s = {p->output, p->n_output, c->outer, p->hidden, p->n_hidden};
    return s;
}

static int missing_agg_error(cs_an_ctx *c, const cs_sql_expr *e, int n_group)
{
    if (n_group == 0)
        return cs_sql_error_set(c->err, CS_EINVAL, "MISSING_GROUP_BY", "42803",
                                "The query does not include a GROUP BY clause. Add GROUP BY or "
                                "turn it into the window functions using OVER clauses.");
    cs_sbuf x = {0};
    cs_sql_expr_pretty_name(e, &x);
    cs_sql_error_set(c->err, CS_EINVAL, "MISSING_AGGREGATION", "42803",
                     "The non-aggregating expression \"%s\" is based on columns which are not "
                     "participating in the GROUP BY clause.\nAdd the columns or the expression to "
                     "the GROUP BY, aggregate the expression, or use \"any_value(%s)\" if you do "
                     "not care which of the values within a group is returned.",
                     cs_sbuf_str(&x), cs_sbuf_str(&x));
    cs_sbuf_free(&x);
    return CS_EINVAL;
}

static int group_index(const agg_state *g, const cs_sql_expr *e)
{
    for (int i = 0; i < g->n_group; i++)
        if (cs_an_equal(g->group[i], e)) return i;
    return -1;
}

/* Whether e only uses grouped expressions outside aggregates (Spark's checkValidAggregateExpr). */
static int check_grouped(cs_an_ctx *c, const agg_state *g, const cs_sql_expr *e)
{
    if (group_index(g, e) >= 0 || cs_sql_expr_is_python_agg(e)) return 0;
    switch (e->kind) {
    case CS_EX_AGG:
    case CS_EX_LITERAL:
    case CS_EX_OUTER_ATTR:
    case CS_EX_SCALAR_SUBQUERY:
    case CS_EX_EXISTS:
    case CS_EX_IN_SUBQUERY:
        return 0;
    case CS_EX_ATTR:
        return missing_agg_error(c, e, g->n_group);
    case CS_EX_WINDOW:
        return 0; /* checked when extracted */
    default:
        break;
    }
    for (int i = 0; i < e->n_args; i++) {
        int rc = check_grouped(c, g, e->args[i]);
        if (rc) return rc;
    }
    return 0;
}

/* The attribute of the aggregate's output computing e (added as a hidden `_wN`/named item). */
static cs_sql_expr *agg_output_for(cs_an_ctx *c, agg_state *g, cs_sql_expr *e, bool pretty)
{
    for (int i = 0; i < g->n; i++) {
        cs_sql_expr *it = g->list[i];
        const cs_sql_expr *v = it->kind == CS_EX_ALIAS ? it->args[0] : it;
        if (cs_an_equal(v, e)) return cs_sql_expr_to_attr(c->a, it);
    }
    cs_sql_expr *named;
    if (e->kind == CS_EX_ATTR) {
        named = e;
    } else if (pretty) {
        named = cs_an_named(c, e, NULL);
    } else {
        char name[32];
        snprintf(name, sizeof name, "_w%d", g->hidden++);
        named = cs_an_named(c, e, cs_sql_strdup(c->a, name));
    }
    cs_an_push(c, &g->list, &g->n, &g->cap, named);
    return cs_sql_expr_to_attr(c->a, named);
}

static cs_sql_expr *extract_window(cs_an_ctx *c, agg_state *g, const cs_sql_expr *w);

/* e rewritten to read the aggregate's output: aggregates and grouped expressions become its
 * attributes (added when missing); NULL + MISSING_AGGREGATION for ungrouped columns. */
static cs_sql_expr *over_aggregate(cs_an_ctx *c, agg_state *g, const cs_sql_expr *e, bool pretty)
{
    if (e->kind == CS_EX_AGG || cs_sql_expr_is_python_agg(e) || group_index(g, e) >= 0)
        return agg_output_for(c, g, (cs_sql_expr *)e, pretty);
    switch (e->kind) {
    case CS_EX_LITERAL:
    case CS_EX_OUTER_ATTR:
    case CS_EX_SCALAR_SUBQUERY:
    case CS_EX_EXISTS:
        return (cs_sql_expr *)e;
    case CS_EX_ATTR:
        /* an attribute the aggregate already outputs (a select alias) */
        for (int i = 0; i < g->n; i++)
            if (g->list[i]->id == e->id) return (cs_sql_expr *)e;
        missing_agg_error(c, e, g->n_group);
        return NULL;
    case CS_EX_WINDOW:
        return extract_window(c, g, e);
    default:
        break;
    }
    if (e->n_args == 0) return (cs_sql_expr *)e;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    for (int i = 0; i < e->n_args; i++)
        if (!(r->args[i] = over_aggregate(c, g, e->args[i], pretty))) return NULL;
    return r;
}

/* A window expression whose function inputs, partition and order read the aggregate. */
static cs_sql_expr *extract_window(cs_an_ctx *c, agg_state *g, const cs_sql_expr *w)
{
    cs_sql_expr *r = cs_sql_expr_copy(c->a, w);
    cs_sql_expr *f = cs_sql_expr_copy(c->a, w->args[0]);
    for (int i = 0; i < f->n_args; i++)
        if (!(f->args[i] = over_aggregate(c, g, f->args[i], false))) return NULL;
    r->args[0] = f;
    cs_window_spec *spec = cs_sql_alloc(c->a, sizeof *spec);
    *spec = *w->window;
    spec->partition = cs_sql_alloc(c->a, sizeof *spec->partition * (size_t)(spec->n_partition + 1));
    spec->order = cs_sql_alloc(c->a, sizeof *spec->order * (size_t)(spec->n_order + 1));
    for (int i = 0; i < spec->n_partition; i++)
        if (!(spec->partition[i] = over_aggregate(c, g, w->window->partition[i], false)))
            return NULL;
    for (int i = 0; i < spec->n_order; i++)
        if (!(spec->order[i] = over_aggregate(c, g, w->window->order[i], false))) return NULL;
    r->window = spec;
    return r;
}

static bool same_spec(const cs_window_spec *x, const cs_window_spec *y)
{
    if (x->n_partition != y->n_partition || x->n_order != y->n_order) return false;
    for (int i = 0; i < x->n_partition; i++)
        if (!cs_an_equal(x->partition[i], y->partition[i])) return false;
    for (int i = 0; i < x->n_order; i++)
        if (!cs_an_equal(x->order[i], y->order[i])) return false;
    return true;
}

typedef struct window_state {
    cs_sql_expr **windows; /* ALIAS(window expr) */
    int n, cap;
} window_state;

/* e with its window expressions replaced by attributes (collected in ws). */
static cs_sql_expr *replace_windows(cs_an_ctx *c, window_state *ws, const cs_sql_expr *e)
{
    if (e->kind == CS_EX_WINDOW) {
        for (int i = 0; i < ws->n; i++)
            if (ws->windows[i]->args[0] == e) return cs_sql_expr_to_attr(c->a, ws->windows[i]);
        cs_sql_expr *named = cs_an_named(c, (cs_sql_expr *)e, NULL);
        cs_an_push(c, &ws->windows, &ws->n, &ws->cap, named);
        return cs_sql_expr_to_attr(c->a, named);
    }
    if (e->n_args == 0) return (cs_sql_expr *)e;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    for (int i = 0; i < e->n_args; i++)
        r->args[i] = replace_windows(c, ws, e->args[i]);
    return r;
}

/* One WINDOW node per distinct specification, over child. */
static cs_logical_plan *window_nodes(cs_an_ctx *c, cs_logical_plan *child, window_state *ws)
{
    bool *done = cs_sql_alloc(c->a, sizeof *done * (size_t)(ws->n + 1));
    for (int i = 0; i < ws->n; i++) {
        if (done[i]) continue;
        const cs_window_spec *spec = ws->windows[i]->args[0]->window;
        cs_logical_plan *w = cs_logical_plan_new(c->a, CS_LP_WINDOW, 1);
        w->children[0] = child;
        w->exprs = cs_sql_alloc(c->a, sizeof *w->exprs * (size_t)(ws->n + 1));
        for (int j = i; j < ws->n; j++) {
            /* one node per spec and kind of function, as Spark's ExtractWindowExpressions
             * (grouped-aggregate pandas UDFs run apart: WindowInPandas) */
            if (done[j] || !same_spec(spec, ws->windows[j]->args[0]->window) ||
                cs_sql_expr_is_python_agg(ws->windows[i]->args[0]->args[0]) !=
                    cs_sql_expr_is_python_agg(ws->windows[j]->args[0]->args[0]))
                continue;
            done[j] = true;
            w->exprs[w->n_exprs++] = ws->windows[j];
        }
        w->n_partition = spec->n_partition;
        w->partition = spec->partition;
        w->n_order = spec->n_order;
        w->order = spec->order;
        w->n_output = child->n_output + w->n_exprs;
        w->output = cs_sql_alloc(c->a, sizeof *w->output * (size_t)(w->n_output + 1));
        memcpy(w->output, child->output, sizeof *w->output * (size_t)child->n_output);
        for (int j = 0; j < w->n_exprs; j++)
            w->output[child->n_output + j] = cs_sql_expr_to_attr(c->a, w->exprs[j]);
        w->resolved = true;
        child = w;
    }
    return child;
}

/* The select list resolved against scope s: stars expanded, items named. */
static int resolve_list(cs_an_ctx *c, const cs_logical_plan *p, const cs_an_scope *s,
                        const cs_an_grouped_window *gw, cs_sql_expr ***list, int *n)
{
    int cap = 0;
    *list = NULL;
    *n = 0;
    for (int i = 0; i < p->n_exprs; i++) {
        const cs_sql_expr *e = p->exprs[i];
        if (e->kind == CS_EX_STAR) {
            if (cs_an_expand_star(c, e, s, list, n, &cap) != 0) return CS_EINVAL;
            continue;
        }
        cs_sql_expr *r =
            cs_an_expr(c, e, s, CS_AN_ALLOW_AGG | CS_AN_ALLOW_WINDOW | CS_AN_ALLOW_GENERATOR);
        if (!r) return CS_EINVAL;
        r = cs_an_time_window_grouped(c, r, gw);
        cs_an_push(c, list, n, &cap, cs_an_named(c, r, NULL));
    }
    return 0;
}

static cs_sql_expr *strip_alias(cs_sql_expr *e)
{
    return e->kind == CS_EX_ALIAS ? e->args[0] : e;
}

/* GROUP BY ALL (Spark 4's ResolveGroupByAll): `ALL` alone, naming no column nor alias, groups
 * by every select item without an aggregate. true when p's GROUP BY is that. */
static bool group_by_all(cs_an_ctx *c, const cs_logical_plan *p, const cs_an_scope *s,
                         cs_sql_expr **list, int n, agg_state *g)
{
    const cs_sql_expr *e = p->n_group_by == 1 ? p->group_by[0] : NULL;
    if (!e || e->kind != CS_EX_UNRESOLVED_ATTR || e->n_parts != 1 ||
        !cs_str_ieq(e->parts[0], "all"))
        return false;
    cs_sql_expr *a = NULL;
    if (cs_an_lookup(c, e->parts, 1, s, &a) != 0) return false; /* a column named all */
    for (int j = 0; j < n; j++)
        if (list[j]->kind == CS_EX_ALIAS && cs_str_ieq(list[j]->name, "all")) return false;
    g->group = cs_sql_alloc(c->a, sizeof *g->group * (size_t)(n + 1));
    g->n_group = 0;
    for (int j = 0; j < n; j++)
        if (!cs_an_contains_agg(list[j])) g->group[g->n_group++] = strip_alias(list[j]);
    return true;
}

static int resolve_group_by(cs_an_ctx *c, const cs_logical_plan *p, const cs_an_scope *s,
                            cs_sql_expr **list, int n, agg_state *g)
{
    if (group_by_all(c, p, s, list, n, g)) return 0;
    g->n_group = p->n_group_by;
    g->group = cs_sql_alloc(c->a, sizeof *g->group * (size_t)(p->n_group_by + 1));
    for (int i = 0; i < p->n_group_by; i++) {
        const cs_sql_expr *e = p->group_by[i];
        cs_sql_expr *r = NULL;
        if (e->kind == CS_EX_UNRESOLVED_ORDINAL) {
            if (e->ordinal < 1 || e->ordinal > n)
                return cs_sql_error_set(c->err, CS_EINVAL, "GROUP_BY_POS_OUT_OF_RANGE", "42805",
                                        "GROUP BY position %lld is not in select list (valid "
                                        "range is [1, %d]).",
                                        (long long)e->ordinal, n);
            r = strip_alias(list[e->ordinal - 1]);
            if (cs_an_contains_agg(r)) {
                cs_sbuf x = {0};
                cs_sql_expr_pretty_name(list[e->ordinal - 1], &x);
                cs_sql_error_set(c->err, CS_EINVAL, "GROUP_BY_POS_AGGREGATE", "42903",
                                 "GROUP BY %lld refers to an expression %s that contains an "
                                 "aggregate function. Aggregate functions are not allowed in "
                                 "GROUP BY.",
                                 (long long)e->ordinal, cs_sbuf_str(&x));
                cs_sbuf_free(&x);
                return CS_EINVAL;
            }
        } else if (e->kind == CS_EX_UNRESOLVED_ATTR && e->n_parts == 1) {
            /* a column of the input first, else a select alias (spark.sql.groupByAliases) */
            cs_sql_expr *a = NULL;
            int rc = cs_an_lookup(c, e->parts, 1, s, &a);
            if (rc < 0) return CS_EINVAL;
            if (rc > 0) r = a;
            for (int j = 0; !r && j < n; j++)
                if (list[j]->kind == CS_EX_ALIAS && cs_str_ieq(list[j]->name, e->parts[0]))
                    r = list[j]->args[0];
            if (!r && !(r = cs_an_expr(c, e, s, 0))) return CS_EINVAL;
        } else {
            if (!(r = cs_an_expr(c, e, s, 0))) return CS_EINVAL;
        }
        if (cs_fn_check_variant_group(c->err, r)) return CS_EINVAL;
        g->group[i] = r;
    }
    return 0;
}

/* An aggregate over child for the select list `list` (already resolved against child). */
static cs_logical_plan *build_aggregate(cs_an_ctx *c, cs_logical_plan *child, agg_state *g,
                                        cs_sql_expr **list, int n, bool has_window)
{
    window_state ws = {0};
    cs_sql_expr **final = cs_sql_alloc(c->a, sizeof *final * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        cs_sql_expr *it = list[i];
        if (!cs_an_contains(it, CS_EX_WINDOW)) {
            if (check_grouped(c, g, strip_alias(it))) return NULL;
            cs_an_push(c, &g->list, &g->n, &g->cap, it);
            final[i] = cs_sql_expr_to_attr(c->a, it);
            continue;
        }
        cs_sql_expr *v = over_aggregate(c, g, strip_alias(it), false);
        if (!v) return NULL;
        cs_sql_expr *rv = replace_windows(c, &ws, v);
        final[i] = it->kind == CS_EX_ALIAS ? cs_an_named(c, rv, it->name) : rv;
        if (final[i]->kind == CS_EX_ALIAS) final[i]->id = it->id;
    }
    cs_logical_plan *agg = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    agg->children[0] = child;
    agg->group_by = g->group;
    agg->n_group_by = g->n_group;
    agg->exprs = g->list;
    agg->n_exprs = g->n;
    cs_logical_plan_output_of_list(c->a, agg);
    if (!has_window) return agg;
    cs_logical_plan *w = window_nodes(c, agg, &ws);
    return cs_an_project(c, w, final, n);
}

/* ---- GROUPING SETS / ROLLUP / CUBE (Spark's ResolveGroupingAnalytics) ----
 * The parser gives one group_by item: a call "rollup" / "cube" (args: expressions, or
 * "grouping_set" calls for (a, b) groups) or "grouping_sets" (args: "grouping_set" calls). The
 * aggregate runs over an EXPAND that repeats each input row once per grouping set, with the
 * grouping expressions absent from the set nulled, and spark_grouping_id (bigint: bit k-1-i set
 * when the i-th of the k grouping expressions is absent). The select list reads the expanded
 * (nullable) grouping columns; grouping(x) is ((gid >> bit) & 1) as tinyint, grouping_id() gid. */

#define MAX_GROUPING 30

typedef struct grouping_info {
    cs_sql_expr *exprs[MAX_GROUPING];    /* the distinct grouping expressions, resolved */
    cs_sql_expr *expanded[MAX_GROUPING]; /* their attributes after the EXPAND */
    int k;
    int64_t *sets; /* bit i: exprs[i] is in the set */
    int n_sets;
    cs_sql_expr *gid;
} grouping_info;

static bool is_grouping_call(const cs_sql_expr *e, const char *name)
{
    return e->kind == CS_EX_UNRESOLVED_FUNC && strcmp(e->name, name) == 0;
}

static bool is_grouping_analytics_call(const cs_sql_expr *e)
{
    return is_grouping_call(e, "rollup") || is_grouping_call(e, "cube") ||
           is_grouping_call(e, "grouping_sets");
}

/* GROUP BY with ROLLUP / CUBE / GROUPING SETS, alone or beside plain expressions */
static bool is_grouping_analytics(const cs_logical_plan *p)
{
    if (p->kind != CS_LP_AGGREGATE) return false;
    for (int i = 0; i < p->n_group_by; i++)
        if (is_grouping_analytics_call(p->group_by[i])) return true;
    return false;
}

/* The bit mask of the expressions of one group (an expression or a grouping_set call). */
static int group_mask(cs_an_ctx *c, grouping_info *gi, const cs_sql_expr *g, const cs_an_scope *s,
                      int64_t *mask)
{
    int n = is_grouping_call(g, "grouping_set") ? g->n_args : 1;
    for (int i = 0; i < n; i++) {
        const cs_sql_expr *e = is_grouping_call(g, "grouping_set") ? g->args[i] : g;
        cs_sql_expr *r = cs_an_expr(c, e, s, 0);
        if (!r) return CS_EINVAL;
        int j = 0;
        while (j < gi->k && !cs_an_equal(gi->exprs[j], r))
            j++;
        if (j == gi->k) {
            if (gi->k == MAX_GROUPING)
                return cs_sql_error_set(c->err, CS_EINVAL, "GROUPING_SIZE_LIMIT_EXCEEDED", "54000",
                                        "Grouping sets size cannot be greater than %d.",
                                        MAX_GROUPING);
            gi->exprs[gi->k++] = r;
        }
        *mask |= (int64_t)1 << j;
    }
    return 0;
}

static int grouping_sets_of(cs_an_ctx *c, const cs_sql_expr *call, const cs_an_scope *s,
                            grouping_info *gi)
{
    int n = call->n_args;
    int64_t groups[MAX_GROUPING];
    if (n > MAX_GROUPING || (is_grouping_call(call, "cube") && n > 12))
        return cs_sql_error_set(c->err, CS_EINVAL, "GROUPING_SIZE_LIMIT_EXCEEDED", "54000",
                                "Grouping sets size cannot be greater than %d.", MAX_GROUPING);
    for (int i = 0; i < n; i++) {
        groups[i] = 0;
        if (group_mask(c, gi, call->args[i], s, &groups[i]) != 0) return CS_EINVAL;
    }
    if (is_grouping_call(call, "grouping_sets")) {
        gi->n_sets = n;
        gi->sets = cs_sql_alloc(c->a, sizeof *gi->sets * (size_t)(n + 1));
        memcpy(gi->sets, groups, sizeof *gi->sets * (size_t)n);
    } else if (is_grouping_call(call, "rollup")) { /* (g1..gn), (g1..gn-1), ..., () */
        gi->n_sets = n + 1;
        gi->sets = cs_sql_alloc(c->a, sizeof *gi->sets * (size_t)(n + 1));
        for (int i = 0; i <= n; i++) {
            gi->sets[i] = 0;
            for (int j = 0; j < n - i; j++)
                gi->sets[i] |= groups[j];
        }
    } else { /* cube: every subset of the groups */
        gi->n_sets = 1 << n;
        gi->sets = cs_sql_alloc(c->a, sizeof *gi->sets * (size_t)gi->n_sets);
        for (int m = 0; m < gi->n_sets; m++) {
            int64_t set = 0;
            for (int j = 0; j < n; j++)
                if (!(m & (1 << j))) set |= groups[j];
            gi->sets[m] = set;
        }
    }
    return 0;
}

/* The grouping sets of a whole GROUP BY: the cross product of its items' sets (a plain
 * expression is in every set), as Spark's GroupingAnalytics for `GROUP BY a, CUBE(b)`. */
static int all_grouping_sets(cs_an_ctx *c, const cs_logical_plan *p, const cs_an_scope *s,
                             grouping_info *gi)
{
    int n = 1;
    int64_t *cur = cs_sql_alloc(c->a, sizeof *cur);
    cur[0] = 0;
    for (int i = 0; i < p->n_group_by; i++) {
        const cs_sql_expr *g = p->group_by[i];
        if (!is_grouping_analytics_call(g)) {
            int64_t mask = 0;
            if (group_mask(c, gi, g, s, &mask) != 0) return CS_EINVAL;
            for (int j = 0; j < n; j++)
                cur[j] |= mask;
            continue;
        }
        grouping_info t = *gi;
        if (grouping_sets_of(c, g, s, &t) != 0) return CS_EINVAL;
        memcpy(gi->exprs, t.exprs, sizeof gi->exprs);
        gi->k = t.k;
        if ((int64_t)n * t.n_sets > 4096)
            return cs_sql_error_set(c->err, CS_EINVAL, "GROUPING_SIZE_LIMIT_EXCEEDED", "54000",
                                    "Grouping sets size cannot be greater than %d.", 4096);
        int64_t *next = cs_sql_alloc(c->a, sizeof *next * (size_t)(n * t.n_sets));
        for (int j = 0; j < n; j++)
            for (int k = 0; k < t.n_sets; k++)
                next[j * t.n_sets + k] = cur[j] | t.sets[k];
        cur = next;
        n *= t.n_sets;
    }
    gi->sets = cur;
    gi->n_sets = n;
    return 0;
}

static cs_sql_expr *value_literal(cs_an_ctx *c, cs_col_type *type, const void *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, type);
    if (v)
        cs_col_builder_append_values(b, v, 1, NULL);
    else
        cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    e->type = type;
    e->nullable = v == NULL;
    return e;
}

static cs_logical_plan *expand_node(cs_an_ctx *c, cs_logical_plan *child, grouping_info *gi)
{
    int per = child->n_output + gi->k + 1;
    cs_logical_plan *x = cs_logical_plan_new(c->a, CS_LP_EXPAND, 1);
    x->children[0] = child;
    x->n_projections = gi->n_sets;
    x->n_exprs = per;
    x->exprs = cs_sql_alloc(c->a, sizeof *x->exprs * (size_t)(per * gi->n_sets));
    cs_col_type *bigint = cs_col_type_primitive(CS_TYPE_LONG);
    for (int p = 0; p < gi->n_sets; p++) {
        cs_sql_expr **row = x->exprs + (size_t)p * (size_t)per;
        memcpy(row, child->output, sizeof *row * (size_t)child->n_output);
        int64_t gid = 0;
        for (int i = 0; i < gi->k; i++) {
            bool in = (gi->sets[p] >> i) & 1;
            if (!in) gid |= (int64_t)1 << (gi->k - 1 - i);
            row[child->n_output + i] =
                in ? gi->exprs[i] : value_literal(c, gi->exprs[i]->type, NULL);
        }
        row[per - 1] = value_literal(c, bigint, &gid);
    }
    x->n_output = per;
    x->output = cs_sql_alloc(c->a, sizeof *x->output * (size_t)per);
    memcpy(x->output, child->output, sizeof *x->output * (size_t)child->n_output);
    for (int i = 0; i < gi->k; i++) {
        const cs_sql_expr *e = gi->exprs[i];
        cs_sbuf name = {0};
        cs_sql_expr_pretty_name(e, &name);
        gi->expanded[i] = cs_an_new_attr(
            c, e->kind == CS_EX_ATTR ? e->name : cs_sql_strdup(c->a, cs_sbuf_str(&name)), e->type,
            true, e->kind == CS_EX_ATTR ? e->parts : NULL, e->kind == CS_EX_ATTR ? e->n_parts : 0);
        cs_sbuf_free(&name);
        x->output[child->n_output + i] = gi->expanded[i];
    }
    gi->gid = cs_an_new_attr(c, "spark_grouping_id", bigint, false, NULL, 0);
    x->output[per - 1] = gi->gid;
    x->resolved = true;
    return x;
}

/* e with the grouping expressions (outside aggregates) read from the EXPAND, and grouping() /
 * grouping_id() computed from spark_grouping_id. */
static cs_sql_expr *over_expand(cs_an_ctx *c, grouping_info *gi, cs_sql_expr *e)
{
    if (!e || e->kind == CS_EX_AGG) return e;
    for (int i = 0; i < gi->k; i++)
        if (cs_an_equal(gi->exprs[i], e)) return gi->expanded[i];
    if (e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "grouping_id") == 0) return gi->gid;
    if (e->kind == CS_EX_FUNC && e->fn && strcmp(e->fn, "grouping") == 0 && e->n_args == 1) {
        int i = 0;
        while (i < gi->k && !cs_an_equal(gi->exprs[i], e->args[0]))
            i++;
        if (i == gi->k) {
            cs_sbuf x = {0};
            cs_sql_expr_pretty_name(e->args[0], &x);
            cs_sql_error_set(c->err, CS_EINVAL, "GROUPING_COLUMN_MISMATCH", "42803",
                             "Column of grouping (%s) can't be found in grouping columns.",
                             cs_sbuf_str(&x));
            cs_sbuf_free(&x);
            return NULL;
        }
        cs_sql_expr *shift[2] = {gi->gid, cs_an_int_literal(c, gi->k - 1 - i)};
        cs_sql_expr *shr = cs_fn_resolve(c->a, cs_fn_lookup("shiftright"), NULL, shift, 2, c->err);
        int64_t one = 1;
        cs_sql_expr *mask[2] = {shr, value_literal(c, cs_col_type_primitive(CS_TYPE_LONG), &one)};
        cs_sql_expr *bit =
            shr ? cs_fn_resolve(c->a, cs_fn_lookup("&"), NULL, mask, 2, c->err) : NULL;
        return bit ? cs_tc_cast(c->a, bit, cs_col_type_primitive(CS_TYPE_BYTE)) : NULL;
    }
    if (e->n_args == 0) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->a, e);
    r->args = cs_sql_alloc(c->a, sizeof *r->args * (size_t)e->n_args);
    for (int i = 0; i < e->n_args; i++)
        if (!(r->args[i] = over_expand(c, gi, e->args[i])) && e->args[i]) return NULL;
    if (r->kind == CS_EX_ALIAS) { /* the named value may be nullable or typed anew now */
        r->type = r->args[0]->type;
        r->nullable = r->args[0]->nullable;
    }
    return r;
}

static cs_logical_plan *grouping_analytics(cs_an_ctx *c, const cs_logical_plan *p,
                                           cs_logical_plan *child, const cs_an_scope *s,
                                           cs_sql_expr **list, int n, bool has_window)
{
    grouping_info gi = {0};
    if (all_grouping_sets(c, p, s, &gi) != 0) return NULL;
    cs_logical_plan *x = expand_node(c, child, &gi);
    for (int i = 0; i < n; i++)
        if (!(list[i] = over_expand(c, &gi, list[i]))) return NULL;
    agg_state g = {0};
    g.n_group = gi.k + 1;
    g.group = cs_sql_alloc(c->a, sizeof *g.group * (size_t)(gi.k + 1));
    memcpy(g.group, gi.expanded, sizeof *g.group * (size_t)gi.k);
    g.group[gi.k] = gi.gid;
    return build_aggregate(c, x, &g, list, n, has_window);
}

/* A generator in a select list without aggregates (Spark's ExtractGenerator): a GENERATE over
 * the child, the item replaced by the generated columns (named by `AS x` / `AS (a, b)`, else
 * col / pos, col / key, value / the inline structs' fields). */
static cs_logical_plan *extract_generator(cs_an_ctx *c, cs_logical_plan *child, cs_sql_expr ***list,
                                          int *n)
{
    int at = -1;
    for (int i = 0; i < *n; i++) {
        const cs_sql_expr *v = strip_alias((*list)[i]);
        const cs_fn_info *f = v->kind == CS_EX_FUNC && v->fn ? cs_fn_lookup(v->fn) : NULL;
        if (!f && v->kind == CS_EX_FUNC && v->fn) f = cs_fn_lookup_table_function(v->fn);
        if (f && f->kind == CS_FN_GENERATOR) at = i;
    }
    if (at < 0) return child;
    cs_sql_expr *item = (*list)[at], *gen = strip_alias(item);
    const char *names[CS_AN_MAX_GENERATED];
    cs_col_type *types[CS_AN_MAX_GENERATED];
    int k = cs_an_generator_columns(gen, names, types);
    bool aliased = item->kind == CS_EX_ALIAS && item->n_parts > 0;
    if (item->kind == CS_EX_ALIAS && !aliased) { /* an AS name, not the name the list gave it */
        cs_sbuf pretty = {0};
        cs_sql_expr_pretty_name(gen, &pretty);
        aliased = strcmp(cs_sbuf_str(&pretty), item->name) != 0;
        cs_sbuf_free(&pretty);
    }
    if (aliased) {
        int na = item->n_parts ? item->n_parts : 1;
        if (na != k) {
            cs_sql_error_set(c->err, CS_EINVAL, "UDTF_ALIAS_NUMBER_MISMATCH", "42802",
                             "The number of aliases supplied in the AS clause does not match the "
                             "number of columns output by the UDTF. Expected %d aliases, but got "
                             "%d. Please ensure that the number of aliases provided matches the "
                             "number of columns output by the UDTF.",
                             k, na);
            return NULL;
        }
        for (int i = 0; i < k; i++)
            names[i] = item->n_parts ? item->parts[i] : item->name;
    }
    cs_logical_plan *g = cs_logical_plan_new(c->a, CS_LP_GENERATE, 1);
    g->children[0] = child;
    g->generator = gen;
    g->n_output = child->n_output + k;
    g->output = cs_sql_alloc(c->a, sizeof *g->output * (size_t)(g->n_output + 1));
    if (child->n_output) /* SELECT explode(...) without FROM: no columns, a NULL list */
        memcpy(g->output, child->output, sizeof *g->output * (size_t)child->n_output);
    cs_sql_expr **out = cs_sql_alloc(c->a, sizeof *out * (size_t)(*n + k));
    int m = 0;
    for (int i = 0; i < *n; i++) {
        if (i != at) {
            out[m++] = (*list)[i];
            continue;
        }
        for (int j = 0; j < k; j++)
            out[m++] = g->output[child->n_output + j] =
                cs_an_new_attr(c, names[j], types[j], true, NULL, 0);
    }
    g->resolved = true;
    *list = out;
    *n = m;
    return g;
}

cs_logical_plan *cs_an_select(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *child;
    if (p->n_children == 0 || !p->children[0]) {
        child = cs_logical_plan_new(c->a, CS_LP_ONE_ROW, 0);
        child->resolved = true;
    } else if (!(child = cs_an_plan(c, p->children[0]))) {
        return NULL;
    }
    cs_an_grouped_window gw = {0};
    if (p->kind == CS_LP_AGGREGATE && !is_grouping_analytics(p) &&
        !(child = cs_an_group_by_time_window(c, child, &p, &gw)))
        return NULL;
    cs_an_scope s = scope_of(c, child);
    cs_sql_expr **list;
    int n;
    if (resolve_list(c, p, &s, &gw, &list, &n) != 0) return NULL;
    if (!(child = cs_an_time_window_filter(c, child, list, n))) return NULL;
    bool has_agg = p->kind == CS_LP_AGGREGATE, has_window = false;
    for (int i = 0; i < n; i++) {
        has_agg |= cs_an_contains_agg(list[i]);
        has_window |= cs_an_contains(list[i], CS_EX_WINDOW);
    }
    if (is_grouping_analytics(p)) return grouping_analytics(c, p, child, &s, list, n, has_window);
    if (has_agg) {
        agg_state g = {0};
        if (resolve_group_by(c, p, &s, list, n, &g) != 0) return NULL;
        return build_aggregate(c, child, &g, list, n, has_window);
    }
    if (!(child = extract_generator(c, child, &list, &n))) return NULL;
    if (!has_window) {
        cs_logical_plan *proj = cs_an_project(c, child, list, n);
        proj->hidden = child->hidden; /* still there for a qualified star above */
        proj->n_hidden = child->n_hidden;
        return proj;
    }
    window_state ws = {0};
    cs_sql_expr **final = cs_sql_alloc(c->a, sizeof *final * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        cs_sql_expr *it = list[i];
        if (!cs_an_contains(it, CS_EX_WINDOW)) {
            final[i] = it;
            continue;
        }
        cs_sql_expr *rv = replace_windows(c, &ws, strip_alias(it));
        final[i] = it->kind == CS_EX_ALIAS ? cs_an_named(c, rv, it->name) : rv;
        if (final[i]->kind == CS_EX_ALIAS) final[i]->id = it->id;
    }
    return cs_an_project(c, window_nodes(c, child, &ws), final, n);
}

/* The aggregate under a resolved select block (Aggregate, or Project over Window over it). */
static agg_state state_of(cs_an_ctx *c, cs_logical_plan *agg)
{
    agg_state g = {0};
    g.group = agg->group_by;
    g.n_group = agg->n_group_by;
    g.cap = agg->n_exprs + 8;
    g.list = cs_sql_alloc(c->a, sizeof *g.list * (size_t)g.cap);
    memcpy(g.list, agg->exprs, sizeof *g.list * (size_t)agg->n_exprs);
    g.n = agg->n_exprs;
    for (int i = 0; i < g.n; i++)
        if (g.list[i]->name && strncmp(g.list[i]->name, "_w", 2) == 0) g.hidden++;
    return g;
}

/* A scope of the aggregate's output, then its input columns not hidden by an output name. */
static cs_an_scope agg_scope(cs_an_ctx *c, const cs_logical_plan *agg)
{
    const cs_logical_plan *in = agg->children[0];
    cs_sql_expr **attrs =
        cs_sql_alloc(c->a, sizeof *attrs * (size_t)(agg->n_output + in->n_output + 1));
    int n = 0;
    for (int i = 0; i < agg->n_output; i++)
        attrs[n++] = agg->output[i];
    for (int i = 0; i < in->n_output; i++) {
        bool hidden = false;
        for (int j = 0; j < agg->n_output; j++)
            hidden |= agg->output[j]->id == in->output[i]->id ||
                      cs_str_ieq(agg->output[j]->name, in->output[i]->name);
        if (!hidden) attrs[n++] = in->output[i];
    }
    cs_an_scope s = {attrs, n, c->outer};
    return s;
}

static cs_logical_plan *with_list(cs_an_ctx *c, cs_logical_plan *agg, agg_state *g)
{
    cs_logical_plan *r = cs_logical_plan_copy(c->a, agg);
    r->exprs = g->list;
    r->n_exprs = g->n;
    cs_logical_plan_output_of_list(c->a, r);
    return r;
}

cs_logical_plan *cs_an_having(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *agg = cs_an_select(c, p->children[0]);
    if (!agg) return NULL;
    if (agg->kind != CS_LP_AGGREGATE) {
        cs_sql_error_set(c->err, CS_EINVAL, "UNSUPPORTED_FEATURE", "0A000",
                         "The feature is not supported: HAVING over window functions.");
        return NULL;
    }
    cs_an_scope s = agg_scope(c, agg);
    cs_sql_expr *cond = cs_an_expr(c, p->condition, &s, CS_AN_ALLOW_AGG);
    if (!cond) return NULL;
    agg_state g = state_of(c, agg);
    int before = g.n;
    if (!(cond = over_aggregate(c, &g, cond, true))) return NULL;
    if (cond->type->id != CS_TYPE_BOOLEAN)
        cond = cs_tc_cast(c->a, cond, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    cs_logical_plan *na = g.n == before ? agg : with_list(c, agg, &g);
    cs_logical_plan *f = cs_logical_plan_new(c->a, CS_LP_FILTER, 1);
    f->children[0] = na;
    f->condition = cond;
    f->n_output = na->n_output;
    f->output = na->output;
    f->resolved = true;
    if (na == agg) return f;
    return cs_an_project(c, f, agg->output, agg->n_output);
}

static cs_logical_plan *sort_node(cs_an_ctx *c, const cs_logical_plan *p, cs_logical_plan *child,
                                  cs_sql_expr **order)
{
    cs_logical_plan *s = cs_logical_plan_copy(c->a, p);
    s->children[0] = child;
    s->order = order;
    s->n_output = child->n_output;
    s->output = child->output;
    s->resolved = true;
    return s;
}

/* Resolves an order item against s; ordinals against the child's output. */
static cs_sql_expr *order_item(cs_an_ctx *c, const cs_sql_expr *o, const cs_logical_plan *child,
                               const cs_an_scope *s, int flags)
{
    const cs_sql_expr *x = o->kind == CS_EX_SORT_ORDER ? o->args[0] : o;
    cs_sql_expr *r;
    if (x->kind == CS_EX_UNRESOLVED_ORDINAL) {
        if (x->ordinal < 1 || x->ordinal > child->n_output) {
            cs_sql_error_set(c->err, CS_EINVAL, "ORDER_BY_POS_OUT_OF_RANGE", "42805",
                             "ORDER BY position %lld is not in select list (valid range is [1, "
                             "%d]).",
                             (long long)x->ordinal, child->n_output);
            return NULL;
        }
        r = child->output[x->ordinal - 1];
    } else if (!(r = cs_an_expr(c, x, s, flags))) {
        return NULL;
    }
    if (o->kind != CS_EX_SORT_ORDER) return r;
    cs_sql_expr *so = cs_sql_expr_copy(c->a, o);
    so->args[0] = r;
    so->type = r->type;
    so->nullable = r->nullable;
    so->resolved = true;
    return cs_fn_check_variant_order(c->err, so, "sortorder") ? NULL : so;
}

cs_logical_plan *cs_an_sort(cs_an_ctx *c, const cs_logical_plan *p)
{
    cs_logical_plan *child = cs_an_plan(c, p->children[0]);
    if (!child) return NULL;
    int n = p->n_order;
    cs_sql_expr **order = cs_sql_alloc(c->a, sizeof *order * (size_t)(n + 1));
    /* 1. against the child's output (select aliases included) */
    cs_error first;
    cs_error_clear(&first);
    cs_error *saved = c->err;
    c->err = &first;
    cs_an_scope s = scope_of(c, child);
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = (order[i] = order_item(c, p->order[i], child, &s, 0)) != NULL;
    c->err = saved;
    if (ok) return sort_node(c, p, child, order);
    if (!cs_sql_error_is(&first, "UNRESOLVED_COLUMN") &&
        !cs_sql_error_is(&first, "MISSING_GROUP_BY") &&
        !cs_sql_error_is(&first, "GROUP_BY_AGGREGATE")) {
        if (c->err) *c->err = first;
        return NULL;
    }
    /* 2. over an aggregate (maybe under HAVING's filter): add what the order needs to it */
    cs_logical_plan *agg = child, *filter = NULL;
    if (agg->kind == CS_LP_PROJECT && agg->children[0]->kind == CS_LP_FILTER &&
        agg->children[0]->children[0]->kind == CS_LP_AGGREGATE) {
        filter = agg->children[0];
        agg = filter->children[0];
    } else if (agg->kind == CS_LP_FILTER && agg->children[0]->kind == CS_LP_AGGREGATE) {
        filter = agg;
        agg = filter->children[0];
    }
    if (agg->kind == CS_LP_AGGREGATE) {
        cs_an_scope as = agg_scope(c, agg);
        agg_state g = state_of(c, agg);
        for (int i = 0; i < n; i++) {
            cs_sql_expr *o = order_item(c, p->order[i], agg, &as, CS_AN_ALLOW_AGG);
            if (!o) return NULL;
            cs_sql_expr *v = over_aggregate(c, &g, o->args[0], true);
            if (!v) return NULL;
            o = cs_sql_expr_copy(c->a, o);
            o->args[0] = v;
            order[i] = o;
        }
        cs_logical_plan *na = with_list(c, agg, &g);
        cs_logical_plan *below = na;
        if (filter) {
            below = cs_logical_plan_copy(c->a, filter);
            below->children[0] = na;
            below->n_output = na->n_output;
            below->output = na->output;
        }
        cs_logical_plan *sorted = sort_node(c, p, below, order);
        return cs_an_project(c, sorted, child->output, child->n_output);
    }
    /* 3. over a projection: columns of its input the select list dropped */
    if (child->kind == CS_LP_PROJECT) {
        cs_logical_plan *in = child->children[0];
        cs_sql_expr **attrs =
            cs_sql_alloc(c->a, sizeof *attrs * (size_t)(child->n_output + in->n_output + 1));
        int na = 0;
        for (int i = 0; i < child->n_output; i++)
            attrs[na++] = child->output[i];
        for (int i = 0; i < in->n_output; i++) {
            bool hidden = false;
            for (int j = 0; j < child->n_output; j++)
                hidden |= child->output[j]->id == in->output[i]->id ||
                          cs_str_ieq(child->output[j]->name, in->output[i]->name);
            if (!hidden) attrs[na++] = in->output[i];
        }
        cs_an_scope ws = {attrs, na, c->outer};
        cs_sql_expr **list =
            cs_sql_alloc(c->a, sizeof *list * (size_t)(child->n_exprs + in->n_output + 1));
        memcpy(list, child->exprs, sizeof *list * (size_t)child->n_exprs);
        int nl = child->n_exprs;
        c->err = &first; /* a failure here is reported as the first attempt's (Spark's) */
        for (int i = 0; i < n; i++) {
            cs_error again;
            cs_error_clear(&again);
            c->err = &again;
            order[i] = order_item(c, p->order[i], child, &ws, 0);
            c->err = saved;
            if (!order[i]) {
                if (c->err) *c->err = cs_sql_error_is(&again, "UNRESOLVED_COLUMN") ? first : again;
                return NULL;
            }
            /* input attributes the projection lacks are added to it */
            for (int k = child->n_output; k < na; k++) {
                if (!cs_an_contains(order[i], CS_EX_ATTR)) break;
                bool used = false, present = false;
                const cs_sql_expr *stack[256];
                int sp = 0;
                stack[sp++] = order[i];
                while (sp) {
                    const cs_sql_expr *x = stack[--sp];
                    if (x->kind == CS_EX_ATTR && x->id == attrs[k]->id) used = true;
                    for (int j = 0; j < x->n_args && sp < 255; j++)
                        stack[sp++] = x->args[j];
                }
                for (int j = child->n_exprs; j < nl; j++)
                    present |= list[j]->id == attrs[k]->id;
                if (used && !present) list[nl++] = attrs[k];
            }
        }
        cs_logical_plan *wider = cs_an_project(c, in, list, nl);
        cs_logical_plan *sorted = sort_node(c, p, wider, order);
        if (nl == child->n_exprs) return sorted;
        return cs_an_project(c, sorted, child->output, child->n_output);
    }
    if (c->err) *c->err = first;
    return NULL;
}
