/*
 * test_analyzer.c — the analyzer's resolution: names Spark 4 gives result columns, `*`,
 * qualified and case-insensitive names, session-unique ids, aggregates with GROUP BY ordinals,
 * HAVING and ORDER BY over the aggregate, windows, USING/NATURAL joins, CTEs, views and
 * correlated subqueries, lambdas (their variables hiding columns, bodies reading columns). Expected
 * names were taken from Spark 4.0.1 on the same views (analyzer_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <unistd.h>

#include "analyzer_fixture.h"

static void test_select_names_as_spark(void **state)
{
    (void)state;
    /* select a + 1, cast(a as int), cast(a as string), upper(s), a, t.a, -a, a = 1, a is null,
     *        not true, substr(s, 1), s like 'x%', a between 1 and 2,
     *        case when a = 1 then 'y' end, coalesce(a, b), a in (1, 2), 'lit', a != 1,
     *        if(a = 1, 1, 2), a + dt, A, (a + 1) * 2, a div 2, a / 2, split(s, ',') from t */
    cs_sql_expr *cw = cs_sql_expr_new(B_ARENA, CS_EX_CASE, 2);
    cw->args[0] = bin("=", col("a"), lit_int(1));
    cw->args[1] = lit_str("y");
    cs_logical_plan *p = project(
        rel(1, "t"), 25, bin("+", col("a"), lit_int(1)), cast_to(col("a"), prim(CS_TYPE_INT)),
        cast_to(col("a"), prim(CS_TYPE_STRING)), fn("upper", 1, col("s")), col("a"),
        qcol(2, "t", "a"), fn("-", 1, col("a")), bin("=", col("a"), lit_int(1)),
        fn("isnull", 1, col("a")), fn("not", 1, lit_bool(true)),
        fn("substr", 2, col("s"), lit_int(1)), fn("like", 2, col("s"), lit_str("x%")),
        fn("between", 3, col("a"), lit_int(1), lit_int(2)), cw,
        fn("coalesce", 2, col("a"), col("b")), in_list(3, col("a"), lit_int(1), lit_int(2)),
        lit_str("lit"), bin("!=", col("a"), lit_int(1)),
        fn("if", 3, bin("=", col("a"), lit_int(1)), lit_int(1), lit_int(2)),
        bin("+", col("a"), col("dt")), col("A"),
        bin("*", bin("+", col("a"), lit_int(1)), lit_int(2)), bin("div", col("a"), lit_int(2)),
        bin("/", col("a"), lit_int(2)), fn("split", 2, col("s"), lit_str(",")));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r),
                        "(a + 1)|a|a|upper(s)|a|a|(- a)|(a = 1)|(a IS NULL)|(NOT true)|"
                        "substr(s, 1, 2147483647)|s LIKE x%|between(a, 1, 2)|"
                        "CASE WHEN (a = 1) THEN y END|coalesce(a, b)|(a IN (1, 2))|lit|"
                        "(NOT (a = 1))|(IF((a = 1), 1, 2))|date_add(dt, a)|A|((a + 1) * 2)|"
                        "(a div 2)|(a / 2)|split(s, ,, -1)");
    assert_string_equal(types_of(r),
                        "int|int|string|string|int|int|int|boolean|boolean|boolean|string|"
                        "boolean|boolean|string|bigint|boolean|string|boolean|int|date|int|int|"
                        "bigint|double|array<string>");
    assert_int_equal(r->kind, CS_LP_PROJECT);
    /* coalesce(a, b) widened a to bigint with an implicit cast, left out of the name */
    const cs_sql_expr *co = r->exprs[14]->args[0];
    assert_int_equal(co->kind, CS_EX_FUNC);
    assert_string_equal(co->fn, "coalesce");
    assert_int_equal(co->args[0]->kind, CS_EX_CAST);
    assert_true(co->args[0]->implicit_cast);
}

