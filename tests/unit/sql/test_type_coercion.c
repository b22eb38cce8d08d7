/*
 * test_type_coercion.c — Spark 4's ANSI type rules as the analyzer applies them: decimal
 * precision and scale of + - * / % (DecimalPrecision, allowPrecisionLoss=true, including the
 * 38-digit bound), integer `/` giving double, `div` bigint, widening for COALESCE / IF / CASE,
 * string promotion under ANSI, and the aggregates' result types. Every expected type is what
 * Spark 4.0.1's `typeof(...)` printed for the same expression on the same view
 * (analyzer_fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "analyzer_fixture.h"
#include "sql/type_coercion.h"

/* The type of one expression over t. */
static const char *type_over_t(cs_sql_expr *e)
{
    cs_logical_plan *r = analyze(project(rel(1, "t"), 1, e));
    if (!r) {
        fprintf(stderr, "analysis failed: %s\n", ERR.msg);
        return "";
    }
    return types_of(r);
}

static cs_sql_expr *dec_cast(int32_t v, int p, int s)
{
    return cast_to(lit_int(v), dec_type(p, s));
}

static void test_decimal_arithmetic(void **state)
{
    (void)state;
    struct {
        const char *op, *l, *r, *want;
    } cases[] = {
        {"+", "d", "e", "decimal(12,3)"}, {"-", "d", "e", "decimal(12,3)"},
        {"*", "d", "e", "decimal(16,5)"}, {"/", "d", "e", "decimal(19,8)"},
        {"%", "d", "e", "decimal(5,3)"},  {"+", "d", "a", "decimal(13,2)"},
        {"*", "d", "b", "decimal(31,2)"}, {"/", "d", "a", "decimal(21,13)"},
        {"/", "a", "b", "double"},        {"div", "a", "b", "bigint"},
        {"+", "a", "f", "double"},        {"+", "d", "f", "double"},
        {"*", "a", "b", "bigint"},        {"+", "a", "s", "bigint"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *got = type_over_t(bin(cases[i].op, col(cases[i].l), col(cases[i].r)));
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%s %s %s: got %s, Spark gives %s", cases[i].l, cases[i].op, cases[i].r, got,
                     cases[i].want);
    }
}

static void test_decimal_precision_bound_38(void **state)
{
    (void)state;
    assert_string_equal(type_over_t(bin("*", dec_cast(1, 38, 10), dec_cast(1, 38, 10))),
                        "decimal(38,6)");
    assert_string_equal(type_over_t(bin("/", dec_cast(1, 38, 2), dec_cast(1, 10, 5))),
                        "decimal(38,6)");
    assert_string_equal(type_over_t(bin("/", dec_cast(1, 20, 2), dec_cast(3, 20, 2))),
                        "decimal(38,18)");
    assert_string_equal(type_over_t(bin("+", dec_cast(1, 38, 18), dec_cast(1, 38, 18))),
                        "decimal(38,17)");
}

static void test_literals_in_decimal_arithmetic(void **state)
{
    (void)state;
    /* a + 1.5, b + 1.5, 1.5 + 1.5: columns widen by type, literals by their digits */
    assert_string_equal(type_over_t(bin("+", col("a"), lit_dec(15, 2, 1))), "decimal(12,1)");
    assert_string_equal(type_over_t(bin("+", col("b"), lit_dec(15, 2, 1))), "decimal(22,1)");
    assert_string_equal(type_over_t(bin("+", lit_dec(15, 2, 1), lit_dec(15, 2, 1))),
                        "decimal(3,1)");
    assert_string_equal(type_over_t(fn("negative", 1, col("d"))), "decimal(10,2)");
    assert_string_equal(type_over_t(fn("abs", 1, col("d"))), "decimal(10,2)");
}

static void test_tpch_revenue_types(void **state)
{
    (void)state;
    /* select l * (1 - l), avg(l) from (select cast(1 as decimal(15,2)) as l): TPC-H's
     * sum(l_extendedprice * (1 - l_discount)) and avg(l_quantity) shapes */
    cs_logical_plan *sub =
        subquery_alias(project(one_row(), 1, alias(dec_cast(1, 15, 2), "l")), "x");
    cs_logical_plan *r =
        analyze(project(sub, 1, bin("*", col("l"), bin("-", lit_int(1), col("l")))));
    assert_non_null(r);
    assert_string_equal(types_of(r), "decimal(32,4)");
    r = analyze(project(sub, 1, fn("avg", 1, col("l"))));
    assert_non_null(r);
    assert_string_equal(types_of(r), "decimal(19,6)");
}

