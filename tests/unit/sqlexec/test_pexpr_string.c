/*
 * test_pexpr_string.c — string kernels (src/sqlexec/kernels_string.c) against the values
 * Spark 4.0.1 printed for the same expressions: substring with positive, negative and zero
 * positions over multi-byte UTF-8, like with '_', '%', the default and a chosen escape, upper
 * of non-ASCII letters, length in code points, trims, replace, instr, lpad/rpad (truncating too),
 * concat (null in, null out), concat_ws (skips nulls), startswith, contains. substring and concat
 * over columns of several rows (nulls, literals between columns, a dictionary-encoded column,
 * multi-byte and stray continuation bytes, empty strings) equal their one-row results, and so
 * do like, the comparisons and IN of a column (plain or dictionary-encoded) against literals.
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

/* row i of a string column as text ("NULL" for null) */
static void text_at(const cs_column *c, int64_t i, char *buf)
{
    if (!VALID(c, i)) {
        strcpy(buf, "NULL");
        return;
    }
    int32_t len;
    const uint8_t *p = cs_column_bytes(c, i, &len);
    sprintf(buf, "%.*s", (int)len, (const char *)p);
}

static void test_substring_concat_over_columns(void **state)
{
    (void)state;
    enum { N = 9 };
    const char *a[N] = {"hello",          NULL,    "",
                        "h\xc3\xa9llo",   "\x80x", "\x80",
                        "ab\xe2\x82\xac", "z",     "0123456789abcdefghij"};
    const char *b[N] = {"1", "2", NULL, "\xc3\xa9", "", "y", "\x80", "", "kl"};
    int32_t pos[N] = {2, 1, 1, -2, 2, 1, 3, 0, 12};
    /* c1 as a dictionary-encoded column: indices into a dictionary of its values */
    cs_column *plain_b = col_str(b, N);
    const char *dict_v[N] = {"1", "2", "", "\xc3\xa9", "", "y", "\x80", "", "kl"};
    cs_column *dict = col_str(dict_v, N);
    int32_t idx[N];
    uint8_t valid[N];
    for (int i = 0; i < N; i++) {
        idx[i] = N - 1 - i;
        valid[i] = b[N - 1 - i] != NULL;
    }
    cs_column *enc = col_fixed(T(CS_TYPE_INT), idx, valid, N);
    cs_col_type_unref(enc->type);
    enc->type = T(CS_TYPE_STRING);
    enc->dictionary = dict;
    cs_column *cols[] = {col_str(a, N), plain_b, enc, col_fixed(T(CS_TYPE_INT), pos, NULL, N)};
    cs_col_batch *batch = batch_of(cols, 4);
    for (int variant = 0; variant < 4; variant++) {
        const cs_column *cb = batch->columns[variant & 1 ? 2 : 1];
        cs_pexpr *e;
        if (variant < 2)
            e = cs_pexpr_call(
                "concat", T(CS_TYPE_STRING), true,
                (cs_pexpr *[]){colref(0, cols[0]), s("|"), colref(variant & 1 ? 2 : 1, cb), s("")},
                4);
        else
            e = cs_pexpr_call("substring", T(CS_TYPE_STRING), true,
                              (cs_pexpr *[]){colref(0, cols[0]), colref(3, cols[3])}, 2);
        cs_column *out;
        cs_error err;
        assert_int_equal(eval(e, batch, &out, &err), CS_OK);
        assert_int_equal(out->length, N);
        for (int i = 0; i < N; i++) {
            char got[256], want[256];
            text_at(out, i, got);
            const char *bv = variant & 1 ? b[N - 1 - i] : b[i];
            if (variant < 2)
                run("concat", T(CS_TYPE_STRING), (cs_pexpr *[]){s(a[i]), s("|"), s(bv), s("")}, 4,
                    want);
            else
                run("substring", T(CS_TYPE_STRING), (cs_pexpr *[]){s(a[i]), lit_i32(pos[i])}, 2,
                    want);
            assert_string_equal(got, want);
        }
        assert_int_equal(out->null_count, variant < 2 ? 2 : 1);
        cs_column_unref(out);
    }
    CHECK("substring", CS_TYPE_STRING, "ab", s("ab\xe2\x82\xac"), lit_i32(1), lit_i32(2));
    CHECK("substring", CS_TYPE_STRING, "\xe2\x82\xac", s("ab\xe2\x82\xac"), lit_i32(-1));
    CHECK("concat", CS_TYPE_STRING, "0123456789abcdefghij|x", s("0123456789abcdefghij"), s("|"),
          s("x"));
    cs_col_batch_unref(batch);
}

/* A string column of N rows: plain (enc false) or dictionary-encoded over D entries (rows i take
 * entry i % D; the rows of null_rows are null), the values vals[i % D]. */
