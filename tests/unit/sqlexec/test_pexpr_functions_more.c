/*
 * test_pexpr_functions_more.c — the scalar functions of kernels_misc.c, kernels_digest.c,
 * kernels_math_more.c, kernels_integral.c, kernels_string_more.c, kernels_datetime_more.c and
 * kernels_interval.c against Spark 4.0.1's
 * answers in tests/sql/golden/corpus/: typeof (decimal 1), md5 / sha2 / crc32 of 'Spark'
 * (hashing 8) and sha2 of a bad length is NULL (hashing 9), greatest(1, NULL, 3) = 3
 * (conditional 33), try_add(2147483647, 1) and try_mod(5, 0) are NULL, bit_count(255) = 8,
 * width_bucket(5.3, 0.2, 10.6, 5) = 3, hypot(3, 4) = 5, 5 & 3 = 1, shiftright(-8, 1) = -4,
 * factorial(21) is NULL, split_part('11.12.13', '.', 2) = '12' and its index 0 error
 * (strings 9), soundex('Robert') = 'R163' and levenshtein('kitten', 'sitting') = 3 (strings
 * 28), translate('abcde', 'bd', 'BD') = 'aBcDe' (strings 18), conv('ff', 16, 10) = '255' and
 * base64 of 'Spark' (strings 29), elt(5, 'x') is INVALID_ARRAY_INDEX (strings 26),
 * weekofyear = 27 and dayname = 'Thu' (datetime 6, 33), make_date(2023, 2, 29)'s
 * DATETIME_FIELD_OUT_OF_BOUNDS (datetime 20), a date difference of 60 days (datetime 21),
 * reverse('abc') (strings 19) and 'Banana' ILIKE 'b%' (conditional 21); rand / randn / uuid
 * (kernels_random.c), sentences and mask (strings 36), make_interval and a calendar interval's
 * text (kernels_interval_calendar.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>

#include "formats/text_values.h"
#include "px_test.h"

static cs_pexpr *str_lit(const char *s)
{
    return lit(col_str((const char *const[]){s}, 1));
}

static cs_pexpr *i64_lit(int64_t v)
{
    return lit(col_fixed(T(CS_TYPE_LONG), &v, NULL, 1));
}

static cs_column *run(cs_pexpr *e)
{
    cs_col_batch *b = batch_rows(2);
    cs_column *out = NULL;
    cs_error err;
    int rc = eval(e, b, &out, &err);
    if (rc != CS_OK) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, CS_OK);
    cs_col_batch_unref(b);
    return out;
}

static void text_is(cs_pexpr *e, const char *want)
{
    cs_column *c = run(e);
    assert_true(VALID(c, 1));
    int32_t len;
    const uint8_t *p = cs_column_bytes(c, 1, &len);
    char got[256];
    snprintf(got, sizeof got, "%.*s", (int)len, (const char *)p);
    assert_string_equal(got, want);
    cs_column_unref(c);
}

static void null_row(cs_pexpr *e)
{
    cs_column *c = run(e);
    assert_false(VALID(c, 1));
    cs_column_unref(c);
}

static void fails_with(cs_pexpr *e, const char *cls)
{
    cs_col_batch *b = batch_rows(1);
    cs_column *out = NULL;
    cs_error err;
    assert_int_not_equal(eval(e, b, &out, &err), CS_OK);
    assert_true(cs_sql_error_is(&err, cls));
    cs_col_batch_unref(b);
}

static cs_pexpr *call3(const char *fn, cs_col_type *t, cs_pexpr *a, cs_pexpr *b, cs_pexpr *c)
{
    return cs_pexpr_call(fn, t, true, (cs_pexpr *[]){a, b, c}, 3);
}

static void test_typeof_and_digests(void **state)
{
    (void)state;
    const char *d[] = {"1.5"};
    text_is(call1("typeof", T(CS_TYPE_STRING), lit(col_dec(2, 1, d, 1))), "decimal(2,1)");
    text_is(call1("md5", T(CS_TYPE_STRING), str_lit("Spark")), "8cde774d6f7333752ed72cacddb05126");
    text_is(call2("sha2", T(CS_TYPE_STRING), str_lit("Spark"), lit_i32(256)),
            "529bc3b07127ecb7e53a4dcf1991d9152c24537d919178022b2c42657f79a26b");
    null_row(call2("sha2", T(CS_TYPE_STRING), str_lit("x"), lit_i32(7)));
    cs_column *c = run(call1("crc32", T(CS_TYPE_LONG), str_lit("Spark")));
    assert_int_equal(I64(c, 1), 1557323817);
    cs_column_unref(c);
}

static void test_math_and_integers(void **state)
{
    (void)state;
    cs_column *c =
        run(call3("greatest", T(CS_TYPE_INT), lit_i32(1), lit_null(CS_TYPE_INT), lit_i32(3)));
    assert_int_equal(I32(c, 1), 3);
    cs_column_unref(c);
    null_row(call2("try_add", T(CS_TYPE_INT), lit_i32(INT_MAX), lit_i32(1)));
    c = run(call2("&", T(CS_TYPE_INT), lit_i32(5), lit_i32(3)));
    assert_int_equal(I32(c, 0), 1);
    cs_column_unref(c);
    c = run(call2("shiftright", T(CS_TYPE_LONG), i64_lit(-8), lit_i32(1)));
    assert_int_equal(I64(c, 0), -4);
    cs_column_unref(c);
    null_row(call1("factorial", T(CS_TYPE_LONG), lit_i32(21)));
    text_is(call1("bin", T(CS_TYPE_STRING), i64_lit(13)), "1101");
    /* math 6, 25, 26, 27 */
    null_row(call2("try_mod", T(CS_TYPE_INT), lit_i32(5), lit_i32(0)));
    c = run(call1("bit_count", T(CS_TYPE_INT), lit_i32(255)));
    assert_int_equal(I32(c, 0), 8);
    cs_column_unref(c);
    double v[4] = {5.3, 0.2, 10.6, 3};
    cs_pexpr *wb[4];
    for (int i = 0; i < 3; i++)
        wb[i] = lit(col_fixed(T(CS_TYPE_DOUBLE), &v[i], NULL, 1));
    wb[3] = i64_lit(5);
    c = run(cs_pexpr_call("width_bucket", T(CS_TYPE_LONG), true, wb, 4));
    assert_int_equal(I64(c, 0), 3);
    cs_column_unref(c);
    c = run(call2("hypot", T(CS_TYPE_DOUBLE), lit(col_fixed(T(CS_TYPE_DOUBLE), &v[3], NULL, 1)),
                  lit(col_fixed(T(CS_TYPE_DOUBLE), &(double){4}, NULL, 1))));
    assert_true(F64(c, 0) == 5.0);
    cs_column_unref(c);
}

