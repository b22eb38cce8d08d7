/*
 * test_optimizer_subquery.c — src/sql/opt_subquery.c and opt_join.c: statements are parsed,
 * analyzed over the fixture's views t, u and the TPC-H tables (views of typed nulls), run
 * through the rules, and the plans' shapes are asserted on cs_logical_plan_print's text with
 * the expression ids taken out ("a#12" reads "a"): EXISTS / IN to semi and anti joins, NOT IN
 * null-aware, IN and EXISTS under OR and in select lists as existence joins with SQL's
 * three-valued IN, correlated scalar subqueries as left outer joins with Spark's count-bug
 * fix, errors for correlations the rewrite cannot keep exact, set operations, outer join
 * elimination, ReorderJoin's order (and the CBO greedy one), and every TPC-H query left with
 * no subquery but uncorrelated scalar ones whatever the order of the rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyzer_fixture.h"
#include "sql/optimizer_internal.h"
#include "sql/sql_parser.h"
#include "tpch_queries.h"

static const char *const TPCH_TABLES[][2] = {
    {"part", "p_partkey bigint; p_name string; p_mfgr string; p_brand string; p_type string; "
             "p_size int; p_container string; p_retailprice decimal(15,2); p_comment string"},
    {"supplier", "s_suppkey bigint; s_name string; s_address string; s_nationkey bigint; "
                 "s_phone string; s_acctbal decimal(15,2); s_comment string"},
    {"partsupp", "ps_partkey bigint; ps_suppkey bigint; ps_availqty int; "
                 "ps_supplycost decimal(15,2); ps_comment string"},
    {"customer", "c_custkey bigint; c_name string; c_address string; c_nationkey bigint; "
                 "c_phone string; c_acctbal decimal(15,2); c_mktsegment string; c_comment string"},
    {"orders", "o_orderkey bigint; o_custkey bigint; o_orderstatus string; "
               "o_totalprice decimal(15,2); o_orderdate date; o_orderpriority string; "
               "o_clerk string; o_shippriority int; o_comment string"},
    {"lineitem", "l_orderkey bigint; l_partkey bigint; l_suppkey bigint; l_linenumber int; "
                 "l_quantity decimal(15,2); l_extendedprice decimal(15,2); "
                 "l_discount decimal(15,2); l_tax decimal(15,2); l_returnflag string; "
                 "l_linestatus string; l_shipdate date; l_commitdate date; l_receiptdate date; "
                 "l_shipinstruct string; l_shipmode string; l_comment string"},
    {"nation", "n_nationkey bigint; n_name string; n_regionkey bigint; n_comment string"},
    {"region", "r_regionkey bigint; r_name string; r_comment string"},
};

/* CREATE TEMPORARY VIEW name AS SELECT CAST(NULL AS type) AS col, ... (columns `;`-separated) */
static void make_tpch_views(void)
{
    for (size_t t = 0; t < sizeof TPCH_TABLES / sizeof *TPCH_TABLES; t++) {
        char sql[2048] = "select ";
        char cols[1024];
        snprintf(cols, sizeof cols, "%s", TPCH_TABLES[t][1]);
        bool first = true;
        for (char *save = NULL, *col = strtok_r(cols, ";", &save); col;
             col = strtok_r(NULL, ";", &save)) {
            while (*col == ' ')
                col++;
            char name[64], type[64];
            assert_int_equal(sscanf(col, "%63s %63s", name, type), 2);
            size_t n = strlen(sql);
            snprintf(sql + n, sizeof sql - n, "%scast(null as %s) as %s", first ? "" : ", ", type,
                     name);
            first = false;
        }
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement *st = NULL;
        cs_error err = {0};
        assert_int_equal(cs_sql_parse_statement(a, sql, &st, NULL, &err), 0);
        assert_int_equal(cs_catalog_create_temp_view(CAT, TPCH_TABLES[t][0], false, false, NULL, 0,
                                                     st->plan, a, &err),
                         0);
    }
}

static int setup(void **state)
{
    fixture_setup(state);
    make_tpch_views();
    return 0;
}

static cs_sql_optimizer_conf CONF;
static cs_opt_ctx CTX;

