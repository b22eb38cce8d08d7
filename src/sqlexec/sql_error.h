/*
 * sql_error.h — Spark SQL's errors: an error class, a SQLSTATE and Spark's message text, as
 * Spark 4's SparkThrowable carries them
 * (common/utils/src/main/resources/error/error-conditions.json). Every error a SQL user can cause —
 * a syntax error, an unknown column, a type mismatch, a division by zero under ANSI mode, an
 * invalid cast — is raised through cs_sql_error_set, so that cspark-sql prints Spark's line and a
 * Spark Connect client raises the same exception type with the same text.
 *
 * The message is Spark's: "[CLASS] text SQLSTATE: xxxxx", and the class and state are also
 * kept in cs_error's error_class/sql_state fields (decisions read those, never the text). The
 * code is CS_EINVAL for errors of the query (analysis, parse) and CS_ETASK for errors raised
 * while running it (arithmetic, casts), so callers can tell a bad query from a failed task.
 *
 * Called by src/sqlexec (runtime errors) and src/sql (parser and analyzer). Ownership: the
 * cs_error is the caller's.
 */
#ifndef CSPARK_SQLEXEC_SQL_ERROR_H
#define CSPARK_SQLEXEC_SQL_ERROR_H

#include "common/err.h"

/* Sets *err (may be NULL) to code, error_class ("DIVIDE_BY_ZERO",
 * "UNRESOLVED_COLUMN.WITH_SUGGESTION"), sql_state ("22012") and the message
 * "[error_class] <formatted text> SQLSTATE: <sql_state>". Returns code. */
int cs_sql_error_set(cs_error *err, int code, const char *error_class, const char *sql_state,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Adds the message parameter name = value to err's (cs_error.params, a JSON object), as Spark's
 * SparkThrowable.getMessageParameters gives them; called after cs_sql_error_set. A parameter
 * that does not fit, or a value that is not UTF-8, is left out. */
void cs_sql_error_param(cs_error *err, const char *name, const char *value);

/* Whether err holds a Spark SQL error of this class (exact, or a prefix ending at a '.':
 * "UNRESOLVED_COLUMN" matches "UNRESOLVED_COLUMN.WITH_SUGGESTION"). */
int cs_sql_error_is(const cs_error *err, const char *error_class);

#endif /* CSPARK_SQLEXEC_SQL_ERROR_H */
