/*
 * session_internal.h — private to src/session: the session's state and what its files share
 * (sql_session.c: statements and commands; query_run.c: queries from the analyzed plan to
 * jobs; result_rows.c: building a command's rows).
 */
#ifndef CSPARK_SESSION_SESSION_INTERNAL_H
#define CSPARK_SESSION_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_builder.h"
#include "session/sql_conf.h"
#include "session/sql_session.h"
#include "sql/catalog.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

struct cs_sql_session {
    cspark_context *sc; /* borrowed */
    cs_catalog *catalog;
    cs_sql_conf *conf;
    int64_t next_execution_id; /* Spark's SQLExecution id, one per query */
    char job_group[96];        /* the jobs' group when set (cs_sql_session_set_job_group) */
};

/* Runs a resolved query (analyzed in arena a): optimizes, plans and runs it, collecting its
 * rows into *out (query_run.c). text: the statement, for the jobs' description. */
int cs_session_run_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                         const char *text, cs_sql_result *out, cs_error *err);
/* EXPLAIN [EXTENDED] of a statement's query: the plans as Spark prints them, appended to out. */
int cs_session_explain(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *parsed,
                       const char *mode, cs_sbuf *out, cs_error *err);

/* ---- a command's rows (result_rows.c) ---- */
typedef struct cs_rows_builder {
    cs_col_type *schema;
    cs_col_builder **cols;
    int n_cols;
    int64_t rows;
} cs_rows_builder;

/* Columns named names[0..n) of types[i] (borrowed ids: string, boolean, ...). */
void cs_rows_begin(cs_rows_builder *b, const char *const *names, const cs_type_id *types, int n);
void cs_rows_string(cs_rows_builder *b, int col, const char *s); /* NULL: null */
void cs_rows_bool(cs_rows_builder *b, int col, bool v);
void cs_rows_end_row(cs_rows_builder *b);
/* The rows as *out's one batch (schema and batch taken over); the builder is emptied. */
int cs_rows_finish(cs_rows_builder *b, cs_sql_result *out, cs_error *err);
/* A result without columns or rows (what most commands give). */
void cs_rows_none(cs_sql_result *out);

#endif /* CSPARK_SESSION_SESSION_INTERNAL_H */
