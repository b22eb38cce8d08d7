/*
 * opt_prune.c — the structural rules of the optimizer: Spark's EliminateSubqueryAliases,
 * ResolveJoinStrategyHints + EliminateResolvedHint (hints onto joins), CollapseRepartition,
 * ReplaceDistinctWithAggregate, ColumnPruning, CollapseProject, RemoveRedundantAliases,
 * RemoveNoopOperators, LimitPushDown, EliminateLimits (with CombineLimits) and
 * PropagateEmptyRelation.
 *
 * ColumnPruning here is one top-down pass that carries the set of attributes the parent reads:
 * every node keeps what is read above plus what it reads itself, RELATION outputs shrink to
 * that (what the scan reads), unused PROJECT / AGGREGATE / WINDOW / EXPAND columns go, UNION
 * branches are cut at the same positions, and the inputs of joins, aggregates, windows, unions
 * and expands get a PROJECT of exactly the columns read (Spark's prunedChild), so that
 * exchanges carry no column nobody reads.
 *
 * Called by optimizer.c's batches.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sql/catalog.h"
#include "sql/optimizer_internal.h"

/* ---- EliminateSubqueryAliases ------------------------------------------------------------- */

static cs_logical_plan *drop_alias(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)c;
    (void)ud;
    return p->kind == CS_LP_SUBQUERY_ALIAS || p->kind == CS_LP_WITH ? p->children[0] : p;
}

int cs_opt_eliminate_subquery_aliases(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                      cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, drop_alias, NULL);
    return 0;
}

/* ---- hints --------------------------------------------------------------------------------- */

/* Spark's join strategy hint names to the strategy kept on a join (logical_plan.h). */
static const char *strategy_of(const char *hint)
{
    static const char *const names[][2] = {
        {"BROADCAST", "BROADCAST"},       {"BROADCASTJOIN", "BROADCAST"},
        {"MAPJOIN", "BROADCAST"},         {"SHUFFLE_MERGE", "MERGE"},
        {"MERGEJOIN", "MERGE"},           {"MERGE", "MERGE"},
        {"SHUFFLE_HASH", "SHUFFLE_HASH"}, {"SHUFFLE_REPLICATE_NL", "SHUFFLE_REPLICATE_NL"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (cs_str_ieq(hint, names[i][0])) return names[i][1];
    return NULL;
}

/* A resolved hint: a HINT node without a name (n_parts 0) whose alias is the strategy, over
 * the relation it applies to. Only this file makes and removes them. */
static cs_logical_plan *resolved_hint(cs_opt_ctx *c, const char *strategy, cs_logical_plan *child)
{
    cs_logical_plan *h = cs_opt_unary(c, CS_LP_HINT, child);
    h->alias = strategy;
    return h;
}

static bool is_resolved_hint(const cs_logical_plan *p)
{
    return p->kind == CS_LP_HINT && p->n_parts == 0;
}

/* The relation name a hint parameter gives: t, db.t ('t' as a string too): its last part. */
static const char *hint_param_name(const cs_sql_expr *e)
{
    if (e->kind == CS_EX_UNRESOLVED_ATTR && e->n_parts > 0) return e->parts[e->n_parts - 1];
    if (e->kind == CS_EX_LITERAL && e->literal && e->literal->type->id == CS_TYPE_STRING) {
        static char buf[256];
        int32_t len = 0;
        const uint8_t *b = cs_column_bytes(e->literal, 0, &len);
        if (len >= (int32_t)sizeof buf) len = (int32_t)sizeof buf - 1;
        memcpy(buf, b, (size_t)len);
        buf[len] = '\0';
        const char *dot = strrchr(buf, '.');
        return dot ? dot + 1 : buf;
    }
    return NULL;
}

static bool hint_names(const cs_logical_plan *h, const char *name)
{
    for (int i = 0; i < h->n_exprs; i++) {
        const char *n = hint_param_name(h->exprs[i]);
        if (n && name && cs_str_ieq(n, name)) return true;
    }
    return false;
}

/* Spark's applyJoinStrategyHint: wraps the relations (by table name) and subquery aliases h
 * names (again when an inner hint wrapped them: the outer one wins), not looking below another
 * alias or hint (a different scope). */
static cs_logical_plan *apply_hint(cs_opt_ctx *c, cs_logical_plan *p, const cs_logical_plan *h,
                                   const char *strategy)
{
    const cs_logical_plan *x = is_resolved_hint(p) ? p->children[0] : p;
    if (x->kind == CS_LP_RELATION && x->table && hint_names(h, x->table->name))
        return resolved_hint(c, strategy, p);
    if (x->kind == CS_LP_SUBQUERY_ALIAS && hint_names(h, x->alias))
        return resolved_hint(c, strategy, p);
    if (p->kind == CS_LP_SUBQUERY_ALIAS || p->kind == CS_LP_HINT) return p;
    cs_logical_plan *kids[p->n_children > 0 ? p->n_children : 1];
    for (int i = 0; i < p->n_children; i++)
        kids[i] = apply_hint(c, p->children[i], h, strategy);
    return cs_opt_with_children(c, p, kids);
}

static cs_logical_plan *resolve_hint_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_HINT || is_resolved_hint(p)) return p;
    const char *name = p->n_parts ? p->parts[0] : p->alias;
    const char *strategy = name ? strategy_of(name) : NULL;
    cs_logical_plan *child = p->children[0];
    /* the partitioning hints are the analyzer's (analyzer_hints.c); the others Spark does not
     * know (and REBALANCE without adaptive execution) change no result and are dropped, as
     * Spark's RemoveAllHints drops them */
    if (!strategy) return child;
    if (p->n_exprs == 0) return resolved_hint(c, strategy, child);
    return apply_hint(c, child, p, strategy);
}