static cs_logical_plan *analyzed(const char *sql)
{
    cs_sql_statement *st = NULL;
    cs_error_clear(&ERR);
    if (cs_sql_parse_statement(B_ARENA, sql, &st, NULL, &ERR) != 0) fail_msg("%s", ERR.msg);
    cs_logical_plan *p = NULL;
    if (cs_sql_analyze(CAT, B_ARENA, st->plan, &p, &ERR) != 0) fail_msg("%s: %s", sql, ERR.msg);
    CONF = (cs_sql_optimizer_conf){.max_iterations = 100};
    CTX = (cs_opt_ctx){.catalog = CAT, .arena = B_ARENA, .conf = &CONF};
    return p;
}

/* The rules in order over p: 0 and *out, or the first failing rule's code (ERR set). */
static int apply(cs_logical_plan *p, const cs_opt_rule_fn *rules, int n, cs_logical_plan **out)
{
    cs_error_clear(&ERR);
    for (int i = 0; i < n; i++) {
        int rc = rules[i](&CTX, p, &p, &ERR);
        if (rc) return rc;
    }
    *out = p;
    return 0;
}

static const cs_opt_rule_fn SUBQUERY_RULES[] = {
    cs_opt_pull_up_correlated, cs_opt_rewrite_predicate_subquery, cs_opt_rewrite_scalar_subquery};

/* The plan's text without expression ids. */
static const char *text_of(const cs_logical_plan *p)
{
    static char buf[65536];
    cs_sbuf b = {0};
    cs_logical_plan_print(p, &b);
    const char *s = cs_sbuf_str(&b);
    size_t n = 0;
    for (size_t i = 0; s[i] && n + 1 < sizeof buf; i++) {
        if (s[i] == '#' && s[i + 1] >= '0' && s[i + 1] <= '9') {
            i++;
            while (s[i + 1] >= '0' && s[i + 1] <= '9')
                i++;
            if (s[i + 1] == 'L') i++;
            continue;
        }
        buf[n++] = s[i];
    }
    buf[n] = '\0';
    cs_sbuf_free(&b);
    return buf;
}

static const char *rewritten(const char *sql)
{
    cs_logical_plan *p = analyzed(sql), *r = NULL;
    if (apply(p, SUBQUERY_RULES, 3, &r) != 0) fail_msg("%s: %s", sql, ERR.msg);
    return text_of(r);
}

#define assert_has(text, part)                                                                     \
    do {                                                                                           \
        const char *t_ = (text);                                                                   \
        if (!strstr(t_, (part))) fail_msg("missing `%s` in\n%s", (part), t_);                      \
    } while (0)

#define assert_lacks(text, part)                                                                   \
    do {                                                                                           \
        const char *t_ = (text);                                                                   \
        if (strstr(t_, (part))) fail_msg("unexpected `%s` in\n%s", (part), t_);                    \
    } while (0)

/* ---- what is left of subqueries ---- */

static bool expr_has(const cs_sql_expr *e, bool (*bad)(const cs_sql_expr *));

static bool plan_has(const cs_logical_plan *p, bool (*bad)(const cs_sql_expr *))
{
    cs_sql_expr *const *lists[] = {p->exprs, p->group_by, p->order, p->partition};
    int ns[] = {p->n_exprs, p->n_group_by, p->n_order, p->n_partition};
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < ns[k]; i++)
            if (expr_has(lists[k][i], bad)) return true;
    if (expr_has(p->condition, bad) || expr_has(p->limit, bad)) return true;
    for (int i = 0; i < p->n_children; i++)
        if (plan_has(p->children[i], bad)) return true;
    return false;
}

static bool expr_has(const cs_sql_expr *e, bool (*bad)(const cs_sql_expr *))
{
    if (!e) return false;
    if (bad(e)) return true;
    for (int i = 0; i < e->n_args; i++)
        if (expr_has(e->args[i], bad)) return true;
    if (e->subquery && plan_has(e->subquery, bad)) return true;
    return false;
}

static bool is_outer_ref(const cs_sql_expr *e)
{
    return e->kind == CS_EX_OUTER_ATTR;
}

