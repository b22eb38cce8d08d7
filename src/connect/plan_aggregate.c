/*
 * plan_aggregate.c — Spark Connect's Aggregate relation (df.groupBy / rollup / cube /
 * groupingSets / pivot, then agg) as the parser's Aggregate, following SparkConnectPlanner's
 * transformRelationalGroupedAggregate: the output is the grouping expressions then the
 * aggregate expressions (groupBy(a).agg(sum(b)) is SELECT a, sum(b) ... GROUP BY a);
 * rollup(a, b) and cube(a, b) are the parser's "rollup" / "cube" calls in GROUP BY, grouping
 * sets its "grouping_sets" call of "grouping_set" calls.
 *
 * pivot(col, values).agg(...) is two aggregates, as Spark's PivotFirst plan computes it: the
 * aggregates per group and pivot value, then per group one column per value (and aggregate)
 * taking the aggregate of the row whose pivot value matches (`<=>`), null when none; the
 * columns are named as Spark names them (the value, or value_aggregate with several
 * aggregates). A pivot without values (Spark collects them with a job first) is refused.
 *
 * Called by plan_relations.c. Ownership: nodes in the translation's arena.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"

static cs_sql_expr *call_of(cs_cp *c, const char *name, cs_sql_expr **args, int n)
{
    return cs_cp_call(c, name, args, n);
}

/* The name the outer aggregate of a pivot refers to a grouping expression by; NULL when it
 * has none before analysis (a computed expression without an alias). */
static const char *grouping_name(const cs_sql_expr *g)
{
    if (g->kind == CS_EX_UNRESOLVED_ATTR && g->n_parts > 0) return g->parts[g->n_parts - 1];
    if (g->kind == CS_EX_ALIAS) return g->name;
    return NULL;
}

/* Spark's outputName of a pivot value: the literal cast to string ("null" for null). */
static int pivot_value_name(cs_cp *c, const cs_sql_expr *v, const char **out)
{
    const cs_column *col = v->kind == CS_EX_LITERAL ? v->literal : NULL;
    if (!col) return cs_cp_unsupported(c, "pivot values other than literals");
    char buf[64];
    if (!cs_column_is_valid(col, 0)) {
        *out = "null";
        return 0;
    }
    const void *p = col->values;
    switch (col->type->id) {
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *s = cs_column_bytes(col, 0, &len);
        *out = cs_sql_strndup(c->a, (const char *)s, (size_t)len);
        return 0;
    }
    case CS_TYPE_BOOLEAN:
        *out = cs_bit_get(p, 0) ? "true" : "false";
        return 0;
    case CS_TYPE_BYTE:
        snprintf(buf, sizeof buf, "%d", *(const int8_t *)p);
        break;
    case CS_TYPE_SHORT:
        snprintf(buf, sizeof buf, "%d", *(const int16_t *)p);
        break;
    case CS_TYPE_INT:
        snprintf(buf, sizeof buf, "%" PRId32, *(const int32_t *)p);
        break;
    case CS_TYPE_LONG:
        snprintf(buf, sizeof buf, "%" PRId64, *(const int64_t *)p);
        break;
    default:
        return cs_cp_unsupported(c, "pivot values of the type %s", cs_type_id_name(col->type->id));
    }
    *out = cs_sql_strdup(c->a, buf);
    return 0;
}

