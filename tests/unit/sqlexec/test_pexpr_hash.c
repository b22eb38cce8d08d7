/*
 * test_pexpr_hash.c — hash() and xxhash64() (src/sqlexec/kernels_hash.c) give Spark's values:
 * every expected number below is what Spark 4.0.1 printed for `SELECT hash(...)` /
 * `SELECT xxhash64(...)` over the same literal (ints, bigints, strings incl. multi-byte UTF-8
 * with a tail, doubles incl. -0.0, floats, booleans, dates, timestamps, decimals of both
 * representations, nulls and several arguments).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "px_test.h"

/* fn over the one-row literal columns a[0..n) */
static int64_t hash_of(const char *fn, cs_column **a, int n)
{
    cs_col_batch *b = batch_rows(1);
    cs_pexpr *args[4];
    for (int i = 0; i < n; i++)
        args[i] = lit(a[i]);
    bool xx = strcmp(fn, "xxhash64") == 0;
    cs_pexpr *e = cs_pexpr_call(fn, T(xx ? CS_TYPE_LONG : CS_TYPE_INT), false, args, n);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(e, b, &out, &err), CS_OK);
    int64_t v = xx ? I64(out, 0) : I32(out, 0);
    cs_column_unref(out);
    cs_col_batch_unref(b);
    return v;
}

static cs_column *one(cs_type_id id, const void *v)
{
    return col_fixed(T(id), v, NULL, 1);
}
static cs_column *one_str(const char *s)
{
    return col_str(&s, 1);
}
static cs_column *one_dec(int p, int s, const char *v)
{
    return col_dec(p, s, &v, 1);
}
static cs_column *one_null(cs_type_id id)
{
    uint8_t zero[16] = {0}, invalid = 0;
    return col_fixed(T(id), zero, &invalid, 1);
}

static void test_murmur3_hash_matches_spark(void **state)
{
    (void)state;
    int32_t i1 = 1, date = 18262; /* date'2020-01-01' */
    int64_t l1 = 1, ts = 1577836800000000LL;
    double d15 = 1.5, d0 = 0.0, dm0 = -0.0;
    float f15 = 1.5f;
    uint8_t t = 1, f = 0;
    int8_t b1 = 1;
    int16_t sm5 = -5;
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_INT, &i1)}, 1), -559580957);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_LONG, &l1)}, 1), -1712319331);
    assert_int_equal(hash_of("hash", (cs_column *[]){one_str("abc")}, 1), 1322437556);
    assert_int_equal(hash_of("hash", (cs_column *[]){one_str("")}, 1), 142593372);
    assert_int_equal(
        hash_of("hash", (cs_column *[]){one_str("h\xc3\xa9llo w\xc3\xb6rld, a longer string!")}, 1),
        -10114461);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_DOUBLE, &d15)}, 1), 1290763749);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_DOUBLE, &d0)}, 1), -1670924195);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_DOUBLE, &dm0)}, 1), -1670924195);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_FLOAT, &f15)}, 1), -221251528);
    assert_int_equal(hash_of("hash", (cs_column *[]){one_null(CS_TYPE_INT)}, 1), 42);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_INT, &i1), one_str("a")}, 2),
                     -936062819);
    assert_int_equal(hash_of("hash", (cs_column *[]){one_dec(10, 2, "1.23")}, 1), -46242105);
    assert_int_equal(hash_of("hash", (cs_column *[]){one_dec(20, 2, "1.23")}, 1), -1536290115);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_DATE, &date)}, 1), -725858435);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_TIMESTAMP, &ts)}, 1), -1486022740);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_BOOLEAN, &t)}, 1), -559580957);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_BOOLEAN, &f)}, 1), 933211791);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_BYTE, &b1)}, 1), -559580957);
    assert_int_equal(hash_of("hash", (cs_column *[]){one(CS_TYPE_SHORT, &sm5)}, 1), 1369497261);
    int32_t five = 5;
    assert_int_equal(
        hash_of("hash", (cs_column *[]){one_null(CS_TYPE_INT), one(CS_TYPE_INT, &five)}, 2),
        1023896466);
}

static void test_xxhash64_matches_spark(void **state)
{
    (void)state;
    int32_t i1 = 1, date = 18262;
    int64_t l1 = 1;
    double d15 = 1.5;
    uint8_t t = 1;
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_INT, &i1)}, 1) ==
                -6698625589789238999LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_LONG, &l1)}, 1) ==
                -7001672635703045582LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one_str("abc")}, 1) == 1423657621850124518LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one_str("")}, 1) == -7444071767201028348LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_DOUBLE, &d15)}, 1) ==
                7738255526519901366LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one_null(CS_TYPE_INT)}, 1) == 42);
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_INT, &i1), one_str("a")}, 2) ==
                8205864924878002737LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one_dec(10, 2, "1.23")}, 1) ==
                -3178482946328430151LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one_dec(20, 2, "1.23")}, 1) ==
                1973765065063347049LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_DATE, &date)}, 1) ==
                2299834470729022467LL);
    assert_true(hash_of("xxhash64", (cs_column *[]){one(CS_TYPE_BOOLEAN, &t)}, 1) ==
                -6698625589789238999LL);
    assert_true(hash_of("xxhash64",
                        (cs_column *[]){one_str("h\xc3\xa9llo w\xc3\xb6rld, a longer string!")},
                        1) == -6654261496881797349LL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_murmur3_hash_matches_spark),
        cmocka_unit_test(test_xxhash64_matches_spark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
