/*
 * test_pexpr_cast.c — CAST kernels (src/sqlexec/kernels_cast.c) against Spark 4.0.1: string to
 * int/bigint/double/decimal/boolean/date/timestamp (trimming, signs, exponents, Spark's date
 * and timestamp shapes, zone offsets), numbers to narrower numbers, integral widening with nulls,
 * decimals with HALF_UP, and everything to string as Spark prints it (Java's Double.toString, plain
 * decimals, timestamps without trailing zeros); ANSI errors CAST_INVALID_INPUT, CAST_OVERFLOW and
 * NUMERIC_VALUE_OUT_OF_RANGE with Spark's exact text; try_cast gives null; legacy mode nulls or
 * wraps. Every expected value and message was printed by Spark 4.0.1 for the same CAST.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "px_test.h"

/* CAST(src AS to) in mode over a one-row literal; the result column or NULL + err */
static cs_column *cast1(cs_column *src, cs_col_type *to, cs_cast_mode mode, cs_error *err)
{
    cs_col_batch *b = batch_rows(1);
    cs_column *out = NULL;
    int rc = eval(cs_pexpr_cast(lit(src), to, mode), b, &out, err);
    cs_col_batch_unref(b);
    return rc == CS_OK ? out : NULL;
}
static cs_column *str1(const char *s)
{
    return col_str(&s, 1);
}

/* the string result of casting src to string */
static void assert_text(cs_column *src, const char *want)
{
    cs_error err;
    cs_column *out = cast1(src, T(CS_TYPE_STRING), CS_CAST_ANSI, &err);
    assert_non_null(out);
    int32_t len;
    const uint8_t *p = cs_column_bytes(out, 0, &len);
    char got[128];
    snprintf(got, sizeof got, "%.*s", (int)len, (const char *)p);
    assert_string_equal(got, want);
    cs_column_unref(out);
}

static void assert_error(cs_column *src, cs_col_type *to, const char *want_msg)
{
    cs_error err;
    assert_null(cast1(src, to, CS_CAST_ANSI, &err));
    assert_string_equal(err.msg, want_msg);
    assert_int_equal(err.code, CS_ETASK);
}

#define MALFORMED(v, t)                                                                            \
    "[CAST_INVALID_INPUT] The value " v " of the type \"STRING\" cannot be cast to \"" t           \
    "\" because it is malformed. Correct the value as per the syntax, or change its target type. " \
    "Use `try_cast` to tolerate malformed input and return NULL instead. SQLSTATE: 22018"
#define OVERFLOW(v, f, t)                                                                          \
    "[CAST_OVERFLOW] The value " v " of the type \"" f "\" cannot be cast to \"" t                 \
    "\" due to an overflow. Use `try_cast` to tolerate overflow and return NULL instead. "         \
    "SQLSTATE: 22003"
#define OUT_OF_RANGE(v, p, s)                                                                      \
    "[NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION]  " v " cannot be represented as Decimal(" p      \
    ", " s "). If necessary set \"spark.sql.ansi.enabled\" to \"false\" to bypass this error, "    \
    "and return NULL instead. SQLSTATE: 22003"