static void test_aggregate_names_and_count_star(void **state)
{
    (void)state;
    /* select sum(b), count(*), count(distinct a), avg(d), max(b) + 1, sum(a + 1),
     *        percentile_approx(a, 0.5) from t */
    cs_logical_plan *p = project(rel(1, "t"), 7, fn("sum", 1, col("b")), fn("count", 1, star()),
                                 fn_distinct("count", 1, col("a")), fn("avg", 1, col("d")),
                                 bin("+", fn("max", 1, col("b")), lit_int(1)),
                                 fn("sum", 1, bin("+", col("a"), lit_int(1))),
                                 fn("percentile_approx", 2, col("a"), lit_dec(5, 1, 1)));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_int_equal(r->kind, CS_LP_AGGREGATE);
    assert_int_equal(r->n_group_by, 0);
    assert_string_equal(names_of(r), "sum(b)|count(1)|count(DISTINCT a)|avg(d)|(max(b) + 1)|"
                                     "sum((a + 1))|percentile_approx(a, 0.5, 10000)");
    assert_string_equal(types_of(r), "bigint|bigint|bigint|decimal(14,6)|bigint|bigint|int");
    assert_int_equal(r->exprs[0]->args[0]->kind, CS_EX_AGG);
    assert_false(r->output[1]->nullable); /* count is never null */
}

static void test_star_qualified_and_case_insensitive(void **state)
{
    (void)state;
    cs_sql_expr *ts = star();
    ts->n_parts = 1;
    ts->parts = cs_sql_alloc(B_ARENA, sizeof *ts->parts);
    ts->parts[0] = "T";
    cs_logical_plan *p = project(join(rel(1, "t"), rel(1, "u"), CS_JOIN_CROSS, NULL), 3, ts,
                                 qcol(2, "U", "C"), qcol(2, "u", "a"));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r), "a|b|s|d|e|dt|ts|f|C|a");
    /* t.a and u.a are different attributes */
    assert_int_not_equal(r->output[0]->id, r->output[9]->id);
}

static void test_self_join_gets_fresh_ids(void **state)
{
    (void)state;
    cs_logical_plan *p =
        project(join(subquery_alias(rel(1, "t"), "x"), subquery_alias(rel(1, "t"), "y"),
                     CS_JOIN_INNER, bin("=", qcol(2, "x", "a"), qcol(2, "y", "a"))),
                2, qcol(2, "x", "a"), qcol(2, "y", "a"));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_int_not_equal(r->output[0]->id, r->output[1]->id);
    const cs_logical_plan *j = r->children[0];
    assert_int_equal(j->kind, CS_LP_JOIN);
    assert_int_equal(j->n_output, 16);
    assert_string_equal(j->condition->fn, "=");
}

static void test_group_by_ordinal_alias_and_all(void **state)
{
    (void)state;
    /* select a + 1 as k, count(*) from t group by 1  /  group by k */
    cs_logical_plan *r =
        analyze(aggregate(rel(1, "t"), 1, ordinal(1), 2, alias(bin("+", col("a"), lit_int(1)), "k"),
                          fn("count", 1, star())));
    assert_non_null(r);
    assert_string_equal(names_of(r), "k|count(1)");
    assert_int_equal(r->group_by[0]->kind, CS_EX_FUNC);
    assert_string_equal(r->group_by[0]->fn, "+");
    r = analyze(aggregate(rel(1, "t"), 1, col("k"), 2, alias(bin("+", col("a"), lit_int(1)), "k"),
                          fn("count", 1, star())));
    assert_non_null(r);
    assert_string_equal(r->group_by[0]->fn, "+");
    /* GROUP BY ALL: the items without aggregates (a + 1), none for a global aggregate */
    r = analyze(aggregate(rel(1, "t"), 1, col("ALL"), 2, alias(bin("+", col("a"), lit_int(1)), "k"),
                          fn("count", 1, star())));
    assert_non_null(r);
    assert_int_equal(r->n_group_by, 1);
    assert_string_equal(r->group_by[0]->fn, "+");
    r = analyze(aggregate(rel(1, "t"), 1, col("all"), 1, fn("count", 1, star())));
    assert_non_null(r);
    assert_int_equal(r->n_group_by, 0);
}