/* EliminateResolvedHint's extractHintsFromPlan: the hint under unary nodes of a join side. */
static cs_logical_plan *extract_hint(cs_opt_ctx *c, cs_logical_plan *p, const char **hint)
{
    if (is_resolved_hint(p)) {
        cs_logical_plan *r = extract_hint(c, p->children[0], hint);
        *hint = p->alias; /* the outermost hint wins */
        return r;
    }
    if (p->n_children == 1 && p->kind != CS_LP_SUBQUERY_ALIAS)
        return cs_opt_with_child(c, p, extract_hint(c, p->children[0], hint));
    return p;
}

static cs_logical_plan *hints_onto_join(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_JOIN || p->left_hint || p->right_hint) return p;
    const char *lh = NULL, *rh = NULL;
    cs_logical_plan *kids[2] = {extract_hint(c, p->children[0], &lh),
                                extract_hint(c, p->children[1], &rh)};
    if (!lh && !rh) return p;
    cs_logical_plan *j = cs_opt_with_children(c, p, kids);
    if (j == p) j = cs_logical_plan_copy(c->arena, p);
    j->left_hint = lh;
    j->right_hint = rh;
    return j;
}

static cs_logical_plan *drop_resolved_hint(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)c;
    (void)ud;
    return is_resolved_hint(p) ? p->children[0] : p;
}

int cs_opt_resolve_hints(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    cs_logical_plan *r = cs_opt_plan_up(c, p, resolve_hint_node, NULL); /* inner hints first */
    r = cs_opt_plan_up(c, r, hints_onto_join, NULL);
    *out = cs_opt_plan_up(c, r, drop_resolved_hint, NULL);
    return 0;
}

/* ---- CollapseRepartition --------------------------------------------------------------------- */

/* Spark's CollapseRepartition: a Repartition over a Repartition / RepartitionByExpression
 * replaces it (a coalesce over a shuffle keeps the shuffle when it asks for no fewer
 * partitions than the shuffle's explicit count, and stays above it otherwise); a
 * RepartitionByExpression replaces a repartition or a global sort below it; a
 * RebalancePartitions a repartition, a rebalance or any sort below it. */
