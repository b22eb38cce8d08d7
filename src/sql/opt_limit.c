/*
 * opt_limit.c — limits and empty relations: Spark's LimitPushDown (local limits into UNION ALL
 * branches and the preserved side of outer joins, through a projection over a join),
 * EliminateLimits with CombineLimits and OptimizeLimitZero (and TABLESAMPLE of 100 or 0 percent,
 * which keeps every row or none whatever the seed), and PropagateEmptyRelation (an
 * empty LOCAL_RELATION makes its parents empty where SQL says so: not a global aggregate, not
 * the preserved side of an outer join, which keeps its rows with nulls).
 *
 * Called by optimizer.c's batches.
 */
#include <string.h>

#include "sql/optimizer_internal.h"

/* ---- limits -------------------------------------------------------------------------------- */

static bool int_literal(const cs_sql_expr *e, int64_t *v)
{
    if (!e || e->kind != CS_EX_LITERAL || !e->literal || !cs_column_is_valid(e->literal, 0))
        return false;
    switch (e->literal->type->id) {
    case CS_TYPE_INT:
        *v = ((const int32_t *)(const void *)e->literal->values)[0];
        return true;
    case CS_TYPE_LONG:
        *v = ((const int64_t *)(const void *)e->literal->values)[0];
        return true;
    default:
        return false;
    }
}

/* The most rows p can return (-1: unknown), Spark's maxRows. */
static int64_t max_rows(const cs_logical_plan *p)
{
    int64_t n;
    switch (p->kind) {
    case CS_LP_ONE_ROW:
        return 1;
    case CS_LP_LOCAL_RELATION:
        if (cs_opt_is_empty_relation(p)) return 0;
        return p->n_rows > 0 ? p->n_rows : -1;
    case CS_LP_RANGE: {
        if (p->range_step == 0) return -1;
        __int128 span = (__int128)p->range_end - p->range_start;
        __int128 k = span / p->range_step + ((span % p->range_step) != 0);
        return k <= 0 ? 0 : k > INT64_MAX ? -1 : (int64_t)k;
    }
    case CS_LP_LIMIT:
        if (!p->local_limit && int_literal(p->limit, &n)) {
            int64_t m = max_rows(p->children[0]);
            return m >= 0 && m < n ? m : n;
        }
        return max_rows(p->children[0]);
    case CS_LP_AGGREGATE:
        if (p->n_group_by == 0) return 1;
        return max_rows(p->children[0]);
    case CS_LP_PROJECT:
    case CS_LP_FILTER:
    case CS_LP_SORT:
    case CS_LP_WINDOW:
    case CS_LP_REPARTITION:
    case CS_LP_DISTINCT:
    case CS_LP_OFFSET:
        return max_rows(p->children[0]);
    default:
        return -1;
    }
}

/* Rows per partition at most (a LocalLimit bounds it). */
static int64_t max_rows_per_partition(const cs_logical_plan *p)
{
    int64_t n;
    if (p->kind == CS_LP_LIMIT && int_literal(p->limit, &n)) return n;
    if (p->kind == CS_LP_PROJECT) return max_rows_per_partition(p->children[0]);
    return max_rows(p);
}

static cs_logical_plan *local_limit(cs_opt_ctx *c, cs_sql_expr *n, cs_logical_plan *child)
{
    cs_logical_plan *l = cs_opt_unary(c, CS_LP_LIMIT, child);
    l->limit = n;
    l->local_limit = true;
    return l;
}

/* Spark's maybePushLocalLimit: a local limit over p unless p returns no more rows anyway. */
static cs_logical_plan *maybe_push_local_limit(cs_opt_ctx *c, cs_sql_expr *limit,
                                               cs_logical_plan *p)
{
    int64_t n, child_n;
    if (!int_literal(limit, &n)) return p;
    if (p->kind == CS_LP_LIMIT && p->local_limit && int_literal(p->limit, &child_n)) {
        if (n < child_n) return local_limit(c, limit, p->children[0]);
        return p;
    }
    int64_t m = max_rows_per_partition(p);
    if (m >= 0 && m <= n) return p;
    return local_limit(c, limit, p);
}

