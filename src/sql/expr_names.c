/*
 * expr_names.c — the calls whose Spark column name is not their SQL text, for plan_print.c's
 * pretty names: from_json into a map is named "entries", window(...) "window" (the column
 * TimeWindowing adds), and negative(x) is printed as the call only when written as one (the
 * parser writes unary minus as "-"), and a string literal given a collation by an implicit cast
 * is named as Spark's collated Literal.sql ('A' collate UNICODE_CI). Pure functions over a
 * resolved expression; nothing is allocated but the text appended.
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

bool cs_sql_collated_literal_name(const cs_sql_expr *e, cs_sbuf *out)
{
    const cs_sql_expr *l = e->kind == CS_EX_CAST ? e->args[0] : NULL;
    if (!l || !cs_col_type_is_collated(e->cast_type) || l->kind != CS_EX_LITERAL || !l->literal ||
        l->literal->type->id != CS_TYPE_STRING || l->literal->null_count)
        return false;
    int32_t len;
    const uint8_t *p = cs_column_bytes(l->literal, 0, &len);
    cs_sbuf_putc(out, '\'');
    for (int32_t i = 0; i < len; i++) {
        if (p[i] == '\'' || p[i] == '\\') cs_sbuf_putc(out, '\\');
        cs_sbuf_putc(out, (char)p[i]);
    }
    cs_sbuf_printf(out, "' collate %s", cs_collation_name(e->cast_type->collation));
    return true;
}
