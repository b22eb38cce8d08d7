/*
 * sql_parse_check.c — runs cspark's SQL parser (src/sql/sql_parser.h) over a file of
 * statements, one a line, and prints for each "=== <sql>" then "OK" or "ERR <message> (line L,
 * pos P)": the form tests/spark/sql_parser/spark_parse.py prints for Spark's parser, so that
 * tests/spark/sql_parser_errors.sh compares the two with diff. Usage: sql_parse_check FILE.
 */
#include <stdio.h>
#include <string.h>

#include "sql/sql_parser.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sql_parse_check FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "sql_parse_check: cannot open %s\n", argv[1]);
        return 1;
    }
    char line[65536];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0]) continue;
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement *st;
        cs_error err = {0};
        cs_sql_origin where = {0, 0};
        printf("=== %s\n", line);
        if (cs_sql_parse_statement(a, line, &st, &where, &err))
            printf("ERR %s (line %d, pos %d)\n", err.msg, where.line, where.pos);
        else
            printf("OK\n");
        cs_sql_arena_free(a);
    }
    fclose(f);
    return 0;
}