static void test_strings(void **state)
{
    (void)state;
    text_is(call3("split_part", T(CS_TYPE_STRING), str_lit("11.12.13"), str_lit("."), lit_i32(2)),
            "12");
    fails_with(call3("split_part", T(CS_TYPE_STRING), str_lit("a"), str_lit(","), lit_i32(0)),
               "INVALID_INDEX_OF_ZERO");
    text_is(call1("soundex", T(CS_TYPE_STRING), str_lit("Robert")), "R163");
    cs_column *c = run(call2("levenshtein", T(CS_TYPE_INT), str_lit("kitten"), str_lit("sitting")));
    assert_int_equal(I32(c, 0), 3);
    cs_column_unref(c);
    text_is(call3("translate", T(CS_TYPE_STRING), str_lit("abcde"), str_lit("bd"), str_lit("BD")),
            "aBcDe");
    text_is(call3("conv", T(CS_TYPE_STRING), str_lit("ff"), lit_i32(16), lit_i32(10)), "255");
    text_is(call1("base64", T(CS_TYPE_STRING), str_lit("Spark")), "U3Bhcms=");
    text_is(call1("initcap", T(CS_TYPE_STRING), str_lit("hello wORLD foo-bar")),
            "Hello World Foo-bar");
    fails_with(call2("elt", T(CS_TYPE_STRING), lit_i32(5), str_lit("x")), "INVALID_ARRAY_INDEX");
}

static cs_pexpr *date_lit(int y, int m, int d)
{
    int32_t v = (int32_t)cs_tv_days_from_civil(y, m, d);
    return lit(col_fixed(T(CS_TYPE_DATE), &v, NULL, 1));
}

static void test_dates_and_intervals(void **state)
{
    (void)state;
    cs_column *c = run(call1("weekofyear", T(CS_TYPE_INT), date_lit(2024, 7, 4)));
    assert_int_equal(I32(c, 0), 27);
    cs_column_unref(c);
    fails_with(call3("make_date", T(CS_TYPE_DATE), lit_i32(2023), lit_i32(2), lit_i32(29)),
               "DATETIME_FIELD_OUT_OF_BOUNDS");
    text_is(call1("dayname", T(CS_TYPE_STRING), date_lit(2024, 7, 4)), "Thu");
    /* DATE '2024-03-01' - DATE '2024-01-01' = INTERVAL '60' DAY (datetime 21) */
    cs_col_type *day =
        cs_col_type_interval(CS_TYPE_INTERVAL_DT, CS_INTERVAL_DAY, CS_INTERVAL_DAY, NULL);
    c = run(call2("-", day, date_lit(2024, 3, 1), date_lit(2024, 1, 1)));
    assert_int_equal(I64(c, 0), 60LL * 86400000000LL);
    cs_column_unref(c);
}

static void test_reverse_ilike(void **state)
{
    (void)state;
    text_is(call1("reverse", T(CS_TYPE_STRING), str_lit("abc")), "cba");
    cs_column *c = run(call2("ilike", T(CS_TYPE_BOOLEAN), str_lit("Banana"), str_lit("b%")));
    assert_true(BOOLV(c, 0));
    cs_column_unref(c);
}