static cs_column *str_rows(const char *const *vals, int d, int n, bool enc, const bool *null_rows)
{
    if (!enc) {
        const char *v[32];
        for (int i = 0; i < n; i++)
            v[i] = null_rows[i] ? NULL : vals[i % d];
        return col_str(v, n);
    }
    int32_t idx[32];
    uint8_t valid[32];
    for (int i = 0; i < n; i++) {
        idx[i] = null_rows[i] ? 1000 : i % d; /* a null row's index is never read */
        valid[i] = !null_rows[i];
    }
    cs_column *c = col_fixed(T(CS_TYPE_INT), idx, valid, n);
    cs_col_type_unref(c->type);
    c->type = T(CS_TYPE_STRING);
    c->dictionary = col_str(vals, d);
    return c;
}

/* like, the comparisons and IN of a column (plain, or dictionary-encoded with fewer entries than
 * rows: each entry evaluated once) against literal patterns and values: every row equals the
 * one-row result (like_match's walk, the comparison of two values), for patterns the
 * segment matcher serves ('%'s only) and those it leaves to the walk ('_', the escape, a segment
 * starting inside a code point). */
static void test_like_compare_in_over_columns(void **state)
{
    (void)state;
    enum { D = 16, N = 28 };
    const char *vals[D] = {"special requests",
                           "specialrequests",
                           "requests special",
                           "a",
                           "aba",
                           "xxabcab",
                           "h\xc3\xa9llo",
                           "\x80x",
                           "",
                           "special%requests",
                           "forest green",
                           "R",
                           "the quick special brown requests fox",
                           "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab",
                           "0123456789abcdefghij0123456789green",
                           "green0123456789abcdefghij"};
    const char *pats[] = {"%aab%",
                          "%aaaaaaaaab",
                          "%aaaaaaaaaaab%",
                          "%0123456789abcdefghij%",
                          "%9green",
                          "%brown%fox%",
                          "%special%requests%",
                          "%special%requests",
                          "special%",
                          "%ab",
                          "a%a",
                          "%",
                          "%%",
                          "",
                          "aba",
                          "R",
                          "%\xc3\xa9%",
                          "%\xa9llo",
                          "%b%b%",
                          "a_a",
                          "%\\%%",
                          "forest%",
                          "%green%",
                          "x%y%z%w%v%u%t%s%r%q"};
    const char *ops[] = {"like", "=", "<>", "<", ">=", "in", "contains"};
    bool null_rows[N] = {0};
    null_rows[3] = null_rows[17] = true;
    for (int enc = 0; enc < 2; enc++) {
        cs_column *c = str_rows(vals, D, N, enc, null_rows);
        cs_col_batch *b = batch_of(&c, 1);
        for (size_t pi = 0; pi < sizeof pats / sizeof pats[0]; pi++)
            for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
                const char *op = ops[oi];
                bool in = strcmp(op, "in") == 0, flip = strcmp(op, "<") == 0;
                cs_pexpr *e =
                    in     ? cs_pexpr_in(colref(0, c), (cs_pexpr *[]){s(pats[pi]), s("aba")}, 2)
                    : flip ? call2(op, T(CS_TYPE_BOOLEAN), s(pats[pi]), colref(0, c))
                           : call2(op, T(CS_TYPE_BOOLEAN), colref(0, c), s(pats[pi]));
                cs_column *out;
                cs_error err;
                assert_int_equal(eval(e, b, &out, &err), CS_OK);
                for (int i = 0; i < N; i++) {
                    const char *v = null_rows[i] ? NULL : vals[i % D];
                    char want[256];
                    if (in) {
                        cs_col_batch *one = batch_rows(1);
                        cs_column *o1;
                        assert_int_equal(
                            eval(cs_pexpr_in(s(v), (cs_pexpr *[]){s(pats[pi]), s("aba")}, 2), one,
                                 &o1, &err),
                            CS_OK);
                        strcpy(want, !VALID(o1, 0) ? "NULL" : BOOLV(o1, 0) ? "true" : "false");
                        cs_column_unref(o1);
                        cs_col_batch_unref(one);
                    } else if (flip) {
                        run(op, T(CS_TYPE_BOOLEAN), (cs_pexpr *[]){s(pats[pi]), s(v)}, 2, want);
                    } else {
                        run(op, T(CS_TYPE_BOOLEAN), (cs_pexpr *[]){s(v), s(pats[pi])}, 2, want);
                    }
                    const char *got = !VALID(out, i) ? "NULL" : BOOLV(out, i) ? "true" : "false";
                    if (strcmp(got, want) != 0)
                        fail_msg("%s '%s', row %d ('%s', %s): %s, want %s", op, pats[pi], i,
                                 v ? v : "NULL", enc ? "dictionary" : "plain", got, want);
                }
                cs_column_unref(out);
            }
        cs_col_batch_unref(b);
    }
    CHECK("like", CS_TYPE_BOOLEAN, "true", s("o special x requests"), s("%special%requests%"));
    CHECK("like", CS_TYPE_BOOLEAN, "false", s("o requests special"), s("%special%requests%"));
    CHECK("like", CS_TYPE_BOOLEAN, "false", s("a"), s("a%a"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_substring_and_case),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_replace_pad_concat),
        cmocka_unit_test(test_substring_concat_over_columns),
        cmocka_unit_test(test_like_compare_in_over_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
