/*
 * sql_parser.h — Spark SQL's parser: text in Spark 4's dialect (SqlBaseParser.g4 with
 * spark.sql.ansi.enforceReservedKeywords=false, Spark's default: keywords are usable as
 * identifiers where Spark allows it) to statements holding unresolved logical plans
 * (logical_plan.h) and expressions (sql_expr.h), as Spark's AstBuilder makes them.
 *
 * Hand-written: recursive descent for statements and queries, precedence climbing for
 * expressions with Spark's precedence (lowest first): OR; AND; NOT; predicates (comparison
 * = == <=> <> != < <= > >= is the lowest value operator, then | ^ & shifts, + - ||, * / % div,
 * unary - + ~), with BETWEEN / IN / LIKE / IS on a value expression.
 *
 * The shapes the analyzer receives (Spark's AstBuilder's, in this tree's kinds):
 *   - operators are UNRESOLVED_FUNC calls of FunctionRegistry names: "+", "-", "*", "/", "%",
 *     "div", "&", "|", "^", "~", "shiftleft", "shiftright", "shiftrightunsigned", "concat"
 *     (||), "=", "<=>", "<", "<=", ">", ">=", "and", "or", "not", "negative", "positive",
 *     "isnull", "isnotnull", "between", "like"/"ilike" (2 or 3 args: the escape a string
 *     literal), "rlike", "like_any"/"like_all"/"ilike_any"/"ilike_all"; `a <> b` is
 *     not(a = b), `x IS TRUE` x <=> true, `IS DISTINCT FROM` not(<=>), `IS UNKNOWN` isnull;
 *     NOT IN / NOT EXISTS / NOT LIKE|ILIKE|RLIKE set `negated` (sql_expr.h); NOT BETWEEN and
 *     other NOTs are not(...);
 *   - (a, b) is struct(a, b); a.b.c an UNRESOLVED_ATTR of 3 parts; x[i], f(x).y
 *     UNRESOLVED_EXTRACT_VALUE; count(*) a STAR argument; EXTRACT(f FROM e) extract('f', e);
 *     POSITION(a IN b) locate(a, b, 1); TRIM(BOTH c FROM s) trim(c, s) (ltrim/rtrim);
 *     SUBSTRING(s FROM p FOR l) substring(s, p, l); current_date / current_timestamp / user
 *     without parentheses are UNRESOLVED_ATTRs (Spark resolves them as functions when no
 *     column has the name);
 *   - literals are typed (parser_literal.c); TIMESTAMP '...' without a zone is
 *     cast('...' AS timestamp), so the session time zone applies at analysis;
 *   - an integer alone in GROUP BY / ORDER BY is UNRESOLVED_ORDINAL; ROLLUP / CUBE /
 *     GROUPING SETS are calls "rollup" / "cube" / "grouping_sets" of "grouping_set" calls;
 *     HAVING is a FILTER over the AGGREGATE (an AGGREGATE without grouping if no GROUP BY);
 *     WINDOW clause names are replaced by their definitions; UNION [DISTINCT] is
 *     SET_OP(all = false); hints are HINT nodes (parts[0] = name) over the SELECT;
 *     unaliased subqueries in FROM get Spark's alias __auto_generated_subquery_name;
 *     parquet.`path` (and csv, json, text, orc, avro) sets the relation's format and path.
 *
 * Errors are Spark's (sql_error.h): a syntax error is
 *   [PARSE_SYNTAX_ERROR] Syntax error at or near 'xyz'. SQLSTATE: 42601
 * (or "at or near end of input"), with the position in *where; bad literals give
 * INVALID_TYPED_LITERAL, INVALID_NUMERIC_LITERAL_RANGE, ..., as Spark's parser does. The code is
 * CS_EINVAL.
 *
 * Called by cspark-sql and the session (sql/); thread-safe (no global state). Ownership:
 * statements, plans, names and literal columns live in the arena a.
 */
#ifndef CSPARK_SQL_SQL_PARSER_H
#define CSPARK_SQL_SQL_PARSER_H

#include "common/err.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

/* Where a parse error was found: line from 1, pos from 0 (Spark's "(line 1, pos 7)"). */
typedef struct cs_sql_origin {
    int line, pos;
} cs_sql_origin;

/* A script of `;`-separated statements (empty statements skipped): *out = an arena array of
 * *n statements. On error *where (may be NULL) holds the position. */
int cs_sql_parse_at(cs_sql_arena *a, const char *sql, cs_sql_statement ***out, int *n,
                    cs_sql_origin *where, cs_error *err);
int cs_sql_parse(cs_sql_arena *a, const char *sql, cs_sql_statement ***out, int *n, cs_error *err);
/* Exactly one statement (a trailing `;` allowed), as Spark's parsePlan. */
int cs_sql_parse_statement(cs_sql_arena *a, const char *sql, cs_sql_statement **out,
                           cs_sql_origin *where, cs_error *err);
/* Parameter markers' values (Spark's PosParameterizedQuery / NameParameterizedQuery, as
 * spark.sql(text, args) and Spark Connect's SQL relation give them): with params, `?` takes the
 * next of pos[0..n_pos) and `:name` the value named so (case-sensitive, as Spark), the
 * expression standing in the tree where the marker was. A marker without a value is
 * UNBOUND_SQL_PARAMETER; `?` and `:name` in one text INVALID_QUERY_MIXED_QUERY_PARAMETERS. The
 * expressions are borrowed (kept by the caller in the same arena). Without params the markers
 * are syntax errors, as before. */
typedef struct cs_sql_params {
    int n_pos;
    cs_sql_expr **pos;
    int n_named;
    const char **names;
    cs_sql_expr **named;
} cs_sql_params;

/* cs_sql_parse_statement with parameter markers bound to params (may be NULL). */
int cs_sql_parse_statement_params(cs_sql_arena *a, const char *sql, const cs_sql_params *params,
                                  cs_sql_statement **out, cs_sql_origin *where, cs_error *err);

/* One expression, as Spark's parseExpression (DataFrame's expr("..."), selectExpr): a named
 * expression, so "a + 1 AS b" is an ALIAS. */
int cs_sql_parse_expression(cs_sql_arena *a, const char *sql, cs_sql_expr **out,
                            cs_sql_origin *where, cs_error *err);
/* A DDL type string ("decimal(10,2)", "array<struct<a:int>>", "interval day to second"), as
 * Spark's parseDataType; *out is kept by the arena (borrowed). */
int cs_sql_parse_data_type(cs_sql_arena *a, const char *text, cs_col_type **out, cs_error *err);
/* A schema string as Spark's DataType.fromDDL reads it (from_json's schema): a DDL type, or else
 * a list of fields "a INT, b STRING" as a struct; the type's error when neither parses. *out
 * is kept by the arena (borrowed). */
int cs_sql_parse_schema(cs_sql_arena *a, const char *text, cs_col_type **out, cs_error *err);

#endif /* CSPARK_SQL_SQL_PARSER_H */
