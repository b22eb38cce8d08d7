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
 * aggregates). A pivot without values first collects them with a job, as Spark does: the
 * distinct values of the column, sorted (nulls first), at most 10,000.
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

/* Spark's maximum number of values a pivot collects (spark.sql.pivotMaxValues' default). */
#define PIVOT_MAX_VALUES 10000

/* Value i of a collected column as the literal message a client would send (in the arena);
 * UNSUPPORTED_FEATURE for a type pivot_value_name cannot name. */
static int value_literal(cs_cp *c, const cs_column *col, int64_t i,
                         Spark__Connect__Expression__Literal *l)
{
    spark__connect__expression__literal__init(l);
    if (!cs_column_is_valid(col, i)) {
        static Spark__Connect__DataType__NULL nn = SPARK__CONNECT__DATA_TYPE__NULL__INIT;
        Spark__Connect__DataType *t = cs_sql_alloc(c->a, sizeof *t);
        spark__connect__data_type__init(t);
        t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_NULL;
        t->null = &nn;
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
        l->null = t;
        return 0;
    }
    const void *p = col->values;
    switch (col->type->id) {
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *b = cs_column_bytes(col, i, &len);
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
        l->string = cs_sql_strndup(c->a, (const char *)b, (size_t)len);
        return 0;
    }
    case CS_TYPE_BOOLEAN:
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN;
        l->boolean = cs_bit_get(p, i);
        return 0;
    case CS_TYPE_BYTE:
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BYTE;
        l->byte = ((const int8_t *)p)[i];
        return 0;
    case CS_TYPE_SHORT:
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_SHORT;
        l->short_ = ((const int16_t *)p)[i];
        return 0;
    case CS_TYPE_INT:
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
        l->integer = ((const int32_t *)p)[i];
        return 0;
    case CS_TYPE_LONG:
        l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
        l->long_ = ((const int64_t *)p)[i];
        return 0;
    default:
        return cs_cp_unsupported(c, "pivot values of the type %s", cs_type_id_name(col->type->id));
    }
}

/* pivot(col) without values, as Spark's RelationalGroupedDataset.pivot: a job collects the
 * distinct values of col, sorted, as literal messages in the arena; more than PIVOT_MAX_VALUES
 * of them is Spark's _LEGACY_ERROR_TEMP_1324. */
static int collect_pivot_values(cs_cp *c, cs_logical_plan *in, cs_sql_expr *col,
                                Spark__Connect__Expression__Literal ***values, size_t *n)
{
    if (!c->ctx->session) return cs_cp_invalid(c, "a pivot without values needs a session");
    int rc;
    /* SELECT col AS v FROM in GROUP BY col ORDER BY v LIMIT max + 1 */
    cs_logical_plan *agg = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    agg->children[0] = in;
    agg->n_group_by = 1;
    agg->group_by = (cs_sql_expr **)cs_cp_array(c, 1);
    agg->group_by[0] = col;
    agg->n_exprs = 1;
    agg->exprs = (cs_sql_expr **)cs_cp_array(c, 1);
    agg->exprs[0] = cs_cp_alias(c, col, "__pivot_value");
    cs_logical_plan *sort = cs_logical_plan_new(c->a, CS_LP_SORT, 1);
    sort->children[0] = agg;
    sort->global = true;
    sort->n_order = 1;
    sort->order = (cs_sql_expr **)cs_cp_array(c, 1);
    sort->order[0] = cs_sql_expr_new(c->a, CS_EX_SORT_ORDER, 1);
    sort->order[0]->args[0] = cs_cp_column1(c, "__pivot_value");
    sort->order[0]->nulls_first = true;
    Spark__Connect__Expression__Literal max = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    max.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    max.integer = PIVOT_MAX_VALUES + 1;
    cs_logical_plan *limit = cs_logical_plan_new(c->a, CS_LP_LIMIT, 1);
    limit->children[0] = sort;
    if ((rc = cs_cp_literal(c, &max, &limit->limit)) != 0) return rc;
    cs_sql_statement st = {.kind = CS_STMT_QUERY, .plan = limit};
    cs_sql_result r;
    bool kept = false;
    rc =
        cs_sql_session_run_statement(c->ctx->session, c->a, &st, "pivot values", &r, &kept, c->err);
    if (rc) return rc < 0 ? rc : CS_EINVAL;
    if (r.num_rows > PIVOT_MAX_VALUES) {
        cs_sql_result_free(&r);
        cs_sbuf name = CS_SBUF_INIT;
        cs_sql_expr_pretty_name(col, &name);
        cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1324", "",
                         "The pivot column %s has more than %d distinct values, this could "
                         "indicate an error. If this was intended, set spark.sql.pivotMaxValues "
                         "to at least the number of distinct values of the pivot column.",
                         cs_sbuf_str(&name), PIVOT_MAX_VALUES);
        cs_sbuf_free(&name);
        return CS_EINVAL;
    }
    *n = 0;
    *values = (Spark__Connect__Expression__Literal **)cs_cp_array(c, (size_t)r.num_rows + 1);
    for (int b = 0; rc == 0 && b < r.n_batches; b++) {
        cs_column *plain = cs_column_decode(r.batches[b]->columns[0], NULL);
        for (int64_t i = 0; rc == 0 && i < plain->length; i++) {
            Spark__Connect__Expression__Literal *l = cs_sql_alloc(c->a, sizeof *l);
            if ((rc = value_literal(c, plain, i, l)) == 0) (*values)[(*n)++] = l;
        }
        cs_column_unref(plain);
    }
    cs_sql_result_free(&r);
    return rc;
}

