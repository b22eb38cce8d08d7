/*
 * plan_stat_functions.c — three of Spark Connect's statistic relations (df.stat in a PySpark
 * client), as the relations Spark's DataFrameStatFunctions and StatFunctions build:
 *
 *   crosstab(c1, c2)   groupBy(when(isnull(c1), 'null').otherwise(cast(c1 as string))
 *                      as `c1_c2`).pivot(when(isnull(c2), 'null').otherwise(
 *                      regexp_replace(cast(c2 as string), '`', ''))).count().na.fill(0):
 *                      one row per value of c1, one bigint column per value of c2, sorted
 *                      (the pivot collects them with a job, plan_aggregate.c).
 *   approxQuantile(cols, probabilities, relativeError)
 *                      one row, one column `approx_quantile` array<array<double>>: per column,
 *                      the Greenwald-Khanna summary (sqlexec's percentile_approx keeps Spark's
 *                      QuantileSummaries) of the column cast to double, nulls and NaN left out,
 *                      queried at each probability; an empty array for a column with no value.
 *                      The summary's relative error is 1 / accuracy: exactly relativeError when
 *                      it is the inverse of an integer (0.1, 0.05, 0.01, ...), the nearest such
 *                      otherwise, and 0 (exact) as Int.MaxValue.
 *   sampleBy(col, fractions, seed)
 *                      filter(rand(seed) < the stratum's fraction, 0 for a stratum not
 *                      listed): Spark's UDF over rand(seed), whose XORShiftRandom per partition
 *                      sqlexec's rand reproduces. A stratum matches by `<=>` (numeric strata of
 *                      different widths meet by value, as Scala's cooperative equality).
 *
 * Spark's require() failures are IllegalArgumentException ("requirement failed: ...").
 * Called by plan_relations.c. Ownership: nodes in the translation's arena.
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "columnar/col_type.h"
#include "common/strutil.h"
#include "connect/plan_internal.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static cs_logical_plan *unary(cs_cp *c, cs_plan_kind kind, cs_logical_plan *child)
{
    cs_logical_plan *p = cs_logical_plan_new(c->a, kind, 1);
    p->children[0] = child;
    return p;
}

static cs_sql_expr *string_lit(cs_cp *c, const char *s)
{
    return cs_sql_expr_string_literal(c->a, s);
}

static int long_lit(cs_cp *c, int64_t v, cs_sql_expr **out)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
    l.long_ = v;
    return cs_cp_literal(c, &l, out);
}

static int double_lit(cs_cp *c, double v, cs_sql_expr **out)
{
    Spark__Connect__Expression__Literal l = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE;
    l.double_ = v;
    return cs_cp_literal(c, &l, out);
}

static cs_sql_expr *cast_to(cs_cp *c, cs_sql_expr *e, cs_type_id id)
{
    cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
    x->args[0] = e;
    x->cast_type = cs_sql_arena_keep_type(c->a, cs_col_type_primitive(id));
    x->cast_mode = CS_CAST_ANSI;
    return x;
}

/* CASE WHEN cond THEN a ELSE b END */
static cs_sql_expr *case_when(cs_cp *c, cs_sql_expr *cond, cs_sql_expr *a, cs_sql_expr *b)
{
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_CASE, 3);
    e->args[0] = cond;
    e->args[1] = a;
    e->args[2] = b;
    e->has_else = true;
    return e;
}

/* v as Java's Double.toString prints the values a message names (1.5, 2.0, 1.0E-4 aside:
 * the shortest digits that read back as v, with ".0" when they have no point). */
static const char *java_double(double v, char buf[40])
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, 40, "%.*g", prec, v);
        if (strtod(buf, NULL) == v || isnan(v)) break;
    }
    if (!strpbrk(buf, ".eni")) strcat(buf, ".0");
    return buf;
}

static int column_named(cs_cp *c, const char *name, cs_sql_expr **out)
{
    const char **parts;
    int n;
    int rc = cs_cp_attribute_name(c, name ? name : "", &parts, &n);
    if (!rc) *out = cs_cp_column(c, parts, n);
    return rc;
}

/* ---- crosstab ---- */