static cs_logical_plan *collapse_repartition(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_REPARTITION) return p;
    const cs_logical_plan *ch = p->children[0];
    bool repart = ch->kind == CS_LP_REPARTITION && !ch->rebalance;
    if (!p->by_expression && !p->rebalance) {
        if (!repart) return p;
        if (!p->shuffle && ch->shuffle)
            return ch->num_partitions > 0 && p->num_partitions >= ch->num_partitions
                       ? (cs_logical_plan *)ch
                       : p;
        return cs_opt_with_child(c, p, ch->children[0]);
    }
    bool sort = ch->kind == CS_LP_SORT && (ch->global || p->rebalance);
    bool rebalance = p->rebalance && ch->kind == CS_LP_REPARTITION && ch->rebalance;
    return repart || sort || rebalance ? cs_opt_with_child(c, p, ch->children[0]) : p;
}

int cs_opt_collapse_repartition(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, collapse_repartition, NULL);
    return 0;
}

/* ---- ReplaceDistinctWithAggregate ---------------------------------------------------------- */

static cs_logical_plan *group_by_all(cs_opt_ctx *c, cs_logical_plan *child)
{
    cs_logical_plan *a = cs_logical_plan_new(c->arena, CS_LP_AGGREGATE, 1);
    a->children[0] = child;
    a->n_group_by = a->n_exprs = child->n_output;
    a->group_by = child->output;
    a->exprs = child->output;
    a->n_output = child->n_output;
    a->output = child->output;
    a->resolved = true;
    return a;
}

static cs_logical_plan *replace_distinct(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind == CS_LP_DISTINCT) return group_by_all(c, p->children[0]);
    if (p->kind == CS_LP_SET_OP && p->set_op == CS_SET_UNION && !p->all) {
        /* UNION DISTINCT: Spark's Distinct(Union) */
        cs_logical_plan *u = cs_logical_plan_copy(c->arena, p);
        u->all = true;
        return group_by_all(c, u);
    }
    return p;
}

int cs_opt_replace_distinct(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, replace_distinct, NULL);
    return 0;
}

/* ---- ColumnPruning ------------------------------------------------------------------------- */

static cs_logical_plan *prune(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need);

static void need_all(cs_opt_ctx *c, const cs_logical_plan *p, cs_opt_attrs *s)
{
    for (int i = 0; i < p->n_output; i++)
        cs_opt_attrs_add(c, s, p->output[i]->id);
}

static void add_set(cs_opt_ctx *c, cs_opt_attrs *to, const cs_opt_attrs *from)
{
    for (int i = 0; i < from->n; i++)
        cs_opt_attrs_add(c, to, from->ids[i]);
}

/* child pruned to need, then narrowed by a PROJECT to exactly the attributes of need it has
 * (Spark's prunedChild) unless it already outputs nothing more. */
static cs_logical_plan *pruned_child(cs_opt_ctx *c, cs_logical_plan *child,
                                     const cs_opt_attrs *need)
{
    cs_logical_plan *r = prune(c, child, need);
    int keep = 0;
    for (int i = 0; i < r->n_output; i++)
        keep += cs_opt_attrs_has(need, r->output[i]->id);
    if (keep == r->n_output) return r;
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(keep + 1));
    int k = 0;
    for (int i = 0; i < r->n_output; i++)
        if (cs_opt_attrs_has(need, r->output[i]->id)) list[k++] = r->output[i];
    return cs_opt_project(c, list, keep, r);
}

/* The entries of a named list whose attribute is needed (all when `keep_one` and none are:
 * an aggregate or project must keep a row shape). */
static cs_sql_expr **kept_list(cs_opt_ctx *c, cs_sql_expr **xs, int n, const cs_opt_attrs *need,
                               int *n_out)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += cs_opt_attrs_has(need, xs[i]->id);
    *n_out = k;
    if (k == n) return xs;
    cs_sql_expr **out = cs_sql_alloc(c->arena, sizeof *out * (size_t)(k + 1));
    k = 0;
    for (int i = 0; i < n; i++)
        if (cs_opt_attrs_has(need, xs[i]->id)) out[k++] = xs[i];
    return out;
}

static cs_logical_plan *prune_project(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    int n;
    cs_sql_expr **xs = kept_list(c, p->exprs, p->n_exprs, need, &n);
    cs_opt_attrs child_need = {0};
    for (int i = 0; i < n; i++)
        cs_opt_refs(c, xs[i], &child_need);
    cs_logical_plan *child = prune(c, p->children[0], &child_need);
    if (xs == p->exprs && child == p->children[0]) return p;
    cs_logical_plan *r = cs_opt_project(c, xs, n, child);
    return r;
}

