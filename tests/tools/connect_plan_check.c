/*
 * connect_plan_check.c — checks Spark Connect plans the PySpark client made
 * (tests/connect/plans_from_pyspark.py) against the SQL written for each: for every DIR/NNN.plan
 * (a serialized spark.connect.Relation) and DIR/NNN.sql (the case's name, then its SQL or
 * "SCHEMA: name:type,..."), the relation is translated (connect/connect_plan.h) and analyzed
 * in a session holding the views
 *   t(a int, b bigint, s string, f double), u(a int, c int)
 * and must print the same analyzed tree as the SQL (expression ids left out), or have those
 * columns. Prints one line per case ("ok name" / "FAIL name: why"); exits 1 when one failed.
 *
 * Usage: connect_plan_check DIR. Used by tests/connect/plans_from_pyspark.sh.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "connect/connect_plan.h"
#include "session/sql_session.h"
#include "spark/connect/relations.pb-c.h"
#include "sql/sql_parser.h"

static cs_sql_session *session;

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    cs_sbuf b = CS_SBUF_INIT;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cs_sbuf_append(&b, buf, n);
    fclose(f);
    return cs_sbuf_detach(&b, len);
}

/* The analyzed plan printed without expression ids, or its columns "name:type,..." */
static int analyzed(cs_sql_arena *a, const cs_logical_plan *p, bool columns, cs_sbuf *out,
                    cs_error *err)
{
    cs_logical_plan *r;
    if (cs_sql_session_analyze(session, a, p, &r, err) != 0) return -1;
    if (columns) {
        for (int i = 0; i < r->n_output; i++) {
            if (i) cs_sbuf_putc(out, ',');
            cs_sbuf_printf(out, "%s:", r->output[i]->name);
            cs_col_type_simple_string(r->output[i]->type, out);
        }
        return 0;
    }
    cs_sbuf b = CS_SBUF_INIT;
    cs_logical_plan_print(r, &b);
    for (const char *q = cs_sbuf_str(&b); *q; q++) {
        if (*q == '#' && isdigit((unsigned char)q[1])) {
            while (isdigit((unsigned char)q[1]))
                q++;
            continue;
        }
        cs_sbuf_putc(out, *q);
    }
    cs_sbuf_free(&b);
    return 0;
}

/* One case: 0 when it holds, else 1 with the reason printed. */
static int check(const char *dir, const char *stem)
{
    char path[4096];
    size_t plen, slen;
    snprintf(path, sizeof path, "%s/%s.plan", dir, stem);
    char *bytes = read_file(path, &plen);
    snprintf(path, sizeof path, "%s/%s.sql", dir, stem);
    char *text = read_file(path, &slen);
    int failed = 1;
    cs_sql_arena *a = cs_sql_arena_new();
    cs_error err;
    cs_error_clear(&err);
    cs_sbuf got = CS_SBUF_INIT, want = CS_SBUF_INIT;
    Spark__Connect__Relation *rel = NULL;
    char *nl = text ? strchr(text, '\n') : NULL;
    if (!bytes || !nl) {
        printf("FAIL %s: cannot read the case's files\n", stem);
        goto done;
    }
    *nl = '\0';
    const char *name = text, *sql = nl + 1;
    char *end = strchr(sql, '\n');
    if (end) *end = '\0';
    rel = spark__connect__relation__unpack(NULL, plen, (const uint8_t *)bytes);
    if (!rel) {
        printf("FAIL %s: not a spark.connect.Relation\n", name);
        goto done;
    }
    cs_connect_plan_ctx ctx = {a, session, &err};
    cs_logical_plan *p;
    bool columns = strncmp(sql, "SCHEMA: ", 8) == 0;
    if (cs_connect_plan_relation(&ctx, rel, &p) != 0 || analyzed(a, p, columns, &got, &err) != 0) {
        printf("FAIL %s: %s\n", name, err.msg);
        goto done;
    }
    if (columns) {
        cs_sbuf_puts(&want, sql + 8);
    } else {
        cs_sql_statement *st;
        if (cs_sql_parse_statement(a, sql, &st, NULL, &err) != 0 || !st->plan ||
            analyzed(a, st->plan, false, &want, &err) != 0) {
            printf("FAIL %s: the SQL: %s\n", name, err.msg);
            goto done;
        }
    }
    if (strcmp(cs_sbuf_str(&got), cs_sbuf_str(&want)) != 0) {
        printf("FAIL %s: the plan\n%s\nis not the SQL's\n%s\n", name, cs_sbuf_str(&got),
               cs_sbuf_str(&want));
        goto done;
    }
    printf("ok %s\n", name);
    failed = 0;
done:
    if (rel) spark__connect__relation__free_unpacked(rel, NULL);
    cs_sbuf_free(&got);
    cs_sbuf_free(&want);
    cs_sql_arena_free(a);
    free(bytes);
    free(text);
    return failed;
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: connect_plan_check DIR\n");
        return 2;
    }
    cs_error err;
    cs_error_clear(&err);
    session = cs_sql_session_new(NULL, &err);
    static const char *const views[] = {
        "CREATE TEMPORARY VIEW t AS SELECT * FROM VALUES (1, 10L, 'x', 1.5D), "
        "(2, NULL, NULL, CAST('NaN' AS DOUBLE)) AS v(a, b, s, f)",
        "CREATE TEMPORARY VIEW u AS SELECT * FROM VALUES (1, 7) AS v(a, c)"};
    for (size_t i = 0; session && i < sizeof views / sizeof views[0]; i++) {
        cs_sql_result r;
        if (cs_sql_session_execute(session, views[i], &r, &err) != 0) {
            fprintf(stderr, "connect_plan_check: %s\n", err.msg);
            return 2;
        }
        cs_sql_result_free(&r);
    }
    if (!session) {
        fprintf(stderr, "connect_plan_check: %s\n", err.msg);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        fprintf(stderr, "connect_plan_check: cannot open %s\n", argv[1]);
        return 2;
    }
    int n = 0, cap = 64, failed = 0;
    char **stems = malloc(sizeof *stems * (size_t)cap);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".plan") != 0) continue;
        if (n == cap) stems = realloc(stems, sizeof *stems * (size_t)(cap *= 2));
        stems[n++] = strndup(e->d_name, len - 5);
    }
    closedir(d);
    qsort(stems, (size_t)n, sizeof *stems, by_name);
    for (int i = 0; i < n; i++) {
        failed += check(argv[1], stems[i]);
        free(stems[i]);
    }
    free(stems);
    cs_sql_session_free(session);
    printf("%d plans, %d failed\n", n, failed);
    return failed || n == 0 ? 1 : 0;
}
