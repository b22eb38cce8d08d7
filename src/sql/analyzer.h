/*
 * analyzer.h — Spark's Analyzer in C: turns the parser's unresolved logical plan into a resolved
 * one against a session catalog, or fails with Spark's error class and message.
 *
 * What a resolved tree looks like (what the optimizer and planner may rely on):
 *   - relations: catalog tables and path relations (parquet.`p`) are RELATION nodes with one
 *     ATTR per column; temporary views and CTEs are inlined (their plan resolved again at each
 *     reference, so a self-join sees distinct expression ids) under a SUBQUERY_ALIAS;
 *   - every ATTR has a session-unique id (cs_catalog_next_expr_id); PROJECT, AGGREGATE and
 *     WINDOW lists are named expressions (ATTR, or ALIAS with Spark's column name: "(a + 1)",
 *     "sum(x)", "count(1)");
 *   - `*` and `t.*` are expanded; `GROUP BY 1` / `ORDER BY 2` ordinals and select aliases in
 *     GROUP BY / ORDER BY resolved as Spark does;
 *   - functions are FUNC / AGG nodes with canonical names, arguments cast per Spark 4's ANSI
 *     rules (sql/function_registry.h, sql/type_coercion.h);
 *   - a select list with aggregates is an AGGREGATE; HAVING is a FILTER over it (its aggregates
 *     added to the aggregate list and projected away); ORDER BY of columns or aggregates not in
 *     the select list adds them below and projects them away; window functions are computed by
 *     WINDOW nodes (one per distinct PARTITION BY / ORDER BY) below a final PROJECT;
 *   - USING / NATURAL joins are a JOIN with the equality condition under a PROJECT that
 *     coalesces the key columns as Spark (left keys for inner/left, right keys for right,
 *     coalesce(l, r) for full outer);
 *   - subqueries are resolved with the enclosing query's attributes as OUTER_ATTR;
 *   - set operations check column counts and widen column types (casting below each side).
 *
 * Errors (Spark's classes and texts): UNRESOLVED_COLUMN.WITH_SUGGESTION / WITHOUT_SUGGESTION,
 * TABLE_OR_VIEW_NOT_FOUND, UNRESOLVED_ROUTINE, AMBIGUOUS_REFERENCE, MISSING_AGGREGATION,
 * MISSING_GROUP_BY, GROUP_BY_AGGREGATE, DATATYPE_MISMATCH.*, WRONG_NUM_ARGS.*,
 * GROUP_BY_POS_OUT_OF_RANGE, ORDER_BY_POS_OUT_OF_RANGE, NUM_COLUMNS_MISMATCH,
 * INCOMPATIBLE_COLUMN_TYPE, PATH_NOT_FOUND.
 *
 * Ownership: the input plan is read only; the resolved plan is built in `arena` (sharing no
 * mutable state with the input). Single-threaded, one statement at a time per catalog.
 * Called by cspark-sql's statement runner and Spark Connect's plan handler.
 */
#ifndef CSPARK_SQL_ANALYZER_H
#define CSPARK_SQL_ANALYZER_H

#include "common/err.h"
#include "sql/catalog.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

/* Resolves plan. 0 and *out, or a negative... CS_EINVAL with err holding Spark's error. */
int cs_sql_analyze(cs_catalog *catalog, cs_sql_arena *arena, const cs_logical_plan *plan,
                   cs_logical_plan **out, cs_error *err);

#endif /* CSPARK_SQL_ANALYZER_H */
