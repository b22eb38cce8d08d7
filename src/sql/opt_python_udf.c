/*
 * opt_python_udf.c — two rules of Spark's "Extract Python UDFs" batch.
 *
 * ExtractPythonUDFFromJoinCondition: a Python UDF call in a join condition that reads columns of
 * both sides cannot run below the join (the planner evaluates Python UDFs in PYTHON_EVAL nodes over
 * one input), so the conjuncts holding one leave the condition for a FILTER over the join. That
 * keeps the answer only for inner joins: any other join type with such a condition is refused with
 * Spark's UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE. An inner join left without a condition is
 * a cartesian product, which CheckCartesianProducts (optimizer.c) refuses when
 * spark.sql.crossJoin.enabled is false, as Spark reruns that check after this rule.
 *
 * A call whose columns all come from one side (f(a) = b) stays: the planner runs it below the
 * join as a join key or condition argument.
 *
 * ExtractPythonUDFFromAggregate: a Python UDF over an aggregate's results (a grouping key, an
 * aggregate function's value, or nothing at all: udf()) in an aggregate list, which is where
 * CollapseProject leaves a projection over an aggregation, can only run after the aggregation:
 * the aggregate keeps the parts it computes (named "agg" when they had no name) and a PROJECT
 * over it calls the UDF. UDFs inside an aggregate function's arguments stay (the planner runs
 * them below the aggregation). A grouped-aggregate pandas UDF is an aggregate function here: it
 * stays, and a UDF over its result is pulled above.
 *
 * Called by optimizer.c's batch. Ownership: nodes and expressions in the optimizer's arena.
 */
#include <string.h>

#include "sql/catalog.h"
#include "sql/optimizer_internal.h"
#include "sqlexec/sql_error.h"

/* Whether e holds a Python UDF call evaluable on neither side of join j. */
static bool udf_needs_both_sides(const cs_sql_expr *e, const cs_logical_plan *j)
{
    if (!e) return false;
    if (e->kind == CS_EX_PYTHON_UDF) {
        const cs_logical_plan *l = j->children[0], *r = j->children[1];
        if (!cs_opt_refs_within(e, l->output, l->n_output) &&
            !cs_opt_refs_within(e, r->output, r->n_output))
            return true;
    }
    for (int i = 0; i < e->n_args; i++)
        if (udf_needs_both_sides(e->args[i], j)) return true;
    return false;
}

/* Spark's JoinType.sql of the join types that refuse such a condition. */
static const char *join_type_sql(cs_join_type t)
{
    switch (t) {
    case CS_JOIN_LEFT_OUTER:
        return "LEFT OUTER";
    case CS_JOIN_RIGHT_OUTER:
        return "RIGHT OUTER";
    case CS_JOIN_FULL_OUTER:
        return "FULL OUTER";
    case CS_JOIN_LEFT_SEMI:
        return "LEFT SEMI";
    case CS_JOIN_LEFT_ANTI:
        return "LEFT ANTI";
    default:
        return "EXISTENCE";
    }
}

static cs_logical_plan *extract_from_join(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    cs_error *err = ud;
    if (err->code || p->kind != CS_LP_JOIN || !udf_needs_both_sides(p->condition, p)) return p;
    if (p->join_type != CS_JOIN_INNER && p->join_type != CS_JOIN_CROSS) {
        cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_FEATURE.PYTHON_UDF_IN_ON_CLAUSE", "0A000",
                         "The feature is not supported: Python UDF in the ON clause of a %s "
                         "JOIN. In case of an INNER JOIN consider rewriting to a CROSS JOIN "
                         "with a WHERE clause.",
                         join_type_sql(p->join_type));
        return p;
    }
    cs_sql_expr **conj;
    int n = cs_opt_split_conjuncts(c, p->condition, &conj);
    cs_sql_expr **udf = cs_sql_alloc(c->arena, sizeof *udf * (size_t)(n + 1));
    cs_sql_expr **rest = cs_sql_alloc(c->arena, sizeof *rest * (size_t)(n + 1));
    int n_udf = 0, n_rest = 0;
    for (int i = 0; i < n; i++) {
        if (udf_needs_both_sides(conj[i], p))
            udf[n_udf++] = conj[i];
        else
            rest[n_rest++] = conj[i];
    }
    cs_logical_plan *j = cs_logical_plan_copy(c->arena, p);
    j->condition = n_rest ? cs_opt_and_all(c, rest, n_rest) : NULL;
    return cs_opt_filter(c, cs_opt_and_all(c, udf, n_udf), j);
}

int cs_opt_extract_python_udf_from_join_condition(cs_opt_ctx *c, cs_logical_plan *p,
                                                  cs_logical_plan **out, cs_error *err)
{
    cs_error_clear(err);
    *out = cs_opt_plan_up(c, p, extract_from_join, err);
    return err->code;
}

/* ---- ExtractPythonUDFFromAggregate ---- */