static void test_string_to_numbers(void **state)
{
    (void)state;
    cs_error err;
    cs_column *out = cast1(str1("  12 "), T(CS_TYPE_INT), CS_CAST_ANSI, &err);
    assert_int_equal(I32(out, 0), 12);
    cs_column_unref(out);
    out = cast1(str1("+7"), T(CS_TYPE_INT), CS_CAST_ANSI, &err);
    assert_int_equal(I32(out, 0), 7);
    cs_column_unref(out);
    assert_error(str1("abc"), T(CS_TYPE_INT), MALFORMED("'abc'", "INT"));
    assert_error(str1("1.5"), T(CS_TYPE_INT), MALFORMED("'1.5'", "INT"));
    assert_error(str1(""), T(CS_TYPE_INT), MALFORMED("''", "INT"));
    assert_error(str1("0x10"), T(CS_TYPE_INT), MALFORMED("'0x10'", "INT"));
    assert_error(str1("9999999999"), T(CS_TYPE_INT), MALFORMED("'9999999999'", "INT"));
    assert_error(str1("12345678901234567890"), T(CS_TYPE_LONG),
                 MALFORMED("'12345678901234567890'", "BIGINT"));
    /* try_cast('abc' as int) is null */
    out = cast1(str1("abc"), T(CS_TYPE_INT), CS_CAST_TRY, &err);
    assert_false(VALID(out, 0));
    cs_column_unref(out);
    /* legacy: a fraction is dropped */
    out = cast1(str1("1.5"), T(CS_TYPE_INT), CS_CAST_LEGACY, &err);
    assert_int_equal(I32(out, 0), 1);
    cs_column_unref(out);
    out = cast1(str1(" 1.5e2 "), T(CS_TYPE_DOUBLE), CS_CAST_ANSI, &err);
    assert_true(F64(out, 0) == 150.0);
    cs_column_unref(out);
    out = cast1(str1("1.5d"), T(CS_TYPE_DOUBLE), CS_CAST_ANSI, &err);
    assert_true(F64(out, 0) == 1.5);
    cs_column_unref(out);
    out = cast1(str1("-Infinity"), T(CS_TYPE_DOUBLE), CS_CAST_ANSI, &err);
    assert_true(isinf(F64(out, 0)) && F64(out, 0) < 0);
    cs_column_unref(out);
    out = cast1(str1("1e400"), T(CS_TYPE_DOUBLE), CS_CAST_ANSI, &err);
    assert_true(isinf(F64(out, 0)));
    cs_column_unref(out);
    assert_error(str1("abc"), T(CS_TYPE_DOUBLE), MALFORMED("'abc'", "DOUBLE"));
    /* decimals: HALF_UP to the scale, exponent, 38 digits, out of range */
    char t[64];
    out = cast1(str1("12.345"), DEC(4, 2), CS_CAST_ANSI, &err);
    dec_text(out, 0, t);
    assert_string_equal(t, "12.35");
    cs_column_unref(out);
    out = cast1(str1("1e3"), DEC(10, 2), CS_CAST_ANSI, &err);
    dec_text(out, 0, t);
    assert_string_equal(t, "1000.00");
    cs_column_unref(out);
    out = cast1(str1("1.23456789012345678901234567890123456789"), DEC(38, 37), CS_CAST_ANSI, &err);
    dec_text(out, 0, t);
    assert_string_equal(t, "1.2345678901234567890123456789012345679");
    cs_column_unref(out);
    assert_error(str1("123.45"), DEC(4, 2), OUT_OF_RANGE("123.45", "4", "2"));
    assert_error(str1("abc"), DEC(10, 2), MALFORMED("'abc'", "DECIMAL(10,2)"));
    /* booleans */
    out = cast1(str1("yes"), T(CS_TYPE_BOOLEAN), CS_CAST_ANSI, &err);
    assert_true(BOOLV(out, 0));
    cs_column_unref(out);
    assert_error(str1("xyz"), T(CS_TYPE_BOOLEAN), MALFORMED("'xyz'", "BOOLEAN"));
}

static void test_string_to_dates_and_timestamps(void **state)
{
    (void)state;
    cs_error err;
    struct {
        const char *s;
        int32_t days;
    } dates[] = {{"2020-1-5", 18266},
                 {" 2020-01-05 ", 18266},
                 {"2020-01-05 garbage", 18266},
                 {"2020-01", 18262},
                 {"2020", 18262}};
    for (size_t i = 0; i < sizeof dates / sizeof dates[0]; i++) {
        cs_column *out = cast1(str1(dates[i].s), T(CS_TYPE_DATE), CS_CAST_ANSI, &err);
        assert_non_null(out);
        assert_int_equal(I32(out, 0), dates[i].days);
        cs_column_unref(out);
    }
    assert_error(str1("2020-13-01"), T(CS_TYPE_DATE), MALFORMED("'2020-13-01'", "DATE"));
    assert_error(str1("abc"), T(CS_TYPE_TIMESTAMP), MALFORMED("'abc'", "TIMESTAMP"));
    struct {
        const char *s;
        int64_t us;
    } ts[] = {{"2020-01-05 12:34:56.789", 1578227696789000LL},
              {"2020-01-05T12:34:56Z", 1578227696000000LL},
              {"2020-01-05 12:34", 1578227640000000LL},
              {"2020-01-05", 1578182400000000LL},
              {"2020-01-05 12:34:56+02:00", 1578220496000000LL}};
    for (size_t i = 0; i < sizeof ts / sizeof ts[0]; i++) {
        cs_column *out = cast1(str1(ts[i].s), T(CS_TYPE_TIMESTAMP), CS_CAST_ANSI, &err);
        assert_non_null(out);
        assert_true(I64(out, 0) == ts[i].us);
        cs_column_unref(out);
    }
    int64_t t = 1578268799000000LL; /* 2020-01-05 23:59:59 */
    cs_column *out =
        cast1(col_fixed(T(CS_TYPE_TIMESTAMP), &t, NULL, 1), T(CS_TYPE_DATE), CS_CAST_ANSI, &err);
    assert_int_equal(I32(out, 0), 18266);
    cs_column_unref(out);
}

