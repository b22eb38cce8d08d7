/*
 * analyzer_hints.c — Spark's ResolveHints.ResolveCoalesceHints: the partitioning hints of a
 * query (SQL `COALESCE(2)` in a hint comment, DataFrame.hint("repartition", 3)) become the plan
 * nodes Spark makes of them, at analysis, so that EXPLAIN's analyzed plan shows them:
 *
 *   COALESCE(n)                     Repartition(n, shuffle = false)  (only a number)
 *   REPARTITION(n)                  Repartition(n, shuffle = true)
 *   REPARTITION([n,] cols...)       RepartitionByExpression(cols, n)  (also with no parameter)
 *   REPARTITION_BY_RANGE([n,] cols) RepartitionByExpression(cols ASC NULLS FIRST, n)
 *   REBALANCE([n,] [cols...])       RebalancePartitions(cols, n) — only with adaptive execution
 *                                   on (spark.sql.adaptive.enabled); else dropped, as Spark
 *                                   leaves it to RemoveAllHints
 *
 * A parameter is the partition number when it is an INT literal in first place; a column when
 * it is a name (a string literal names a column too); anything else is Spark's
 * _LEGACY_ERROR_TEMP_1047 (`REPARTITION Hint parameters should include an optional integral
 * partitionNum and/or columns, but "2" can not be ...`), and a COALESCE without exactly a number
 * _LEGACY_ERROR_TEMP_1048. A number below 1 fails as Spark's require() does (an error without a
 * class: "requirement failed: Number of partitions (0) must be positive."; Spark Connect reports
 * it as IllegalArgumentException). The other hints (join strategies, unknown names) stay for the
 * optimizer (opt_prune.c).
 *
 * Called by analyzer.c for every HINT node; the result is built in the analysis arena.
 */
#include <string.h>

#include "sql/analyzer_internal.h"

/* Whether a hint parameter is a partition number (an INT literal): *n. */
static bool int_param(const cs_sql_expr *e, int64_t *n)
{
    if (e->kind != CS_EX_LITERAL || !e->literal || e->literal->type->id != CS_TYPE_INT ||
        !cs_column_is_valid(e->literal, 0))
        return false;
    *n = ((const int32_t *)(const void *)e->literal->values)[0];
    return true;
}

/* A column parameter as an unresolved name (a string literal names one: `'a.b'` is a.b), or
 * NULL when e is not one. */
static cs_sql_expr *column_param(cs_an_ctx *c, const cs_sql_expr *e)
{
    if (e->kind == CS_EX_UNRESOLVED_ATTR) return (cs_sql_expr *)e;
    if (e->kind != CS_EX_LITERAL || !e->literal || e->literal->type->id != CS_TYPE_STRING ||
        !cs_column_is_valid(e->literal, 0))
        return NULL;
    int32_t len = 0;
    const uint8_t *b = cs_column_bytes(e->literal, 0, &len);
    char *s = cs_sql_alloc(c->a, (size_t)len + 1);
    memcpy(s, b, (size_t)len);
    s[len] = '\0';
    int n = 1;
    for (const char *p = s; *p; p++)
        n += *p == '.';
    cs_sql_expr *a = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_ATTR, 0);
    a->parts = cs_sql_alloc(c->a, sizeof *a->parts * (size_t)n);
    a->n_parts = 0;
    for (char *p = s, *dot; p; p = dot ? dot + 1 : NULL) {
        if ((dot = strchr(p, '.'))) *dot = '\0';
        a->parts[a->n_parts++] = p;
    }
    return a;
}

static cs_logical_plan *invalid_params(cs_an_ctx *c, const char *hint, cs_sql_expr *const *bad,
                                       int n)
{
    cs_sbuf list = CS_SBUF_INIT;
    for (int i = 0; i < n; i++) {
        cs_sbuf_puts(&list, i ? ", \"" : "\"");
        cs_sql_expr_sql(bad[i], &list);
        cs_sbuf_putc(&list, '"');
    }
    cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1047", "",
                     "%s Hint parameters should include an optional integral partitionNum and/or "
                     "columns, but %s can not be recognized as either partitionNum or columns.",
                     hint, list.data ? list.data : "");
    cs_sbuf_free(&list);
    return NULL;
}