static void test_common_types(void **state)
{
    (void)state;
    assert_string_equal(type_over_t(fn("coalesce", 2, col("a"), col("b"))), "bigint");
    assert_string_equal(type_over_t(fn("coalesce", 2, col("a"), col("d"))), "decimal(12,2)");
    assert_string_equal(type_over_t(fn("if", 3, lit_bool(true), col("a"), col("s"))), "bigint");
    cs_sql_expr *cw = cs_sql_expr_new(B_ARENA, CS_EX_CASE, 3);
    cw->args[0] = lit_bool(true);
    cw->args[1] = lit_int(1);
    cw->args[2] = lit_dec(25, 2, 1);
    cw->has_else = true;
    assert_string_equal(type_over_t(cw), "decimal(11,1)");
    assert_string_equal(type_over_t(bin("+", col("s"), lit_int(1))), "bigint");
    assert_string_equal(type_over_t(bin("+", cast_to(lit_int(1), prim(CS_TYPE_BYTE)),
                                        cast_to(lit_int(1), prim(CS_TYPE_SHORT)))),
                        "smallint");
    assert_string_equal(type_over_t(bin("+", cast_to(lit_int(1), prim(CS_TYPE_FLOAT)), col("a"))),
                        "double");
    assert_string_equal(type_over_t(bin("*", cast_to(lit_int(1), prim(CS_TYPE_FLOAT)), col("d"))),
                        "double");
    assert_string_equal(type_over_t(bin("=", col("s"), col("dt"))), "boolean");
}

static void test_datetime_arithmetic(void **state)
{
    (void)state;
    assert_string_equal(type_over_t(bin("+", col("dt"), lit_int(1))), "date");
    assert_string_equal(type_over_t(bin("-", col("dt"), col("dt"))), "interval day");
    assert_string_equal(type_over_t(bin("-", col("ts"), col("ts"))), "interval day to second");
    assert_string_equal(type_over_t(bin("-", col("ts"), col("dt"))), "interval day to second");
}

static void test_aggregate_types(void **state)
{
    (void)state;
    assert_string_equal(type_over_t(fn("sum", 1, col("a"))), "bigint");
    assert_string_equal(type_over_t(fn("avg", 1, col("a"))), "double");
    assert_string_equal(type_over_t(fn("sum", 1, col("d"))), "decimal(20,2)");
    assert_string_equal(type_over_t(fn("avg", 1, col("d"))), "decimal(14,6)");
    assert_string_equal(type_over_t(fn("count", 1, star())), "bigint");
    assert_string_equal(type_over_t(fn("stddev", 1, col("a"))), "double");
    assert_string_equal(type_over_t(fn("collect_list", 1, col("s"))), "array<string>");
}

static void test_widening_rules(void **state)
{
    (void)state;
    cs_sql_arena *a = B_ARENA;
    cs_col_type *i = prim(CS_TYPE_INT), *l = prim(CS_TYPE_LONG), *s = prim(CS_TYPE_STRING);
    cs_col_type *d = cs_tc_decimal(a, 10, 2), *dt = prim(CS_TYPE_DATE),
                *ts = prim(CS_TYPE_TIMESTAMP);
    assert_ptr_equal(cs_tc_wider(a, i, l), l);
    assert_ptr_equal(cs_tc_wider(a, s, i), l);
    assert_ptr_equal(cs_tc_wider(a, s, prim(CS_TYPE_DOUBLE)), prim(CS_TYPE_DOUBLE));
    assert_ptr_equal(cs_tc_wider(a, dt, ts), ts);
    assert_ptr_equal(cs_tc_wider(a, s, dt), dt);
    assert_null(cs_tc_wider(a, i, dt));
    cs_col_type *w = cs_tc_wider(a, i, d);
    assert_int_equal(w->precision, 12);
    assert_int_equal(w->scale, 2);
    assert_ptr_equal(cs_tc_wider(a, prim(CS_TYPE_NULL), d), d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_decimal_arithmetic, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_decimal_precision_bound_38, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_literals_in_decimal_arithmetic, fixture_setup,
                                        fixture_teardown),
        cmocka_unit_test_setup_teardown(test_common_types, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_tpch_revenue_types, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_datetime_arithmetic, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_aggregate_types, fixture_setup, fixture_teardown),
        cmocka_unit_test_setup_teardown(test_widening_rules, fixture_setup, fixture_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
