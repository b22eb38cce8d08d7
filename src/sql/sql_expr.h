/*
 * sql_expr.h — Spark SQL expressions as Catalyst trees, from the parser's unresolved form to
 * the analyzer's resolved one; the optimizer rewrites them and the planner binds them into
 * physical expressions (sqlexec/pexpr.h).
 *
 * One struct for every kind, as Catalyst has one Expression hierarchy: the parser makes
 * UNRESOLVED_ATTR, STAR, UNRESOLVED_FUNC, literals, casts, CASE, IN, subqueries, sort orders and
 * window specs; the analyzer replaces names with ATTR (an attribute of a child's output, known
 * by its expression id, as Spark's AttributeReference with its ExprId) and OUTER_ATTR,
 * functions with FUNC or AGG (canonical name, resolved type), and gives every resolved node its
 * type and nullability (`resolved` is then true for the whole subtree).
 *
 * Operators are functions: the parser writes `a + b` as a call of "+" and `x IS NULL` as
 * "isnull", `NOT` as "not", `a AND b` as "and", `a LIKE b ESCAPE c` as "like" with three
 * arguments, `a BETWEEN b AND c` as "between" — the names of Spark's FunctionRegistry, which
 * the analyzer resolves with every other function (sql/function_registry.h) and the engine
 * implements under the same canonical names (pexpr.h). Only forms with their own resolution
 * rules have their own kinds (CAST, CASE, IN, subqueries, sort orders, windows).
 *
 * Positions: every node made by the parser records where it started in the statement (line
 * from 1, position from 0, as Spark's Origin), so analysis errors can say "line 1 pos 7".
 *
 * Ownership: nodes and their strings and arrays live in the query's cs_sql_arena
 * (sql_arena.h); types and literal columns are kept by the arena. Trees are immutable once
 * built: a rule that changes a node copies it (cs_sql_expr_copy) and shares the rest.
 */
#ifndef CSPARK_SQL_SQL_EXPR_H
#define CSPARK_SQL_SQL_EXPR_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/strutil.h"
#include "sql/sql_arena.h"
#include "sqlexec/pexpr.h"

typedef struct cs_logical_plan cs_logical_plan; /* logical_plan.h */
typedef int64_t cs_expr_id;                     /* Spark's ExprId: unique within a session */

typedef enum cs_sql_expr_kind {
    CS_EX_LITERAL,         /* literal: a one-row column (a typed null: its row is null) */
    CS_EX_UNRESOLVED_ATTR, /* parts[0..n_parts): a, t.a, db.t.a, s.field */
    CS_EX_STAR,            /* `*` (n_parts 0) or `t.*` (parts = qualifier) */
    CS_EX_ATTR,            /* resolved attribute: id, name, qualifier, type, nullable */
    CS_EX_OUTER_ATTR,      /* an attribute of an enclosing query (correlated subquery) */
    CS_EX_ALIAS,           /* args[0] AS name; id: the attribute it defines */
    CS_EX_UNRESOLVED_FUNC, /* name(args), distinct, filter, ignore_nulls; `count(*)`: a STAR arg */
    CS_EX_FUNC,            /* resolved scalar function: fn (canonical name), args */
    CS_EX_AGG,             /* resolved aggregate function: fn, args, distinct, filter */
    CS_EX_WINDOW,          /* args[0] (a FUNC/AGG/UNRESOLVED_FUNC) OVER window */
    CS_EX_CAST,            /* args[0] to cast_type, cast_mode (CAST / TRY_CAST / x::t) */
    CS_EX_CASE,            /* args: [operand,] when0, then0, ... [, else] (has_operand/has_else) */
    CS_EX_IN_LIST,         /* args[0] IN (args[1..n)) */
    CS_EX_IN_SUBQUERY,     /* args[0..n) IN (subquery) — a tuple when n > 1 */
    CS_EX_EXISTS,          /* EXISTS (subquery) */
    CS_EX_SCALAR_SUBQUERY, /* (subquery) returning one column and at most one row */
    CS_EX_SORT_ORDER,      /* args[0] ASC|DESC NULLS FIRST|LAST */
    CS_EX_LAMBDA,          /* (x, y) -> args[0]: parts = the variable names (higher-order fns) */
    CS_EX_LAMBDA_VAR,      /* a lambda's variable (resolved: id, type) */
    CS_EX_UNRESOLVED_ORDINAL, /* `GROUP BY 1` / `ORDER BY 2`: ordinal */
    /* Added for the parser (Spark's UnresolvedExtractValue): args[0][args[1]] and f(x).field —
     * a subscript or a field of something not a plain name (a.b.c stays UNRESOLVED_ATTR);
     * the analyzer picks GetArrayItem / GetMapValue / GetStructField by args[0]'s type. */
    CS_EX_UNRESOLVED_EXTRACT_VALUE,
    /* A Python user-defined function called on args (Spark's PythonUDF): name, python_udf;
     * type is its declared result type, set when it is made. The planner evaluates it in a
     * PYTHON_EVAL node (Spark's ExtractPythonUDFs); nothing else evaluates it. */
    CS_EX_PYTHON_UDF
} cs_sql_expr_kind;