int cs_cp_pivot(cs_cp *c, cs_logical_plan *in, cs_sql_expr **groups, int ng, cs_sql_expr *col,
                Spark__Connect__Expression__Literal **pv_values, size_t n_values,
                cs_sql_expr **aggs, int na, cs_logical_plan **out)
{
    int rc;
    if (n_values == 0 && (rc = collect_pivot_values(c, in, col, &pv_values, &n_values)) != 0)
        return rc;
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
    outer->n_exprs = ng + (int)n_values * na;
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
    for (size_t v = 0; v < n_values; v++) {
        cs_sql_expr *value = NULL;
        const char *vname = NULL;
        if ((rc = cs_cp_literal(c, pv_values[v], &value)) != 0 ||
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

/* The grouping expressions as GROUP BY takes them: an alias named in groupBy
 * (groupBy((col("id") % 3).alias("k"))) names the output column only, as Spark's CleanupAliases
 * trims it from an Aggregate's grouping expressions; left on, the key no longer matched the
 * same expression in the output list, which failed with MISSING_AGGREGATION. */
static cs_sql_expr **grouping_keys(cs_cp *c, cs_sql_expr **groups, int ng)
{
    cs_sql_expr **keys = (cs_sql_expr **)cs_cp_array(c, (size_t)ng);
    for (int i = 0; i < ng; i++) {
        cs_sql_expr *k = groups[i];
        while (k->kind == CS_EX_ALIAS && k->n_args == 1)
            k = k->args[0];
        keys[i] = k;
    }
    return keys;
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
    if (g->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_PIVOT) {
        const Spark__Connect__Aggregate__Pivot *pv = g->pivot;
        if (!pv) return cs_cp_invalid(c, "Aggregate with GROUP_TYPE_PIVOT requires a Pivot");
        cs_sql_expr *col;
        if ((rc = cs_cp_expression(c, pv->col, &col)) != 0) return rc;
        return cs_cp_pivot(c, in, groups, ng, col, pv->values, pv->n_values, aggs, na, out);
    }
    cs_logical_plan *p = cs_logical_plan_new(c->a, CS_LP_AGGREGATE, 1);
    p->children[0] = in;
    p->n_exprs = ng + na;
    p->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)(ng + na));
    for (int i = 0; i < ng; i++)
        p->exprs[i] = groups[i];
    for (int i = 0; i < na; i++)
        p->exprs[ng + i] = aggs[i];
    cs_sql_expr **keys = grouping_keys(c, groups, ng);
    switch (g->group_type) {
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPBY:
        p->n_group_by = ng;
        p->group_by = keys;
        break;
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP:
    case SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_CUBE: {
        bool rollup = g->group_type == SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP;
        p->n_group_by = 1;
        p->group_by = (cs_sql_expr **)cs_cp_array(c, 1);
        p->group_by[0] = call_of(c, rollup ? "rollup" : "cube", keys, ng);
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