int cs_cp_crosstab(cs_cp *c, const Spark__Connect__StatCrosstab *x, cs_logical_plan **out)
{
    cs_logical_plan *in;
    cs_sql_expr *c1, *c2;
    int rc = cs_cp_input(c, x->input, "StatCrosstab", &in);
    if (!rc) rc = column_named(c, x->col1, &c1);
    if (!rc) rc = column_named(c, x->col2, &c2);
    if (rc) return rc;
    const char *col1 = x->col1 ? x->col1 : "", *col2 = x->col2 ? x->col2 : "";
    char *table = cs_sql_alloc(c->a, strlen(col1) + strlen(col2) + 2);
    sprintf(table, "%s_%s", col1, col2);

    cs_sql_expr *isnull1 = cs_cp_call(c, "isnull", &c1, 1);
    cs_sql_expr *group =
        case_when(c, isnull1, string_lit(c, "null"), cast_to(c, c1, CS_TYPE_STRING));
    cs_sql_expr **groups = (cs_sql_expr **)cs_cp_array(c, 1);
    groups[0] = cs_cp_alias(c, group, table);

    cs_sql_expr *replace[3] = {cast_to(c, c2, CS_TYPE_STRING), string_lit(c, "`"),
                               string_lit(c, "")};
    cs_sql_expr *isnull2 = cs_cp_call(c, "isnull", &c2, 1);
    cs_sql_expr *pivot_col =
        case_when(c, isnull2, string_lit(c, "null"), cs_cp_call(c, "regexp_replace", replace, 3));
    /* count(): RelationalGroupedDataset.count is count(lit(1)) AS count */
    cs_sql_expr *one;
    Spark__Connect__Expression__Literal l1 = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    l1.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    l1.integer = 1;
    if ((rc = cs_cp_literal(c, &l1, &one)) != 0) return rc;
    cs_sql_expr **aggs = (cs_sql_expr **)cs_cp_array(c, 1);
    aggs[0] = cs_cp_alias(c, cs_cp_call(c, "count", &one, 1), "count");

    cs_logical_plan *pivoted;
    if ((rc = cs_cp_pivot(c, in, groups, 1, pivot_col, NULL, 0, aggs, 1, &pivoted)) != 0) return rc;
    /* na.fill(0): every count column (all but the first) null -> 0 */
    cs_sql_expr *zero;
    if ((rc = long_lit(c, 0, &zero)) != 0) return rc;
    cs_logical_plan *filled = unary(c, CS_LP_PROJECT, pivoted);
    filled->n_exprs = pivoted->n_exprs;
    filled->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)pivoted->n_exprs);
    for (int i = 0; i < pivoted->n_exprs; i++) {
        /* the group column, then the pivot's aliases, one per value */
        const char *name = i == 0 ? table : pivoted->exprs[i]->name;
        cs_sql_expr *col = cs_cp_column1(c, name);
        if (i > 0) {
            cs_sql_expr *both[2] = {col, zero};
            col = cs_cp_alias(c, cs_cp_call(c, "coalesce", both, 2), name);
        }
        filled->exprs[i] = col;
    }
    *out = filled;
    return 0;
}

/* ---- approxQuantile ---- */

int cs_cp_approx_quantile(cs_cp *c, const Spark__Connect__StatApproxQuantile *q,
                          cs_logical_plan **out)
{
    double err = q->relative_error;
    if (!(err >= 0))
        return cs_error_set(c->err, CS_EINVAL,
                            "requirement failed: Relative Error must be non-negative but got %s",
                            java_double(err, (char[40]){0}));
    for (size_t i = 0; i < q->n_probabilities; i++)
        if (!(q->probabilities[i] >= 0.0 && q->probabilities[i] <= 1.0))
            return cs_error_set(c->err, CS_EINVAL,
                                "requirement failed: percentile should be in the range [0.0, "
                                "1.0]");
    if (q->n_cols == 0) return cs_cp_invalid(c, "StatApproxQuantile needs at least one column");
    cs_logical_plan *in;
    int rc = cs_cp_input(c, q->input, "StatApproxQuantile", &in);
    if (rc) return rc;

    /* the columns' types, as Spark's df.resolve(name) finds them */
    int n = (int)q->n_cols;
    cs_logical_plan *picked = unary(c, CS_LP_PROJECT, in);
    picked->n_exprs = n;
    picked->exprs = (cs_sql_expr **)cs_cp_array(c, (size_t)n);
    for (int i = 0; i < n; i++)
        if ((rc = column_named(c, q->cols[i], &picked->exprs[i])) != 0) return rc;
    cs_logical_plan *resolved;
    if ((rc = cs_cp_input_columns(c, picked, &resolved)) != 0) return rc;
    for (int i = 0; i < n; i++) {
        const cs_col_type *t = resolved->output[i]->type;
        if (!cs_tc_is_numeric(t)) {
            cs_sbuf b = CS_SBUF_INIT;
            cs_col_type_simple_string(t, &b);
            cs_error_set(c->err, CS_EINVAL,
                         "requirement failed: Quantile calculation for column %s with data type "
                         "%s is not supported.",
                         q->cols[i], cs_sbuf_str(&b));
            cs_sbuf_free(&b);
            return CS_EINVAL;
        }
    }

    /* array(p1, ..., pk) and the accuracy */
    cs_sql_expr *probs = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, (int)q->n_probabilities);
    probs->name = "array";
    for (size_t k = 0; k < q->n_probabilities; k++)
        if ((rc = double_lit(c, q->probabilities[k], &probs->args[k])) != 0) return rc;
    int64_t accuracy = err <= 1.0 / INT_MAX ? INT_MAX : err >= 1.0 ? 1 : llround(1.0 / err);
    cs_sql_expr *acc;
    Spark__Connect__Expression__Literal la = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    la.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    la.integer = (int32_t)accuracy;
    if ((rc = cs_cp_literal(c, &la, &acc)) != 0) return rc;
    cs_sql_expr *null_double;
    Spark__Connect__DataType__Double dd = SPARK__CONNECT__DATA_TYPE__DOUBLE__INIT;
    Spark__Connect__DataType dt = SPARK__CONNECT__DATA_TYPE__INIT;
    dt.kind_case = SPARK__CONNECT__DATA_TYPE__KIND_DOUBLE;
    dt.double_ = &dd;
    Spark__Connect__Expression__Literal ln = SPARK__CONNECT__EXPRESSION__LITERAL__INIT;
    ln.literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_NULL;
    ln.null = &dt;
    if ((rc = cs_cp_literal(c, &ln, &null_double)) != 0) return rc;
    cs_col_type *doubles = cs_sql_arena_keep_type(
        c->a, cs_col_type_array(cs_col_type_primitive(CS_TYPE_DOUBLE), false));
    cs_sql_expr *each = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, n);
    each->name = "array";
    for (int i = 0; i < n; i++) {
        cs_sql_expr *v = cast_to(c, picked->exprs[i], CS_TYPE_DOUBLE);
        cs_sql_expr *nan = cs_cp_call(c, "isnan", &v, 1);
        cs_sql_expr *args[3] = {case_when(c, nan, null_double, v), probs, acc};
        cs_sql_expr *empty = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
        empty->args[0] = cs_cp_call(c, "array", NULL, 0);
        empty->cast_type = doubles;
        empty->cast_mode = CS_CAST_ANSI;
        cs_sql_expr *both[2] = {cs_cp_call(c, "percentile_approx", args, 3), empty};
        each->args[i] = cs_cp_call(c, "coalesce", both, 2);
    }
    cs_logical_plan *agg = unary(c, CS_LP_AGGREGATE, in);
    agg->n_exprs = 1;
    agg->exprs = (cs_sql_expr **)cs_cp_array(c, 1);
    agg->exprs[0] = cs_cp_alias(c, each, "approx_quantile");
    *out = agg;
    return 0;
}

