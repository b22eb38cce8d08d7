/*
 * planner_collation.c — how the planner makes collated strings (columnar/col_collation.h) group,
 * sort and join by their collation, as Spark's CollationKey does: a key that is a string of a
 * collation other than UTF8_BINARY is computed as collationkey(key), the binary key of
 * sqlexec/collation_keys.h, below the operator; hashing, equality and ordering of those bytes are
 * the collation's. Called by planner.c (sort keys), planner_agg.c (grouping keys, DISTINCT) and
 * planner_join.c (equi-join keys). Expressions live in the planner's arena.
 */
#include "sql/planner_internal.h"

cs_sql_expr *cs_pl_collation_key(cs_pl_ctx *c, cs_sql_expr *e)
{
    if (!cs_col_type_is_collated(e->type)) return e;
    cs_sql_expr *k = cs_sql_expr_new(c->arena, CS_EX_FUNC, 1);
    k->fn = "collationkey";
    k->name = "collationkey";
    k->args[0] = e;
    k->type = cs_col_type_primitive(CS_TYPE_BINARY);
    k->nullable = e->nullable;
    k->resolved = true;
    return k;
}

cs_logical_plan *cs_pl_distinct_as_aggregate(cs_pl_ctx *c, const cs_logical_plan *p)
{
    bool collated = false;
    for (int i = 0; i < p->n_output; i++)
        collated |= cs_col_type_is_collated(p->output[i]->type);
    if (!collated) return NULL;
    cs_logical_plan *agg = cs_logical_plan_new(c->arena, CS_LP_AGGREGATE, 1);
    agg->children[0] = p->children[0];
    agg->n_group_by = agg->n_exprs = agg->n_output = p->n_output;
    agg->group_by = agg->exprs = agg->output = p->output;
    agg->resolved = true;
    return agg;
}

int cs_pl_collation_firsts(cs_pl_ctx *c, cs_sql_expr *const *keys, int n_keys,
                           const cs_sql_expr **found, int n_aggs, int **first_of)
{
    *first_of = cs_sql_alloc(c->arena, sizeof **first_of * (size_t)(n_keys + 1));
    for (int i = 0; i < n_keys; i++) {
        (*first_of)[i] = -1;
        if (!cs_col_type_is_collated(keys[i]->type)) continue;
        cs_sql_expr *f = cs_sql_expr_new(c->arena, CS_EX_AGG, 1);
        f->fn = "first";
        f->name = "first";
        f->args[0] = keys[i];
        f->type = keys[i]->type;
        f->nullable = true;
        f->resolved = true;
        (*first_of)[i] = n_aggs;
        found[n_aggs++] = f;
    }
    return n_aggs;
}

/* e with every attribute that is a collated grouping key (keys[i] an ATTR with first_to[i]) read
 * from its first() aggregate: at the top of an output list as an alias keeping the attribute's
 * name and id, inside an expression as the aggregate's value. */
static cs_sql_expr *key_attrs(cs_pl_ctx *c, cs_sql_expr *e, cs_sql_expr *const *keys,
                              cs_sql_expr *const *first_to, int n, bool top)
{
    if (!e) return NULL;
    if (e->kind == CS_EX_ATTR) {
        for (int i = 0; i < n; i++) {
            if (!first_to[i] || keys[i]->kind != CS_EX_ATTR || keys[i]->id != e->id) continue;
            if (!top) return first_to[i];
            cs_sql_expr *a = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
            a->args[0] = first_to[i];
            a->name = e->name;
            a->id = e->id;
            a->type = e->type;
            a->nullable = e->nullable;
            a->resolved = true;
            return a;
        }
        return e;
    }
    if (e->kind == CS_EX_SCALAR_SUBQUERY || e->kind == CS_EX_EXISTS || e->kind == CS_EX_IN_SUBQUERY)
        return e;
    cs_sql_expr *r = NULL;
    for (int i = 0; i < e->n_args; i++) {
        cs_sql_expr *a = key_attrs(c, e->args[i], keys, first_to, n, false);
        if (a == e->args[i]) continue;
        if (!r) r = cs_sql_expr_copy(c->arena, e);
        r->args[i] = a;
    }
    return r ? r : e;
}

cs_sql_expr *cs_pl_collation_key_attrs(cs_pl_ctx *c, cs_sql_expr *e, cs_sql_expr *const *keys,
                                       cs_sql_expr *const *first_to, int n)
{
    return key_attrs(c, e, keys, first_to, n, true);
}