static cs_logical_plan *prune_aggregate(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    int n;
    cs_sql_expr **xs = kept_list(c, p->exprs, p->n_exprs, need, &n);
    cs_opt_attrs child_need = {0};
    for (int i = 0; i < n; i++)
        cs_opt_refs(c, xs[i], &child_need);
    for (int i = 0; i < p->n_group_by; i++)
        cs_opt_refs(c, p->group_by[i], &child_need);
    cs_logical_plan *child = pruned_child(c, p->children[0], &child_need);
    if (xs == p->exprs && child == p->children[0]) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->children[0] = child;
    r->exprs = xs;
    r->n_exprs = n;
    cs_logical_plan_output_of_list(c->arena, r);
    return r;
}

static cs_logical_plan *prune_window(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    int n;
    cs_sql_expr **xs = kept_list(c, p->exprs, p->n_exprs, need, &n);
    cs_opt_attrs child_need = {0};
    const cs_logical_plan *old_child = p->children[0];
    for (int i = 0; i < old_child->n_output; i++)
        if (cs_opt_attrs_has(need, old_child->output[i]->id))
            cs_opt_attrs_add(c, &child_need, old_child->output[i]->id);
    if (n == 0) return prune(c, p->children[0], &child_need); /* no window function read */
    for (int i = 0; i < n; i++)
        cs_opt_refs(c, xs[i], &child_need);
    for (int i = 0; i < p->n_partition; i++)
        cs_opt_refs(c, p->partition[i], &child_need);
    for (int i = 0; i < p->n_order; i++)
        cs_opt_refs(c, p->order[i], &child_need);
    cs_logical_plan *child = pruned_child(c, p->children[0], &child_need);
    if (xs == p->exprs && child == p->children[0]) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->children[0] = child;
    r->exprs = xs;
    r->n_exprs = n;
    r->n_output = child->n_output + n;
    r->output = cs_sql_alloc(c->arena, sizeof *r->output * (size_t)(r->n_output + 1));
    if (child->n_output)
        memcpy(r->output, child->output, sizeof *r->output * (size_t)child->n_output);
    for (int i = 0; i < n; i++)
        r->output[child->n_output + i] = cs_sql_expr_to_attr(c->arena, xs[i]);
    return r;
}

/* UNION ALL: the needed positions of every branch (all of them for the other set operations,
 * whose results depend on every column). */
static cs_logical_plan *prune_set_op(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    bool all_pos = p->set_op != CS_SET_UNION || !p->all;
    int n_pos = 0;
    int *pos = cs_sql_alloc(c->arena, sizeof *pos * (size_t)(p->n_output + 1));
    for (int i = 0; i < p->n_output; i++)
        if (all_pos || cs_opt_attrs_has(need, p->output[i]->id)) pos[n_pos++] = i;
    if (n_pos == 0 && p->n_output > 0) pos[n_pos++] = 0; /* keep a column: rows still count */
    cs_logical_plan **kids = cs_sql_alloc(c->arena, sizeof *kids * (size_t)p->n_children);
    bool changed = n_pos != p->n_output;
    for (int k = 0; k < p->n_children; k++) {
        cs_logical_plan *ch = p->children[k];
        cs_opt_attrs cn = {0};
        for (int i = 0; i < n_pos; i++)
            cs_opt_attrs_add(c, &cn, ch->output[pos[i]]->id);
        cs_logical_plan *r = prune(c, ch, &cn);
        /* exactly the positions, in order */
        bool exact = r->n_output == n_pos;
        for (int i = 0; exact && i < n_pos; i++)
            exact = r->output[i]->id == ch->output[pos[i]]->id;
        if (!exact) {
            cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(n_pos + 1));
            for (int i = 0; i < n_pos; i++)
                list[i] = cs_opt_output_find(r, ch->output[pos[i]]->id);
            r = cs_opt_project(c, list, n_pos, r);
        }
        kids[k] = r;
        changed |= r != ch;
    }
    if (!changed) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    memcpy(r->children, kids, sizeof *kids * (size_t)p->n_children);
    r->n_output = n_pos;
    r->output = cs_sql_alloc(c->arena, sizeof *r->output * (size_t)(n_pos + 1));
    for (int i = 0; i < n_pos; i++)
        r->output[i] = p->output[pos[i]];
    return r;
}