static void test_numeric_overflow_and_decimals(void **state)
{
    (void)state;
    cs_error err;
    int32_t i300 = 300;
    int64_t l3e9 = 3000000000LL;
    int16_t s300 = 300;
    double d1e20 = 1e20, dnan = NAN, d37 = 3.7, d15 = 1.5, d01 = 0.1;
    float f1e10 = 1e10f;
    assert_error(col_fixed(T(CS_TYPE_INT), &i300, NULL, 1), T(CS_TYPE_BYTE),
                 OVERFLOW("300", "INT", "TINYINT"));
    assert_error(col_fixed(T(CS_TYPE_LONG), &l3e9, NULL, 1), T(CS_TYPE_INT),
                 OVERFLOW("3000000000L", "BIGINT", "INT"));
    assert_error(col_fixed(T(CS_TYPE_SHORT), &s300, NULL, 1), T(CS_TYPE_BYTE),
                 OVERFLOW("300S", "SMALLINT", "TINYINT"));
    assert_error(col_fixed(T(CS_TYPE_DOUBLE), &d1e20, NULL, 1), T(CS_TYPE_LONG),
                 OVERFLOW("1.0E20D", "DOUBLE", "BIGINT"));
    assert_error(col_fixed(T(CS_TYPE_DOUBLE), &dnan, NULL, 1), T(CS_TYPE_INT),
                 OVERFLOW("NaN", "DOUBLE", "INT"));
    assert_error(col_fixed(T(CS_TYPE_FLOAT), &f1e10, NULL, 1), T(CS_TYPE_INT),
                 OVERFLOW("1.0E10", "FLOAT", "INT"));
    assert_error(col_dec(9, 2, (const char *[]){"1234567.89"}, 1), T(CS_TYPE_SHORT),
                 OVERFLOW("1234567.89BD", "DECIMAL(9,2)", "SMALLINT"));
    assert_error(col_fixed(T(CS_TYPE_INT), (int32_t[]){123}, NULL, 1), DEC(2, 0),
                 OUT_OF_RANGE("123", "2", "0"));
    assert_error(col_dec(3, 1, (const char *[]){"99.5"}, 1), DEC(2, 0),
                 OUT_OF_RANGE("99.5", "2", "0"));
    /* legacy: Java's narrowing wraps */
    cs_column *out =
        cast1(col_fixed(T(CS_TYPE_INT), &i300, NULL, 1), T(CS_TYPE_BYTE), CS_CAST_LEGACY, &err);
    assert_int_equal(((int8_t *)out->values)[0], 44);
    cs_column_unref(out);
    char t[64];
    struct {
        double d;
        int p, s;
        const char *want;
    } dd[] = {{d37, 3, 0, "4"}, {d15, 10, 2, "1.50"}, {d01, 20, 18, "0.100000000000000000"}};
    for (size_t i = 0; i < 3; i++) {
        out = cast1(col_fixed(T(CS_TYPE_DOUBLE), &dd[i].d, NULL, 1), DEC(dd[i].p, dd[i].s),
                    CS_CAST_ANSI, &err);
        dec_text(out, 0, t);
        assert_string_equal(t, dd[i].want);
        cs_column_unref(out);
    }
    /* decimal to decimal HALF_UP, to int truncating, to double */
    out = cast1(col_dec(2, 1, (const char *[]){"-2.5"}, 1), DEC(1, 0), CS_CAST_ANSI, &err);
    dec_text(out, 0, t);
    assert_string_equal(t, "-3");
    cs_column_unref(out);
    out = cast1(col_dec(4, 1, (const char *[]){"-12.5"}, 1), T(CS_TYPE_INT), CS_CAST_ANSI, &err);
    assert_int_equal(I32(out, 0), -12);
    cs_column_unref(out);
    out = cast1(col_dec(4, 1, (const char *[]){"12.5"}, 1), T(CS_TYPE_DOUBLE), CS_CAST_ANSI, &err);
    assert_true(F64(out, 0) == 12.5);
    cs_column_unref(out);
    double d19 = 1.9;
    out = cast1(col_fixed(T(CS_TYPE_DOUBLE), &d19, NULL, 1), T(CS_TYPE_INT), CS_CAST_ANSI, &err);
    assert_int_equal(I32(out, 0), 1);
    cs_column_unref(out);
}

