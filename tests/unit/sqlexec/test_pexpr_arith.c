/*
 * test_pexpr_arith.c — arithmetic kernels (src/sqlexec/kernels_arith.c) against Spark 4.0.1:
 * integral + - * with nulls and literals, ANSI overflow errors with Spark's exact text
 * (ARITHMETIC_OVERFLOW, BINARY_ARITHMETIC_OVERFLOW for tinyint/smallint), wrap-around without
 * ANSI, DIVIDE_BY_ZERO (and null without ANSI), % pmod div, and decimal + - * / % at the
 * result type's precision and scale with HALF_UP rounding, 38-digit operands exact and
 * NUMERIC_VALUE_OUT_OF_RANGE. Expected values and messages were obtained by running the same
 * expressions on Spark 4.0.1 (`SELECT <expr>` with spark.sql.ansi.enabled at its default).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "px_test.h"

static void test_int_add_with_nulls_and_literals(void **state)
{
    (void)state;
    int32_t v[] = {1, 2, 3, 4};
    uint8_t valid[] = {1, 0, 1, 1};
    cs_column *c = col_fixed(T(CS_TYPE_INT), v, valid, 4);
    cs_col_batch *b = batch_of(&c, 1);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(call2("+", T(CS_TYPE_INT), colref(0, c), lit_i32(10)), b, &out, &err),
                     CS_OK);
    assert_int_equal(out->length, 4);
    assert_int_equal(I32(out, 0), 11);
    assert_false(VALID(out, 1));
    assert_int_equal(I32(out, 3), 14);
    assert_int_equal(out->null_count, 1);
    cs_column_unref(out);
    /* null literal: every row null */
    assert_int_equal(
        eval(call2("*", T(CS_TYPE_INT), colref(0, c), lit_null(CS_TYPE_INT)), b, &out, &err),
        CS_OK);
    assert_int_equal(out->null_count, 4);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_int_overflow_is_sparks_arithmetic_overflow(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(1);
    cs_column *out;
    cs_error err;
    /* SELECT 2147483647 + 1 */
    assert_int_equal(
        eval(call2("+", T(CS_TYPE_INT), lit_i32(2147483647), lit_i32(1)), b, &out, &err), CS_ETASK);
    assert_string_equal(err.msg,
                        "[ARITHMETIC_OVERFLOW] integer overflow. Use 'try_add' to tolerate "
                        "overflow and return NULL instead. If necessary set "
                        "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error. "
                        "SQLSTATE: 22003");
    assert_true(cs_sql_error_is(&err, "ARITHMETIC_OVERFLOW"));
    /* SELECT cast(9223372036854775807 as bigint) * 2 */
    int64_t big = INT64_MAX, two = 2;
    assert_int_equal(
        eval(call2("*", T(CS_TYPE_LONG), lit(col_fixed(T(CS_TYPE_LONG), &big, NULL, 1)),
                   lit(col_fixed(T(CS_TYPE_LONG), &two, NULL, 1))),
             b, &out, &err),
        CS_ETASK);
    assert_string_equal(err.msg,
                        "[ARITHMETIC_OVERFLOW] long overflow. Use 'try_multiply' to tolerate "
                        "overflow and return NULL instead. If necessary set "
                        "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error. "
                        "SQLSTATE: 22003");
    /* SELECT cast(127 as tinyint) + cast(1 as tinyint) */
    int8_t x = 127, one = 1;
    assert_int_equal(eval(call2("+", T(CS_TYPE_BYTE), lit(col_fixed(T(CS_TYPE_BYTE), &x, NULL, 1)),
                                lit(col_fixed(T(CS_TYPE_BYTE), &one, NULL, 1))),
                          b, &out, &err),
                     CS_ETASK);
    assert_string_equal(err.msg, "[BINARY_ARITHMETIC_OVERFLOW] 127S + 1S caused overflow. Use "
                                 "`try_add` to ignore overflow problem and return NULL. "
                                 "SQLSTATE: 22003");
    /* SELECT abs(-2147483648), -cast(-2147483648 as int) */
    assert_int_equal(eval(call1("abs", T(CS_TYPE_INT), lit_i32(INT32_MIN)), b, &out, &err),
                     CS_ETASK);
    assert_string_equal(err.msg, "[ARITHMETIC_OVERFLOW] integer overflow. If necessary set "
                                 "\"spark.sql.ansi.enabled\" to \"false\" to bypass this error. "
                                 "SQLSTATE: 22003");
    assert_int_equal(eval(call1("negative", T(CS_TYPE_INT), lit_i32(INT32_MIN)), b, &out, &err),
                     CS_ETASK);
    /* without ANSI: Java's wrap-around */
    assert_int_equal(eval_ansi(call2("+", T(CS_TYPE_INT), lit_i32(2147483647), lit_i32(1)), b,
                               false, &out, &err),
                     CS_OK);
    assert_int_equal(I32(out, 0), INT32_MIN);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_overflow_on_a_null_row_is_no_error(void **state)
{
    (void)state;
    int32_t v[] = {2147483647, 1};
    uint8_t valid[] = {0, 1};
    cs_column *c = col_fixed(T(CS_TYPE_INT), v, valid, 2);
    cs_col_batch *b = batch_of(&c, 1);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(call2("+", T(CS_TYPE_INT), colref(0, c), lit_i32(1)), b, &out, &err),
                     CS_OK);
    assert_false(VALID(out, 0));
    assert_int_equal(I32(out, 1), 2);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_divide_by_zero_and_remainders(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(1);
    cs_column *out;
    cs_error err;
    static const char DIV0[] =
        "[DIVIDE_BY_ZERO] Division by zero. Use `try_divide` to tolerate divisor being 0 and "
        "return NULL instead. If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass "
        "this error. SQLSTATE: 22012";
    double five = 5, zero = 0, seven = 7, two = 2;
    /* SELECT cast(5 as int) / cast(0 as int): the analyzer's doubles */
    assert_int_equal(
        eval(call2("/", T(CS_TYPE_DOUBLE), lit(col_fixed(T(CS_TYPE_DOUBLE), &five, NULL, 1)),
                   lit(col_fixed(T(CS_TYPE_DOUBLE), &zero, NULL, 1))),
             b, &out, &err),
        CS_ETASK);
    assert_string_equal(err.msg, DIV0);
    /* without ANSI: null */
    assert_int_equal(
        eval_ansi(call2("/", T(CS_TYPE_DOUBLE), lit(col_fixed(T(CS_TYPE_DOUBLE), &five, NULL, 1)),
                        lit(col_fixed(T(CS_TYPE_DOUBLE), &zero, NULL, 1))),
                  b, false, &out, &err),
        CS_OK);
    assert_false(VALID(out, 0));
    cs_column_unref(out);
    /* SELECT 7 / 2 = 3.5 */
    assert_int_equal(
        eval(call2("/", T(CS_TYPE_DOUBLE), lit(col_fixed(T(CS_TYPE_DOUBLE), &seven, NULL, 1)),
                   lit(col_fixed(T(CS_TYPE_DOUBLE), &two, NULL, 1))),
             b, &out, &err),
        CS_OK);
    assert_true(F64(out, 0) == 3.5);
    cs_column_unref(out);
    /* SELECT 7 % 0 */
    assert_int_equal(eval(call2("%", T(CS_TYPE_INT), lit_i32(7), lit_i32(0)), b, &out, &err),
                     CS_ETASK);
    assert_string_equal(err.msg, DIV0);
    /* SELECT -7 % 3 = -1, pmod(-7, 3) = 2 */
    assert_int_equal(eval(call2("%", T(CS_TYPE_INT), lit_i32(-7), lit_i32(3)), b, &out, &err),
                     CS_OK);
    assert_int_equal(I32(out, 0), -1);
    cs_column_unref(out);
    assert_int_equal(eval(call2("pmod", T(CS_TYPE_INT), lit_i32(-7), lit_i32(3)), b, &out, &err),
                     CS_OK);
    assert_int_equal(I32(out, 0), 2);
    cs_column_unref(out);
    /* INT_MIN % -1 is 0, no trap */
    assert_int_equal(
        eval(call2("%", T(CS_TYPE_INT), lit_i32(INT32_MIN), lit_i32(-1)), b, &out, &err), CS_OK);
    assert_int_equal(I32(out, 0), 0);
    cs_column_unref(out);
    /* SELECT 7 div 2 = 3 (bigint) */
    int64_t l7 = 7, l2 = 2;
    assert_int_equal(
        eval(call2("div", T(CS_TYPE_LONG), lit(col_fixed(T(CS_TYPE_LONG), &l7, NULL, 1)),
                   lit(col_fixed(T(CS_TYPE_LONG), &l2, NULL, 1))),
             b, &out, &err),
        CS_OK);
    assert_int_equal(I64(out, 0), 3);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

/* one decimal operation over two one-row literals; *text gets the result or the error */
static int dec_op(const char *fn, int p1, int s1, const char *x, int p2, int s2, const char *y,
                  int rp, int rs, char *text, cs_error *err)
{
    cs_col_batch *b = batch_rows(1);
    cs_column *out;
    int rc = eval(call2(fn, DEC(rp, rs), lit(col_dec(p1, s1, (const char *[]){x}, 1)),
                        lit(col_dec(p2, s2, (const char *[]){y}, 1))),
                  b, &out, err);
    if (rc == CS_OK) {
        if (VALID(out, 0))
            dec_text(out, 0, text);
        else
            strcpy(text, "null");
        cs_column_unref(out);
    }
    cs_col_batch_unref(b);
    return rc;
}

static void test_decimal_results_match_spark(void **state)
{
    (void)state;
    char t[128];
    cs_error err;
    /* cast(1.005 as decimal(10,3)) * cast(2.5 as decimal(5,1)) -> decimal(16,4) 2.5125 */
    assert_int_equal(dec_op("*", 10, 3, "1.005", 5, 1, "2.5", 16, 4, t, &err), CS_OK);
    assert_string_equal(t, "2.5125");
    /* cast(10.5 as decimal(3,1)) / cast(3 as decimal(1,0)) -> decimal(8,6) 3.500000 */
    assert_int_equal(dec_op("/", 3, 1, "10.5", 1, 0, "3", 8, 6, t, &err), CS_OK);
    assert_string_equal(t, "3.500000");
    /* 1.00 / 3.00, 2.00 / 3.00, -2.00 / 3.00 -> decimal(23,13), HALF_UP */
    assert_int_equal(dec_op("/", 10, 2, "1", 10, 2, "3", 23, 13, t, &err), CS_OK);
    assert_string_equal(t, "0.3333333333333");
    assert_int_equal(dec_op("/", 10, 2, "2", 10, 2, "3", 23, 13, t, &err), CS_OK);
    assert_string_equal(t, "0.6666666666667");
    assert_int_equal(dec_op("/", 10, 2, "-2", 10, 2, "3", 23, 13, t, &err), CS_OK);
    assert_string_equal(t, "-0.6666666666667");
    /* cast(1.5 as decimal(2,1)) - cast(2.25 as decimal(3,2)) -> decimal(4,2) -0.75 */
    assert_int_equal(dec_op("-", 2, 1, "1.5", 3, 2, "2.25", 4, 2, t, &err), CS_OK);
    assert_string_equal(t, "-0.75");
    /* cast(7.5 as decimal(2,1)) % cast(2 as decimal(1,0)) -> 1.5 */
    assert_int_equal(dec_op("%", 2, 1, "7.5", 1, 0, "2", 2, 1, t, &err), CS_OK);
    assert_string_equal(t, "1.5");
    /* 38 nines + 1 at decimal(38,0) */
    assert_int_equal(
        dec_op("+", 38, 0, "99999999999999999999999999999999999999", 38, 0, "1", 38, 0, t, &err),
        CS_ETASK);
    assert_string_equal(err.msg,
                        "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  "
                        "100000000000000000000000000000000000000 cannot be represented as "
                        "Decimal(38, 0). If necessary set \"spark.sql.ansi.enabled\" to \"false\" "
                        "to bypass this error, and return NULL instead. SQLSTATE: 22003");
    /* cast(1 as decimal(2,1)) / cast(0 as decimal(2,1)) */
    assert_int_equal(dec_op("/", 2, 1, "1", 2, 1, "0", 8, 6, t, &err), CS_ETASK);
    assert_true(cs_sql_error_is(&err, "DIVIDE_BY_ZERO"));
}

static void test_decimal_38_digit_operands_are_exact(void **state)
{
    (void)state;
    char t[128];
    cs_error err;
    /* products and quotients past 128 bits, checked with Python's decimal at HALF_UP */
    assert_int_equal(dec_op("*", 38, 10, "1234567890123456789012345678.1234567890", 11, 10,
                            "3.0000000001", 38, 6, t, &err),
                     CS_OK);
    assert_string_equal(t, "3703703670493827156049382713.271605");
    assert_int_equal(dec_op("/", 38, 2, "123456789012345678901234567890123456.78", 10, 2,
                            "12345.67", 38, 6, t, &err),
                     CS_OK);
    assert_string_equal(t, "10000007210005263294842205233909.820753");
    assert_int_equal(dec_op("/", 38, 2, "-123456789012345678901234567890123456.78", 10, 2,
                            "12345.67", 38, 6, t, &err),
                     CS_OK);
    assert_string_equal(t, "-10000007210005263294842205233909.820753");
    /* a product past 38 digits */
    assert_int_equal(dec_op("*", 23, 3, "12345678901234567890.123", 22, 2,
                            "98765432109876543210.45", 38, 5, t, &err),
                     CS_ETASK);
    /* as Spark prints it: the product at 38 significant digits */
    assert_string_equal(err.msg,
                        "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  "
                        "1219326311370217952255167504766333897260 cannot be represented as "
                        "Decimal(38, 5). If necessary set \"spark.sql.ansi.enabled\" to \"false\" "
                        "to bypass this error, and return NULL instead. SQLSTATE: 22003");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_add_with_nulls_and_literals),
        cmocka_unit_test(test_int_overflow_is_sparks_arithmetic_overflow),
        cmocka_unit_test(test_overflow_on_a_null_row_is_no_error),
        cmocka_unit_test(test_divide_by_zero_and_remainders),
        cmocka_unit_test(test_decimal_results_match_spark),
        cmocka_unit_test(test_decimal_38_digit_operands_are_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