/* anything but an uncorrelated scalar subquery */
static bool is_left_subquery(const cs_sql_expr *e)
{
    if (e->kind == CS_EX_IN_SUBQUERY || e->kind == CS_EX_EXISTS) return true;
    return e->kind == CS_EX_SCALAR_SUBQUERY &&
           (e->join_cond || plan_has(e->subquery, is_outer_ref));
}

static bool is_any_subquery(const cs_sql_expr *e)
{
    return e->kind == CS_EX_IN_SUBQUERY || e->kind == CS_EX_EXISTS ||
           e->kind == CS_EX_SCALAR_SUBQUERY;
}

/* ---- predicate subqueries ---- */

static void test_exists_is_a_semi_join(void **state)
{
    (void)state;
    const char *t = rewritten("select a from t where b > 1 and exists (select 1 from u where "
                              "u.a = t.a and u.c > 2)");
    assert_has(t, "Join LeftSemi, (a = a)\n");
    assert_has(t, ":- Filter (b > cast(1 as bigint))\n");
    assert_has(t, "Filter (c > 2)"); /* the local predicate stays in the subquery */
    t = rewritten("select a from t where not exists (select 1 from u where u.a = t.a)");
    assert_has(t, "Join LeftAnti, (a = a)\n");
    /* EXISTS over an aggregate without GROUP BY is true: the aggregate has its row */
    t = rewritten("select a from t where not exists (select count(*) from u where u.a = t.a)");
    assert_has(t, "Filter (NOT true)");
    assert_lacks(t, "Join");
    /* uncorrelated EXISTS: a semi join without condition */
    t = rewritten("select a from t where exists (select 1 from u)");
    assert_has(t, "Join LeftSemi\n");
}

static void test_in_is_a_semi_join_and_not_in_null_aware(void **state)
{
    (void)state;
    assert_has(rewritten("select a from t where a in (select c from u)"),
               "Join LeftSemi, (a = c)\n");
    cs_logical_plan *p = analyzed("select a from t where a not in (select c from u)"), *r = NULL;
    assert_int_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_has(text_of(r), "Join LeftAnti, ((a = c) OR ((a = c) IS NULL))\n");
    const cs_logical_plan *j = r;
    while (j->kind != CS_LP_JOIN)
        j = j->children[0];
    assert_true(j->null_aware);
    /* correlated NOT IN: the null-aware equality and the correlation, not marked */
    p = analyzed("select a from t where a not in (select c from u where u.a = t.a)");
    assert_int_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_has(text_of(r), "Join LeftAnti, (((a = c) OR ((a = c) IS NULL)) AND (a = a))\n");
    for (j = r; j->kind != CS_LP_JOIN;)
        j = j->children[0];
    assert_false(j->null_aware);
    /* the subquery kept its rows: no distinct added to the semi join's right side */
    assert_lacks(rewritten("select a from t where a in (select c from u)"), "Aggregate");
}

static void test_in_under_or_keeps_three_valued_logic(void **state)
{
    (void)state;
    const char *t = rewritten("select a from t where b = 1 or a in (select c from u)");
    /* true on a match, null when a comparison was null, false otherwise */
    assert_has(t, "Filter ((b = cast(1 as bigint)) OR CASE WHEN exists THEN true WHEN exists THEN "
                  "null ELSE false END)");
    assert_has(t, "Join ExistenceJoin(exists), ((a = c) OR ((a = c) IS NULL))");
    assert_has(t, "Join ExistenceJoin(exists), (a = c)");
    assert_has(t, "Project [a]"); /* the exists columns do not leave the filter */
    t = rewritten("select a, exists (select 1 from u where u.a = t.a) as e from t");
    assert_has(t, "Project [a, exists AS e]");
    assert_has(t, "Join ExistenceJoin(exists), (a = a)");
    t = rewritten("select a, a in (select c from u) as i from t");
    assert_has(t, "CASE WHEN exists THEN true WHEN exists THEN null ELSE false END AS i");
}

/* ---- scalar subqueries ---- */

