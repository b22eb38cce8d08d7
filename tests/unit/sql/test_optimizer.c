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
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sql/analyzer.h"
#include "sql/catalog.h"
#include "sql/optimizer.h"
#include "sql/optimizer_internal.h"
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

/* Catalyst's missingInput check: every attribute a node's expressions read (subqueries' outer
 * references and pulled-up conditions included) is an output of one of its children. */
static void check_inputs(const cs_logical_plan *p, const char *sql)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_opt_ctx c = {.arena = a};
    cs_opt_attrs refs = {0};
    cs_opt_node_refs(&c, p, &refs);
    for (int i = 0; i < refs.n; i++) {
        bool found = false;
        for (int k = 0; !found && k < p->n_children; k++)
            found = cs_opt_output_find(p->children[k], refs.ids[i]) != NULL;
        if (!found) {
            cs_sbuf b = {0};
            cs_logical_plan_print(p, &b);
            fail_msg("%s: #%lld is not an input of\n%s", sql, (long long)refs.ids[i],
                     cs_sbuf_str(&b));
        }
    }
    cs_sql_arena_free(a);
    for (int k = 0; k < p->n_children; k++)
        check_inputs(p->children[k], sql);
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
    check_inputs(opt, sql);
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

static const cs_sql_optimizer_conf *EXPECT_CONF; /* NULL: the defaults */

static void expect(const char *sql, const char *want)
{
    const char *got = optimize_conf(sql, EXPECT_CONF);
    if (strcmp(got, want) != 0) fail_msg("%s\n--- want\n%s--- got\n%s", sql, want, got);
}

/* ---- pushdown ---- */

static void test_filter_through_project_to_relation(void **state)
{
    (void)state;
    expect("SELECT * FROM (SELECT a, b + 1 AS b1 FROM t1) s WHERE b1 > 3",
           "Project [a, (b + 1) AS b1]\n"
           "+- Filter ((b IS NOT NULL) AND ((b + 1) > 3))\n"
           "   +- Relation spark_catalog.default.t1[a,b] parquet\n");
}