static void test_having_and_order_by_aggregate_not_selected(void **state)
{
    (void)state;
    /* select a, sum(b) from t group by a having sum(b) > 0 order by max(s) */
    cs_logical_plan *agg = aggregate(rel(1, "t"), 1, col("a"), 2, col("a"), fn("sum", 1, col("b")));
    cs_logical_plan *p = sort(filter(agg, bin(">", fn("sum", 1, col("b")), lit_int(0))), 1,
                              sort_by(fn("max", 1, col("s")), false));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r), "a|sum(b)");
    /* Project [a, sum(b)] <- Sort [max(s)] <- Filter <- Aggregate [a, sum(b), max(s)] */
    assert_int_equal(r->kind, CS_LP_PROJECT);
    const cs_logical_plan *s = r->children[0];
    assert_int_equal(s->kind, CS_LP_SORT);
    const cs_logical_plan *f = s->children[0];
    assert_int_equal(f->kind, CS_LP_FILTER);
    const cs_logical_plan *a = f->children[0];
    assert_int_equal(a->kind, CS_LP_AGGREGATE);
    assert_int_equal(a->n_exprs, 3);
    assert_string_equal(a->exprs[2]->name, "max(s)");
    /* the filter reads the aggregate's sum(b), not a second sum */
    assert_int_equal(f->condition->args[0]->kind, CS_EX_ATTR);
    assert_int_equal(f->condition->args[0]->id, a->output[1]->id);
}

static void test_order_by_column_not_selected(void **state)
{
    (void)state;
    /* select a from t order by b desc */
    cs_logical_plan *r =
        analyze(sort(project(rel(1, "t"), 1, col("a")), 1, sort_by(col("b"), true)));
    assert_non_null(r);
    assert_string_equal(names_of(r), "a");
    assert_int_equal(r->kind, CS_LP_PROJECT);
    assert_int_equal(r->children[0]->kind, CS_LP_SORT);
    assert_string_equal(names_of(r->children[0]->children[0]), "a|b");
    /* order by an ordinal and an alias of the select list */
    r = analyze(sort(project(rel(1, "t"), 2, col("a"), alias(col("b"), "bb")), 2,
                     sort_by(ordinal(2), false), sort_by(col("bb"), false)));
    assert_non_null(r);
    assert_int_equal(r->kind, CS_LP_SORT);
    assert_int_equal(r->order[0]->args[0]->id, r->order[1]->args[0]->id);
}

static void test_windows_are_extracted(void **state)
{
    (void)state;
    /* select a, sum(a) over (partition by s), row_number() over (order by a),
     *        lag(a) over (order by a) from t */
    cs_logical_plan *p =
        project(rel(1, "t"), 4, col("a"), over(fn("sum", 1, col("a")), col("s"), NULL),
                over(fn("row_number", 0), NULL, sort_by(col("a"), false)),
                over(fn("lag", 1, col("a")), NULL, sort_by(col("a"), false)));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(
        names_of(r),
        "a|sum(a) OVER (PARTITION BY s ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)|"
        "row_number() OVER (ORDER BY a ASC NULLS FIRST ROWS BETWEEN UNBOUNDED PRECEDING AND "
        "CURRENT ROW)|lag(a, 1, NULL) OVER (ORDER BY a ASC NULLS FIRST ROWS BETWEEN -1 FOLLOWING "
        "AND -1 FOLLOWING)");
    assert_int_equal(r->kind, CS_LP_PROJECT);
    /* two specifications: two Window nodes, the ORDER BY a one holding both functions */
    const cs_logical_plan *w1 = r->children[0], *w2 = w1->children[0];
    assert_int_equal(w1->kind, CS_LP_WINDOW);
    assert_int_equal(w2->kind, CS_LP_WINDOW);
    assert_int_equal(w1->n_exprs + w2->n_exprs, 3);
    assert_string_equal(types_of(r), "int|bigint|int|int");
}