static void test_correlated_scalar_is_a_left_outer_join(void **state)
{
    (void)state;
    /* avg over no rows is null: no count-bug column */
    const char *t = rewritten("select a from t where f > (select avg(c) from u where u.a = t.a)");
    assert_has(t, "Join LeftOuter, (a = a)\n");
    assert_has(t, "Aggregate [a], [avg(c) AS avg(c), a]");
    assert_lacks(t, "alwaysTrue");
    /* count over no rows is 0, not null: Spark's count-bug fix */
    t = rewritten("select a, (select count(*) from u where u.a = t.a) as n from t");
    assert_has(t, "Join LeftOuter, (a = a)\n");
    assert_has(t, "Project [count(1), a, true AS alwaysTrue]");
    assert_has(t, "if((alwaysTrue IS NULL), 0, count(1)) AS count(1)");
    assert_has(t, "Project [a, count(1) AS n]");
    /* HAVING goes above the join */
    t = rewritten("select a from t where b = (select count(*) from u where u.a = t.a "
                  "having count(*) > 1)");
    assert_has(t, "CASE WHEN (alwaysTrue IS NULL) THEN if((0 > cast(1 as bigint)), 0, null) WHEN "
                  "(NOT (count(1) > cast(1 as bigint))) THEN null ELSE count(1) END AS count(1)]\n"
                  "         +- Join LeftOuter, (a = a)\n");
    assert_has(t, "Filter (b = count(1))");
}

