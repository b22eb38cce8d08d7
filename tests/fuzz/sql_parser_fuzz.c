/* libFuzzer target for Spark SQL's parser (src/sql/sql_lexer.c, parser_*.c): the input is SQL
 * text as cspark-sql or a Spark Connect client hands it over — a script, then the same bytes as
 * one expression and as a data type string. Every call must end in statements or in a Spark
 * error with an error class and a position — never a crash, a leak (the arena and the literal
 * columns it keeps), a read out of bounds or unbounded recursion. Built and run by
 * sql_parser.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sql/sql_parser.h"

static void must_have_class(int rc, const cs_error *err)
{
    if (rc != CS_OK && (rc != CS_EINVAL || !err->error_class[0])) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *sql = malloc(size + 1);
    memcpy(sql, data, size);
    sql[size] = '\0'; /* the parser reads up to the first NUL, as from a C string */
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement **st;
    int n;
    cs_error err = {0};
    cs_sql_origin where;
    must_have_class(cs_sql_parse_at(a, sql, &st, &n, &where, &err), &err);
    cs_sql_expr *e;
    must_have_class(cs_sql_parse_expression(a, sql, &e, &where, &err), &err);
    cs_col_type *t;
    int rc = cs_sql_parse_data_type(a, sql, &t, &err);
    if (rc != CS_OK && rc != CS_EINVAL) abort();
    cs_sql_arena_free(a);
    free(sql);
    return 0;
}
