/*
 * analyzer_internal.h — private to the analyzer's files (analyzer*.c): the state of one
 * analysis, scopes of attributes expressions resolve against, and the functions the files
 * share. Not for use outside src/sql/analyzer*.c.
 *
 *   analyzer.c        entry, relations, views, CTEs, catalog lookups, joins, set operations,
 *                     VALUES, range, generators and the other plan nodes
 *   analyzer_expr.c   expressions: names (qualified, case-insensitive), `*`, functions, casts,
 *                     CASE / IN, subqueries with outer references, the UNRESOLVED_COLUMN
 *                     suggestions
 *   analyzer_agg.c    SELECT lists: aggregates, GROUP BY (ordinals, aliases), HAVING, ORDER BY
 *                     against the select list or the aggregate, window extraction
 *   analyzer_pivot.c  PIVOT as two aggregates (Spark's ResolvePivot), UNPIVOT as a union
 *   analyzer_python_udf.c  Python UDF calls and their named arguments
 *   analyzer_legacy_coercion.c  non-ANSI coercion where it differs (array of strings)
 *   analyzer_hints.c  COALESCE / REPARTITION / REPARTITION_BY_RANGE / REBALANCE hints
 */
#ifndef CSPARK_SQL_ANALYZER_INTERNAL_H
#define CSPARK_SQL_ANALYZER_INTERNAL_H

#include <stdbool.h>

#include "sql/analyzer.h"
#include "sql/function_registry.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

/* The attributes an expression may refer to, and the enclosing query's (for subqueries). */
typedef struct cs_an_scope {
    cs_sql_expr **attrs;
    int n;
    const struct cs_an_scope *outer;
    /* the input's hidden join keys (logical_plan.h), which only a qualified star expands to */
    cs_sql_expr **hidden;
    int n_hidden;
} cs_an_scope;

typedef struct cs_an_cte {
    const char *name;
    const cs_logical_plan *def; /* SUBQUERY_ALIAS of the CTE's unresolved query */
    struct cs_an_cte *next;
} cs_an_cte;

/* The variables of the lambdas whose bodies are being resolved, innermost first. */
typedef struct cs_an_lambda_scope {
    const cs_sql_expr **vars; /* LAMBDA_VAR nodes */
    int n;
    const struct cs_an_lambda_scope *outer;
} cs_an_lambda_scope;

typedef struct cs_an_ctx {
    cs_sql_arena *a;
    cs_catalog *cat;
    cs_error *err;
    cs_an_cte *ctes;
    const cs_an_scope *outer;          /* the scope subqueries of the current expression see */
    int depth;                         /* views within views */
    const cs_an_lambda_scope *lambdas; /* analyzer_lambda.c: while a lambda body resolves */
} cs_an_ctx;

enum {
    CS_AN_ALLOW_AGG = 1,    /* aggregate functions may appear (select list, HAVING, ORDER BY) */
    CS_AN_ALLOW_WINDOW = 2, /* window functions may appear (select list, ORDER BY) */
    CS_AN_ALLOW_GENERATOR = 4,
    CS_AN_WINDOW_FN = 8, /* the function of an OVER clause (a ranking function needs one) */
    CS_AN_IN_AGG = 16    /* the arguments of an aggregate function (no aggregate nests) */
};

/* analyzer_lambda.c: whether e (an UNRESOLVED_FUNC) is a higher-order function call, and
 * its resolution; the LAMBDA_VAR a name is in the lambdas being resolved, or NULL. */
bool cs_an_is_higher_order(const cs_sql_expr *e);
cs_sql_expr *cs_an_higher_order(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s,
                                int flags);
const cs_sql_expr *cs_an_lambda_lookup(const cs_an_ctx *c, const char *name);

/* analyzer_hints.c: whether a HINT node is COALESCE / REPARTITION / REPARTITION_BY_RANGE /
 * REBALANCE, and the plan Spark's ResolveCoalesceHints makes of it (NULL + c->err). */
bool cs_an_is_partitioning_hint(const cs_logical_plan *h);
cs_logical_plan *cs_an_partitioning_hint(cs_an_ctx *c, const cs_logical_plan *h);

/* analyzer.c */
cs_logical_plan *cs_an_plan(cs_an_ctx *c, const cs_logical_plan *p);
/* The columns a resolved generator call makes (Spark's elementSchema): explode's col or key,
 * value; posexplode's pos first; inline's struct fields. Returns their number. */
#define CS_AN_MAX_GENERATED 64
int cs_an_generator_columns(const cs_sql_expr *gen, const char **names, cs_col_type **types);
cs_sql_expr *cs_an_new_attr(cs_an_ctx *c, const char *name, cs_col_type *type, bool nullable,
                            const char **qualifier, int n_qualifier);