static cs_logical_plan *prune_expand(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    int per = p->n_exprs, n_keep = 0;
    int *keep = cs_sql_alloc(c->arena, sizeof *keep * (size_t)(per + 1));
    for (int i = 0; i < per; i++)
        if (cs_opt_attrs_has(need, p->output[i]->id)) keep[n_keep++] = i;
    cs_opt_attrs child_need = {0};
    for (int row = 0; row < p->n_projections; row++)
        for (int i = 0; i < n_keep; i++)
            cs_opt_refs(c, p->exprs[row * per + keep[i]], &child_need);
    cs_logical_plan *child = pruned_child(c, p->children[0], &child_need);
    if (n_keep == per && child == p->children[0]) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->children[0] = child;
    r->n_exprs = n_keep;
    r->exprs = cs_sql_alloc(c->arena, sizeof *r->exprs * (size_t)(n_keep * p->n_projections + 1));
    for (int row = 0; row < p->n_projections; row++)
        for (int i = 0; i < n_keep; i++)
            r->exprs[row * n_keep + i] = p->exprs[row * per + keep[i]];
    r->n_output = n_keep;
    r->output = cs_sql_alloc(c->arena, sizeof *r->output * (size_t)(n_keep + 1));
    for (int i = 0; i < n_keep; i++)
        r->output[i] = p->output[keep[i]];
    return r;
}

/* GENERATE: the child keeps what is read above and what the generator reads; the child's
 * attributes read only by the generator (or by nobody) are its unrequired ones (Spark's
 * unrequiredChildIndex): the physical Generate does not copy them into every generated row. */
static cs_logical_plan *prune_generate(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    cs_opt_attrs cn = {0};
    add_set(c, &cn, need);
    cs_opt_node_refs(c, p, &cn);
    cs_logical_plan *child = prune(c, p->children[0], &cn);
    int n = 0;
    for (int i = 0; i < child->n_output; i++)
        n += !cs_opt_attrs_has(need, child->output[i]->id);
    bool same = n == p->n_gen_unrequired;
    for (int i = 0, k = 0; same && i < child->n_output; i++)
        if (!cs_opt_attrs_has(need, child->output[i]->id))
            same = p->gen_unrequired[k++] == child->output[i]->id;
    if (same) return cs_opt_with_child(c, p, child);
    cs_logical_plan *r = cs_opt_with_child(c, p, child);
    if (r == p) r = cs_logical_plan_copy(c->arena, p);
    r->n_gen_unrequired = n;
    r->gen_unrequired = cs_sql_alloc(c->arena, sizeof *r->gen_unrequired * (size_t)(n + 1));
    for (int i = 0, k = 0; i < child->n_output; i++)
        if (!cs_opt_attrs_has(need, child->output[i]->id))
            r->gen_unrequired[k++] = child->output[i]->id;
    return r;
}

static cs_logical_plan *prune_relation(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    int n;
    cs_sql_expr **xs = kept_list(c, p->output, p->n_output, need, &n);
    if (xs == p->output) return p;
    cs_logical_plan *r = cs_logical_plan_copy(c->arena, p);
    r->output = xs;
    r->n_output = n;
    return r;
}