static void test_correlations_the_rewrite_cannot_keep_are_errors(void **state)
{
    (void)state;
    cs_logical_plan *p, *r;
    /* a non-equality correlated predicate under an aggregate would change its groups */
    p = analyzed("select a from t where b = (select count(*) from u where u.a > t.a)");
    assert_int_not_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_true(cs_sql_error_is(
        &ERR, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.CORRELATED_COLUMN_IS_NOT_ALLOWED_IN_"
              "PREDICATE"));
    /* a correlated scalar subquery must be aggregated */
    p = analyzed("select a from t where a = (select c from u where u.a = t.a)");
    assert_int_not_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_true(cs_sql_error_is(
        &ERR, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.MUST_AGGREGATE_CORRELATED_SCALAR_"
              "SUBQUERY"));
    /* ... and grouped by its correlation columns only */
    p = analyzed("select a from t where a = (select max(c) from u where u.a = t.a group by c)");
    assert_int_not_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_true(cs_sql_error_is(
        &ERR, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.NON_CORRELATED_COLUMNS_IN_GROUP_BY"));
    /* a global aggregate has a row for every outer row: grouped, an IN would lose it */
    p = analyzed("select a from t where a not in (select count(*) from u where u.a = t.a)");
    assert_int_not_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_true(cs_sql_error_is(
        &ERR, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_"
              "ALLOWED"));
    /* a correlation under a LIMIT */
    p = analyzed("select a from t where exists (select 1 from u where u.a = t.a limit 1)");
    assert_int_not_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_true(cs_sql_error_is(
        &ERR, "UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.ACCESSING_OUTER_QUERY_COLUMN_IS_NOT_"
              "ALLOWED"));
}

static int OPTIMIZED;

static int count_optimize(cs_opt_ctx *c, const cs_logical_plan *p, cs_logical_plan **out,
                          cs_error *err)
{
    (void)c, (void)err;
    OPTIMIZED++;
    *out = (cs_logical_plan *)p;
    return 0;
}

static cs_plan_kind OPTIMIZED_KIND;

static int record_optimize(cs_opt_ctx *c, const cs_logical_plan *p, cs_logical_plan **out,
                           cs_error *err)
{
    OPTIMIZED_KIND = p->kind;
    return count_optimize(c, p, out, err);
}

static const cs_sql_expr *SUBS[8];
static int N_SUBS;

static bool collect_scalar(const cs_sql_expr *e)
{
    if (e->kind == CS_EX_SCALAR_SUBQUERY && N_SUBS < 8) SUBS[N_SUBS++] = e;
    return false;
}

static void test_optimize_subqueries_runs_the_optimizer_and_drops_top_sorts(void **state)
{
    (void)state;
    cs_logical_plan *p = analyzed("select a from t where b = (select max(c) from u order by 1 "
                                  "limit 1) and a = (select max(c) from u order by 1) and "
                                  "a = (select m + 1 from (select max(c) as m from u order by 1))");
    CTX.optimize_plan = count_optimize;
    OPTIMIZED = 0;
    cs_logical_plan *r = NULL;
    assert_int_equal(cs_opt_subqueries(&CTX, p, &r, &ERR), 0);
    assert_int_equal(OPTIMIZED, 3);
    N_SUBS = 0;
    plan_has(r, collect_scalar);
    assert_int_equal(N_SUBS, 3);
    /* the sort under a LIMIT is the LIMIT's; a sort on top orders nothing */
    assert_int_equal(SUBS[0]->subquery->kind, CS_LP_LIMIT);
    assert_int_not_equal(SUBS[1]->subquery->kind, CS_LP_SORT);
    assert_lacks(text_of(SUBS[2]->subquery), "Sort");
}

/* The aggregate of a correlated scalar subquery stays out of the optimizer's reach (grouped
 * by the correlation, PropagateEmptyRelation would make an empty input's count vanish). */
static void test_optimize_subqueries_keeps_a_correlated_aggregate(void **state)
{
    (void)state;
    cs_logical_plan *p =
        analyzed("select a from t where b = (select count(*) from u where u.a = t.a)");
    cs_logical_plan *r = NULL;
    assert_int_equal(cs_opt_pull_up_correlated(&CTX, p, &r, &ERR), 0);
    CTX.optimize_plan = record_optimize;
    OPTIMIZED = 0;
    assert_int_equal(cs_opt_subqueries(&CTX, r, &r, &ERR), 0);
    assert_int_equal(OPTIMIZED, 1);
    assert_int_equal(OPTIMIZED_KIND, CS_LP_SUBQUERY_ALIAS);
}

/* ---- joins and set operations ---- */

static void test_set_operations(void **state)
{
    (void)state;
    static const cs_opt_rule_fn rules[] = {cs_opt_rewrite_set_ops};
    cs_logical_plan *r = NULL;
    assert_int_equal(
        apply(analyzed("select a, c from u intersect select a, c from u"), rules, 1, &r), 0);
    const char *t = text_of(r);
    assert_has(t, "Aggregate [a, c], [a, c]\n+- Join LeftSemi, ((a <=> a) AND (c <=> c))\n");
    assert_int_equal(apply(analyzed("select a, c from u except select a, c from u"), rules, 1, &r),
                     0);
    assert_has(text_of(r),
               "Aggregate [a, c], [a, c]\n+- Join LeftAnti, ((a <=> a) AND (c <=> c))\n");
    /* ALL: copies numbered per distinct row, copy i kept when the other side has one */
    assert_int_equal(
        apply(analyzed("select a, c from u intersect all select a, c from u"), rules, 1, &r), 0);
    t = text_of(r);
    assert_has(t, "Project [a, c]\n+- Join LeftSemi, (((a <=> a) AND (c <=> c)) AND (vcol_l = "
                  "vcol_r))\n");
    assert_has(t, "Window [row_number() OVER (PARTITION BY a, c ROWS BETWEEN UNBOUNDED PRECEDING "
                  "AND CURRENT ROW) AS vcol_l], [a, c], []");
    assert_int_equal(
        apply(analyzed("select a, c from u except all select a, c from u"), rules, 1, &r), 0);
    assert_has(text_of(r), "Join LeftAnti, (((a <=> a) AND (c <=> c)) AND (vcol_l = vcol_r))\n");
    /* UNION is not theirs */
    cs_logical_plan *u = analyzed("select a from u union select c from u");
    assert_int_equal(apply(u, rules, 1, &r), 0);
    assert_ptr_equal(r, u);
}

static cs_join_type join_type_under(const cs_logical_plan *p)
{
    while (p->kind != CS_LP_JOIN)
        p = p->children[0];
    return p->join_type;
}

static void test_outer_joins_made_inner_by_null_rejecting_filters(void **state)
{
    (void)state;
    static const struct {
        const char *join, *where;
        cs_join_type want;
    } cases[] = {
        {"left", "u.c > 1", CS_JOIN_INNER},
        /* a comparison of both sides rejects the null side's nulls too (Spark's IsNotNull
         * constraints) */
        {"left", "t.a < u.c", CS_JOIN_INNER},
        /* IS NULL keeps the rows the outer join added; coalesce is not null on nulls */
        {"left", "u.c is null", CS_JOIN_LEFT_OUTER},
        {"left", "coalesce(u.c, 0) = 0", CS_JOIN_LEFT_OUTER},
        {"full", "t.b > 1", CS_JOIN_LEFT_OUTER},
        {"full", "t.b > 1 and u.c = 2", CS_JOIN_INNER},
        /* each side's nulls make every branch of the disjunction null or false */
        {"full", "t.b > 1 and u.c = 2 or t.b > 2 and u.c = 3", CS_JOIN_INNER},
        {"full", "t.b > 1 or u.c = 2", CS_JOIN_FULL_OUTER},
        {"right", "t.b > 1 or u.c > 1", CS_JOIN_RIGHT_OUTER},
    };
    static const cs_opt_rule_fn rules[] = {cs_opt_eliminate_outer_join};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sql[256];
        snprintf(sql, sizeof sql, "select * from t %s join u on t.a = u.a where %s", cases[i].join,
                 cases[i].where);
        cs_logical_plan *r = NULL;
        assert_int_equal(apply(analyzed(sql), rules, 1, &r), 0);
        if (join_type_under(r) != cases[i].want) fail_msg("%s:\n%s", sql, text_of(r));
    }
}

/* An existence join over a rewritten outer join keeps its `exists` column last. */
static void test_existence_join_output_kept_when_its_child_changes(void **state)
{
    (void)state;
    cs_logical_plan *p = analyzed("select t.a, exists (select 1 from u where u.a = t.a) as e "
                                  "from t left join u u2 on t.a = u2.a where u2.c > 1");
    static const cs_opt_rule_fn rules[] = {cs_opt_rewrite_predicate_subquery,
                                           cs_opt_eliminate_outer_join};
    cs_logical_plan *r = NULL;
    assert_int_equal(apply(p, rules, 2, &r), 0);
    const cs_logical_plan *j = r;
    while (j->kind != CS_LP_JOIN)
        j = j->children[0];
    assert_int_equal(j->join_type, CS_JOIN_EXISTENCE);
    assert_int_equal(join_type_under(j->children[0]), CS_JOIN_INNER);
    assert_int_equal(j->n_output, j->children[0]->n_output + 1);
    assert_string_equal(j->output[j->n_output - 1]->name, "exists");
}

static void test_reorder_join_puts_conditions_before_products(void **state)
{
    (void)state;
    static const cs_opt_rule_fn rules[] = {cs_opt_reorder_join};
    cs_logical_plan *r = NULL;
    cs_logical_plan *p = analyzed("select x.a, y.c, z.b from t x, u y, t z where x.a = z.a and "
                                  "z.b = y.c");
    assert_int_equal(apply(p, rules, 1, &r), 0);
    const char *t = text_of(r);
    assert_has(t, "Join Inner, (b = cast(c as bigint))\n");
    assert_has(t, ":- Join Inner, (a = a)\n");
    assert_has(t, "Project [a, b, s, d, e, dt, ts, f, a, c, a, b, s, d, e, dt, ts, f]");
    /* a second run finds nothing to do (the executor's fixed point) */
    cs_logical_plan *again = NULL;
    assert_int_equal(apply(r, rules, 1, &again), 0);
    assert_ptr_equal(again, r);
    /* a correlated scalar subquery is no join condition: it stays in a filter on top */
    p = analyzed("select x.a from t x, u y, t z where x.a = z.a and z.b = y.c and "
                 "x.b = (select count(*) from u where u.a = z.a)");
    static const cs_opt_rule_fn pull_then_reorder[] = {cs_opt_pull_up_correlated,
                                                       cs_opt_reorder_join};
    assert_int_equal(apply(p, pull_then_reorder, 2, &r), 0);
    assert_has(text_of(r), "Filter (b = scalarsubquery())\n");
    /* no condition at all: left alone */
    p = analyzed("select * from t x, u y, t z");
    assert_int_equal(apply(p, rules, 1, &r), 0);
    assert_ptr_equal(r, p);
}

static cs_logical_plan *find_alias(cs_logical_plan *p, const char *alias)
{
    if (p->kind == CS_LP_SUBQUERY_ALIAS && strcmp(p->alias, alias) == 0) return p;
    for (int i = 0; i < p->n_children; i++) {
        cs_logical_plan *r = find_alias(p->children[i], alias);
        if (r) return r;
    }
    return NULL;
}

static void test_reorder_join_by_statistics_with_cbo(void **state)
{
    (void)state;
    static const cs_opt_rule_fn rules[] = {cs_opt_reorder_join};
    cs_logical_plan *p = analyzed("select x.a from t x, u y, t z where x.a = z.a and z.b = y.c");
    find_alias(p, "x")->stat_rows = 1000;
    find_alias(p, "y")->stat_rows = 10;
    find_alias(p, "z")->stat_rows = 100;
    CONF.cbo = true;
    CONF.join_reorder = true;
    cs_logical_plan *r = NULL;
    assert_int_equal(apply(p, rules, 1, &r), 0);
    const char *t = text_of(r);
    /* y (10 rows) first, then z (100) that it joins, then x */
    assert_has(t, "+- Join Inner, (a = a)\n");
    assert_has(t, ":- Join Inner, (b = cast(c as bigint))\n");
    assert_has(t, ":  :- SubqueryAlias y\n");
    assert_has(t, ":  +- SubqueryAlias z\n");
    CONF.cbo = false;
}

/* A small relation a condition narrows is joined as soon as a condition connects it, before the
 * other connected inputs (Spark's order otherwise); without a broadcast threshold, Spark's. */
static void test_reorder_join_takes_a_small_narrowed_input_first(void **state)
{
    (void)state;
    static const cs_opt_rule_fn rules[] = {cs_opt_reorder_join};
    const char *q = "select x.a from t x, t z, u y where x.a = z.a and x.b = y.c and y.a = 5";
    for (int on = 0; on < 2; on++) {
        cs_logical_plan *p = analyzed(q);
        find_alias(p, "y")->stat_bytes = 100;
        CONF.broadcast_threshold = on ? 10LL << 20 : -1;
        cs_logical_plan *r = NULL;
        assert_int_equal(apply(p, rules, 1, &r), 0);
        const char *t = text_of(r);
        if (on) { /* y first: x with y below, z on top */
            assert_has(t, ":- Join Inner, ((b = cast(c as bigint)) AND (a = 5))\n");
            assert_has(t, "+- Join Inner, (a = a)\n");
        } else { /* Spark's order: z, the first connected input, before y */
            assert_has(t, ":- Join Inner, (a = a)\n");
        }
        cs_logical_plan *again = NULL; /* the executor's fixed point */
        assert_int_equal(apply(r, rules, 1, &again), 0);
        assert_ptr_equal(again, r);
    }
    CONF.broadcast_threshold = 0;
}

/* ---- TPC-H ---- */

static void check_tpch(const cs_opt_rule_fn *rules, int n)
{
    for (int q = 0; q < 22; q++) {
        cs_logical_plan *p = analyzed(tpch_queries[q]), *r = NULL;
        if (apply(p, rules, n, &r) != 0) fail_msg("Q%d: %s", q + 1, ERR.msg);
        if (plan_has(r, is_left_subquery) || plan_has(r, is_outer_ref))
            fail_msg("Q%d keeps a correlated subquery:\n%s", q + 1, text_of(r));
        static const cs_opt_rule_fn joins[] = {cs_opt_eliminate_outer_join, cs_opt_reorder_join,
                                               cs_opt_rewrite_set_ops};
        cs_logical_plan *j = NULL;
        if (apply(r, joins, 3, &j) != 0) fail_msg("Q%d: %s", q + 1, ERR.msg);
        cs_logical_plan *again = NULL;
        assert_int_equal(cs_opt_reorder_join(&CTX, j, &again, &ERR), 0);
        if (again != j)
            fail_msg("Q%d: ReorderJoin is not at a fixed point:\n%s", q + 1, text_of(j));
    }
}

static void test_tpch_queries_have_no_correlated_subqueries_left(void **state)
{
    (void)state;
    check_tpch(SUBQUERY_RULES, 3);
    /* whatever the order of the rules */
    static const cs_opt_rule_fn scalar_first[] = {cs_opt_rewrite_scalar_subquery,
                                                  cs_opt_rewrite_predicate_subquery};
    check_tpch(scalar_first, 2);
    static const cs_opt_rule_fn predicate_first[] = {cs_opt_rewrite_predicate_subquery,
                                                     cs_opt_rewrite_scalar_subquery};
    check_tpch(predicate_first, 2);
}

static void test_tpch_shapes(void **state)
{
    (void)state;
    /* Q4: EXISTS -> semi join on the correlation */
    const char *t = rewritten(tpch_queries[3]);
    assert_has(t, "Join LeftSemi, (l_orderkey = o_orderkey)\n");
    /* Q16: NOT IN over an uncorrelated subquery -> null-aware anti join */
    t = rewritten(tpch_queries[15]);
    assert_has(t,
               "Join LeftAnti, ((ps_suppkey = s_suppkey) OR ((ps_suppkey = s_suppkey) IS NULL))\n");
    /* Q17: correlated avg -> left outer join with the aggregate grouped by l_partkey */
    t = rewritten(tpch_queries[16]);
    assert_has(t, "Join LeftOuter, (l_partkey = p_partkey)\n");
    assert_has(t, "Aggregate [l_partkey], [(0.2 * avg(l_quantity)) AS (0.2 * avg(l_quantity)), "
                  "l_partkey]");
    /* Q21: EXISTS and NOT EXISTS with a non-equality correlation */
    t = rewritten(tpch_queries[20]);
    assert_has(t, "Join LeftSemi, ((l_orderkey = l_orderkey) AND (NOT (l_suppkey = l_suppkey)))");
    assert_has(t, "Join LeftAnti, ((l_orderkey = l_orderkey) AND (NOT (l_suppkey = l_suppkey)))");
    /* Q22: NOT EXISTS -> anti join; the uncorrelated scalar subquery stays */
    cs_logical_plan *p = analyzed(tpch_queries[21]), *r = NULL;
    assert_int_equal(apply(p, SUBQUERY_RULES, 3, &r), 0);
    assert_has(text_of(r), "Join LeftAnti, (o_custkey = c_custkey)\n");
    assert_true(plan_has(r, is_any_subquery));
    /* Q20: the IN inside the IN, and the correlated sum inside the inner one */
    t = rewritten(tpch_queries[19]);
    assert_has(t, "Join LeftSemi, (s_suppkey = ps_suppkey)\n");
    assert_has(t, "Join LeftSemi, (ps_partkey = p_partkey)\n");
    assert_has(t, "Join LeftOuter, ((l_partkey = ps_partkey) AND (l_suppkey = ps_suppkey))\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exists_is_a_semi_join),
        cmocka_unit_test(test_in_is_a_semi_join_and_not_in_null_aware),
        cmocka_unit_test(test_in_under_or_keeps_three_valued_logic),
        cmocka_unit_test(test_correlated_scalar_is_a_left_outer_join),
        cmocka_unit_test(test_correlations_the_rewrite_cannot_keep_are_errors),
        cmocka_unit_test(test_optimize_subqueries_runs_the_optimizer_and_drops_top_sorts),
        cmocka_unit_test(test_optimize_subqueries_keeps_a_correlated_aggregate),
        cmocka_unit_test(test_set_operations),
        cmocka_unit_test(test_outer_joins_made_inner_by_null_rejecting_filters),
        cmocka_unit_test(test_existence_join_output_kept_when_its_child_changes),
        cmocka_unit_test(test_reorder_join_puts_conditions_before_products),
        cmocka_unit_test(test_reorder_join_by_statistics_with_cbo),
        cmocka_unit_test(test_reorder_join_takes_a_small_narrowed_input_first),
        cmocka_unit_test(test_tpch_queries_have_no_correlated_subqueries_left),
        cmocka_unit_test(test_tpch_shapes),
    };
    return cmocka_run_group_tests(tests, setup, fixture_teardown);
}