/* The function a Spark Connect client sent (its PythonUDF message), in the arena. */
typedef struct cs_sql_python_udf {
    int eval_type;          /* PySpark's PythonEvalType: 100 batched, 200 scalar pandas */
    const uint8_t *command; /* the pickled (function, return type) */
    size_t command_len;
    const char *python_ver; /* the client's Python version ("3.11") */
    bool deterministic;
} cs_sql_python_udf;

typedef enum cs_frame_type { CS_FRAME_ROWS, CS_FRAME_RANGE } cs_frame_type;
typedef enum cs_frame_bound_kind {
    CS_BOUND_UNBOUNDED_PRECEDING,
    CS_BOUND_PRECEDING, /* offset PRECEDING */
    CS_BOUND_CURRENT_ROW,
    CS_BOUND_FOLLOWING, /* offset FOLLOWING */
    CS_BOUND_UNBOUNDED_FOLLOWING
} cs_frame_bound_kind;

typedef struct cs_sql_expr cs_sql_expr;

typedef struct cs_frame_bound {
    cs_frame_bound_kind kind;
    cs_sql_expr *offset; /* PRECEDING / FOLLOWING: a literal (an interval for RANGE on dates) */
} cs_frame_bound;

typedef struct cs_window_spec {
    const char *ref_name; /* OVER w / OVER (w ...): a WINDOW clause name, until resolved */
    int n_partition;
    cs_sql_expr **partition;
    int n_order;
    cs_sql_expr **order; /* SORT_ORDER nodes */
    bool has_frame;      /* else Spark's default frame for the function and ORDER BY */
    cs_frame_type frame_type;
    cs_frame_bound lower, upper;
} cs_window_spec;

struct cs_sql_expr {
    cs_sql_expr_kind kind;
    int line, pos; /* where the parser found it (line from 1, pos from 0); 0, 0 if made later */

    /* resolution: type and nullable are set once resolved */
    bool resolved;
    cs_col_type *type; /* borrowed (kept by the arena) */
    bool nullable;

    /* names */
    const char *name;    /* ALIAS, ATTR, OUTER_ATTR, UNRESOLVED_FUNC (may be qualified), LAMBDA_VAR;
                            the parser lower-cases function names unless back-quoted. A generator's
                            `AS (a, b)` is one ALIAS with parts = the names (name = the first). */
    bool named_argument; /* an ALIAS that is a call's named argument `k => v` (Spark's
                            NamedArgumentExpression), not a column alias */
    int n_parts;         /* UNRESOLVED_ATTR, STAR, LAMBDA, and an ATTR's qualifier */
    const char **parts;  /* name parts as written (back-quotes removed), or the qualifier */
    cs_expr_id id;       /* ATTR, OUTER_ATTR, ALIAS, LAMBDA_VAR */

    /* functions */
    const char *fn;      /* FUNC, AGG: canonical name (sqlexec/pexpr.h's names) */
    bool distinct;       /* UNRESOLVED_FUNC, AGG */
    bool table_function; /* UNRESOLVED_FUNC called as a table-valued function (FROM f(...)) */
    bool ignore_nulls;   /* first(x) IGNORE NULLS, lag(...) IGNORE NULLS */
    cs_sql_expr *filter; /* agg(x) FILTER (WHERE ...) */
    /* percentile_cont(p) / percentile_disc(p) WITHIN GROUP (ORDER BY x [DESC]): the SORT_ORDER
     * (unresolved: args = [p]; resolved: the percentile of args[0] = x at args[1] = p) */
    cs_sql_expr *within_group;
    cs_window_spec *window; /* WINDOW */