static void test_window_over_aggregate(void **state)
{
    (void)state;
    /* select s, rank() over (order by sum(b)) from t group by s */
    cs_logical_plan *p =
        aggregate(rel(1, "t"), 1, col("s"), 2, col("s"),
                  over(fn("rank", 0), NULL, sort_by(fn("sum", 1, col("b")), false)));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r), "s|RANK() OVER (ORDER BY sum(b) ASC NULLS FIRST ROWS BETWEEN "
                                     "UNBOUNDED PRECEDING AND CURRENT ROW)");
    const cs_logical_plan *w = r->children[0];
    assert_int_equal(w->kind, CS_LP_WINDOW);
    const cs_logical_plan *a = w->children[0];
    assert_int_equal(a->kind, CS_LP_AGGREGATE);
    assert_string_equal(names_of(a), "s|_w0");
    assert_int_equal(w->order[0]->args[0]->id, a->output[1]->id);
}

static void test_using_and_natural_join_coalesce_keys(void **state)
{
    (void)state;
    cs_logical_plan *r =
        analyze(project(join_using(rel(1, "t"), rel(1, "u"), CS_JOIN_INNER, "a"), 1, star()));
    assert_non_null(r);
    assert_string_equal(names_of(r), "a|b|s|d|e|dt|ts|f|c");
    cs_logical_plan *nat = join(rel(1, "t"), rel(1, "u"), CS_JOIN_FULL_OUTER, NULL);
    nat->natural = true;
    r = analyze(project(nat, 1, star()));
    assert_non_null(r);
    assert_string_equal(names_of(r), "a|b|s|d|e|dt|ts|f|c");
    /* full outer: the key is coalesce(t.a, u.a) */
    const cs_logical_plan *keys = r->children[0];
    assert_int_equal(keys->kind, CS_LP_PROJECT);
    assert_int_equal(keys->exprs[0]->kind, CS_EX_ALIAS);
    assert_string_equal(keys->exprs[0]->args[0]->fn, "coalesce");
    assert_int_equal(keys->children[0]->kind, CS_LP_JOIN);
}

static void test_cte_and_correlated_subquery(void **state)
{
    (void)state;
    /* with c as (select a from u) select a from c
     * where exists (select 1 from u where u.a = c.a) and a = (select max(c) from u) */
    cs_logical_plan *inner =
        project(filter(rel(1, "u"), bin("=", qcol(2, "u", "a"), qcol(2, "c", "a"))), 1, lit_int(1));
    cs_logical_plan *scalar = project(rel(1, "u"), 1, fn("max", 1, col("c")));
    cs_logical_plan *q = project(
        filter(rel(1, "c"), bin("and", subquery(CS_EX_EXISTS, inner),
                                bin("=", col("a"), subquery(CS_EX_SCALAR_SUBQUERY, scalar)))),
        1, col("a"));
    cs_logical_plan *r = analyze(with_cte("c", project(rel(1, "u"), 1, col("a")), q));
    assert_non_null(r);
    assert_string_equal(names_of(r), "a");
    const cs_sql_expr *cond = r->children[0]->condition;
    const cs_sql_expr *ex = cond->args[0];
    assert_int_equal(ex->kind, CS_EX_EXISTS);
    const cs_sql_expr *corr = ex->subquery->children[0]->condition;
    assert_int_equal(corr->args[1]->kind, CS_EX_OUTER_ATTR);
    assert_string_equal(types_of(cond->args[1]->args[1]->subquery), "int");
}

static void test_union_widens_columns(void **state)
{
    (void)state;
    /* select a, s from t union select s, a from t: both columns bigint (ANSI string promotion) */
    cs_logical_plan *r =
        analyze(set_op(CS_SET_UNION, true, project(rel(1, "t"), 2, col("a"), col("s")),
                       project(rel(1, "t"), 2, col("s"), col("a"))));
    assert_non_null(r);
    assert_string_equal(names_of(r), "a|s");
    assert_string_equal(types_of(r), "bigint|bigint");
}

