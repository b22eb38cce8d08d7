/*
 * query_run.c — a query from its analyzed plan to its rows (session_internal.h). Until the
 * optimizer and the planner are in the tree a query is refused with UNSUPPORTED_FEATURE.
 */
#include "session/session_internal.h"
#include "sqlexec/sql_error.h"

int cs_session_run_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                         const char *text, cs_sql_result *out, cs_error *err)
{
    (void)s, (void)a, (void)analyzed, (void)text, (void)out;
    return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                            "The feature is not supported: running queries.");
}

int cs_session_explain(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *parsed,
                       const char *mode, cs_sbuf *out, cs_error *err)
{
    (void)s, (void)a, (void)parsed, (void)mode, (void)out;
    return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                            "The feature is not supported: EXPLAIN.");
}