/* A named expression for e: e if an ATTR, else ALIAS(e, name or Spark's pretty name). */
cs_sql_expr *cs_an_named(cs_an_ctx *c, cs_sql_expr *e, const char *name);
/* The ATTR a named expression (ATTR or ALIAS) defines. */
cs_logical_plan *cs_an_project(cs_an_ctx *c, cs_logical_plan *child, cs_sql_expr **exprs, int n);

/* analyzer_time_window.c: Spark's TimeWindowing. A FILTER isnotnull(time) over child when the
 * list has a window(time, ...) call (_LEGACY_ERROR_TEMP_1039 for two different ones), else
 * child; and for GROUP BY window(...), a PROJECT adding the `window` column over child with *pp
 * replaced by a copy grouping by that column (child itself without one), the resolved call in
 * gw->call and the column in gw->column. NULL + error. cs_an_time_window_grouped gives e with
 * every occurrence of gw's call made its column (e itself when there is none). */
typedef struct cs_an_grouped_window {
    cs_sql_expr *call, *column;
} cs_an_grouped_window;
cs_logical_plan *cs_an_time_window_filter(cs_an_ctx *c, cs_logical_plan *child, cs_sql_expr **list,
                                          int n);
cs_logical_plan *cs_an_group_by_time_window(cs_an_ctx *c, cs_logical_plan *child,
                                            const cs_logical_plan **pp, cs_an_grouped_window *gw);
cs_sql_expr *cs_an_time_window_grouped(cs_an_ctx *c, cs_sql_expr *e,
                                       const cs_an_grouped_window *gw);

/* analyzer_legacy_coercion.c: array(args[0..n)) under non-ANSI coercion (the session's
 * spark.sql.ansi.enabled=false): a string beside other atomic values makes them strings (args
 * cast in place); nothing under ANSI. */
void cs_an_legacy_array_coercion(cs_an_ctx *c, cs_sql_expr **args, int n);

/* analyzer_python_udf.c: a PYTHON_UDF call resolved (its named arguments checked). */
cs_sql_expr *cs_an_python_udf(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags);

/* analyzer_expr.c */
cs_sql_expr *cs_an_expr(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags);
/* json_tuple(json, k...) resolved as the inline(...) generator it equals (analyzer_json_tuple.c).
 */
cs_sql_expr *cs_an_json_tuple(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags);
/* The attribute parts[0..n) names in s: 1 found (*out), 0 not found, -1 error (ambiguous). */
int cs_an_lookup(cs_an_ctx *c, const char *const *parts, int n, const cs_an_scope *s,
                 cs_sql_expr **out);
int cs_an_unresolved_column(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s);
/* `*` or `t.*` of s as ATTR copies, appended to *list (grown in the arena). */
int cs_an_expand_star(cs_an_ctx *c, const cs_sql_expr *star, const cs_an_scope *s,
                      cs_sql_expr ***list, int *n, int *cap);
void cs_an_push(cs_an_ctx *c, cs_sql_expr ***list, int *n, int *cap, cs_sql_expr *e);
bool cs_an_contains(const cs_sql_expr *e, cs_sql_expr_kind kind);
bool cs_an_contains_agg(const cs_sql_expr *e); /* an AGG not inside a WINDOW */
bool cs_an_equal(const cs_sql_expr *x, const cs_sql_expr *y);
cs_sql_expr *cs_an_int_literal(cs_an_ctx *c, int32_t v);
void cs_an_sql_id(const char *const *parts, int n, cs_sbuf *out); /* `a`.`b` */

/* plan_print.c: Spark's Expression.sql, attributes with their qualifier ("sum(t.a)"), as a few
 * of Spark's messages quote expressions */
void cs_sql_expr_sql(const cs_sql_expr *e, cs_sbuf *out);

/* analyzer_agg.c: PROJECT / AGGREGATE / HAVING / SORT of the select block */
cs_logical_plan *cs_an_select(cs_an_ctx *c, const cs_logical_plan *p);
/* analyzer_pivot.c: an AGGREGATE the parser made of PIVOT (pivot_column set) */
cs_logical_plan *cs_an_pivot(cs_an_ctx *c, const cs_logical_plan *p);
/* analyzer_pivot.c: a PROJECT the parser made of UNPIVOT (unpivot set) */
cs_logical_plan *cs_an_unpivot(cs_an_ctx *c, const cs_logical_plan *p);
cs_logical_plan *cs_an_sort(cs_an_ctx *c, const cs_logical_plan *p);
cs_logical_plan *cs_an_having(cs_an_ctx *c, const cs_logical_plan *p);

#endif /* CSPARK_SQL_ANALYZER_INTERNAL_H */