/* rand(0) and randn(0) on partition 0 are Spark's documented values, rand(NULL) is rand(0), a
 * second batch moves the generator on; sentences as the corpus (strings 36) and mask's
 * replacements (strings 36, and a NULL digit replacement keeping the digits) */
static void test_random_sentences_mask(void **state)
{
    (void)state;
    cs_col_type *dbl = T(CS_TYPE_DOUBLE);
    cs_column *c = run(call1("rand", dbl, i64_lit(0)));
    assert_true(F64(c, 0) == 0.7604953758285915);
    cs_column_unref(c);
    c = run(call1("randn", dbl, i64_lit(0)));
    assert_true(F64(c, 0) == 1.6034991609278433);
    cs_column_unref(c);
    c = run(call1("rand", dbl, lit_null(CS_TYPE_LONG)));
    assert_true(F64(c, 0) == 0.7604953758285915);
    cs_column_unref(c);
    c = run(cs_pexpr_call("uuid", T(CS_TYPE_STRING), false, NULL, 0));
    int32_t len;
    const uint8_t *u = cs_column_bytes(c, 0, &len);
    assert_int_equal(len, 36);
    assert_int_equal(u[14], '4'); /* version 4 */
    cs_column_unref(c);
    cs_col_type *words = cs_col_type_array(cs_col_type_array(T(CS_TYPE_STRING), true), true);
    c = run(call1("sentences", words, str_lit("Hi there. How are you?")));
    const int32_t *off = cs_column_offsets(c), *inner = cs_column_offsets(c->children[0]);
    assert_int_equal(off[1] - off[0], 2);
    assert_int_equal(inner[1] - inner[0], 2);
    assert_int_equal(inner[2] - inner[1], 3);
    cs_column_unref(c);
    cs_pexpr *m[] = {str_lit("AbCd-123"), str_lit("X"), str_lit("x"), str_lit("n"),
                     lit_null(CS_TYPE_STRING)};
    text_is(cs_pexpr_call("mask", T(CS_TYPE_STRING), true, m, 5), "XxXx-nnn");
    cs_pexpr *m2[] = {str_lit("Ab-1"), str_lit("U"), str_lit("l"), lit_null(CS_TYPE_STRING),
                      str_lit("*")};
    text_is(cs_pexpr_call("mask", T(CS_TYPE_STRING), true, m2, 5), "Ul*1");
}

/* make_interval (datetime 27, formats 18) and its text as CalendarInterval.toString, also of a
 * negative interval and of the zero one */
static void test_make_interval_and_its_text(void **state)
{
    (void)state;
    cs_col_type *cal = T(CS_TYPE_INTERVAL_CAL);
    const char *secs[] = {"6.500000"}, *neg[] = {"0.000001"}, *zero[] = {"0.000000"};
    cs_pexpr *a[] = {lit_i32(1),
                     lit_i32(2),
                     lit_i32(0),
                     lit_i32(3),
                     lit_i32(4),
                     lit_i32(5),
                     lit(col_dec(18, 6, secs, 1))};
    cs_pexpr *text = cs_pexpr_cast(cs_pexpr_call("make_interval", cal, true, a, 7),
                                   T(CS_TYPE_STRING), CS_CAST_ANSI);
    text_is(text, "1 years 2 months 3 days 4 hours 5 minutes 6.5 seconds");
    cs_pexpr *b[] = {lit_i32(-1),
                     lit_i32(1),
                     lit_i32(0),
                     lit_i32(0),
                     lit_i32(-1),
                     lit_i32(0),
                     lit(col_dec(18, 6, neg, 1))};
    text_is(cs_pexpr_cast(cs_pexpr_call("make_interval", cal, true, b, 7), T(CS_TYPE_STRING),
                          CS_CAST_ANSI),
            "-11 months -59 minutes -59.999999 seconds");
    cs_pexpr *z[] = {lit_i32(0),
                     lit_i32(0),
                     lit_i32(0),
                     lit_i32(0),
                     lit_i32(0),
                     lit_i32(0),
                     lit(col_dec(18, 6, zero, 1))};
    text_is(cs_pexpr_cast(cs_pexpr_call("make_interval", cal, true, z, 7), T(CS_TYPE_STRING),
                          CS_CAST_ANSI),
            "0 seconds");
    cs_pexpr *big[] = {lit_i32(INT_MAX),
                       lit_i32(0),
                       lit_i32(0),
                       lit_i32(0),
                       lit_i32(0),
                       lit_i32(0),
                       lit(col_dec(18, 6, zero, 1))};
    fails_with(cs_pexpr_call("make_interval", cal, true, big, 7), "ARITHMETIC_OVERFLOW");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_typeof_and_digests),
        cmocka_unit_test(test_math_and_integers),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_dates_and_intervals),
        cmocka_unit_test(test_reverse_ilike),
        cmocka_unit_test(test_random_sentences_mask),
        cmocka_unit_test(test_make_interval_and_its_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
