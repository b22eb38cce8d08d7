/*
 * connect_show.h — DataFrame.show() over Spark Connect (the ShowString relation): the query that
 * fetches the rows to show, and the table's text Spark's Dataset.showString makes of them
 * (connect_show.c). Called by connect_execute.c.
 *
 * Ownership: the plan, names and flags are made in the caller's arena and live as long as it;
 * the ShowString message is borrowed for the call only.
 */
#ifndef CSPARK_CONNECT_CONNECT_SHOW_H
#define CSPARK_CONNECT_CONNECT_SHOW_H

#include <stdbool.h>

#include "common/err.h"
#include "session/sql_session.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

typedef struct Spark__Connect__ShowString Spark__Connect__ShowString;

typedef struct cs_connect_show {
    cs_logical_plan *plan; /* the rows: at most num_rows + 1, each column a string or binary */
    int n_cols;
    const char **names; /* the input's column names (the header) */
    bool *binary;       /* column i is binary (printed as hex here) */
    int num_rows, truncate;
    bool vertical;
} cs_connect_show;

/* The query of show's rows (the input is analyzed for its columns): 0 and *out, or a negative
 * code with Spark's error in err. */
int cs_connect_show_plan(cs_sql_session *sql, cs_sql_arena *a,
                         const Spark__Connect__ShowString *show, cs_connect_show *out,
                         cs_error *err);

/* The answer: one row of the non-nullable string column show_string holding the text of rows
 * (the result of show->plan). 0 and *out (the caller frees it), or a negative code with err. */
int cs_connect_show_result(const cs_connect_show *show, const cs_sql_result *rows,
                           cs_sql_result *out, cs_error *err);

#endif /* CSPARK_CONNECT_CONNECT_SHOW_H */