static void test_plan_print_tree(void **state)
{
    (void)state;
    cs_logical_plan *r = analyze(project(filter(rel(1, "u"), bin(">", col("a"), lit_int(1))), 2,
                                         col("a"), bin("+", col("c"), lit_long(1))));
    assert_non_null(r);
    cs_sbuf b = {0};
    cs_logical_plan_print(r, &b);
    const char *s = cs_sbuf_str(&b);
    /* Project [a#N, (cast(c#M as bigint) + 1) AS (c + 1)#K] ... (Spark: "(c + 1)" for c + 1L) */
    assert_true(strncmp(s, "Project [a#", 11) == 0);
    assert_non_null(strstr(s, "(cast(c#"));
    assert_non_null(strstr(s, " as bigint) + 1) AS (c + 1)#"));
    assert_non_null(strstr(s, "\n+- Filter (a#"));
    assert_non_null(strstr(s, "\n   +- SubqueryAlias u\n"));
    cs_sbuf_free(&b);
}

static void test_having_without_group_by(void **state)
{
    (void)state;
    /* select count(*) from t having count(*) > 0 */
    cs_logical_plan *p = filter(project(rel(1, "t"), 1, fn("count", 1, star())),
                                bin(">", fn("count", 1, star()), lit_int(0)));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r), "count(1)");
    assert_int_equal(r->kind, CS_LP_FILTER);
    assert_int_equal(r->children[0]->kind, CS_LP_AGGREGATE);
    assert_int_equal(r->condition->args[0]->kind, CS_EX_ATTR);
}

static void test_table_over_csv_files_and_global_temp_view(void **state)
{
    (void)state;
    char dir[] = "/tmp/cspark_analyzer_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/part-0.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("id,name\n1,x\n2,y\n", f);
    fclose(f);
    const char *keys[2] = {"header", "inferSchema"}, *values[2] = {"true", "true"};
    const char *name[2] = {"default", "people"};
    cs_error_clear(&ERR);
    assert_int_equal(
        cs_catalog_create_table(CAT, name, 2, "csv", dir, keys, values, 2, NULL, false, &ERR), 0);
    /* a second CREATE fails, with IF NOT EXISTS it is a no-op */
    assert_int_not_equal(
        cs_catalog_create_table(CAT, name + 1, 1, "csv", dir, keys, values, 2, NULL, false, &ERR),
        0);
    assert_true(cs_sql_error_is(&ERR, "TABLE_OR_VIEW_ALREADY_EXISTS"));
    assert_int_equal(
        cs_catalog_create_table(CAT, name + 1, 1, "csv", dir, keys, values, 2, NULL, true, &ERR),
        0);
    cs_logical_plan *r =
        analyze(project(rel(1, "PEOPLE"), 2, col("name"), qcol(2, "people", "id")));
    assert_non_null(r);
    assert_string_equal(names_of(r), "name|id");
    assert_string_equal(types_of(r), "string|int");
    const cs_logical_plan *scan = r->children[0];
    assert_int_equal(scan->kind, CS_LP_RELATION);
    assert_string_equal(scan->table->format, "csv");
    assert_true(scan->stat_bytes > 0);
    /* global temporary views live in global_temp */
    cs_sql_arena *va = cs_sql_arena_new();
    cs_sql_arena *saved = B_ARENA;
    B_ARENA = va;
    cs_logical_plan *v = project(rel(1, "people"), 1, col("id"));
    B_ARENA = saved;
    assert_int_equal(cs_catalog_create_temp_view(CAT, "gv", true, false, NULL, 0, v, va, &ERR), 0);
    assert_non_null(analyze(project(rel(2, "global_temp", "gv"), 1, col("id"))));
    assert_null(analyze(project(rel(1, "gv"), 1, col("id"))));
    assert_true(cs_sql_error_is(&ERR, "TABLE_OR_VIEW_NOT_FOUND"));
    unlink(path);
    rmdir(dir);
}

