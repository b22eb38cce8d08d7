/*
 * planner_bind.h — binding resolved expressions to the physical operators' inputs: each
 * attribute becomes the ordinal of its column in the input batch, as Catalyst's
 * BindReferences turns AttributeReferences into BoundReferences. The planner binds every
 * expression it hands to an operator (filters, projections, join and aggregate keys).
 *
 * Ownership: the result is a new cs_pexpr tree (pexpr.h) the caller frees; the input trees
 * stay in their arena.
 */
#ifndef CSPARK_SQL_PLANNER_BIND_H
#define CSPARK_SQL_PLANNER_BIND_H

#include "sql/sql_expr.h"
#include "sqlexec/pexpr.h"

/* Binds e (resolved: ATTR, LITERAL, ALIAS, FUNC, CAST, CASE, IN_LIST) over the input attributes
 * input[0..n_input) (ATTR nodes, by expression id). A CASE with an operand becomes CASE WHEN
 * operand = value ...; an IN whose list is not all literals becomes a chain of = and OR. An
 * attribute not in the input, or a node the planner should have removed (aggregate, window,
 * subquery, outer reference), is an internal error naming it (CS_EINVAL). */
int cs_sql_bind_expr(const cs_sql_expr *e, cs_sql_expr *const *input, int n_input, cs_pexpr **out,
                     cs_error *err);

#endif /* CSPARK_SQL_PLANNER_BIND_H */
