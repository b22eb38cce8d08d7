/*
 * planner_fixture.h — the planner tests' session: a catalog with temporary views and Parquet
 * tables, SQL text parsed, analyzed, optimized when asked and planned (sql/planner.h), and the
 * physical tree printed as a compact shape ("Project(HashAggregate[final](Exchange[hash
 * 200](...)))") for assertions. Test-only.
 */
#ifndef CSPARK_TESTS_PLANNER_FIXTURE_H
#define CSPARK_TESTS_PLANNER_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "columnar/col_builder.h"
#include "formats/file_format.h"
#include "sql/analyzer.h"
#include "sql/catalog.h"
#include "sql/optimizer.h"
#include "sql/planner.h"
#include "sql/sql_parser.h"

typedef struct pf_session {
    cs_catalog *cat;
    cs_sql_arena *arena; /* the current statement's */
    cs_sql_planner_ctx ctx;
    cs_error err;
    bool optimize; /* run the optimizer (optimizer.h) between analysis and planning */
} pf_session;

static inline void pf_open(pf_session *s)
{
    memset(s, 0, sizeof *s);
    s->cat = cs_catalog_new();
    s->arena = cs_sql_arena_new();
    cs_sql_planner_conf_default(&s->ctx.conf, 2);
}

static inline void pf_close(pf_session *s)
{
    cs_sql_arena_free(s->arena);
    cs_catalog_free(s->cat);
}

/* CREATE TEMPORARY VIEW name AS query */
static inline int pf_view(pf_session *s, const char *name, const char *query)
{
    cs_sql_arena *va = cs_sql_arena_new();
    cs_sql_statement *st = NULL;
    if (cs_sql_parse_statement(va, query, &st, NULL, &s->err) != 0) {
        cs_sql_arena_free(va);
        return -1;
    }
    return cs_catalog_create_temp_view(s->cat, name, false, true, NULL, 0, st->plan, va, &s->err);
}

/* a Parquet table over the files at location */
static inline int pf_table(pf_session *s, const char *name, const char *location)
{
    const char *parts[1] = {name};
    return cs_catalog_create_table(s->cat, parts, 1, "parquet", location, NULL, NULL, 0, NULL,
                                   false, &s->err);
}

/* Writes rows first..first+n-1 to path as Parquet: id bigint, name string "n<id % names>"
 * (names 0: "n<id>"). */
static inline int pf_write_parquet(const char *path, int64_t first, int64_t n, int names)
{
    const cs_file_format *pq = cs_file_format_find("parquet");
    cs_col_field f[2] = {{"id", cs_col_type_primitive(CS_TYPE_LONG), true},
                         {"name", cs_col_type_primitive(CS_TYPE_STRING), true}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_col_builder *ids = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder *strs = cs_col_builder_new(NULL, schema->fields[1].type);
    for (int64_t i = first; i < first + n; i++) {
        cs_col_builder_append_values(ids, &i, 1, NULL);
        char s[32];
        int len = snprintf(s, sizeof s, "n%lld", (long long)(names ? i % names : i));
        cs_col_builder_append_string(strs, s, (size_t)len);
    }
    cs_column *cols[2] = {cs_col_builder_finish(ids), cs_col_builder_finish(strs)};
    cs_col_builder_free(ids);
    cs_col_builder_free(strs);
    cs_error err = {0};
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, 2, n, &err);
    cs_format_options none = {0};
    void *w = NULL;
    int rc = b && pq->open_writer(path, schema, &none, &w, &err) == 0 &&
                     pq->write_batch(w, b, &err) == 0 && pq->close_writer(w, true, &err) == 0
                 ? 0
                 : -1;
    if (b) cs_col_batch_unref(b);
    cs_col_type_unref(schema);
    return rc;
}

/* Table `events` over dir (made by mkdtemp from its template): folders day=1 and day=2, each
 * one Parquet file of `rows` rows (pf_write_parquet: ids from day * 100, names mod `names`). */