static void test_function_names_as_spark(void **state)
{
    (void)state;
    /* select year(dt), date_trunc('year', ts), extract(year from dt), s || a, sqrt(a), ln(a),
     *        ceil(d), round(d, 1), regexp_extract(s, 'x', 0), trim(s) from t */
    cs_logical_plan *p = project(
        rel(1, "t"), 10, fn("year", 1, col("dt")), fn("date_trunc", 2, lit_str("year"), col("ts")),
        fn("extract", 2, lit_str("year"), col("dt")), bin("||", col("s"), col("a")),
        fn("sqrt", 1, col("a")), fn("ln", 1, col("a")), fn("ceil", 1, col("d")),
        fn("round", 2, col("d"), lit_int(1)),
        fn("regexp_extract", 3, col("s"), lit_str("x"), lit_int(0)), fn("trim", 1, col("s")));
    cs_logical_plan *r = analyze(p);
    assert_non_null(r);
    assert_string_equal(names_of(r), "year(dt)|date_trunc(year, ts)|extract(year FROM dt)|"
                                     "concat(s, a)|SQRT(a)|ln(a)|CEIL(d)|round(d, 1)|"
                                     "regexp_extract(s, x, 0)|trim(s)");
    assert_string_equal(types_of(r), "int|timestamp|int|string|double|double|decimal(9,0)|"
                                     "decimal(10,1)|string|string");
}

/* x -> body, unresolved as the parser makes it */
static cs_sql_expr *lambda_of(const char *var, cs_sql_expr *body)
{
    cs_sql_expr *l = cs_sql_expr_new(B_ARENA, CS_EX_LAMBDA, 1);
    l->n_parts = 1;
    l->parts = cs_sql_alloc(B_ARENA, sizeof *l->parts);
    l->parts[0] = var;
    l->args[0] = body;
    return l;
}

static void test_lambda_variables_hide_columns(void **state)
{
    (void)state;
    /* select transform(array(a, a), x -> x + b), transform(array(s), a -> upper(a)) from t */
    cs_logical_plan *p = project(
        rel(1, "t"), 2,
        fn("transform", 2, fn("array", 2, col("a"), col("a")),
           lambda_of("x", bin("+", col("x"), col("b")))),
        fn("transform", 2, fn("array", 1, col("s")), lambda_of("a", fn("upper", 1, col("a")))));
    cs_logical_plan *r = analyze(p);
    if (!r) fail_msg("%s", ERR.msg);
    assert_string_equal(names_of(r),
                        "transform(array(a, a), lambdafunction((namedlambdavariable() + b), "
                        "namedlambdavariable()))|transform(array(s), "
                        "lambdafunction(upper(namedlambdavariable()), namedlambdavariable()))");
    assert_string_equal(types_of(r), "array<bigint>|array<string>");
    /* upper's argument is the lambda's variable (a string), not the column a (an int) */
    const cs_sql_expr *lam = r->exprs[1]->args[0]->args[1];
    assert_int_equal(lam->kind, CS_EX_LAMBDA);
    assert_int_equal(lam->args[0]->args[0]->kind, CS_EX_LAMBDA_VAR);
    assert_int_equal(lam->args[0]->args[0]->id, lam->args[1]->id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_select_names_as_spark, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_aggregate_names_and_count_star, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_star_qualified_and_case_insensitive, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_self_join_gets_fresh_ids, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_group_by_ordinal_alias_and_all, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_having_and_order_by_aggregate_not_selected,
                                        fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_order_by_column_not_selected, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_windows_are_extracted, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_window_over_aggregate, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_using_and_natural_join_coalesce_keys, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_cte_and_correlated_subquery, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_union_widens_columns, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_plan_print_tree, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_having_without_group_by, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_function_names_as_spark, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_table_over_csv_files_and_global_temp_view,
                                        fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_lambda_variables_hide_columns, fixture_setup,
                                        fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
