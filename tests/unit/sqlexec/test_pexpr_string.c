/*
 * test_pexpr_string.c — string kernels (src/sqlexec/kernels_string.c) against the values
 * Spark 4.0.1 printed for the same expressions: substring with positive, negative and zero
 * positions over multi-byte UTF-8, like with '_', '%', the default and a chosen escape, upper
 * of non-ASCII letters, length in code points, trims, replace, instr, lpad/rpad (truncating too),
 * concat (null in, null out), concat_ws (skips nulls), startswith, contains.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "px_test.h"

static cs_pexpr *s(const char *v)
{
    if (!v) return lit_null(CS_TYPE_STRING);
    return lit(col_str(&v, 1));
}

/* the one-row result of fn over args as text ("NULL" for null; "true"/"false"; ints) */
static void run(const char *fn, cs_col_type *t, cs_pexpr **args, int n, char *buf)
{
    cs_col_batch *b = batch_rows(1);
    cs_column *out;
    cs_error err;
    assert_int_equal(eval(cs_pexpr_call(fn, t, true, args, n), b, &out, &err), CS_OK);
    if (!VALID(out, 0))
        strcpy(buf, "NULL");
    else if (out->type->id == CS_TYPE_BOOLEAN)
        strcpy(buf, BOOLV(out, 0) ? "true" : "false");
    else if (out->type->id == CS_TYPE_INT)
        sprintf(buf, "%d", I32(out, 0));
    else {
        int32_t len;
        const uint8_t *p = cs_column_bytes(out, 0, &len);
        sprintf(buf, "%.*s", (int)len, (const char *)p);
    }
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

#define CHECK(fn, type, want, ...)                                                                 \
    do {                                                                                           \
        cs_pexpr *args_[] = {__VA_ARGS__};                                                         \
        char got_[256];                                                                            \
        run(fn, T(type), args_, (int)(sizeof args_ / sizeof args_[0]), got_);                      \
        assert_string_equal(got_, want);                                                           \
    } while (0)

static void test_substring_and_case(void **state)
{
    (void)state;
    CHECK("substring", CS_TYPE_STRING, "ell", s("hello"), lit_i32(2), lit_i32(3));
    CHECK("substring", CS_TYPE_STRING, "ll", s("hello"), lit_i32(-3), lit_i32(2));
    CHECK("substring", CS_TYPE_STRING, "he", s("hello"), lit_i32(0), lit_i32(2));
    CHECK("substring", CS_TYPE_STRING, "\xc3\xa9l", s("h\xc3\xa9llo"), lit_i32(2), lit_i32(2));
    CHECK("upper", CS_TYPE_STRING, "H\xc3\x89LLO", s("h\xc3\xa9llo"));
    CHECK("lower", CS_TYPE_STRING, "h\xc3\xa9llo", s("H\xc3\x89LLO"));
    CHECK("length", CS_TYPE_INT, "5", s("h\xc3\xa9llo"));
    CHECK("trim", CS_TYPE_STRING, "a b", s("  a b  "));
    CHECK("ltrim", CS_TYPE_STRING, "a ", s("  a "));
    CHECK("rtrim", CS_TYPE_STRING, "  a", s("  a "));
}

static void test_like(void **state)
{
    (void)state;
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("abc"), s("a%"));
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("a_c"), s("a\\_c"));
    CHECK("like", CS_TYPE_BOOLEAN, "false", s("abc"), s("a\\_c"));
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("a%c"), s("a!%c"), s("!"));
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("h\xc3\xa9llo"), s("h_llo"));
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("xxabcab"), s("%ab"));
    CHECK("like", CS_TYPE_BOOLEAN, "NULL", s(NULL), s("%"));
}

static void test_replace_pad_concat(void **state)
{
    (void)state;
    CHECK("replace", CS_TYPE_STRING, "axycaxyc", s("abcabc"), s("b"), s("xy"));
    CHECK("instr", CS_TYPE_INT, "3", s("hello"), s("ll"));
    CHECK("instr", CS_TYPE_INT, "0", s("hello"), s("z"));
    CHECK("lpad", CS_TYPE_STRING, "abahi", s("hi"), lit_i32(5), s("ab"));
    CHECK("rpad", CS_TYPE_STRING, "hiaba", s("hi"), lit_i32(5), s("ab"));
    CHECK("lpad", CS_TYPE_STRING, "hel", s("hello"), lit_i32(3), s("x"));
    CHECK("concat", CS_TYPE_STRING, "NULL", s("a"), s(NULL), s("b"));
    CHECK("concat", CS_TYPE_STRING, "ab", s("a"), s("b"));
    CHECK("concat_ws", CS_TYPE_STRING, "a-b", s("-"), s("a"), s(NULL), s("b"));
    CHECK("startswith", CS_TYPE_BOOLEAN, "true", s("hello"), s("he"));
    CHECK("endswith", CS_TYPE_BOOLEAN, "false", s("hello"), s("he"));
    CHECK("contains", CS_TYPE_BOOLEAN, "true", s("hello"), s("ell"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_substring_and_case),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_replace_pad_concat),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