static cs_logical_plan *not_positive(cs_an_ctx *c, int64_t n)
{
    cs_error_set(c->err, CS_EINVAL,
                 "requirement failed: Number of partitions (%lld) must be "
                 "positive.",
                 (long long)n);
    return NULL;
}

static const char *hint_name(const cs_logical_plan *h)
{
    const char *name = h->n_parts ? h->parts[0] : h->alias;
    return name ? name : "";
}

bool cs_an_is_partitioning_hint(const cs_logical_plan *h)
{
    const char *name = hint_name(h);
    return cs_str_ieq(name, "COALESCE") || cs_str_ieq(name, "REPARTITION") ||
           cs_str_ieq(name, "REPARTITION_BY_RANGE") || cs_str_ieq(name, "REBALANCE");
}

cs_logical_plan *cs_an_partitioning_hint(cs_an_ctx *c, const cs_logical_plan *h)
{
    const char *name = hint_name(h);
    bool coalesce = cs_str_ieq(name, "COALESCE"), repartition = cs_str_ieq(name, "REPARTITION");
    bool by_range = cs_str_ieq(name, "REPARTITION_BY_RANGE");
    bool rebalance = cs_str_ieq(name, "REBALANCE");
    if (rebalance && !cs_catalog_adaptive(c->cat)) return cs_an_plan(c, h->children[0]);
    const char *upper = coalesce      ? "COALESCE"
                        : repartition ? "REPARTITION"
                        : by_range    ? "REPARTITION_BY_RANGE"
                                      : "REBALANCE";
    int64_t n = 0;
    bool has_n = h->n_exprs > 0 && int_param(h->exprs[0], &n);
    if (coalesce && (!has_n || h->n_exprs != 1)) {
        cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1048", "",
                         "COALESCE Hint expects a partition number as a parameter.");
        return NULL;
    }
    int first = has_n ? 1 : 0, n_cols = h->n_exprs - first, n_bad = 0;
    cs_sql_expr **cols = cs_sql_alloc(c->a, sizeof *cols * (size_t)(n_cols + 1));
    cs_sql_expr **bad = cs_sql_alloc(c->a, sizeof *bad * (size_t)(n_cols + 1));
    for (int i = 0; i < n_cols; i++) {
        cs_sql_expr *e = h->exprs[first + i];
        if (!(cols[i] = column_param(c, e))) bad[n_bad++] = e;
    }
    if (n_bad) return invalid_params(c, upper, bad, n_bad);
    if (has_n && n <= 0) return not_positive(c, n);
    cs_logical_plan *r = cs_logical_plan_new(c->a, CS_LP_REPARTITION, 1);
    if (!(r->children[0] = cs_an_plan(c, h->children[0]))) return NULL;
    cs_logical_plan *child = r->children[0];
    r->num_partitions = has_n ? n : 0;
    r->shuffle = !coalesce;
    r->rebalance = rebalance;
    r->by_expression = !coalesce && !rebalance && (n_cols > 0 || !has_n);
    cs_an_scope s = {child->output, child->n_output, c->outer, NULL, 0};
    r->exprs = cs_sql_alloc(c->a, sizeof *r->exprs * (size_t)(n_cols + 1));
    for (int i = 0; i < n_cols; i++) {
        cs_sql_expr *e = cs_an_expr(c, cols[i], &s, 0);
        if (!e) return NULL;
        if (by_range) { /* SortOrder(expr, Ascending) */
            cs_sql_expr *o = cs_sql_expr_new(c->a, CS_EX_SORT_ORDER, 1);
            o->args[0] = e;
            o->nulls_first = true;
            o->type = e->type;
            o->nullable = e->nullable;
            o->resolved = true;
            e = o;
        }
        r->exprs[i] = e;
    }
    r->n_exprs = n_cols;
    r->n_output = child->n_output;
    r->output = child->output;
    r->resolved = true;
    return r;
}