static cs_logical_plan *prune(cs_opt_ctx *c, cs_logical_plan *p, const cs_opt_attrs *need)
{
    switch (p->kind) {
    case CS_LP_PROJECT:
        return prune_project(c, p, need);
    case CS_LP_AGGREGATE:
        return prune_aggregate(c, p, need);
    case CS_LP_WINDOW:
        return prune_window(c, p, need);
    case CS_LP_SET_OP:
        return prune_set_op(c, p, need);
    case CS_LP_EXPAND:
        return prune_expand(c, p, need);
    case CS_LP_RELATION:
        return prune_relation(c, p, need);
    case CS_LP_FILTER:
    case CS_LP_SORT:
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
    case CS_LP_REPARTITION:
    case CS_LP_SAMPLE:
    case CS_LP_HINT: {
        cs_opt_attrs cn = {0};
        add_set(c, &cn, need);
        cs_opt_node_refs(c, p, &cn);
        return cs_opt_with_child(c, p, prune(c, p->children[0], &cn));
    }
    case CS_LP_GENERATE:
        return prune_generate(c, p, need);
    case CS_LP_JOIN: {
        cs_opt_attrs cn = {0};
        add_set(c, &cn, need);
        cs_opt_refs(c, p->condition, &cn);
        cs_logical_plan *kids[2];
        for (int k = 0; k < 2; k++) {
            cs_opt_attrs side = {0};
            const cs_logical_plan *ch = p->children[k];
            for (int i = 0; i < ch->n_output; i++)
                if (cs_opt_attrs_has(&cn, ch->output[i]->id))
                    cs_opt_attrs_add(c, &side, ch->output[i]->id);
            kids[k] = pruned_child(c, p->children[k], &side);
        }
        return cs_opt_with_children(c, p, kids);
    }
    default: {
        /* the rest read every column of their children */
        cs_logical_plan *kids[p->n_children > 0 ? p->n_children : 1];
        for (int i = 0; i < p->n_children; i++) {
            cs_opt_attrs cn = {0};
            need_all(c, p->children[i], &cn);
            kids[i] = prune(c, p->children[i], &cn);
        }
        return cs_opt_with_children(c, p, kids);
    }
    }
}

int cs_opt_column_pruning(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    cs_opt_attrs need = {0};
    need_all(c, p, &need);
    *out = prune(c, p, &need);
    return 0;
}

/* ---- CollapseProject ----------------------------------------------------------------------- */

static int count_refs(const cs_sql_expr *e, cs_expr_id id)
{
    if (!e) return 0;
    int n = e->kind == CS_EX_ATTR && e->id == id;
    for (int i = 0; i < e->n_args; i++)
        n += count_refs(e->args[i], id);
    n += count_refs(e->filter, id);
    if (e->window) {
        for (int i = 0; i < e->window->n_partition; i++)
            n += count_refs(e->window->partition[i], id);
        for (int i = 0; i < e->window->n_order; i++)
            n += count_refs(e->window->order[i], id);
    }
    return n;
}

static bool cheap(const cs_sql_expr *e)
{
    return e->kind == CS_EX_ATTR || e->kind == CS_EX_LITERAL ||
           (e->kind == CS_EX_ALIAS && cheap(e->args[0]));
}

/* Spark's canCollapseExpressions: every alias of the producer the consumers read is
 * deterministic, and read once or cheap (no repeated work). */
static bool can_collapse(cs_opt_ctx *c, cs_sql_expr *const *consumers, int nc,
                         cs_sql_expr *const *producers, int np)
{
    /* a subquery's outer reference to a producer's alias cannot be replaced (the replacement
     * does not enter subquery plans) */
    for (int k = 0; k < nc; k++) {
        if (!cs_opt_has_subquery(consumers[k])) continue;
        cs_opt_attrs refs = {0};
        cs_opt_refs(c, consumers[k], &refs);
        for (int i = 0; i < np; i++)
            if (producers[i]->kind == CS_EX_ALIAS && cs_opt_attrs_has(&refs, producers[i]->id))
                return false;
    }
    for (int i = 0; i < np; i++) {
        const cs_sql_expr *a = producers[i];
        if (a->kind != CS_EX_ALIAS) continue;
        int uses = 0;
        for (int k = 0; k < nc; k++)
            uses += count_refs(consumers[k], a->id);
        if (!uses) continue;
        if (!cs_opt_deterministic(a->args[0])) return false;
        if (uses > 1 && !cheap(a->args[0])) return false;
        if (cs_opt_contains_kind(a->args[0], CS_EX_WINDOW)) return false;
    }
    return true;
}

/* The consumer list with the producer's aliases substituted, each entry keeping its name
 * and id (an attribute of an alias becomes that alias, renamed as the consumer reads it). */