/* ---- sampleBy ---- */

int cs_cp_sample_by(cs_cp *c, const Spark__Connect__StatSampleBy *s, cs_logical_plan **out)
{
    cs_logical_plan *in;
    int rc = cs_cp_input(c, s->input, "StatSampleBy", &in);
    if (rc) return rc;
    if (!s->col) return cs_cp_invalid(c, "StatSampleBy needs a column");
    cs_sql_expr *col;
    if ((rc = cs_cp_expression(c, s->col, &col)) != 0) return rc;
    for (size_t i = 0; i < s->n_fractions; i++) {
        double f = s->fractions[i]->fraction;
        if (f >= 0.0 && f <= 1.0) continue;
        cs_sbuf b = CS_SBUF_INIT; /* Scala's Map(k -> v, ...) */
        cs_sbuf_puts(&b, "Map(");
        for (size_t k = 0; k < s->n_fractions; k++) {
            cs_sql_expr *key = NULL;
            if (k) cs_sbuf_puts(&b, ", ");
            if (s->fractions[k]->stratum && cs_cp_literal(c, s->fractions[k]->stratum, &key) == 0)
                cs_sql_expr_pretty_name(key, &b);
            char num[40];
            cs_sbuf_printf(&b, " -> %s", java_double(s->fractions[k]->fraction, num));
        }
        cs_sbuf_puts(&b, ")");
        cs_error_set(c->err, CS_EINVAL,
                     "requirement failed: Fractions must be in [0, 1], but got %s.",
                     cs_sbuf_str(&b));
        cs_sbuf_free(&b);
        return CS_EINVAL;
    }
    int64_t seed = s->seed;
    if (s->_seed_case != SPARK__CONNECT__STAT_SAMPLE_BY___SEED_SEED &&
        getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
        seed = 0x5eed;

    /* CASE WHEN col <=> k1 THEN f1 ... ELSE 0.0 END */
    int nf = (int)s->n_fractions;
    cs_sql_expr *fraction = cs_sql_expr_new(c->a, CS_EX_CASE, 2 * nf + 1);
    fraction->has_else = true;
    for (int i = 0; i < nf; i++) {
        const Spark__Connect__StatSampleBy__Fraction *f = s->fractions[i];
        if (!f->stratum) return cs_cp_invalid(c, "a fraction of StatSampleBy needs a stratum");
        cs_sql_expr *key;
        if ((rc = cs_cp_literal(c, f->stratum, &key)) != 0) return rc;
        cs_sql_expr *eq[2] = {col, key};
        fraction->args[2 * i] = cs_cp_call(c, "<=>", eq, 2);
        if ((rc = double_lit(c, f->fraction, &fraction->args[2 * i + 1])) != 0) return rc;
    }
    if ((rc = double_lit(c, 0.0, &fraction->args[2 * nf])) != 0) return rc;
    cs_sql_expr *seed_lit;
    if ((rc = long_lit(c, seed, &seed_lit)) != 0) return rc;
    cs_sql_expr *lt[2] = {cs_cp_call(c, "rand", &seed_lit, 1), fraction};
    cs_logical_plan *kept = unary(c, CS_LP_FILTER, in);
    kept->condition = cs_cp_call(c, "<", lt, 2);
    *out = kept;
    return 0;
}
