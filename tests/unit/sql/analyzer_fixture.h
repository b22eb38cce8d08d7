/*
 * analyzer_fixture.h — the analyzer tests' session: a catalog with the temporary views
 *   t(a int, b bigint, s string, d decimal(10,2), e decimal(5,3), dt date, ts timestamp,
 *     f double) and u(a int, c int)
 * (the same shapes as the Spark 4 session the expected names, types and messages were taken
 * from), the arena of the statement, and helpers to analyze and read results. Test-only.
 */
#ifndef CSPARK_TESTS_ANALYZER_FIXTURE_H
#define CSPARK_TESTS_ANALYZER_FIXTURE_H

#include "sql/analyzer.h"
#include "sql/catalog.h"
#include "sqlexec/sql_error.h"
#include "sql_builders.h"

static cs_catalog *CAT;
static cs_error ERR;

static inline cs_sql_expr *typed_null(const char *name, cs_col_type *t)
{
    return alias(cast_to(lit_null(), t), name);
}

static inline void make_views(void)
{
    cs_sql_arena *va = cs_sql_arena_new();
    B_ARENA = va;
    cs_logical_plan *t = project(
        one_row(), 8, typed_null("a", prim(CS_TYPE_INT)), typed_null("b", prim(CS_TYPE_LONG)),
        typed_null("s", prim(CS_TYPE_STRING)), typed_null("d", dec_type(10, 2)),
        typed_null("e", dec_type(5, 3)), typed_null("dt", prim(CS_TYPE_DATE)),
        typed_null("ts", prim(CS_TYPE_TIMESTAMP)), typed_null("f", prim(CS_TYPE_DOUBLE)));
    cs_error_clear(&ERR);
    if (cs_catalog_create_temp_view(CAT, "t", false, false, NULL, 0, t, va, &ERR) != 0) abort();
    cs_sql_arena *ua = cs_sql_arena_new();
    B_ARENA = ua;
    cs_logical_plan *u = project(one_row(), 2, typed_null("a", prim(CS_TYPE_INT)),
                                 typed_null("c", prim(CS_TYPE_INT)));
    if (cs_catalog_create_temp_view(CAT, "u", false, false, NULL, 0, u, ua, &ERR) != 0) abort();
}

static inline int fixture_setup(void **state)
{
    (void)state;
    CAT = cs_catalog_new();
    make_views();
    B_ARENA = cs_sql_arena_new();
    cs_error_clear(&ERR);
    return 0;
}

static inline int fixture_teardown(void **state)
{
    (void)state;
    cs_sql_arena_free(B_ARENA);
    cs_catalog_free(CAT);
    return 0;
}

/* The resolved plan, or NULL with ERR set. */
static inline cs_logical_plan *analyze(const cs_logical_plan *p)
{
    cs_logical_plan *out = NULL;
    cs_error_clear(&ERR);
    if (cs_sql_analyze(CAT, B_ARENA, p, &out, &ERR) != 0) return NULL;
    return out;
}

/* "name,name,..." of p's output (a static buffer) */
static inline const char *names_of(const cs_logical_plan *p)
{
    static char buf[4096];
    buf[0] = '\0';
    for (int i = 0; i < p->n_output; i++) {
        if (i) strcat(buf, "|");
        strncat(buf, p->output[i]->name, sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

static inline const char *types_of(const cs_logical_plan *p)
{
    static char buf[4096];
    cs_sbuf b = {0};
    for (int i = 0; i < p->n_output; i++) {
        if (i) cs_sbuf_putc(&b, '|');
        cs_col_type_simple_string(p->output[i]->type, &b);
    }
    snprintf(buf, sizeof buf, "%s", cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return buf;
}

/* The error message the analysis of p gives (asserting that it fails with error_class). */
static inline const char *error_of(const cs_logical_plan *p, const char *error_class)
{
    cs_logical_plan *r = analyze(p);
    if (r || !cs_sql_error_is(&ERR, error_class)) {
        fprintf(stderr, "expected %s, got %s: %s\n", error_class, r ? "success" : ERR.error_class,
                r ? "" : ERR.msg);
        return "";
    }
    return ERR.msg;
}

#endif