static cs_sql_expr **substitute_list(cs_opt_ctx *c, cs_sql_expr *const *consumers, int nc,
                                     cs_sql_expr *const *producers, int np)
{
    cs_sql_expr **out = cs_sql_alloc(c->arena, sizeof *out * (size_t)(nc + 1));
    for (int i = 0; i < nc; i++) {
        cs_sql_expr *e = consumers[i];
        if (e->kind == CS_EX_ATTR) {
            cs_sql_expr *def = NULL;
            for (int k = 0; k < np && !def; k++)
                if (producers[k]->id == e->id) def = producers[k];
            if (def && def->kind == CS_EX_ALIAS && strcmp(def->name, e->name) != 0) {
                def = cs_sql_expr_copy(c->arena, def);
                def->name = e->name;
            }
            out[i] = def ? def : e;
        } else if (e->kind == CS_EX_ALIAS) {
            cs_sql_expr *x = cs_opt_replace_alias(c, e->args[0], producers, np);
            if (x != e->args[0]) {
                e = cs_sql_expr_copy(c->arena, e);
                e->args[0] = x;
            }
            out[i] = e;
        } else {
            out[i] = cs_opt_replace_alias(c, e, producers, np);
        }
    }
    return out;
}

static cs_logical_plan *collapse(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_PROJECT) return p;
    cs_logical_plan *child = p->children[0];
    if (child->kind == CS_LP_PROJECT) {
        if (!can_collapse(c, p->exprs, p->n_exprs, child->exprs, child->n_exprs)) return p;
        cs_sql_expr **xs = substitute_list(c, p->exprs, p->n_exprs, child->exprs, child->n_exprs);
        return cs_opt_project(c, xs, p->n_exprs, child->children[0]);
    }
    if (child->kind == CS_LP_AGGREGATE) {
        /* into an aggregate's list only what an aggregate list may hold: deterministic
         * expressions without subqueries (Spark's canCollapseAggregate) */
        for (int i = 0; i < p->n_exprs; i++)
            if (!cs_opt_deterministic(p->exprs[i]) || cs_opt_has_subquery(p->exprs[i])) return p;
        if (!can_collapse(c, p->exprs, p->n_exprs, child->exprs, child->n_exprs)) return p;
        cs_sql_expr **xs = substitute_list(c, p->exprs, p->n_exprs, child->exprs, child->n_exprs);
        cs_logical_plan *a = cs_logical_plan_copy(c->arena, child);
        a->exprs = xs;
        a->n_exprs = p->n_exprs;
        cs_logical_plan_output_of_list(c->arena, a);
        return a;
    }
    return p;
}

int cs_opt_collapse_project(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, collapse, NULL);
    return 0;
}

/* ---- RemoveNoopOperators, RemoveRedundantAliases ------------------------------------------- */

static bool same_output(const cs_logical_plan *a, const cs_logical_plan *b)
{
    if (a->n_output != b->n_output) return false;
    for (int i = 0; i < a->n_output; i++)
        if (a->output[i]->id != b->output[i]->id) return false;
    return true;
}

static cs_logical_plan *remove_noop(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)c;
    (void)ud;
    if (p->kind == CS_LP_PROJECT) {
        bool attrs = true;
        for (int i = 0; attrs && i < p->n_exprs; i++)
            attrs = p->exprs[i]->kind == CS_EX_ATTR;
        if (attrs && same_output(p, p->children[0])) return p->children[0];
    }
    if (p->kind == CS_LP_WINDOW && p->n_exprs == 0) return p->children[0];
    return p;
}

int cs_opt_remove_noop_operators(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                 cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, remove_noop, NULL);
    return 0;
}

/* An alias of an attribute under its own name, in a PROJECT that is not the root (its output
 * ids are the query's result): `a#1 AS a#7` is a#1. The readers of a#7 above read a#1
 * instead (Spark's RemoveRedundantAliases). Only done when a#1 appears once in the list, so no
 * two columns share an id. */
typedef struct alias_subst {
    cs_expr_id from[64], to[64];
    cs_sql_expr *attr[64];
    int n;
} alias_subst;

/* The reader keeps its own name and nullability (an attribute read above an outer join is
 * nullable there even when it is not below). */
