/*
 * type_coercion.h — Spark 4's type rules under ANSI mode (AnsiTypeCoercion and DecimalPrecision
 * with spark.sql.decimalOperations.allowPrecisionLoss=true), used by the analyzer and the
 * function registry to type resolved expressions and to insert the implicit casts Spark adds.
 *
 *   - widening (findWiderTypeForTwo): byte < short < int < long < float < double; an integral
 *     type with a decimal widens to the decimal that holds both (int is decimal(10,0), long
 *     decimal(20,0)); a decimal with float/double gives double; null widens to anything; date
 *     to timestamp; a string with another atomic type gives that type under ANSI (a string is
 *     implicitly cast to it), two strings give string;
 *   - decimal results of + - * / % (DecimalPrecision), bounded to 38 digits by
 *     adjustPrecisionScale (keeping at least 6 digits of scale);
 *   - integral literals in decimal arithmetic take their exact precision (DecimalType.fromLiteral).
 *
 * Types returned are borrowed: primitive singletons, or decimals kept by the arena passed.
 * Called by sql/function_registry.c and the analyzer (analyzer_*.c).
 */
#ifndef CSPARK_SQL_TYPE_COERCION_H
#define CSPARK_SQL_TYPE_COERCION_H

#include <stdbool.h>

#include "columnar/col_type.h"
#include "sql/sql_arena.h"
#include "sql/sql_expr.h"

bool cs_tc_is_integral(const cs_col_type *t); /* byte, short, int, long */
/* The digits an integral type needs as a decimal (Spark's DecimalType.forType: 3, 5, 10, 20);
 * 0 for other types. */
int cs_tc_integral_digits(cs_type_id id);
bool cs_tc_is_numeric(const cs_col_type *t); /* integral, float, double, decimal */
bool cs_tc_is_atomic(const cs_col_type *t);  /* not array/map/struct */
bool cs_tc_is_string(const cs_col_type *t);
bool cs_tc_is_datetime(const cs_col_type *t); /* date, timestamp, timestamp_ntz */
bool cs_tc_is_interval(const cs_col_type *t);

/* Spark's DataType.sql: "INT", "BIGINT", "DECIMAL(10,2)", "STRING", "ARRAY<INT>", ... */
void cs_tc_type_sql(const cs_col_type *t, cs_sbuf *out);

/* decimal(p, s) kept by the arena; p and s already valid. */
cs_col_type *cs_tc_decimal(cs_sql_arena *a, int precision, int scale);
/* DecimalPrecision.adjustPrecisionScale (allowPrecisionLoss): p <= 38 as is; else keep the
 * integral digits and at least min(s, 6) digits of scale. */
cs_col_type *cs_tc_decimal_adjusted(cs_sql_arena *a, int precision, int scale);
/* DecimalType.forType of an integral/decimal type; of an integral literal e, its exact digits
 * (fromLiteral) when e is a literal. NULL when t is not integral or decimal. */
cs_col_type *cs_tc_decimal_of(cs_sql_arena *a, const cs_sql_expr *e);
/* The decimal result type of op ('+', '-', '*', '/', '%') over two decimals. */
cs_col_type *cs_tc_decimal_result(cs_sql_arena *a, char op, const cs_col_type *l,
                                  const cs_col_type *r);

/* The common type of x and y (findWiderTypeForTwo under ANSI), or NULL when none. */
cs_col_type *cs_tc_wider(cs_sql_arena *a, cs_col_type *x, cs_col_type *y);
/* Whether ANSI implicit casting may turn `from` into `to` (AnsiTypeCoercion.implicitCast). */
bool cs_tc_can_implicit_cast(const cs_col_type *from, const cs_col_type *to);
/* Whether a function argument of type `from` may be cast to the concrete type `to` a function
 * expects (AnsiTypeCoercion.implicitCast to a type that is not a type collection: besides the
 * implicit casts above, Cast.canANSIStoreAssign's numeric to any numeric, e.g. a bigint column
 * to slice's INT start, checked for overflow when it runs). */
bool cs_tc_can_implicit_cast_to(const cs_col_type *from, const cs_col_type *to);
/* Whether an explicit CAST from -> to exists under ANSI (Cast.canAnsiCast). */
/* Spark's VariantGet.checkDataType: whether a variant converts to and from t (structs and maps
 * only when structs_and_maps: variant_get targets and to_variant_object's input; a CAST to
 * VARIANT takes atomic types and arrays of them). Intervals never. */
bool cs_tc_variant_castable(const cs_col_type *t, bool structs_and_maps);
bool cs_tc_can_cast(const cs_col_type *from, const cs_col_type *to);

/* e itself when it already has type `to`, else a resolved implicit CAST of e to `to` (ANSI,
 * marked implicit_cast so that result names leave it out, as Spark names columns before it
 * coerces them). */
cs_sql_expr *cs_tc_cast(cs_sql_arena *a, cs_sql_expr *e, cs_col_type *to);
/* Spark's strength reduction of a comparison (> >= < <=) e of an integral value with a decimal
 * literal (DecimalPrecisionTypeCoercion): the literal becomes the bigint floor or ceiling that
 * gives the same answer ("2 > 1.5" is "2 > 1"). e's arguments are resolved; no-op otherwise. */
void cs_tc_reduce_integral_decimal(cs_sql_arena *a, cs_sql_expr *e);

#endif /* CSPARK_SQL_TYPE_COERCION_H */
