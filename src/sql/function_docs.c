/*
 * function_docs.c — what Spark's function registry says of a builtin beyond its signature: the
 * class implementing it (ExpressionInfo's className) and its usage line, as spark.catalog's
 * listFunctions and getFunction and DESCRIBE FUNCTION report them (function_registry.h). Only the
 * operators and the common functions are described here; the others have neither (NULL), as a
 * function Spark registers without ExpressionInfo. Called by the session's DESCRIBE FUNCTION and
 * Spark Connect's catalog calls. The table is static, sorted by name (strcmp).
 */
#include <stdlib.h>
#include <string.h>

#include "sql/function_registry.h"

static const cs_fn_doc docs[] = {
    {"!=", NULL, "expr1 != expr2 - Returns true if `expr1` is not equal to `expr2`."},
    {"%", "org.apache.spark.sql.catalyst.expressions.Remainder",
     "expr1 % expr2, or mod(expr1, expr2) - Returns the remainder after `expr1`/`expr2`."},
    {"*", "org.apache.spark.sql.catalyst.expressions.Multiply",
     "expr1 * expr2 - Returns `expr1`*`expr2`."},
    {"+", "org.apache.spark.sql.catalyst.expressions.Add",
     "expr1 + expr2 - Returns `expr1`+`expr2`."},
    {"-", "org.apache.spark.sql.catalyst.expressions.Subtract",
     "expr1 - expr2 - Returns `expr1`-`expr2`."},
    {"/", "org.apache.spark.sql.catalyst.expressions.Divide",
     "expr1 / expr2 - Returns `expr1`/`expr2`. It always performs floating point division."},
    {"<", "org.apache.spark.sql.catalyst.expressions.LessThan",
     "expr1 < expr2 - Returns true if `expr1` is less than `expr2`."},
    {"<=", "org.apache.spark.sql.catalyst.expressions.LessThanOrEqual",
     "expr1 <= expr2 - Returns true if `expr1` is less than or equal to `expr2`."},
    {"<>", NULL, "expr1 <> expr2 - Returns true if `expr1` is not equal to `expr2`."},
    {"=", "org.apache.spark.sql.catalyst.expressions.EqualTo",
     "expr1 = expr2 - Returns true if `expr1` equals `expr2`, or false otherwise."},
    {"==", "org.apache.spark.sql.catalyst.expressions.EqualTo",
     "expr1 == expr2 - Returns true if `expr1` equals `expr2`, or false otherwise."},
    {">", "org.apache.spark.sql.catalyst.expressions.GreaterThan",
     "expr1 > expr2 - Returns true if `expr1` is greater than `expr2`."},
    {">=", "org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual",
     "expr1 >= expr2 - Returns true if `expr1` is greater than or equal to `expr2`."},
    {"abs", "org.apache.spark.sql.catalyst.expressions.Abs",
     "abs(expr) - Returns the absolute value of the numeric or interval value."},
    {"and", "org.apache.spark.sql.catalyst.expressions.And", "expr1 and expr2 - Logical AND."},
    {"avg", "org.apache.spark.sql.catalyst.expressions.aggregate.Average",
     "avg(expr) - Returns the mean calculated from values of a group."},
    {"cast", "org.apache.spark.sql.catalyst.expressions.Cast",
     "cast(expr AS type) - Casts the value `expr` to the target data type `type`. `expr` :: `type` "
     "alternative casting syntax is also supported."},
    {"coalesce", "org.apache.spark.sql.catalyst.expressions.Coalesce",
     "coalesce(expr1, expr2, ...) - Returns the first non-null argument if exists. Otherwise, "
     "null."},
    {"concat", "org.apache.spark.sql.catalyst.expressions.Concat",
     "concat(col1, col2, ..., colN) - Returns the concatenation of col1, col2, ..., colN."},
    {"current_catalog", "org.apache.spark.sql.catalyst.expressions.CurrentCatalog",
     "current_catalog() - Returns the current catalog."},
    {"current_database", "org.apache.spark.sql.catalyst.expressions.CurrentDatabase",
     "current_database() - Returns the current database."},
    {"current_schema", "org.apache.spark.sql.catalyst.expressions.CurrentDatabase",
     "current_schema() - Returns the current database."},
    {"like", "org.apache.spark.sql.catalyst.expressions.Like",
     "str like pattern[ ESCAPE escape] - Returns true if str matches `pattern` with `escape`, null "
     "if any arguments are null, false otherwise."},
    {"lower", "org.apache.spark.sql.catalyst.expressions.Lower",
     "lower(str) - Returns `str` with all characters changed to lowercase."},
    {"max", "org.apache.spark.sql.catalyst.expressions.aggregate.Max",
     "max(expr) - Returns the maximum value of `expr`."},
    {"min", "org.apache.spark.sql.catalyst.expressions.aggregate.Min",
     "min(expr) - Returns the minimum value of `expr`."},
    {"month", "org.apache.spark.sql.catalyst.expressions.Month",
     "month(date) - Returns the month component of the date/timestamp."},
    {"not", "org.apache.spark.sql.catalyst.expressions.Not", "not expr - Logical not."},
    {"or", "org.apache.spark.sql.catalyst.expressions.Or", "expr1 or expr2 - Logical OR."},
    {"round", "org.apache.spark.sql.catalyst.expressions.Round",
     "round(expr, d) - Returns `expr` rounded to `d` decimal places using HALF_UP rounding mode."},
    {"sum", "org.apache.spark.sql.catalyst.expressions.aggregate.Sum",
     "sum(expr) - Returns the sum calculated from values of a group."},
    {"upper", "org.apache.spark.sql.catalyst.expressions.Upper",
     "upper(str) - Returns `str` with all characters changed to uppercase."},
    {"year", "org.apache.spark.sql.catalyst.expressions.Year",
     "year(date) - Returns the year component of the date/timestamp."},
};

static int by_name(const void *key, const void *entry)
{
    return strcmp(key, ((const cs_fn_doc *)entry)->name);
}

const cs_fn_doc *cs_fn_doc_of(const char *name)
{
    return bsearch(name, docs, sizeof docs / sizeof docs[0], sizeof docs[0], by_name);
}
