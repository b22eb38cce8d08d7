/*
 * plan_freq_items.c — Spark Connect's freq_items relation (df.stat.freqItems(cols, support)):
 * one row with a column `<col>_freqItems` per column, the array of the column's values that
 * occur in more than support of the rows. Spark's FrequentItems finds them in one pass with at
 * most 1/support counters (Karp, Schenker and Papadimitriou), which may add values that are not
 * frequent; the values here are exactly the frequent ones, which that answer always holds. Per
 * column, as the SQL a user would write:
 *
 *   SELECT collect_list(v) AS `c_freqItems`
 *   FROM (SELECT c AS v, count(1) AS n FROM input GROUP BY c)
 *        CROSS JOIN (SELECT count(1) AS total FROM input)
 *   WHERE n > support * total
 *
 * and the columns side by side (a cross join of the one-row answers). support is 0.01 when not
 * given, and must be at least 1e-4 (IllegalArgumentException, as Spark's require).
 *
 * Called by plan_relations.c. Ownership: nodes in the translation's arena.
 */
#include <stdio.h>
#include <string.h>

#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"

static cs_logical_plan *node(cs_cp *c, cs_plan_kind kind, cs_logical_plan *child)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, kind, 1);
    p->children[0] = child;
    return p;
}

static cs_logical_plan *cross(cs_cp *c, cs_logical_plan *l, cs_logical_plan *r)
{
    cs_logical_plan *j = cs_logical_plan_new(c->a, CS_LP_JOIN, 2);
    j->children[0] = l;
    j->children[1] = r;
    j->join_type = CS_JOIN_CROSS;
    return j;
}

static cs_sql_expr *count_one(cs_cp *c)
{
    Spark__Connect__Expression__Literal one = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    one.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    one.integer = 1;
    cs_sql_expr *arg = NULL;
    cs_cp_literal(c, &one, &arg);
    return cs_cp_call(c, "count", &arg, 1);
}

static cs_logical_plan *aggregate(cs_cp *c, cs_logical_plan *in, cs_sql_expr **group, int ng,
                                  cs_sql_expr **exprs, int n)
{
    cs_logical_plan *p = node(c, CS_LP_AGGREGATE, in);
    p->n_group_by = ng;
    p->group_by = group;
    p->n_exprs = n;
    p->exprs = exprs;
    return p;
}

/* The one-row answer of one column. */
static int frequent(cs_cp *c, const Spark__Connect__StatFreqItems *f, const char *name,
                    double support, cs_logical_plan **out)
{
    cs_logical_plan *in1, *in2;
    int rc = cs_cp_input(c, f->input, "StatFreqItems", &in1);
    if (!rc) rc = cs_cp_input(c, f->input, "StatFreqItems", &in2);
    if (rc) return rc;
    const char **parts;
    int np;
    if ((rc = cs_cp_attribute_name(c, name, &parts, &np)) != 0) return rc;
    cs_sql_expr **group = (cs_sql_expr **)cs_cp_array(c, 1);
    group[0] = cs_cp_column(c, parts, np);
    cs_sql_expr **counted = (cs_sql_expr **)cs_cp_array(c, 2);
    counted[0] = cs_cp_alias(c, cs_cp_column(c, parts, np), "__freq_value");
    counted[1] = cs_cp_alias(c, count_one(c), "__freq_count");
    cs_sql_expr **total = (cs_sql_expr **)cs_cp_array(c, 1);
    total[0] = cs_cp_alias(c, count_one(c), "__freq_total");
    cs_logical_plan *joined =
        cross(c, aggregate(c, in1, group, 1, counted, 2), aggregate(c, in2, NULL, 0, total, 1));

    Spark__Connect__Expression__Literal s = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    s.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE;
    s.double_ = support;
    cs_sql_expr *times[2] = {NULL, cs_cp_column1(c, "__freq_total")};
    if ((rc = cs_cp_literal(c, &s, &times[0])) != 0) return rc;
    cs_sql_expr *gt[2] = {cs_cp_column1(c, "__freq_count"), cs_cp_call(c, "*", times, 2)};
    cs_logical_plan *kept = node(c, CS_LP_FILTER, joined);
    kept->condition = cs_cp_call(c, ">", gt, 2);

    char *col_name = cs_sql_alloc(c->a, strlen(name) + sizeof "_freqItems");
    sprintf(col_name, "%s_freqItems", name);
    cs_sql_expr *value = cs_cp_column1(c, "__freq_value");
    cs_sql_expr **items = (cs_sql_expr **)cs_cp_array(c, 1);
    items[0] = cs_cp_alias(c, cs_cp_call(c, "collect_list", &value, 1), col_name);
    *out = aggregate(c, kept, NULL, 0, items, 1);
    return 0;
}

int cs_cp_freq_items(cs_cp *c, const Spark__Connect__StatFreqItems *f, cs_logical_plan **out)
{
    if (f->n_cols == 0) return cs_cp_invalid(c, "StatFreqItems needs at least one column");
    double support =
        f->_support_case == SPARK__CONNECT__STAT_FREQ_ITEMS___SUPPORT_SUPPORT ? f->support : 0.01;
    if (!(support >= 1e-4 && support <= 1.0)) /* NaN too */
        return cs_error_set(c->err, CS_EINVAL,
                            "requirement failed: Support must be in [1e-4, 1], but got %g.",
                            support);
    cs_logical_plan *all = NULL;
    for (size_t i = 0; i < f->n_cols; i++) {
        cs_logical_plan *one;
        int rc = frequent(c, f, f->cols[i] ? f->cols[i] : "", support, &one);
        if (rc) return rc;
        all = all ? cross(c, all, one) : one;
    }
    *out = all;
    return 0;
}