static inline int pf_events_table(pf_session *s, char *dir, int rows, int names)
{
    if (!mkdtemp(dir)) return -1;
    char path[512];
    for (int day = 1; day <= 2; day++) {
        snprintf(path, sizeof path, "%s/day=%d", dir, day);
        mkdir(path, 0755);
        snprintf(path, sizeof path, "%s/day=%d/part-0.parquet", dir, day);
        if (pf_write_parquet(path, day * 100, rows, names) != 0) return -1;
    }
    return pf_table(s, "events", dir);
}

/* The analyzed plan of a query, in the session's arena; NULL + s->err. */
static inline cs_logical_plan *pf_analyze(pf_session *s, const char *sql)
{
    cs_sql_statement *st = NULL;
    cs_error_clear(&s->err);
    if (cs_sql_parse_statement(s->arena, sql, &st, NULL, &s->err) != 0) return NULL;
    cs_logical_plan *p = NULL;
    if (cs_sql_analyze(s->cat, s->arena, st->plan, &p, &s->err) != 0) return NULL;
    return p;
}

static inline cs_phys_node *pf_plan(pf_session *s, const char *sql)
{
    cs_logical_plan *p = pf_analyze(s, sql);
    if (!p) return NULL;
    if (s->optimize) {
        cs_sql_optimizer_conf oc;
        cs_sql_optimizer_conf_default(&oc);
        cs_logical_plan *o = NULL;
        if (cs_sql_optimize(s->cat, s->arena, &oc, p, &o, &s->err) != 0) return NULL;
        p = o;
    }
    cs_phys_node *n = NULL;
    if (cs_sql_plan(&s->ctx, p, &n, &s->err) != 0) return NULL;
    return n;
}

static inline void pf_shape_into(const cs_phys_node *n, cs_sbuf *out)
{
    static const char *const modes[] = {"partial", "final", "complete"};
    static const char *const parts[] = {"hash", "single", "roundrobin", "range"};
    cs_sbuf_puts(out, cs_phys_node_name(n));
    switch (n->kind) {
    case CS_PH_HASH_AGGREGATE:
        cs_sbuf_printf(out, "[%s k%d a%d]", modes[n->agg_mode], n->n_group_keys, n->n_aggs);
        break;
    case CS_PH_EXCHANGE:
        cs_sbuf_printf(out, "[%s %d]", parts[n->partitioning], n->num_partitions);
        break;
    case CS_PH_HASH_JOIN:
    case CS_PH_NESTED_LOOP_JOIN:
        cs_sbuf_printf(out, "[t%d %s k%d%s]", (int)n->join_type,
                       n->build_side == CS_BUILD_RIGHT ? "right" : "left", n->n_join_keys,
                       n->join_condition ? " cond" : "");
        break;
    case CS_PH_TOP_N:
    case CS_PH_LIMIT:
        cs_sbuf_printf(out, "[%lld]", (long long)n->limit);
        break;
    case CS_PH_FILE_SCAN:
        cs_sbuf_printf(out, "[%d groups %d filters]", n->n_groups, n->n_filters);
        break;
    default:
        break;
    }
    if (n->n_children == 0) return;
    cs_sbuf_putc(out, '(');
    for (int i = 0; i < n->n_children; i++) {
        if (i) cs_sbuf_puts(out, ", ");
        pf_shape_into(n->children[i], out);
    }
    cs_sbuf_putc(out, ')');
}

/* The shape of n (a static buffer). */
static inline const char *pf_shape(const cs_phys_node *n)
{
    static char buf[8192];
    cs_sbuf b = {0};
    pf_shape_into(n, &b);
    snprintf(buf, sizeof buf, "%s", b.data ? b.data : "");
    cs_sbuf_free(&b);
    return buf;
}

/* "name:type,..." of n's schema (a static buffer). */
static inline const char *pf_schema(const cs_phys_node *n)
{
    static char buf[4096];
    cs_sbuf b = {0};
    for (int i = 0; i < n->schema->n_fields; i++) {
        if (i) cs_sbuf_putc(&b, ',');
        cs_sbuf_printf(&b, "%s:", n->schema->fields[i].name);
        cs_col_type_simple_string(n->schema->fields[i].type, &b);
    }
    snprintf(buf, sizeof buf, "%s", b.data ? b.data : "");
    cs_sbuf_free(&b);
    return buf;
}

#endif /* CSPARK_TESTS_PLANNER_FIXTURE_H */