static void test_to_string_as_spark_prints(void **state)
{
    (void)state;
    double d[] = {1.5,        1e20, 0.0001, 1e-5, 1234567.0,
                  12345678.0, 1e7,  0.001,  NAN,  9007199254740992.0};
    const char *want[] = {"1.5",         "1.0E20", "1.0E-4", "1.0E-5", "1234567.0",
                          "1.2345678E7", "1.0E7",  "0.001",  "NaN",    "9.007199254740992E15"};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        assert_text(col_fixed(T(CS_TYPE_DOUBLE), &d[i], NULL, 1), want[i]);
    float f01 = 0.1f, fbig = 123456789.0f;
    assert_text(col_fixed(T(CS_TYPE_FLOAT), &f01, NULL, 1), "0.1");
    assert_text(col_fixed(T(CS_TYPE_FLOAT), &fbig, NULL, 1), "1.23456792E8");
    assert_text(col_dec(5, 2, (const char *[]){"1.10"}, 1), "1.10");
    assert_text(col_dec(3, 1, (const char *[]){"-0.5"}, 1), "-0.5");
    assert_text(col_dec(5, 3, (const char *[]){"0"}, 1), "0.000");
    assert_text(col_dec(10, 8, (const char *[]){"0.0000001"}, 1), "0.00000010");
    int32_t date = 18325; /* 2020-03-04 */
    assert_text(col_fixed(T(CS_TYPE_DATE), &date, NULL, 1), "2020-03-04");
    int64_t ts[] = {1583283723500000LL, 1583283723000000LL, 1583283723000123LL};
    assert_text(col_fixed(T(CS_TYPE_TIMESTAMP), &ts[0], NULL, 1), "2020-03-04 01:02:03.5");
    assert_text(col_fixed(T(CS_TYPE_TIMESTAMP), &ts[1], NULL, 1), "2020-03-04 01:02:03");
    assert_text(col_fixed(T(CS_TYPE_TIMESTAMP), &ts[2], NULL, 1), "2020-03-04 01:02:03.000123");
    int8_t five = 5;
    assert_text(col_fixed(T(CS_TYPE_BYTE), &five, NULL, 1), "5");
    uint8_t t = 1;
    assert_text(col_fixed(T(CS_TYPE_BOOLEAN), &t, NULL, 1), "true");
}

static void test_no_kernel_for_unsupported_casts(void **state)
{
    (void)state;
    cs_error err;
    int32_t d = 1;
    assert_null(cast1(col_fixed(T(CS_TYPE_DATE), &d, NULL, 1), T(CS_TYPE_INT), CS_CAST_ANSI, &err));
    assert_int_equal(err.code, CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "no cast kernel from date to int"));
}

/* Widening integral casts (their own typed kernels): every value kept, sign included, nulls
 * carried over; a literal argument takes the generic path. */
static void test_integral_widening_keeps_values_and_nulls(void **state)
{
    (void)state;
    int16_t v[] = {-32768, -1, 0, 7, 32767};
    uint8_t valid[] = {1, 1, 0, 1, 1};
    cs_col_batch *b = batch_of((cs_column *[]){col_fixed(T(CS_TYPE_SHORT), v, valid, 5)}, 1);
    cs_type_id to[] = {CS_TYPE_INT, CS_TYPE_LONG};
    for (int t = 0; t < 2; t++) {
        cs_column *r;
        cs_error err;
        assert_int_equal(
            eval(cs_pexpr_cast(cs_pexpr_column(0, T(CS_TYPE_SHORT), true), T(to[t]), CS_CAST_ANSI),
                 b, &r, &err),
            CS_OK);
        assert_int_equal(r->length, 5);
        for (int i = 0; i < 5; i++) {
            assert_int_equal(VALID(r, i), valid[i]);
            if (valid[i]) assert_int_equal(t ? I64(r, i) : I32(r, i), v[i]);
        }
        cs_column_unref(r);
    }
    int8_t one = -5;
    cs_column *r;
    cs_error err;
    cs_pexpr *lit = cs_pexpr_literal(col_fixed(T(CS_TYPE_BYTE), &one, NULL, 1));
    assert_int_equal(eval(cs_pexpr_cast(lit, T(CS_TYPE_LONG), CS_CAST_ANSI), b, &r, &err), CS_OK);
    assert_int_equal(I64(r, 0), -5);
    cs_column_unref(r);
    cs_col_batch_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_string_to_numbers),
        cmocka_unit_test(test_string_to_dates_and_timestamps),
        cmocka_unit_test(test_numeric_overflow_and_decimals),
        cmocka_unit_test(test_to_string_as_spark_prints),
        cmocka_unit_test(test_no_kernel_for_unsupported_casts),
        cmocka_unit_test(test_integral_widening_keeps_values_and_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
