/*
 * sql_session.h — a Spark SQL session, as Spark's SparkSession with its SessionState and
 * QueryExecution: the session catalog (temporary views, tables over files), the session's SQL
 * configuration (sql_conf.h), and the execution of one statement at a time:
 *
 *   text --cs_sql_parse_statement--> statement
 *     command (CREATE [TEMPORARY] VIEW, CREATE TABLE ... USING ... LOCATION, DROP, SET / RESET,
 *              SHOW TABLES|DATABASES|FUNCTIONS|COLUMNS, DESCRIBE, USE, CACHE / UNCACHE, EXPLAIN)
 *              -> run on the driver, its rows made here;
 *     query -> cs_sql_analyze -> cs_sql_optimize -> cs_sql_plan -> cut into stages at its
 *              exchanges and run as jobs of the application's context (query_run.c).
 *
 * Each statement's jobs carry the statement's text as their description (the UI shows it) and
 * the job group "cspark-sql-<execution id>", as Spark's SQLExecution gives each query an
 * execution id.
 *
 * Ownership: the session borrows the context (which outlives it) and owns its catalog and
 * conf. A result owns its schema and batches (cs_sql_result_free). Threads: one statement at
 * a time, from the thread that drives the context's jobs.
 */
#ifndef CSPARK_SESSION_SQL_SESSION_H
#define CSPARK_SESSION_SQL_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "cspark.h"
#include "sql/logical_plan.h"

typedef struct cs_sql_session cs_sql_session;

/* The rows a statement gives: a command's (often none, with an empty schema) or a query's. */
typedef struct cs_sql_result {
    cs_col_type *schema; /* a struct type: one field per column (one reference) */
    int n_batches;
    cs_col_batch **batches; /* one reference each, in the answer's order */
    int64_t num_rows;
    bool ordered; /* a top-level ORDER BY: the rows' order is part of the answer */
} cs_sql_result;

void cs_sql_result_free(cs_sql_result *r);

/* A session over sc: its SQL conf starts from the context's spark.sql.* keys. NULL + err when
 * one of them is malformed (the key and the value expected are named). */
cs_sql_session *cs_sql_session_new(cspark_context *sc, cs_error *err);
void cs_sql_session_free(cs_sql_session *s);

/* Runs one statement (a trailing ';' allowed): 0 and *out, or a negative code with err holding
 * Spark's error (error_class and sql_state set, the message "[CLASS] text SQLSTATE: xxxxx");
 * *out is then empty. */
int cs_sql_session_execute(cs_sql_session *s, const char *sql, cs_sql_result *out, cs_error *err);

/* Runs a statement already built in arena a (by the parser, or by a Spark Connect plan's
 * translation), as cs_sql_session_execute does after parsing; text is the statement's text for
 * the UI and events (may be a description such as "collect at ..."). *kept is set when the
 * session took ownership of a (a temporary view or cached table refers to its nodes): the
 * caller must then not free it. Same results and errors as cs_sql_session_execute. */
int cs_sql_session_run_statement(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                                 const char *text, cs_sql_result *out, bool *kept, cs_error *err);

/* Resolves an unresolved plan against the session's catalog (no job runs): the schema of a
 * DataFrame, as Spark Connect's AnalyzePlan asks. Nodes in a; Spark's error classes on failure. */
int cs_sql_session_analyze(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *plan,
                           cs_logical_plan **resolved, cs_error *err);

/* Spark's SHOW ... LIKE pattern (and spark.catalog's list patterns): '*' any characters, '|'
 * between alternatives, case-insensitive; a NULL pattern matches everything. */
bool cs_sql_session_like(const char *pattern, const char *name);

/* The session's catalog (databases, tables, views, functions), borrowed for the session's life:
 * read by Spark Connect's catalog calls between statements, on the session's thread. */
struct cs_catalog *cs_sql_session_catalog(cs_sql_session *s);

/* A value of the session's SQL conf (a key set by SET or the application's conf, else Spark's
 * default), or NULL when the key is neither set nor known. Borrowed until the next SET/RESET. */
const char *cs_sql_session_conf(const cs_sql_session *s, const char *key);
/* The same value when the key was set (SET or the application's conf), else NULL: Spark's
 * RuntimeConfig.get(key, default), which gives the caller's default before the key's own. */
const char *cs_sql_session_conf_set(const cs_sql_session *s, const char *key);

/* The job group of the statements run from now on (NULL or "": "cspark-sql-<execution id>",
 * the default), so that a caller can cancel them from another thread with
 * cspark_cancel_job_group: Spark Connect gives each operation's jobs the operation's tag. At most
 * 95 bytes are kept. */
void cs_sql_session_set_job_group(cs_sql_session *s, const char *group);

#endif /* CSPARK_SESSION_SQL_SESSION_H */