static cs_logical_plan *push_limit_through_join(cs_opt_ctx *c, cs_sql_expr *limit,
                                                cs_logical_plan *j)
{
    cs_logical_plan *l = j->children[0], *r = j->children[1];
    switch (j->join_type) {
    case CS_JOIN_LEFT_OUTER:
        l = maybe_push_local_limit(c, limit, l);
        break;
    case CS_JOIN_RIGHT_OUTER:
        r = maybe_push_local_limit(c, limit, r);
        break;
    case CS_JOIN_INNER:
    case CS_JOIN_CROSS:
        if (j->condition) return j;
        l = maybe_push_local_limit(c, limit, l);
        r = maybe_push_local_limit(c, limit, r);
        break;
    case CS_JOIN_LEFT_SEMI:
    case CS_JOIN_LEFT_ANTI:
        if (j->condition) return j;
        l = maybe_push_local_limit(c, limit, l);
        break;
    default:
        return j;
    }
    cs_logical_plan *kids[2] = {l, r};
    return cs_opt_with_children(c, j, kids);
}

/* The limit's pushes below a LIMIT node (global or local): UNION ALL branches, joins' preserved
 * sides, through a projection over a join; a global limit goes below a projection over a sort. */
static cs_logical_plan *push_limit_node(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_LIMIT) return p;
    int64_t n;
    if (!int_literal(p->limit, &n)) return p;
    cs_logical_plan *child = p->children[0];
    if (child->kind == CS_LP_SET_OP && child->set_op == CS_SET_UNION && child->all) {
        cs_logical_plan **kids = cs_sql_alloc(c->arena, sizeof *kids * (size_t)child->n_children);
        for (int i = 0; i < child->n_children; i++)
            kids[i] = maybe_push_local_limit(c, p->limit, child->children[i]);
        return cs_opt_with_child(c, p, cs_opt_with_children(c, child, kids));
    }
    if (child->kind == CS_LP_JOIN)
        return cs_opt_with_child(c, p, push_limit_through_join(c, p->limit, child));
    const cs_logical_plan *below = child->n_children == 1 ? child->children[0] : NULL;
    if (!p->local_limit && child->kind == CS_LP_PROJECT &&
        (below->kind == CS_LP_SORT || (below->kind == CS_LP_LIMIT && !below->local_limit)) &&
        cs_opt_deterministic_list(child->exprs, child->n_exprs)) {
        /* LIMIT over a projection of a SORT (or of a limit): the projection goes on top, so
         * that SORT and LIMIT are adjacent (a TopN), limits meet (and combine), and the
         * projection runs on n rows */
        return cs_opt_project(c, child->exprs, child->n_exprs,
                              cs_opt_with_child(c, p, child->children[0]));
    }
    if (child->kind == CS_LP_PROJECT && child->children[0]->kind == CS_LP_JOIN)
        return cs_opt_with_child(
            c, p,
            cs_opt_with_child(c, child, push_limit_through_join(c, p->limit, child->children[0])));
    return p;
}

int cs_opt_limit_push_down(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_down(c, p, push_limit_node, NULL);
    return 0;
}

/* EliminateLimits: a limit over something that returns no more rows goes; adjacent limits of
 * the same kind become one (CombineLimits); LIMIT 0 is an empty relation (OptimizeLimitZero). */
static cs_logical_plan *eliminate_limit(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    /* TABLESAMPLE of every row or of none: Spark's sampler keeps all rows when the fraction is
     * 1 and none when it is 0, whatever the seed (a randomSplit's sample of all rows keeps the
     * sorted order of its partitions: it stays) */
    if (p->kind == CS_LP_SAMPLE && !p->with_replacement && p->fraction >= 1.0 &&
        !p->deterministic_order)
        return p->children[0];
    if (p->kind == CS_LP_SAMPLE && p->fraction <= 0.0) return cs_opt_empty_relation(c, p);
    if (p->kind != CS_LP_LIMIT) return p;
    int64_t n, m;
    if (!int_literal(p->limit, &n)) return p;
    cs_logical_plan *child = p->children[0];
    if (n == 0) return cs_opt_empty_relation(c, p);
    if (child->kind == CS_LP_LIMIT && child->local_limit == p->local_limit &&
        int_literal(child->limit, &m)) {
        cs_logical_plan *r = cs_opt_with_child(c, p, child->children[0]);
        if (m < n) {
            if (r == p) r = cs_logical_plan_copy(c->arena, p);
            r->limit = child->limit;
        }
        return r;
    }
    int64_t most = p->local_limit ? max_rows_per_partition(child) : max_rows(child);
    if (most >= 0 && most <= n) return child;
    return p;
}

int cs_opt_eliminate_limits(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, eliminate_limit, NULL);
    return 0;
}

/* ---- PropagateEmptyRelation ---------------------------------------------------------------- */

