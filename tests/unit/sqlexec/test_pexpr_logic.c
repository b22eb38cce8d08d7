/*
 * test_pexpr_logic.c — comparison, boolean, null and conditional expressions
 * (src/sqlexec/kernels_compare.c, kernels_logic.c, pexpr_eval.c): = <=> < on ints, doubles
 * with NaN ordered as Spark (NaN = NaN, greater than Infinity), strings bytewise as UTF8String
 * ('é' > 'z'); AND/OR three-valued truth tables; lazy CASE / IF / COALESCE / AND that never
 * evaluate a failing branch on rows that do not reach it; IN with nulls; isnull; nullif.
 * Expected values as Spark 4.0.1 gives them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "px_test.h"

static cs_col_type *B(void)
{
    return T(CS_TYPE_BOOLEAN);
}

static void test_compare_ints_with_nulls_and_null_safe_equal(void **state)
{
    (void)state;
    int32_t x[] = {1, 2, 3, 0}, y[] = {1, 3, 2, 0};
    uint8_t vx[] = {1, 1, 1, 0}, vy[] = {1, 1, 1, 0};
    cs_column *cx = col_fixed(T(CS_TYPE_INT), x, vx, 4), *cy = col_fixed(T(CS_TYPE_INT), y, vy, 4);
    cs_col_batch *b = batch_of((cs_column *[]){cx, cy}, 2);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(call2("<", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 1) && !BOOLV(out, 2) && !VALID(out, 3));
    cs_column_unref(out);
    /* null <=> null is true, 1 <=> null false */
    assert_int_equal(eval(call2("<=>", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    assert_true(BOOLV(out, 0) && !BOOLV(out, 1) && BOOLV(out, 3) && VALID(out, 3));
    cs_column_unref(out);
    assert_int_equal(eval(call2("<=>", B(), colref(0, cx), lit_null(CS_TYPE_INT)), b, &out, &err),
                     CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 3) && out->null_count == 0);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_nan_orders_as_spark(void **state)
{
    (void)state;
    double x[] = {NAN, NAN, 1.0, -0.0}, y[] = {NAN, INFINITY, NAN, 0.0};
    cs_column *cx = col_fixed(T(CS_TYPE_DOUBLE), x, NULL, 4);
    cs_column *cy = col_fixed(T(CS_TYPE_DOUBLE), y, NULL, 4);
    cs_col_batch *b = batch_of((cs_column *[]){cx, cy}, 2);
    cs_column *out;
    cs_error err;
    /* cast('NaN' as double) = cast('NaN' as double) -> true; NaN > Infinity -> true */
    assert_int_equal(eval(call2("=", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    assert_true(BOOLV(out, 0) && !BOOLV(out, 1) && !BOOLV(out, 2) && BOOLV(out, 3));
    cs_column_unref(out);
    assert_int_equal(eval(call2(">", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 1) && !BOOLV(out, 2) && !BOOLV(out, 3));
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_strings_compare_bytewise(void **state)
{
    (void)state;
    cs_column *cx = col_str((const char *[]){"abc", "\xc3\xa9", "ab", NULL}, 4);
    cs_column *cy = col_str((const char *[]){"abd", "z", "abc", "x"}, 4);
    cs_col_batch *b = batch_of((cs_column *[]){cx, cy}, 2);
    cs_column *out;
    cs_error err;
    /* 'abc' < 'abd', 'é' > 'z' (bytes, as UTF8String), 'ab' < 'abc' */
    assert_int_equal(eval(call2("<", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    assert_true(BOOLV(out, 0) && !BOOLV(out, 1) && BOOLV(out, 2) && !VALID(out, 3));
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_and_or_three_valued(void **state)
{
    (void)state;
    /* all 9 pairs of true/false/null, three times (rows across bytes of the bitmaps, the last
     * byte partly used: the sides combine a byte of rows at a time) */
    enum { R = 27 };
    const uint8_t x9[] = {1, 1, 1, 0, 0, 0, 0, 0, 0}, y9[] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
    const uint8_t vx9[] = {1, 1, 1, 1, 1, 1, 0, 0, 0}, vy9[] = {1, 1, 0, 1, 1, 0, 1, 1, 0};
    uint8_t x[R], y[R], vx[R], vy[R];
    for (int i = 0; i < R; i++) {
        x[i] = x9[i % 9];
        y[i] = y9[(i + i / 9) % 9]; /* each repeat pairs the rows differently */
        vx[i] = vx9[i % 9];
        vy[i] = vy9[(i + i / 9) % 9];
    }
    cs_column *cx = col_fixed(B(), x, vx, R), *cy = col_fixed(B(), y, vy, R);
    cs_col_batch *b = batch_of((cs_column *[]){cx, cy}, 2);
    cs_column *out;
    cs_error err;
    /* AND: T T->T, T F->F, T N->N, F *->F, N T->N, N F->F, N N->N */
    for (int op = 0; op < 2; op++) {
        assert_int_equal(
            eval(call2(op ? "or" : "and", B(), colref(0, cx), colref(1, cy)), b, &out, &err),
            CS_OK);
        int nulls = 0;
        for (int i = 0; i < R; i++) {
            int l = vx[i] ? x[i] : -1, r = vy[i] ? y[i] : -1, want;
            if (op == 0)
                want = l == 0 || r == 0 ? 0 : l == 1 && r == 1 ? 1 : -1;
            else
                want = l == 1 || r == 1 ? 1 : l == 0 && r == 0 ? 0 : -1;
            nulls += want == -1;
            assert_int_equal(VALID(out, i) ? BOOLV(out, i) : -1, want);
        }
        assert_int_equal(out->null_count, nulls);
        cs_column_unref(out);
    }
    const int and_want[] = {1, 0, -1, 0, 0, 0, -1, 0, -1};
    assert_int_equal(eval(call2("and", B(), colref(0, cx), colref(1, cy)), b, &out, &err), CS_OK);
    for (int i = 0; i < 9; i++)
        assert_int_equal(VALID(out, i) ? BOOLV(out, i) : -1, and_want[i]);
    cs_column_unref(out);
    /* no nulls in, none out */
    assert_int_equal(eval(call2("and", B(), call1("isnotnull", B(), colref(0, cx)),
                                call1("isnull", B(), colref(1, cy))),
                          b, &out, &err),
                     CS_OK);
    assert_int_equal(out->null_count, 0);
    for (int i = 0; i < R; i++)
        assert_int_equal(BOOLV(out, i), vx[i] && !vy[i]);
    cs_column_unref(out);
    /* not null is null */
    assert_int_equal(eval(call1("not", B(), colref(0, cx)), b, &out, &err), CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 3) && !VALID(out, 6));
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

/* CASE WHEN x <> 0 THEN 10 % x ELSE -1 END: never divides by zero */
static void test_case_evaluates_branches_only_on_their_rows(void **state)
{
    (void)state;
    int32_t x[] = {0, 3, 0, 4, 0};
    uint8_t vx[] = {1, 1, 0, 1, 1};
    cs_column *cx = col_fixed(T(CS_TYPE_INT), x, vx, 5);
    cs_col_batch *b = batch_of(&cx, 1);
    cs_column *out;
    cs_error err;
    cs_pexpr *ne = call1("not", B(), call2("=", B(), colref(0, cx), lit_i32(0)));
    cs_pexpr *div = call2("%", T(CS_TYPE_INT), lit_i32(10), colref(0, cx));
    cs_pexpr *e =
        cs_pexpr_case(T(CS_TYPE_INT), true, (cs_pexpr *[]){ne, div, lit_i32(-1)}, 3, true);
    assert_int_equal(eval(e, b, &out, &err), CS_OK);
    assert_int_equal(I32(out, 0), -1);
    assert_int_equal(I32(out, 1), 1);
    assert_int_equal(I32(out, 2), -1); /* null <> 0 is null: ELSE */
    assert_int_equal(I32(out, 3), 2);
    assert_int_equal(I32(out, 4), -1);
    cs_column_unref(out);
    /* without the guard the division raises */
    assert_int_equal(eval(call2("%", T(CS_TYPE_INT), lit_i32(10), colref(0, cx)), b, &out, &err),
                     CS_ETASK);
    assert_true(cs_sql_error_is(&err, "DIVIDE_BY_ZERO"));
    /* x <> 0 AND 10 % x = 1: the right side only where the left is not false */
    ne = call1("not", B(), call2("=", B(), colref(0, cx), lit_i32(0)));
    cs_pexpr *eq =
        call2("=", B(), call2("%", T(CS_TYPE_INT), lit_i32(10), colref(0, cx)), lit_i32(1));
    assert_int_equal(eval(call2("and", B(), ne, eq), b, &out, &err), CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 1) && !VALID(out, 2) && !BOOLV(out, 3));
    cs_column_unref(out);
    /* if(x = 0, -1, 10 % x) and CASE without ELSE (null) */
    cs_pexpr *iff =
        cs_pexpr_call("if", T(CS_TYPE_INT), true,
                      (cs_pexpr *[]){call2("=", B(), colref(0, cx), lit_i32(0)), lit_i32(-1),
                                     call2("%", T(CS_TYPE_INT), lit_i32(10), colref(0, cx))},
                      3);
    /* row 2: null = 0 is null, so the else branch divides 10 % null = null */
    assert_int_equal(eval(iff, b, &out, &err), CS_OK);
    assert_true(I32(out, 0) == -1 && I32(out, 1) == 1 && !VALID(out, 2) && I32(out, 3) == 2);
    cs_column_unref(out);
    e = cs_pexpr_case(T(CS_TYPE_INT), true,
                      (cs_pexpr *[]){call2(">", B(), colref(0, cx), lit_i32(3)), lit_i32(7)}, 2,
                      false);
    assert_int_equal(eval(e, b, &out, &err), CS_OK);
    assert_true(!VALID(out, 0) && !VALID(out, 1) && I32(out, 3) == 7);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_coalesce_nvl_nullif_isnull(void **state)
{
    (void)state;
    int32_t x[] = {5, 0, 0}, y[] = {1, 2, 0};
    uint8_t vx[] = {1, 0, 0}, vy[] = {1, 1, 0};
    cs_column *cx = col_fixed(T(CS_TYPE_INT), x, vx, 3), *cy = col_fixed(T(CS_TYPE_INT), y, vy, 3);
    cs_col_batch *b = batch_of((cs_column *[]){cx, cy}, 2);
    cs_column *out;
    cs_error err;
    cs_pexpr *e = cs_pexpr_call("coalesce", T(CS_TYPE_INT), true,
                                (cs_pexpr *[]){colref(0, cx), colref(1, cy), lit_i32(9)}, 3);
    assert_int_equal(eval(e, b, &out, &err), CS_OK);
    assert_true(I32(out, 0) == 5 && I32(out, 1) == 2 && I32(out, 2) == 9 && out->null_count == 0);
    cs_column_unref(out);
    /* coalesce(x, 1 % 0) raises only when x is null somewhere */
    e = cs_pexpr_call(
        "coalesce", T(CS_TYPE_INT), true,
        (cs_pexpr *[]){lit_i32(4), call2("%", T(CS_TYPE_INT), lit_i32(1), lit_i32(0))}, 2);
    assert_int_equal(eval(e, b, &out, &err), CS_OK);
    assert_int_equal(I32(out, 2), 4);
    cs_column_unref(out);
    /* nullif(y, 2) */
    assert_int_equal(
        eval(call2("nullif", T(CS_TYPE_INT), colref(1, cy), lit_i32(2)), b, &out, &err), CS_OK);
    assert_true(I32(out, 0) == 1 && !VALID(out, 1) && !VALID(out, 2));
    cs_column_unref(out);
    assert_int_equal(eval(call1("isnull", B(), colref(0, cx)), b, &out, &err), CS_OK);
    assert_true(!BOOLV(out, 0) && BOOLV(out, 1) && BOOLV(out, 2) && out->null_count == 0);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_in_list_with_nulls(void **state)
{
    (void)state;
    int32_t x[] = {1, 2, 3};
    uint8_t vx[] = {1, 1, 0};
    cs_column *cx = col_fixed(T(CS_TYPE_INT), x, vx, 3);
    cs_col_batch *b = batch_of(&cx, 1);
    cs_column *out;
    cs_error err;
    /* x IN (1, 5) */
    assert_int_equal(
        eval(cs_pexpr_in(colref(0, cx), (cs_pexpr *[]){lit_i32(1), lit_i32(5)}, 2), b, &out, &err),
        CS_OK);
    assert_true(BOOLV(out, 0) && !BOOLV(out, 1) && VALID(out, 1) && !VALID(out, 2));
    cs_column_unref(out);
    /* x IN (1, null): no match is null, not false */
    assert_int_equal(
        eval(cs_pexpr_in(colref(0, cx), (cs_pexpr *[]){lit_i32(1), lit_null(CS_TYPE_INT)}, 2), b,
             &out, &err),
        CS_OK);
    assert_true(BOOLV(out, 0) && VALID(out, 0) && !VALID(out, 1));
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_compile_refuses_unknown_function_and_bad_ordinal(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(2);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(call1("no_such_fn", T(CS_TYPE_INT), lit_i32(1)), b, &out, &err),
                     CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "no_such_fn(int)"));
    assert_int_equal(eval(cs_pexpr_column(3, T(CS_TYPE_INT), true), b, &out, &err), CS_EINVAL);
    assert_true(
        cs_pexpr_has_kernel("+", (const cs_col_type *[]){T(CS_TYPE_INT), T(CS_TYPE_INT)}, 2));
    assert_false(
        cs_pexpr_has_kernel("+", (const cs_col_type *[]){T(CS_TYPE_INT), T(CS_TYPE_LONG)}, 2));
    cs_col_batch_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_ints_with_nulls_and_null_safe_equal),
        cmocka_unit_test(test_nan_orders_as_spark),
        cmocka_unit_test(test_strings_compare_bytewise),
        cmocka_unit_test(test_and_or_three_valued),
        cmocka_unit_test(test_case_evaluates_branches_only_on_their_rows),
        cmocka_unit_test(test_coalesce_nvl_nullif_isnull),
        cmocka_unit_test(test_in_list_with_nulls),
        cmocka_unit_test(test_compile_refuses_unknown_function_and_bad_ordinal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