/* What the aggregate computes: an aggregate function, or one of its grouping expressions. */
static bool belongs_to_aggregate(const cs_sql_expr *e, const cs_logical_plan *agg)
{
    if (e->kind == CS_EX_AGG || cs_sql_expr_is_python_agg(e)) return true;
    for (int i = 0; i < agg->n_group_by; i++)
        if (cs_opt_expr_equal(agg->group_by[i], e)) return true;
    return false;
}

static bool holds_aggregate_part(const cs_sql_expr *e, const cs_logical_plan *agg)
{
    if (!e) return false;
    if (belongs_to_aggregate(e, agg)) return true;
    for (int i = 0; i < e->n_args; i++)
        if (holds_aggregate_part(e->args[i], agg)) return true;
    return false;
}

/* Whether e holds a Python UDF reading nothing or reading what the aggregate computes. */
static bool udf_over_aggregate(const cs_sql_expr *e, const cs_logical_plan *agg)
{
    if (!e || cs_sql_expr_is_python_agg(e)) return false; /* an aggregate: it stays */
    if (e->kind == CS_EX_PYTHON_UDF &&
        (!cs_opt_contains_kind(e, CS_EX_ATTR) || holds_aggregate_part(e, agg)))
        return true;
    for (int i = 0; i < e->n_args; i++)
        if (udf_over_aggregate(e->args[i], agg)) return true;
    return false;
}

typedef struct agg_split {
    cs_opt_ctx *c;
    const cs_logical_plan *agg;
    cs_sql_expr **list; /* the new aggregate list (arena) */
    int n, cap;
} agg_split;

static void keep_in_aggregate(agg_split *s, cs_sql_expr *named)
{
    for (int i = 0; i < s->n; i++)
        if (s->list[i]->id == named->id) return;
    if (s->n == s->cap) {
        s->cap = 2 * s->cap + 8;
        cs_sql_expr **grown = cs_sql_alloc(s->c->arena, sizeof *grown * (size_t)s->cap);
        if (s->n) memcpy(grown, s->list, sizeof *grown * (size_t)s->n);
        s->list = grown;
    }
    s->list[s->n++] = named;
}

/* e with what the aggregate computes replaced by attributes of the new aggregate list. */
static cs_sql_expr *over_aggregate(cs_opt_ctx *c, cs_sql_expr *e, agg_split *s)
{
    if (belongs_to_aggregate(e, s->agg)) {
        if (e->kind == CS_EX_ATTR) {
            keep_in_aggregate(s, e);
            return e;
        }
        cs_sql_expr *al = cs_sql_expr_new(c->arena, CS_EX_ALIAS, 1);
        al->args[0] = e;
        al->name = "agg";
        al->type = e->type;
        al->nullable = e->nullable;
        al->id = cs_catalog_next_expr_id(c->catalog);
        al->resolved = true;
        keep_in_aggregate(s, al);
        return cs_sql_expr_to_attr(c->arena, al);
    }
    if (e->n_args == 0) return e;
    cs_sql_expr *r = cs_sql_expr_copy(c->arena, e);
    for (int i = 0; i < e->n_args; i++)
        r->args[i] = over_aggregate(c, e->args[i], s);
    return r;
}

static cs_logical_plan *extract_from_aggregate(cs_opt_ctx *c, cs_logical_plan *p, void *ud)
{
    (void)ud;
    if (p->kind != CS_LP_AGGREGATE) return p;
    bool any = false;
    for (int i = 0; !any && i < p->n_exprs; i++)
        any = udf_over_aggregate(p->exprs[i], p);
    if (!any) return p;
    /* the new list holds each entry, or the parts of it the aggregate computes */
    agg_split s = {c, p, NULL, 0, 0};
    cs_sql_expr **proj = cs_sql_alloc(c->arena, sizeof *proj * (size_t)(p->n_exprs + 1));
    for (int i = 0; i < p->n_exprs; i++) {
        cs_sql_expr *e = p->exprs[i];
        if (!udf_over_aggregate(e, p)) {
            keep_in_aggregate(&s, e);
            proj[i] = cs_sql_expr_to_attr(c->arena, e);
            continue;
        }
        /* a named entry (ALIAS) keeps its name and id above */
        cs_sql_expr *named = cs_sql_expr_copy(c->arena, e);
        if (e->kind == CS_EX_ALIAS)
            named->args[0] = over_aggregate(c, e->args[0], &s);
        else
            named = over_aggregate(c, e, &s);
        proj[i] = named;
    }
    cs_logical_plan *agg = cs_logical_plan_copy(c->arena, p);
    agg->exprs = s.list;
    agg->n_exprs = s.n;
    cs_logical_plan_output_of_list(c->arena, agg);
    return cs_opt_project(c, proj, p->n_exprs, agg);
}

int cs_opt_extract_python_udf_from_aggregate(cs_opt_ctx *c, cs_logical_plan *p,
                                             cs_logical_plan **out, cs_error *err)
{
    (void)err;
    *out = cs_opt_plan_up(c, p, extract_from_aggregate, NULL);
    return 0;
}
