/*
 * sql_analyze_check.c — parses and analyzes every statement of a corpus file (tests/sql/README.md's
 * corpus format) in one session and prints, per statement, the schema part of the canonical result
 * format (`-- schema` + `struct<...>` + `-- types ...`) or the error line (`-- error` +
 * `[CLASS] SQLSTATE`), never rows: nothing is executed. Setup statements register what they
 * create in the session catalog: CREATE TEMPORARY VIEW v AS query (analyzed first, so a bad view
 * fails as in Spark), CREATE TEMPORARY VIEW v USING fmt OPTIONS (path ...) (a table over the
 * path), DROP. tests/sql/analyze_schemas.sh compares the output with the goldens.
 *
 *   sql_analyze_check FILE.sql [DATA_DIR]     (DATA_DIR replaces ${DATA})
 *
 * Exit 0 when the file was read (statement errors are output), 1 on a bad argument or file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strutil.h"
#include "sql/analyzer.h"
#include "sql/catalog.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

static void print_error(const cs_error *err)
{
    printf("-- error\n");
    if (err->error_class[0])
        printf("[%s] %s\nmessage: %s\n", err->error_class, err->sql_state, err->msg);
    else
        printf("[INTERNAL_ERROR] %s\n", err->msg);
}

/* The golden's escaping of the struct line (scripts/spark_sql_golden.py escape_text). */
static void put_escaped(cs_sbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            cs_sbuf_puts(b, "\\\\");
            break;
        case '\n':
            cs_sbuf_puts(b, "\\n");
            break;
        case '\t':
            cs_sbuf_puts(b, "\\t");
            break;
        case '\r':
            cs_sbuf_puts(b, "\\r");
            break;
        default:
            cs_sbuf_putc(b, *s);
        }
    }
}

static void print_schema(const cs_logical_plan *p)
{
    cs_sbuf s = {0}, t = {0};
    cs_sbuf_puts(&s, "struct<");
    for (int i = 0; p && i < p->n_output; i++) {
        if (i) cs_sbuf_putc(&s, ',');
        cs_sbuf u = {0};
        cs_sbuf_puts(&u, p->output[i]->name);
        cs_sbuf_putc(&u, ':');
        cs_col_type_simple_string(p->output[i]->type, &u);
        put_escaped(&s, cs_sbuf_str(&u));
        cs_sbuf_free(&u);
        cs_sbuf_putc(&t, i ? '\t' : ' ');
        cs_col_type_simple_string(p->output[i]->type, &t);
    }
    cs_sbuf_putc(&s, '>');
    printf("-- schema\n%s\n-- types%s\n", cs_sbuf_str(&s), t.len ? cs_sbuf_str(&t) : "");
    cs_sbuf_free(&s);
    cs_sbuf_free(&t);
}

static const char *option_of(const cs_sql_statement *st, const char *key)
{
    for (int i = 0; i < st->n_options; i++)
        if (strcasecmp(st->option_keys[i], key) == 0) return st->option_values[i];
    return NULL;
}

/* Runs one statement; the arena a is taken over (kept by a view, or freed). */
static void run_statement(cs_catalog *cat, cs_sql_arena *a, const char *sql)
{
    cs_error err = {0};
    cs_sql_statement *st = NULL;
    cs_logical_plan *resolved = NULL;
    if (cs_sql_parse_statement(a, sql, &st, NULL, &err) != 0) {
        print_error(&err);
        cs_sql_arena_free(a);
        return;
    }
    switch (st->kind) {
    case CS_STMT_QUERY:
        if (cs_sql_analyze(cat, a, st->plan, &resolved, &err) != 0)
            print_error(&err);
        else
            print_schema(resolved);
        cs_sql_arena_free(a);
        return;
    case CS_STMT_CREATE_VIEW:
        if (st->plan) {
            if (cs_sql_analyze(cat, a, st->plan, &resolved, &err) != 0) {
                print_error(&err);
                cs_sql_arena_free(a);
                return;
            }
            if (cs_catalog_create_temp_view(cat, st->parts[st->n_parts - 1], st->global,
                                            st->or_replace, st->column_names, st->n_columns,
                                            st->plan, a, &err) != 0) {
                print_error(&err);
                return;
            }
            print_schema(NULL);
            return;
        } else {
            const char *path = option_of(st, "path");
            const char *parts[1] = {st->parts[st->n_parts - 1]};
            if (!path) {
                cs_error_set(&err, CS_EINVAL, "USING %s without a path option", st->format);
            } else if (cs_catalog_create_table(cat, parts, 1, st->format, path, st->option_keys,
                                               st->option_values, st->n_options, st->schema, false,
                                               &err) == 0) {
                print_schema(NULL);
                return; /* the arena stays: the catalog borrows the schema */
            }
            print_error(&err);
            return;
        }
    case CS_STMT_DROP:
        if (cs_catalog_drop(cat, st->parts, st->n_parts, st->if_exists, &err) != 0)
            print_error(&err);
        else
            print_schema(NULL);
        cs_sql_arena_free(a);
        return;
    default:
        cs_error_set(&err, CS_EINVAL, "statement kind %d not handled by this tool", (int)st->kind);
        print_error(&err);
        cs_sql_arena_free(a);
        return;
    }
}

static char *replace_all(const char *s, const char *from, const char *to)
{
    cs_sbuf b = {0};
    size_t n = strlen(from);
    for (const char *hit; (hit = strstr(s, from)) != NULL; s = hit + n) {
        cs_sbuf_append(&b, s, (size_t)(hit - s));
        cs_sbuf_puts(&b, to);
    }
    cs_sbuf_puts(&b, s);
    char *r = cs_xstrdup(cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return r;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: sql_analyze_check FILE.sql [DATA_DIR]\n");
        return 1;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        fprintf(stderr, "sql_analyze_check: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    cs_catalog *cat = cs_catalog_new();
    cs_sbuf stmt = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int line_no = 0, first_line = 0, n = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        line_no++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = '\0';
        if (stmt.len == 0 && (len == 0 || strncmp(line, "--", 2) == 0)) continue;
        if (stmt.len == 0) first_line = line_no;
        if (stmt.len) cs_sbuf_putc(&stmt, '\n');
        ssize_t end = len;
        while (end > 0 && (line[end - 1] == ' ' || line[end - 1] == '\t'))
            end--;
        bool last = end > 0 && line[end - 1] == ';';
        cs_sbuf_append(&stmt, line, (size_t)(last ? end - 1 : len));
        if (!last) continue;
        char *sql = replace_all(cs_sbuf_str(&stmt), "${DATA}", argc > 2 ? argv[2] : "${DATA}");
        printf("-- query %d (line %d)\n", ++n, first_line);
        fflush(stdout);
        run_statement(cat, cs_sql_arena_new(), sql);
        printf("\n");
        free(sql);
        stmt.len = 0;
    }
    free(line);
    fclose(f);
    cs_sbuf_free(&stmt);
    cs_catalog_free(cat);
    return 0;
}