    /* values and operators */
    cs_column *literal;     /* LITERAL: one row, borrowed (kept by the arena) */
    cs_col_type *cast_type; /* CAST target, borrowed */
    cs_cast_mode cast_mode;
    bool has_operand, has_else;   /* CASE */
    bool negated;                 /* NOT IN, NOT EXISTS, NOT LIKE as written: IN_LIST,
                                     IN_SUBQUERY, EXISTS, and the parser's like/ilike/rlike
                                     calls; on like_any/like_all/ilike_any/ilike_all it is
                                     Spark's NotLikeAny/NotLikeAll (NOT per pattern). NOT
                                     BETWEEN and other NOTs are not(...) calls. */
    bool descending, nulls_first; /* SORT_ORDER (Spark: ASC => NULLS FIRST, DESC => NULLS LAST) */
    int64_t ordinal;              /* UNRESOLVED_ORDINAL */
    cs_logical_plan *subquery;    /* IN_SUBQUERY, EXISTS, SCALAR_SUBQUERY */
    /* IN_SUBQUERY, EXISTS, SCALAR_SUBQUERY once the optimizer pulled the subquery's correlated
     * predicates out of its plan (PullupCorrelatedPredicates; Spark's joinCond): their
     * conjunction, outer attributes as plain ATTRs; NULL when uncorrelated. */
    cs_sql_expr *join_cond;

    const cs_sql_python_udf *python_udf; /* PYTHON_UDF */
    int n_args;
    cs_sql_expr **args;

    /* CAST added by the analyzer's type coercion (not written by the user): left out of result
     * column names, as Spark names a column before it coerces its expression. */
    bool implicit_cast;
    /* CAST of a TIMESTAMP '...' literal without a zone: the parser's cast of the local time (a
     * TIMESTAMP_NTZ literal) to timestamp in the session time zone, named TIMESTAMP '...'. */
    bool typed_literal;
};

/* A zeroed node of `kind` with room for n_args arguments (args[i] NULL), from the arena. */
cs_sql_expr *cs_sql_expr_new(cs_sql_arena *a, cs_sql_expr_kind kind, int n_args);
/* A shallow copy (same argument pointers, a new args array) for rules that change one field. */
cs_sql_expr *cs_sql_expr_copy(cs_sql_arena *a, const cs_sql_expr *e);
/* A literal of a one-row column (the arena takes over the reference). */
cs_sql_expr *cs_sql_expr_literal(cs_sql_arena *a, cs_column *one_row);
/* A STRING literal of s (copied). */
cs_sql_expr *cs_sql_expr_string_literal(cs_sql_arena *a, const char *s);
/* The attribute a named expression (an ATTR: itself; an ALIAS: its name, type, nullability
 * and id) defines, as Catalyst's NamedExpression.toAttribute. */
cs_sql_expr *cs_sql_expr_to_attr(cs_sql_arena *a, const cs_sql_expr *named);
/* Spark's way of printing an expression: "(a#1 + 1)", "sum(l_quantity#4)", "'unresolved"
 * (for EXPLAIN EXTENDED, error messages and the SQL tab). */
void cs_sql_expr_print(const cs_sql_expr *e, cs_sbuf *out);
/* The column name Spark gives an unaliased expression in a result ("(a + 1)", "sum(x)",
 * "count(1)"): Spark's toPrettySQL. */
void cs_sql_expr_pretty_name(const cs_sql_expr *e, cs_sbuf *out);
/* expr_names.c: the Spark column name of a call that is not its SQL text ("entries", "window"),
 * or NULL; and whether a negative(x) call was written so (not as unary minus). */
const char *cs_sql_call_own_name(const cs_sql_expr *e);
/* Spark's Expression.deterministic: no rand, uuid, shuffle, ... nor a non-deterministic Python
 * UDF anywhere in e (opt_util.c, the optimizer's rule; the analyzer's checks use it too). */
bool cs_sql_expr_deterministic(const cs_sql_expr *e);
bool cs_sql_call_written_negative(const cs_sql_expr *e);
/* e is an implicit cast giving a string literal a collation: appends its Spark name
 * ('A' collate UNICODE_CI) to out and returns true; false (nothing appended) else. */
bool cs_sql_collated_literal_name(const cs_sql_expr *e, cs_sbuf *out);
/* A grouped-aggregate pandas UDF call (PythonEvalType SQL_GROUPED_AGG_PANDAS_UDF, 202: Spark's
 * PythonUDAF): an aggregate function, which the planner runs in AggregateInPandas. */
static inline bool cs_sql_expr_is_python_agg(const cs_sql_expr *e)
{
    return e && e->kind == CS_EX_PYTHON_UDF && e->python_udf && e->python_udf->eval_type == 202;
}
/* Whether e holds one (analyzer_python_udf.c). */
bool cs_sql_expr_has_python_agg(const cs_sql_expr *e);

#endif /* CSPARK_SQL_SQL_EXPR_H */