static cs_sql_expr *rename_ids(cs_opt_ctx *c, cs_sql_expr *e, void *ud)
{
    alias_subst *s = ud;
    if (e->kind != CS_EX_ATTR) return e;
    for (int i = 0; i < s->n; i++)
        if (e->id == s->from[i]) {
            cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
            r->id = s->to[i];
            return r;
        }
    return e;
}

static cs_logical_plan *remove_aliases(cs_opt_ctx *c, cs_logical_plan *p,
                                       const cs_logical_plan *root, alias_subst *s)
{
    cs_logical_plan *kids[p->n_children > 0 ? p->n_children : 1];
    for (int i = 0; i < p->n_children; i++)
        kids[i] = remove_aliases(c, p->children[i], root, s);
    cs_logical_plan *r = cs_opt_with_children(c, p, kids);
    /* readers of removed aliases read the attribute itself */
    if (s->n) {
        cs_logical_plan *x = cs_opt_node_exprs_up(c, r, rename_ids, s);
        if (x->kind == CS_LP_EXPAND) { /* its output lists its child's columns */
            if (x == r) x = cs_logical_plan_copy(c->arena, r);
            cs_sql_expr **o = cs_sql_alloc(c->arena, sizeof *o * (size_t)(x->n_output + 1));
            for (int i = 0; i < x->n_output; i++)
                o[i] = rename_ids(c, x->output[i], s);
            x->output = o;
        }
        if (x != r) {
            if (x->kind == CS_LP_PROJECT || x->kind == CS_LP_AGGREGATE)
                cs_logical_plan_output_of_list(c->arena, x);
            r = x;
        }
    }
    if (r->kind != CS_LP_PROJECT || s->n >= 64) return r;
    cs_sql_expr **xs = NULL;
    for (int i = 0; i < r->n_exprs && s->n < 64; i++) {
        cs_sql_expr *e = r->exprs[i];
        if (e->kind != CS_EX_ALIAS || e->args[0]->kind != CS_EX_ATTR ||
            strcmp(e->name, e->args[0]->name) != 0 || cs_opt_output_find(root, e->id))
            continue; /* the query's result columns keep their ids */
        int uses = 0;
        for (int k = 0; k < r->n_exprs; k++)
            uses += count_refs(r->exprs[k], e->args[0]->id) +
                    (r->exprs[k]->kind == CS_EX_ATTR && r->exprs[k]->id == e->args[0]->id);
        if (uses != 1) continue;
        if (!xs) {
            xs = cs_sql_alloc(c->arena, sizeof *xs * (size_t)(r->n_exprs + 1));
            memcpy(xs, r->exprs, sizeof *xs * (size_t)r->n_exprs);
        }
        s->from[s->n] = e->id;
        s->to[s->n] = e->args[0]->id;
        s->attr[s->n++] = e->args[0];
        xs[i] = e->args[0];
    }
    if (!xs) return r;
    return cs_opt_project(c, xs, r->n_exprs, r->children[0]);
}

static bool plan_has_subquery(const cs_logical_plan *p)
{
    int n_exprs = p->kind == CS_LP_EXPAND           ? p->n_exprs * p->n_projections
                  : p->kind == CS_LP_HINT           ? 0
                  : p->kind == CS_LP_LOCAL_RELATION ? 0
                                                    : p->n_exprs;
    for (int i = 0; i < n_exprs; i++)
        if (cs_opt_has_subquery(p->exprs[i])) return true;
    for (int i = 0; i < p->n_group_by; i++)
        if (cs_opt_has_subquery(p->group_by[i])) return true;
    if (cs_opt_has_subquery(p->condition) || cs_opt_has_subquery(p->generator)) return true;
    for (int i = 0; i < p->n_children; i++)
        if (plan_has_subquery(p->children[i])) return true;
    return false;
}

int cs_opt_remove_redundant_aliases(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                    cs_error *err)
{
    (void)err;
    alias_subst s = {.n = 0};
    /* an outer reference in a subquery's plan would keep the removed id: not while any
     * subquery expression is left (RewriteSubquery turns them into joins first) */
    if (plan_has_subquery(p)) {
        *out = p;
        return 0;
    }
    *out = remove_aliases(c, p, p, &s);
    return 0;
}
