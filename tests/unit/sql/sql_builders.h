/*
 * sql_builders.h — small builders of unresolved Catalyst trees for the analyzer's tests, as
 * Spark's analyzer tests use the Catalyst DSL: `col("a")`, `fn("sum", 1, col("b"))`,
 * `project(rel("t"), 2, ...)`. Every node comes from the test's arena (B_ARENA). Test-only.
 */
#ifndef CSPARK_TESTS_SQL_BUILDERS_H
#define CSPARK_TESTS_SQL_BUILDERS_H

#include <stdarg.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/logical_plan.h"
#include "sql/sql_expr.h"

static cs_sql_arena *B_ARENA;

static inline const char **b_parts(int n, va_list ap)
{
    const char **p = cs_sql_alloc(B_ARENA, sizeof *p * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        p[i] = cs_sql_strdup(B_ARENA, va_arg(ap, const char *));
    return p;
}

/* a, or t.a with qcol(2, "t", "a") */
static inline cs_sql_expr *qcol(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_UNRESOLVED_ATTR, 0);
    e->parts = b_parts(n, ap);
    e->n_parts = n;
    va_end(ap);
    return e;
}
static inline cs_sql_expr *col(const char *name)
{
    return qcol(1, name);
}

static inline cs_sql_expr *star(void)
{
    return cs_sql_expr_new(B_ARENA, CS_EX_STAR, 0);
}

static inline cs_sql_expr *lit_of(cs_type_id id, const void *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(id));
    if (!v)
        cs_col_builder_append_nulls(b, 1);
    else if (id == CS_TYPE_STRING)
        cs_col_builder_append_string(b, v, strlen(v));
    else
        cs_col_builder_append_values(b, v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(B_ARENA, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}
static inline cs_sql_expr *lit_int(int32_t v)
{
    return lit_of(CS_TYPE_INT, &v);
}
static inline cs_sql_expr *lit_long(int64_t v)
{
    return lit_of(CS_TYPE_LONG, &v);
}
static inline cs_sql_expr *lit_str(const char *s)
{
    return lit_of(CS_TYPE_STRING, s);
}
static inline cs_sql_expr *lit_bool(bool v)
{
    uint8_t b = v;
    return lit_of(CS_TYPE_BOOLEAN, &b);
}
static inline cs_sql_expr *lit_null(void)
{
    return lit_of(CS_TYPE_STRING, NULL);
}
/* decimal literal unscaled / 10^scale with the given precision (1.5 is lit_dec(15, 2, 1)) */
static inline cs_sql_expr *lit_dec(int64_t unscaled, int precision, int scale)
{
    cs_col_type *t = cs_col_type_decimal(precision, scale, NULL);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    __int128 v = unscaled;
    cs_col_builder_append_values(b, &v, 1, NULL);
    cs_sql_expr *e = cs_sql_expr_literal(B_ARENA, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    cs_col_type_unref(t);
    return e;
}

static inline cs_sql_expr *fnv(const char *name, bool distinct, int n, va_list ap)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_UNRESOLVED_FUNC, n);
    e->name = cs_sql_strdup(B_ARENA, name);
    e->distinct = distinct;
    for (int i = 0; i < n; i++)
        e->args[i] = va_arg(ap, cs_sql_expr *);
    return e;
}
/* name(args...): operators too ("+", "=", "and", "not", "isnull") */
static inline cs_sql_expr *fn(const char *name, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_sql_expr *e = fnv(name, false, n, ap);
    va_end(ap);
    return e;
}
static inline cs_sql_expr *fn_distinct(const char *name, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_sql_expr *e = fnv(name, true, n, ap);
    va_end(ap);
    return e;
}
static inline cs_sql_expr *bin(const char *op, cs_sql_expr *l, cs_sql_expr *r)
{
    return fn(op, 2, l, r);
}

static inline cs_sql_expr *alias(cs_sql_expr *x, const char *name)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_ALIAS, 1);
    e->args[0] = x;
    e->name = cs_sql_strdup(B_ARENA, name);
    return e;
}

static inline cs_sql_expr *cast_to(cs_sql_expr *x, cs_col_type *t)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_CAST, 1);
    e->args[0] = x;
    e->cast_type = cs_sql_arena_keep_type(B_ARENA, t);
    e->cast_mode = CS_CAST_ANSI;
    return e;
}
static inline cs_col_type *dec_type(int p, int s)
{
    return cs_col_type_decimal(p, s, NULL);
}
static inline cs_col_type *prim(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

static inline cs_sql_expr *ordinal(int64_t n)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_UNRESOLVED_ORDINAL, 0);
    e->ordinal = n;
    return e;
}

static inline cs_sql_expr *sort_by(cs_sql_expr *x, bool desc)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_SORT_ORDER, 1);
    e->args[0] = x;
    e->descending = desc;
    e->nulls_first = !desc;
    return e;
}

