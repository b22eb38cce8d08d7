/*
 * expr_names.c — the calls whose Spark column name is not their SQL text, for plan_print.c's
 * pretty names: from_json into a map is named "entries", window(...) "window" (the column
 * TimeWindowing adds), and negative(x) is printed as the call only when written as one (the
 * parser writes unary minus as "-"). Pure functions over a resolved expression; nothing is
 * allocated.
 */
#include <string.h>

#include "sql/sql_expr.h"

const char *cs_sql_call_own_name(const cs_sql_expr *e)
{
    if (e->kind != CS_EX_FUNC || !e->fn) return NULL;
    if (strcmp(e->fn, "from_json") == 0 && e->type && e->type->id == CS_TYPE_MAP) return "entries";
    if (strcmp(e->fn, "window") == 0) return "window";
    return NULL;
}

bool cs_sql_call_written_negative(const cs_sql_expr *e)
{
    return e->name && strcmp(e->name, "negative") == 0;
}