/* The left rows with nulls for the right side's columns (an outer join with an empty side). */
static cs_logical_plan *with_nulls(cs_opt_ctx *c, const cs_logical_plan *j, cs_logical_plan *kept,
                                   bool kept_left)
{
    cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(j->n_output + 1));
    for (int i = 0; i < j->n_output; i++) {
        cs_sql_expr *a = j->output[i];
        if (cs_opt_output_find(kept, a->id)) {
            list[i] = a;
            continue;
        }
        cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
        al->args[0] = cs_opt_null_literal(c, a->type);
        al->name = a->name;
        al->id = a->id;
        al->type = a->type;
        al->nullable = true;
        al->resolved = true;
        list[i] = al;
    }
    (void)kept_left;
    return cs_opt_project(c, list, j->n_output, kept);
}

static cs_logical_plan *propagate_empty(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->n_children == 0) return p;
    bool any = false;
    for (int i = 0; i < p->n_children; i++)
        any |= cs_opt_is_empty_relation(p->children[i]);
    if (!any) return p;
    switch (p->kind) {
    case CS_LP_PROJECT:
    case CS_LP_FILTER:
    case CS_LP_SORT:
    case CS_LP_LIMIT:
    case CS_LP_OFFSET:
    case CS_LP_REPARTITION:
    case CS_LP_SAMPLE:
    case CS_LP_WINDOW:
    case CS_LP_GENERATE:
    case CS_LP_EXPAND:
    case CS_LP_DISTINCT:
        return cs_opt_empty_relation(c, p);
    case CS_LP_AGGREGATE:
        /* a global aggregate returns its one row over no input */
        return p->n_group_by ? cs_opt_empty_relation(c, p) : p;
    case CS_LP_JOIN: {
        bool le = cs_opt_is_empty_relation(p->children[0]);
        bool re = cs_opt_is_empty_relation(p->children[1]);
        switch (p->join_type) {
        case CS_JOIN_INNER:
        case CS_JOIN_CROSS:
        case CS_JOIN_LEFT_SEMI:
            return cs_opt_empty_relation(c, p);
        case CS_JOIN_LEFT_OUTER:
            return le ? cs_opt_empty_relation(c, p) : with_nulls(c, p, p->children[0], true);
        case CS_JOIN_RIGHT_OUTER:
            return re ? cs_opt_empty_relation(c, p) : with_nulls(c, p, p->children[1], false);
        case CS_JOIN_FULL_OUTER:
            if (le && re) return cs_opt_empty_relation(c, p);
            return with_nulls(c, p, le ? p->children[1] : p->children[0], re);
        case CS_JOIN_LEFT_ANTI:
            return le ? cs_opt_empty_relation(c, p) : p->children[0];
        case CS_JOIN_EXISTENCE:
            return le ? cs_opt_empty_relation(c, p) : p;
        }
        return p;
    }
    case CS_LP_SET_OP: {
        bool le = cs_opt_is_empty_relation(p->children[0]);
        bool re = cs_opt_is_empty_relation(p->children[1]);
        if (p->set_op == CS_SET_INTERSECT || (p->set_op == CS_SET_EXCEPT && le))
            return cs_opt_empty_relation(c, p);
        if (p->set_op == CS_SET_UNION && !p->all) return p; /* a distinct union still dedups */
        if (le && re) return cs_opt_empty_relation(c, p);
        if (p->set_op == CS_SET_EXCEPT) return p; /* EXCEPT with an empty right still dedups */
        /* UNION ALL with one empty branch: the other, under the union's attributes */
        cs_logical_plan *kept = le ? p->children[1] : p->children[0];
        cs_sql_expr **list = cs_sql_alloc(c->arena, sizeof *list * (size_t)(p->n_output + 1));
        for (int i = 0; i < p->n_output; i++) {
            cs_sql_expr *a = p->output[i], *src = kept->output[i];
            if (src->id == a->id) {
                list[i] = src;
                continue;
            }
            cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
            al->args[0] = src;
            al->name = a->name;
            al->id = a->id;
            al->type = a->type;
            al->nullable = src->nullable;
            al->resolved = true;
            list[i] = al;
        }
        return cs_opt_project(c, list, p->n_output, kept);
    }
    default:
        return p;
    }
}

int cs_opt_propagate_empty_relation(cs_opt_ctx *c, cs_logical_plan *p, cs_logical_plan **out,
                                    cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, propagate_empty, NULL);
    return 0;
}