/* f OVER (PARTITION BY part ORDER BY order), either may be NULL */
static inline cs_sql_expr *over(cs_sql_expr *f, cs_sql_expr *part, cs_sql_expr *order)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_WINDOW, 1);
    e->args[0] = f;
    cs_window_spec *w = cs_sql_alloc(B_ARENA, sizeof *w);
    if (part) {
        w->n_partition = 1;
        w->partition = cs_sql_alloc(B_ARENA, sizeof *w->partition);
        w->partition[0] = part;
    }
    if (order) {
        w->n_order = 1;
        w->order = cs_sql_alloc(B_ARENA, sizeof *w->order);
        w->order[0] = order;
    }
    e->window = w;
    return e;
}

static inline cs_sql_expr *subquery(cs_sql_expr_kind kind, cs_logical_plan *q)
{
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, kind, 0);
    e->subquery = q;
    return e;
}

static inline cs_sql_expr *in_list(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_sql_expr *e = cs_sql_expr_new(B_ARENA, CS_EX_IN_LIST, n);
    for (int i = 0; i < n; i++)
        e->args[i] = va_arg(ap, cs_sql_expr *);
    va_end(ap);
    return e;
}

/* ---- plans ---- */

static inline cs_logical_plan *rel(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_UNRESOLVED_RELATION, 0);
    p->parts = b_parts(n, ap);
    p->n_parts = n;
    va_end(ap);
    return p;
}

static inline cs_logical_plan *one_row(void)
{
    return cs_logical_plan_new(B_ARENA, CS_LP_ONE_ROW, 0);
}

static inline cs_sql_expr **b_exprs(int n, va_list ap)
{
    cs_sql_expr **x = cs_sql_alloc(B_ARENA, sizeof *x * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        x[i] = va_arg(ap, cs_sql_expr *);
    return x;
}

static inline cs_logical_plan *project(cs_logical_plan *child, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_PROJECT, 1);
    p->children[0] = child;
    p->exprs = b_exprs(n, ap);
    p->n_exprs = n;
    va_end(ap);
    return p;
}

/* aggregate(child, n_group, groups..., n_exprs, exprs...) */
static inline cs_logical_plan *aggregate(cs_logical_plan *child, int ng, ...)
{
    va_list ap;
    va_start(ap, ng);
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_AGGREGATE, 1);
    p->children[0] = child;
    p->group_by = b_exprs(ng, ap);
    p->n_group_by = ng;
    int n = va_arg(ap, int);
    p->exprs = b_exprs(n, ap);
    p->n_exprs = n;
    va_end(ap);
    return p;
}

static inline cs_logical_plan *filter(cs_logical_plan *child, cs_sql_expr *cond)
{
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_FILTER, 1);
    p->children[0] = child;
    p->condition = cond;
    return p;
}

static inline cs_logical_plan *sort(cs_logical_plan *child, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_SORT, 1);
    p->children[0] = child;
    p->order = b_exprs(n, ap);
    p->n_order = n;
    p->global = true;
    va_end(ap);
    return p;
}

static inline cs_logical_plan *join(cs_logical_plan *l, cs_logical_plan *r, cs_join_type t,
                                    cs_sql_expr *cond)
{
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_JOIN, 2);
    p->children[0] = l;
    p->children[1] = r;
    p->join_type = t;
    p->condition = cond;
    return p;
}

static inline cs_logical_plan *join_using(cs_logical_plan *l, cs_logical_plan *r, cs_join_type t,
                                          const char *column)
{
    cs_logical_plan *p = join(l, r, t, NULL);
    p->n_using = 1;
    p->using_columns = cs_sql_alloc(B_ARENA, sizeof *p->using_columns);
    p->using_columns[0] = cs_sql_strdup(B_ARENA, column);
    return p;
}

static inline cs_logical_plan *set_op(cs_set_op op, bool all, cs_logical_plan *l,
                                      cs_logical_plan *r)
{
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_SET_OP, 2);
    p->children[0] = l;
    p->children[1] = r;
    p->set_op = op;
    p->all = all;
    return p;
}

static inline cs_logical_plan *subquery_alias(cs_logical_plan *child, const char *name)
{
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_SUBQUERY_ALIAS, 1);
    p->children[0] = child;
    p->alias = cs_sql_strdup(B_ARENA, name);
    return p;
}

/* WITH name AS (def) child */
static inline cs_logical_plan *with_cte(const char *name, cs_logical_plan *def,
                                        cs_logical_plan *child)
{
    cs_logical_plan *p = cs_logical_plan_new(B_ARENA, CS_LP_WITH, 1);
    p->children[0] = child;
    p->n_ctes = 1;
    p->ctes = cs_sql_alloc(B_ARENA, sizeof *p->ctes);
    p->ctes[0] = subquery_alias(def, name);
    return p;
}

#endif