static int pivot(cs_cp *c, const Spark__Connect__Aggregate *g, cs_logical_plan *in,
                 cs_sql_expr **groups, int ng, cs_sql_expr **aggs, int na, cs_logical_plan **out)
{
    const Spark__Connect__Aggregate__Pivot *pv = g->pivot;
    if (!pv) return cs_cp_invalid(c, "Aggregate with GROUP_TYPE_PIVOT requires a Pivot");
    if (pv->n_values == 0)
        return cs_cp_unsupported(c, "pivot without its values (Spark collects them first)");
    cs_sql_expr *col;
    int rc = cs_cp_expression(c, pv->col, &col);
    if (rc) return rc;
    /* inner: GROUP BY groups, pivot column -> groups, __pivot_col, __pivot_agg_i */
    cs_logical_plan *inner = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    inner->children[0] = in;
    inner->n_group_by = ng + 1;
    inner->group_by = (cs_sql_expr **)cs_cp_array(c, (size_t)ng + 1);
    inner->n_exprs = ng + 1 + na;
    inner->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)(ng + 1 + na));
    cs_logical_plan *sub = cs_logical_plan_new(c->a, CS_LP_SUBQUERY_ALIAS, 1);
    sub->children[0] = inner; /* as the parser names a FROM (subquery) */
    sub->alias = "__auto_generated_subquery_name";
    cs_logical_plan *outer = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    outer->children[0] = sub;
    outer->n_group_by = ng;
    outer->group_by = (cs_sql_expr **)cs_cp_array(c, (size_t)ng);
    outer->n_exprs = ng + (int)pv->n_values * na;
    outer->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)outer->n_exprs);
    for (int i = 0; i < ng; i++) {
        const char *name = grouping_name(groups[i]);
        if (!name) return cs_cp_unsupported(c, "pivot grouped by an expression without a name");
        inner->group_by[i] = groups[i]->kind == CS_EX_ALIAS ? groups[i]->args[0] : groups[i];
        inner->exprs[i] = groups[i];
        outer->group_by[i] = outer->exprs[i] = cs_cp_column1(c, name);
    }
    inner->group_by[ng] = col;
    inner->exprs[ng] = cs_cp_alias(c, col, "__pivot_col");
    const char **agg_names = (const char **)cs_cp_array(c, (size_t)na);
    for (int k = 0; k < na; k++) {
        char name[32];
        snprintf(name, sizeof name, "__pivot_agg_%d", k);
        inner->exprs[ng + 1 + k] = cs_cp_alias(c, aggs[k], cs_sql_strdup(c->a, name));
        if (aggs[k]->kind == CS_EX_ALIAS) {
            agg_names[k] = aggs[k]->name;
        } else {
            cs_sbuf b = CS_SBUF_INIT;
            cs_sql_expr_pretty_name(aggs[k], &b);
            agg_names[k] = cs_sql_strdup(c->a, cs_sbuf_str(&b));
            cs_sbuf_free(&b);
        }
    }
    int at = ng;
    for (size_t v = 0; v < pv->n_values; v++) {
        cs_sql_expr *value = NULL;
        const char *vname = NULL;
        if ((rc = cs_cp_literal(c, pv->values[v], &value)) != 0 ||
            (rc = pivot_value_name(c, value, &vname)) != 0)
            return rc;
        for (int k = 0; k < na; k++) {
            char agg_col[32];
            snprintf(agg_col, sizeof agg_col, "__pivot_agg_%d", k);
            cs_sql_expr *eq_args[2] = {cs_cp_column1(c, "__pivot_col"), value};
            cs_sql_expr *if_args[3] = {call_of(c, "<=>", eq_args, 2), cs_cp_column1(c, agg_col),
                                       NULL};
            Spark__Connect__Expression__Literal nl = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
            Spark__Connect__DataType nt = SPARK__CONNECT__DATA_TYPE__INIT;
            Spark__Connect__DataType__NULL nn = SPARK__CONNECT__DATA_TYPE__NULL__INIT;
            nt.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
            nt.null = &nn;
            nl.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
            nl.null = &nt;
            if ((rc = cs_cp_literal(c, &nl, &if_args[2])) != 0) return rc;
            cs_sql_expr *pick = call_of(c, "if", if_args, 3);
            cs_sql_expr *first = call_of(c, "first", &pick, 1);
            first->ignore_nulls = true;
            const char *name = vname;
            if (na > 1) {
                size_t len = strlen(vname) + strlen(agg_names[k]) + 2;
                char *s = cs_sql_alloc(c->a, len);
                snprintf(s, len, "%s_%s", vname, agg_names[k]);
                name = s;
            }
            outer->exprs[at++] = cs_cp_alias(c, first, name);
        }
    }
    *out = outer;
    return 0;
}

int cs_cp_aggregate(cs_cp *c, const Spark__Connect__Aggregate *g, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, g->input, "Aggregate", &in);
    if (rc) return rc;
    cs_sql_expr **groups, **aggs;
    if ((rc = cs_cp_expressions(c, g->grouping_expressions, g->n_grouping_expressions, &groups)) ||
        (rc = cs_cp_expressions(c, g->aggregate_expressions, g->n_aggregate_expressions, &aggs)))
        return rc;
    int ng = (int)g->n_grouping_expressions, na = (int)g->n_aggregate_expressions;
    if (g->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_PIVOT)
        return pivot(c, g, in, groups, ng, aggs, na, out);
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    p->children[0] = in;
    p->n_exprs = ng + na;
    p->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)(ng + na));
    for (int i = 0; i < ng; i++)
        p->exprs[i] = groups[i];
    for (int i = 0; i < na; i++)
        p->exprs[ng + i] = aggs[i];
    switch (g->group_type) {
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPBY:
        p->n_group_by = ng;
        p->group_by = groups;
        break;
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP:
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_CUBE: {
        bool rollup = g->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP;
        p->n_group_by = 1;
        p->group_by = (cs_sql_expr **)cs_cp_array(c, 1);
        p->group_by[0] = call_of(c, rollup ? "rollup" : "cube", groups, ng);
        break;
    }
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPING_SETS: {
        size_t ns = g->n_grouping_sets;
        cs_sql_expr **sets = (cs_sql_expr **)cs_cp_array(c, ns);
        for (size_t i = 0; i < ns; i++) {
            const Spark__Connect__Aggregate__GroupingSets *gs = g->grouping_sets[i];
            cs_sql_expr **items;
            if ((rc = cs_cp_expressions(c, gs->grouping_set, gs->n_grouping_set, &items)) != 0)
                return rc;
            sets[i] = call_of(c, "grouping_set", items, (int)gs->n_grouping_set);
        }
        p->n_group_by = 1;
        p->group_by = (cs_sql_expr **)cs_cp_array(c, 1);
        p->group_by[0] = call_of(c, "grouping_sets", sets, (int)ns);
        break;
    }
    default:
        return cs_cp_invalid(c, "Unknown Group Type %d", (int)g->group_type);
    }
    *out = p;
    return 0;
}