static void test_filter_not_through_nondeterministic_project(void **state)
{
    (void)state;
    expect("SELECT * FROM (SELECT a, rand(1) AS r FROM t1) s WHERE a > 1",
           "Filter ((a IS NOT NULL) AND (a > 1))\n"
           "+- Project [a, rand(1) AS r]\n"
           "   +- Relation spark_catalog.default.t1[a] parquet\n");
    /* a non-deterministic conjunct stays above the join, the other goes into its side */
    expect("SELECT a, x FROM t1 JOIN t2 ON a = x WHERE rand(1) > 0.5 AND b = 1",
           "Filter (rand(1) > 0.5)\n"
           "+- Join Inner, (a = x)\n"
           "   :- Project [a]\n"
           "   :  +- Filter (((b IS NOT NULL) AND (b = 1)) AND (a IS NOT NULL))\n"
           "   :     +- Relation spark_catalog.default.t1[a,b] parquet\n"
           "   +- Filter (x IS NOT NULL)\n"
           "      +- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_outer_join_pushdown(void **state)
{
    (void)state;
    /* the pushdown rules alone: EliminateOuterJoin (opt_join.c) would make some of these
     * joins inner */
    cs_sql_optimizer_conf conf;
    cs_sql_optimizer_conf_default(&conf);
    conf.excluded_rules = "EliminateOuterJoin";
    EXPECT_CONF = &conf;
    /* left outer: WHERE on the left goes down, on the right (null side) stays above; ON on
     * the left (preserved side) stays in the join, ON on the right goes into the right */
    expect("SELECT a, y FROM t1 LEFT JOIN t2 ON a = x AND b = 5 AND y = 6 WHERE b = 1 AND y = 2",
           "Project [a, y]\n"
           "+- Filter ((y IS NOT NULL) AND (y = 2))\n"
           "   +- Join LeftOuter, ((b = 5) AND (a = x))\n"
           "      :- Filter ((b IS NOT NULL) AND (b = 1))\n"
           "      :  +- Relation spark_catalog.default.t1[a,b] parquet\n"
           "      +- Filter (((y IS NOT NULL) AND (y = 6)) AND (x IS NOT NULL))\n"
           "         +- Relation spark_catalog.default.t2[x,y] parquet\n");
    expect("SELECT a, y FROM t1 RIGHT JOIN t2 ON a = x AND b = 5 AND y = 6 WHERE b = 1 AND y = 2",
           "Project [a, y]\n"
           "+- Filter ((b IS NOT NULL) AND (b = 1))\n"
           "   +- Join RightOuter, ((y = 6) AND (a = x))\n"
           "      :- Filter (((b IS NOT NULL) AND (b = 5)) AND (a IS NOT NULL))\n"
           "      :  +- Relation spark_catalog.default.t1[a,b] parquet\n"
           "      +- Filter ((y IS NOT NULL) AND (y = 2))\n"
           "         +- Relation spark_catalog.default.t2[x,y] parquet\n");
    /* full outer: nothing moves */
    expect("SELECT a, y FROM t1 FULL JOIN t2 ON a = x AND b = 5 WHERE b = 1 AND y = 2",
           "Project [a, y]\n"
           "+- Filter ((((b IS NOT NULL) AND (y IS NOT NULL)) AND (b = 1)) AND (y = 2))\n"
           "   +- Join FullOuter, ((a = x) AND (b = 5))\n"
           "      :- Relation spark_catalog.default.t1[a,b] parquet\n"
           "      +- Relation spark_catalog.default.t2[x,y] parquet\n");
    EXPECT_CONF = NULL;
}

/* spark.sql.crossJoin.enabled=false: CheckCartesianProducts refuses a join without a condition
 * unless it is an explicit CROSS JOIN */
static void test_cartesian_product_refused_without_cross_join(void **state)
{
    (void)state;
    cs_sql_optimizer_conf conf;
    cs_sql_optimizer_conf_default(&conf);
    conf.cross_join = false;
    static const char *const refused[] = {
        "SELECT a, x FROM t1, t2",
        "SELECT a, x FROM t1 JOIN t2",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement *st = NULL;
        cs_error err = {0};
        cs_logical_plan *analyzed = NULL, *opt = NULL;
        assert_int_equal(cs_sql_parse_statement(a, refused[i], &st, NULL, &err), 0);
        assert_int_equal(cs_sql_analyze(CAT, a, st->plan, &analyzed, &err), 0);
        if (cs_sql_optimize(CAT, a, &conf, analyzed, &opt, &err) == 0)
            fail_msg("%s: no error without spark.sql.crossJoin.enabled", refused[i]);
        assert_string_equal(err.error_class, "_LEGACY_ERROR_TEMP_1211");
        cs_sql_arena_free(a);
    }
    EXPECT_CONF = &conf;
    expect("SELECT a, x FROM t1 CROSS JOIN t2",
           "Join Cross\n"
           ":- Relation spark_catalog.default.t1[a] parquet\n"
           "+- Relation spark_catalog.default.t2[x] parquet\n");
    EXPECT_CONF = NULL;
    optimize_conf("SELECT a, x FROM t1 JOIN t2 ON a = x", &conf); /* a condition: allowed */
    /* the default allows them */
    optimize("SELECT a, x FROM t1, t2");
}

static void test_filters_that_must_stay(void **state)
{
    (void)state;
    /* the anti-join pattern: IS NULL on the null side stays above the outer join, and no
     * isnotnull is inferred from it */
    expect("SELECT a FROM t1 LEFT JOIN t2 ON a = x WHERE x IS NULL",
           "Project [a]\n"
           "+- Filter (x IS NULL)\n"
           "   +- Join LeftOuter, (a = x)\n"
           "      :- Relation spark_catalog.default.t1[a] parquet\n"
           "      +- Filter (x IS NOT NULL)\n"
           "         +- Relation spark_catalog.default.t2[x] parquet\n");
    /* a filter does not pass a limit: it would change which rows are taken */
    expect("SELECT * FROM (SELECT a FROM t1 LIMIT 5) s WHERE a > 1",
           "Filter ((a IS NOT NULL) AND (a > 1))\n"
           "+- GlobalLimit 5\n"
           "   +- Relation spark_catalog.default.t1[a] parquet\n");
    /* a condition over an aggregate's result stays above it, also without GROUP BY */
    expect("SELECT m FROM (SELECT max(a) AS m FROM t1) s WHERE m > 1",
           "Filter ((m IS NOT NULL) AND (m > 1))\n"
           "+- Aggregate [], [max(a) AS m]\n"
           "   +- Relation spark_catalog.default.t1[a] parquet\n");
}

static void test_inner_join_infers_filters(void **state)
{
    (void)state;
    /* isnotnull on the keys, and a = 5 through a = x gives x = 5 */
    expect("SELECT t1.a FROM t1 JOIN t2 ON t1.a = t2.x WHERE t1.a = 5",
           "Project [a]\n"
           "+- Join Inner, (a = x)\n"
           "   :- Filter ((a IS NOT NULL) AND (a = 5))\n"
           "   :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter ((x IS NOT NULL) AND (x = 5))\n"
           "      +- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_filter_through_aggregate_union_window_generate(void **state)
{
    (void)state;
    expect("SELECT a, s FROM (SELECT a, sum(b) AS s FROM t1 GROUP BY a) g WHERE a > 1 AND s > 10",
           "Filter ((s IS NOT NULL) AND (s > 10))\n"
           "+- Aggregate [a], [a, sum(b) AS s]\n"
           "   +- Filter ((a IS NOT NULL) AND (a > 1))\n"
           "      +- Relation spark_catalog.default.t1[a,b] parquet\n");
    expect("SELECT * FROM (SELECT a FROM t1 UNION ALL SELECT x FROM t2) u WHERE a > 1",
           "Union All true, false\n"
           ":- Filter ((a IS NOT NULL) AND (a > 1))\n"
           ":  +- Relation spark_catalog.default.t1[a] parquet\n"
           "+- Filter ((x IS NOT NULL) AND (x > 1))\n"
           "   +- Relation spark_catalog.default.t2[x] parquet\n");
    /* a partition column goes below the window, the window's result does not */
    const char *w = optimize("SELECT * FROM (SELECT a, b, row_number() OVER (PARTITION BY a ORDER "
                             "BY b) AS rn FROM t1) s WHERE a = 1 AND rn = 1");
    assert_non_null(strstr(w, "   +- Window ["));
    assert_non_null(strstr(w, "      +- Filter ((a IS NOT NULL) AND (a = 1))\n"
                              "         +- Relation spark_catalog.default.t1[a,b] parquet\n"));
    expect("SELECT a, c2 FROM t1 LATERAL VIEW explode(array(b, b)) g AS c2 WHERE a > 1 AND c2 > 2",
           "Project [a, c2]\n"
           "+- Filter ((c2 IS NOT NULL) AND (c2 > 2))\n"
           "   +- Generate explode(array(b, b)), false, [a, b, c2]\n"
           "      +- Filter ((a IS NOT NULL) AND (a > 1))\n"
           "         +- Relation spark_catalog.default.t1[a,b] parquet\n");
}

static void test_extra_predicates_from_or_join_condition(void **state)
{
    (void)state;
    expect("SELECT a FROM t1 JOIN t2 ON (a = 1 AND x = 2) OR (a = 3 AND y = 4)",
           "Project [a]\n"
           "+- Join Inner, (((a = 1) AND (x = 2)) OR ((a = 3) AND (y = 4)))\n"
           "   :- Filter ((a = 1) OR (a = 3))\n"
           "   :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter ((x = 2) OR (y = 4))\n"
           "      +- Relation spark_catalog.default.t2[x,y] parquet\n");
}

/* ---- expressions ---- */

static void test_constant_folding(void **state)
{
    (void)state;
    expect("SELECT a + (1 + 2) AS x, upper('abc') AS u, CAST('2024-01-02' AS DATE) AS dt FROM t1",
           "Project [(a + 3) AS x, ABC AS u, DATE '2024-01-02' AS dt]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
}

static void test_constant_folding_keeps_failing_expression(void **state)
{
    (void)state;
    /* 1 / 0 raises DIVIDE_BY_ZERO only when a row reaches it: not folded */
    expect("SELECT a FROM t1 WHERE b > 1 / 0",
           "Project [a]\n"
           "+- Filter ((b IS NOT NULL) AND (cast(b as double) > (1.0 / 0.0)))\n"
           "   +- Relation spark_catalog.default.t1[a,b] parquet\n");
}

static void test_current_time_is_one_instant(void **state)
{
    (void)state;
    const char *got = optimize("SELECT current_timestamp() AS t1, now() AS t2, current_date() AS "
                               "d, a FROM t1");
    /* Project [TIMESTAMP '...' AS t1, TIMESTAMP '...' AS t2, DATE '...' AS d, a] */
    const char *t1 = strstr(got, "TIMESTAMP '");
    assert_non_null(t1);
    const char *t2 = strstr(t1 + 1, "TIMESTAMP '");
    assert_non_null(t2);
    const char *end = strchr(t1 + 11, '\'');
    assert_non_null(end);
    size_t n = (size_t)(end - t1);
    assert_memory_equal(t1, t2, n); /* the same instant */
    assert_non_null(strstr(got, "DATE '"));
    assert_null(strstr(got, "current_"));
}

static void test_simplifications(void **state)
{
    (void)state;
    /* LIKE 'ab%' is startswith, IN of one value is =, TRUE OR x is TRUE, NOT (a > 2) is
     * a <= 2, CASE WHEN false is its ELSE */
    expect("SELECT a FROM t1 WHERE c LIKE 'ab%' AND b IN (1, 1) AND (true OR a > 1) AND NOT (a > "
           "2) AND d > CASE WHEN false THEN 1.0 ELSE 2.0 END",
           "Project [a]\n"
           "+- Filter ((((((((c IS NOT NULL) AND (b IS NOT NULL)) AND (a IS NOT NULL)) AND (d IS "
           "NOT NULL)) AND startswith(c, ab)) AND (b = 1)) AND (a <= 2)) AND (d > 2.0))\n"
           "   +- Relation spark_catalog.default.t1[a,b,c,d] parquet\n");
    expect("SELECT a FROM t1 WHERE c LIKE '%ab' OR c LIKE '%ab%' OR c LIKE 'a%b' OR c LIKE 'ab'",
           "Project [a]\n"
           "+- Filter (((endswith(c, ab) OR contains(c, ab)) OR (((length(c) >= 2) AND "
           "startswith(c, a)) AND endswith(c, b))) OR (c = ab))\n"
           "   +- Relation spark_catalog.default.t1[a,c] parquet\n");
    /* a cast to the same type, IF with equal branches, coalesce after a null */
    expect("SELECT CAST(a AS INT) AS a2, IF(a > 1, 1, 1) AS i, coalesce(NULL, a) AS co FROM t1",
           "Project [a AS a2, 1 AS i, a AS co]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
    /* the common conjunct of OR branches comes out */
    expect("SELECT a FROM t1 WHERE (a = 1 AND b = 2) OR (a = 1 AND b = 3)",
           "Project [a]\n"
           "+- Filter (((a IS NOT NULL) AND (a = 1)) AND ((b = 2) OR (b = 3)))\n"
           "   +- Relation spark_catalog.default.t1[a,b] parquet\n");
    /* an OR of nullable tests implies no isnotnull */
    expect("SELECT a FROM t1 WHERE a IS NULL OR NOT (b IS NULL)",
           "Project [a]\n"
           "+- Filter ((a IS NULL) OR (b IS NOT NULL))\n"
           "   +- Relation spark_catalog.default.t1[a,b] parquet\n");
}

static void test_false_and_null_filters_are_empty(void **state)
{
    (void)state;
    expect("SELECT a FROM t1 WHERE 1 = 0", "LocalRelation [a]\n");
    expect("SELECT a FROM t1 WHERE b + NULL > 1", "LocalRelation [a]\n");
    expect("SELECT a, y FROM t1 LEFT JOIN (SELECT x, y FROM t2 WHERE 1 = 0) e ON a = x",
           "Project [a, null AS y]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
}

/* ---- structure ---- */

static void test_column_pruning_and_collapse(void **state)
{
    (void)state;
    expect("SELECT a FROM t1", "Relation spark_catalog.default.t1[a] parquet\n");
    expect("SELECT x + 1 AS y FROM (SELECT a + 1 AS x FROM t1)",
           "Project [((a + 1) + 1) AS y]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
    /* rand() read twice is not duplicated */
    expect("SELECT r + r AS rr FROM (SELECT rand(1) AS r FROM t1)",
           "Project [(r + r) AS rr]\n"
           "+- Project [rand(1) AS r]\n"
           "   +- Relation spark_catalog.default.t1[] parquet\n");
    /* the result keeps the alias's column name */
    expect("SELECT * FROM (SELECT a FROM t1) AS s(k)",
           "Project [k]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
    expect("SELECT count(*) FROM t1", "Aggregate [], [count(1) AS count(1)]\n"
                                      "+- Relation spark_catalog.default.t1[] parquet\n");
    /* a projection of an aggregate's results joins its list, unless non-deterministic */
    expect("SELECT s * 2 AS t FROM (SELECT a, sum(b) AS s FROM t1 GROUP BY a)",
           "Aggregate [a], [(sum(b) * 2) AS t]\n"
           "+- Relation spark_catalog.default.t1[a,b] parquet\n");
    expect("SELECT s + rand(1) AS t FROM (SELECT a, sum(b) AS s FROM t1 GROUP BY a)",
           "Project [(cast(s as double) + rand(1)) AS t]\n"
           "+- Aggregate [a], [sum(b) AS s]\n"
           "   +- Relation spark_catalog.default.t1[a,b] parquet\n");
    /* an inner join without a condition is a cross join */
    expect("SELECT a, x FROM t1, t2", "Join Cross\n"
                                      ":- Relation spark_catalog.default.t1[a] parquet\n"
                                      "+- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_redundant_aliases(void **state)
{
    (void)state;
    /* a AS k, then k AS a: a AS a, which the join reads as a itself */
    expect("SELECT x FROM (SELECT k AS a FROM (SELECT a AS k FROM t1)) s JOIN t2 ON s.a = x",
           "Project [x]\n"
           "+- Join Inner, (a = x)\n"
           "   :- Filter (a IS NOT NULL)\n"
           "   :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter (x IS NOT NULL)\n"
           "      +- Relation spark_catalog.default.t2[x] parquet\n");
    /* unless the result's column is that alias */
    expect("SELECT s.a FROM (SELECT k AS a FROM (SELECT a AS k FROM t1)) s JOIN t2 ON s.a = x",
           "Project [a]\n"
           "+- Join Inner, (a = x)\n"
           "   :- Project [a AS a]\n"
           "   :  +- Filter (a IS NOT NULL)\n"
           "   :     +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter (x IS NOT NULL)\n"
           "      +- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_distinct_and_union_distinct_are_aggregates(void **state)
{
    (void)state;
    expect("SELECT DISTINCT a FROM t1", "Aggregate [a], [a]\n"
                                        "+- Relation spark_catalog.default.t1[a] parquet\n");
    expect("SELECT a FROM t1 UNION SELECT x FROM t2",
           "Aggregate [a], [a]\n"
           "+- Union All true, false\n"
           "   :- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_distinct_aggregates_rewrite(void **state)
{
    (void)state;
    /* RewriteDistinctAggregates: distinct aggregates over two argument sets and a regular one */
    expect("SELECT c, count(DISTINCT a), sum(DISTINCT b), avg(d) FROM t1 GROUP BY c",
           "Aggregate [c], [c, count(a) FILTER (WHERE (gid = 1)) AS count(DISTINCT a), sum(b) "
           "FILTER (WHERE (gid = 2)) AS sum(DISTINCT b), first(avg(d), true) FILTER (WHERE (gid "
           "= 0)) AS avg(d)]\n"
           "+- Aggregate [c, a, b, gid], [c, a, b, gid, avg(d) AS avg(d)]\n"
           "   +- Expand\n"
           "      +- Relation spark_catalog.default.t1[a,b,c,d] parquet\n");
    /* a distinct aggregate with a FILTER */
    expect("SELECT count(DISTINCT a) FILTER (WHERE b > 1), count(DISTINCT c) FROM t1",
           "Aggregate [], [count(a) FILTER (WHERE ((gid = 1) AND (b > 1))) AS count(DISTINCT a) "
           "FILTER (WHERE (b > 1)), count(c) FILTER (WHERE (gid = 2)) AS count(DISTINCT c)]\n"
           "+- Aggregate [a, c, gid], [a, c, gid, max((b > 1)) AS (b > 1)]\n"
           "   +- Expand\n"
           "      +- Relation spark_catalog.default.t1[a,b,c] parquet\n");
    /* one distinct argument and merging regular aggregates: the planner's two-level plan */
    expect("SELECT count(DISTINCT a), sum(a), count(*) FROM t1",
           "Aggregate [], [count(DISTINCT a) AS count(DISTINCT a), sum(a) AS sum(a), count(1) AS "
           "count(1)]\n"
           "+- Relation spark_catalog.default.t1[a] parquet\n");
}

static void test_limits(void **state)
{
    (void)state;
    expect("SELECT * FROM t1 UNION ALL SELECT * FROM t1 LIMIT 5",
           "GlobalLimit 5\n"
           "+- Union All true, false\n"
           "   :- LocalLimit 5\n"
           "   :  +- Relation spark_catalog.default.t1[a,b,c,d] parquet\n"
           "   +- LocalLimit 5\n"
           "      +- Relation spark_catalog.default.t1[a,b,c,d] parquet\n");
    /* into the preserved side of an outer join only */
    expect("SELECT a, y FROM t1 LEFT JOIN t2 ON a = x LIMIT 3",
           "GlobalLimit 3\n"
           "+- Project [a, y]\n"
           "   +- Join LeftOuter, (a = x)\n"
           "      :- LocalLimit 3\n"
           "      :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "      +- Filter (x IS NOT NULL)\n"
           "         +- Relation spark_catalog.default.t2[x,y] parquet\n");
    expect("SELECT count(*) FROM t1 LIMIT 10", "Aggregate [], [count(1) AS count(1)]\n"
                                               "+- Relation spark_catalog.default.t1[] parquet\n");
    expect("SELECT a FROM t1 LIMIT 0", "LocalRelation [a]\n");
    expect("SELECT a FROM t1 LIMIT 1 - 1", "LocalRelation [a]\n"); /* a folded limit */
    /* limits combine, and a limit of a sorted projection sits on the sort (a TopN) */
    expect("SELECT a FROM (SELECT a FROM t1 ORDER BY b LIMIT 10) LIMIT 5",
           "Project [a]\n"
           "+- GlobalLimit 5\n"
           "   +- Sort [b ASC NULLS FIRST], true\n"
           "      +- Relation spark_catalog.default.t1[a,b] parquet\n");
}

static void test_hints_on_joins(void **state)
{
    (void)state;
    expect("SELECT /*+ BROADCAST(t2) */ a, y FROM t1 JOIN t2 ON a = x",
           "Project [a, y]\n"
           "+- Join Inner, (a = x), rightHint=(strategy=broadcast)\n"
           "   :- Filter (a IS NOT NULL)\n"
           "   :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter (x IS NOT NULL)\n"
           "      +- Relation spark_catalog.default.t2[x,y] parquet\n");
    expect("SELECT /*+ MERGE(l) */ l.a FROM t1 l JOIN t2 r ON l.a = r.x",
           "Project [a]\n"
           "+- Join Inner, (a = x), leftHint=(strategy=shuffle_merge)\n"
           "   :- Filter (a IS NOT NULL)\n"
           "   :  +- Relation spark_catalog.default.t1[a] parquet\n"
           "   +- Filter (x IS NOT NULL)\n"
           "      +- Relation spark_catalog.default.t2[x] parquet\n");
}

static void test_subquery_outer_reference_to_alias(void **state)
{
    (void)state;
    /* the EXISTS reads k, which the projection defines: whatever the subquery becomes (a
     * filter, or a semi join once RewritePredicateSubquery runs), nothing reads k below the
     * projection (optimize() checks every node's inputs); before, the filter went below it */
    const char *got = optimize("SELECT * FROM (SELECT a + 1 AS k FROM t1) s WHERE EXISTS "
                               "(SELECT 1 FROM t2 WHERE x = s.k)");
    assert_non_null(strstr(got, "Project [(a + 1) AS k]"));
    /* a correlated column read only by the subquery is not pruned */
    got = optimize("SELECT a FROM t1 WHERE EXISTS (SELECT 1 FROM t2 WHERE x = t1.b)");
    assert_non_null(strstr(got, "Relation spark_catalog.default.t1[a,b] parquet"));
    /* the projections are not merged when a subquery reads the inner one's alias */
    optimize("SELECT k, (SELECT max(x) FROM t2 WHERE x = s.k) AS m FROM (SELECT a + 1 AS k FROM "
             "t1) s");
}

static void test_excluded_rules(void **state)
{
    (void)state;
    cs_sql_optimizer_conf conf;
    cs_sql_optimizer_conf_default(&conf);
    assert_int_equal(conf.max_iterations, 100);
    conf.excluded_rules = "org.apache.spark.sql.catalyst.optimizer.ConstantFolding, ColumnPruning";
    const char *got = optimize_conf("SELECT a + (1 + 2) AS x FROM t1", &conf);
    assert_string_equal(got, "Project [(a + (1 + 2)) AS x]\n"
                             "+- Relation spark_catalog.default.t1[a,b,c,d] parquet\n");
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

/* Every statement of the golden corpus (tests/sql/corpus, next to this file's folder) that
 * the analyzer accepts optimizes, keeping its result columns. Views are created as the corpus
 * creates them; statements over data files fail analysis here (no files) and are skipped. */
static int corpus_file(const char *path, int *checked)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    cs_sbuf text = {0};
    char line[4096];
    cs_catalog *cat = cs_catalog_new();
    while (fgets(line, sizeof line, f)) {
        if (text.len == 0 && (line[0] == '\n' || strncmp(line, "--", 2) == 0)) continue;
        cs_sbuf_puts(&text, line);
        size_t n = strlen(line);
        while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
            n--;
        if (!n || line[n - 1] != ';') continue;
        char *sql = cs_sbuf_detach(&text, NULL);
        char *semi = strrchr(sql, ';');
        if (semi) *semi = '\0';
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement *st = NULL;
        cs_error err = {0};
        bool kept = false;
        if (cs_sql_parse_statement(a, sql, &st, NULL, &err) == 0) {
            if (st->kind == CS_STMT_CREATE_VIEW && st->plan) {
                cs_catalog_create_temp_view(cat, st->parts[st->n_parts - 1], st->global,
                                            st->or_replace, st->column_names, st->n_columns,
                                            st->plan, a, &err);
                kept = true; /* the catalog owns the arena now */
            } else if (st->kind == CS_STMT_QUERY) {
                cs_logical_plan *an = NULL, *opt = NULL;
                if (cs_sql_analyze(cat, a, st->plan, &an, &err) == 0) {
                    if (cs_sql_optimize(cat, a, NULL, an, &opt, &err) != 0)
                        fail_msg("%s: %s\n%s", path, sql, err.msg);
                    check_inputs(opt, sql);
                    assert_int_equal(opt->n_output, an->n_output);
                    for (int i = 0; i < an->n_output; i++) {
                        assert_int_equal(opt->output[i]->id, an->output[i]->id);
                        assert_string_equal(opt->output[i]->name, an->output[i]->name);
                    }
                    (*checked)++;
                    if (getenv("SHOW_CORPUS") && strstr(path, getenv("SHOW_CORPUS"))) {
                        cs_sbuf b = {0};
                        cs_logical_plan_print(opt, &b);
                        printf("%s\n%s\n", sql, cs_sbuf_str(&b));
                        cs_sbuf_free(&b);
                    }
                }
            }
        }
        if (!kept) cs_sql_arena_free(a);
        free(sql);
    }
    cs_sbuf_free(&text);
    cs_catalog_free(cat);
    fclose(f);
    return 0;
}

static void test_corpus_statements_optimize(void **state)
{
    (void)state;
    static const char *const files[] = {
        "aggregates",   "canonical", "casts",      "clauses",    "conditional", "datetime",
        "decimal",      "errors",    "generators", "hashing",    "joins",       "math",
        "select_basic", "setops",    "strings",    "subqueries", "window"};
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", __FILE__);
    char *slash = strrchr(dir, '/');
    assert_non_null(slash);
    *slash = '\0'; /* tests/unit/sql */
    int checked = 0;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[1200];
        snprintf(path, sizeof path, "%s/../../sql/corpus/%s.sql", dir, files[i]);
        if (corpus_file(path, &checked) != 0) fail_msg("cannot read %s", path);
    }
    if (getenv("SHOW_TPCH")) printf("%d corpus statements optimized\n", checked);
    assert_true(checked > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filter_through_project_to_relation),
        cmocka_unit_test(test_filter_not_through_nondeterministic_project),
        cmocka_unit_test(test_outer_join_pushdown),
        cmocka_unit_test(test_cartesian_product_refused_without_cross_join),
        cmocka_unit_test(test_filters_that_must_stay),
        cmocka_unit_test(test_inner_join_infers_filters),
        cmocka_unit_test(test_filter_through_aggregate_union_window_generate),
        cmocka_unit_test(test_extra_predicates_from_or_join_condition),
        cmocka_unit_test(test_constant_folding),
        cmocka_unit_test(test_constant_folding_keeps_failing_expression),
        cmocka_unit_test(test_current_time_is_one_instant),
        cmocka_unit_test(test_simplifications),
        cmocka_unit_test(test_false_and_null_filters_are_empty),
        cmocka_unit_test(test_column_pruning_and_collapse),
        cmocka_unit_test(test_redundant_aliases),
        cmocka_unit_test(test_distinct_and_union_distinct_are_aggregates),
        cmocka_unit_test(test_distinct_aggregates_rewrite),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_hints_on_joins),
        cmocka_unit_test(test_subquery_outer_reference_to_alias),
        cmocka_unit_test(test_excluded_rules),
        cmocka_unit_test(test_tpch_queries_optimize),
        cmocka_unit_test(test_corpus_statements_optimize),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
