/*
 * test_pexpr_regexp.c — the regular-expression kernels (src/sqlexec/kernels_regexp.c) with the
 * results of Spark's documented examples and Java's Matcher semantics: rlike finds anywhere,
 * regexp_extract's groups (one that did not take part gives ""), regexp_replace with $n groups,
 * an escaped '$', a start position and empty matches, null in / null out, a per-row pattern,
 * and Spark's error classes for an invalid pattern and a group index out of range; split's
 * byte-class path against the engine's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "px_test.h"

static cs_pexpr *s(const char *v)
{
    if (!v) return lit_null(CS_TYPE_STRING);
    return lit(col_str(&v, 1));
}

/* fn over args on one row, as text ("NULL", "true"/"false"); the error class on failure */
static void run(const char *fn, cs_col_type *t, cs_pexpr **args, int n, char *buf)
{
    cs_col_batch *b = batch_rows(1);
    cs_column *out = NULL;
    cs_error err = {0};
    if (eval(cs_pexpr_call(fn, t, true, args, n), b, &out, &err) != CS_OK) {
        sprintf(buf, "[%s]", err.error_class);
    } else if (!VALID(out, 0)) {
        strcpy(buf, "NULL");
    } else if (out->type->id == CS_TYPE_BOOLEAN) {
        strcpy(buf, BOOLV(out, 0) ? "true" : "false");
    } else {
        int32_t len;
        const uint8_t *p = cs_column_bytes(out, 0, &len);
        sprintf(buf, "%.*s", (int)len, (const char *)p);
    }
    if (out) cs_column_unref(out);
    cs_col_batch_unref(b);
}

#define CHECK(fn, type, want, ...)                                                                 \
    do {                                                                                           \
        cs_pexpr *args_[] = {__VA_ARGS__};                                                         \
        char got_[256];                                                                            \
        run(fn, T(type), args_, (int)(sizeof args_ / sizeof args_[0]), got_);                      \
        assert_string_equal(got_, want);                                                           \
    } while (0)

static void test_rlike(void **state)
{
    (void)state;
    CHECK("rlike", CS_TYPE_BOOLEAN, "true", s("hello world"), s("o w"));
    CHECK("rlike", CS_TYPE_BOOLEAN, "false", s("abc"), s("^b"));
    CHECK("rlike", CS_TYPE_BOOLEAN, "true", s("%SystemDrive%\\Users\\John"),
          s("%SystemDrive%\\\\Users.*"));
    CHECK("rlike", CS_TYPE_BOOLEAN, "true", s("h\xc3\xa9llo"), s("^h.llo$"));
    CHECK("rlike", CS_TYPE_BOOLEAN, "NULL", s(NULL), s("a"));
    CHECK("rlike", CS_TYPE_BOOLEAN, "NULL", s("a"), s(NULL));
    CHECK("rlike", CS_TYPE_BOOLEAN, "[INVALID_PARAMETER_VALUE.PATTERN]", s("a"), s("("));
}

static void test_regexp_extract(void **state)
{
    (void)state;
    CHECK("regexp_extract", CS_TYPE_STRING, "100", s("100-200"), s("(\\d+)-(\\d+)"), lit_i32(1));
    CHECK("regexp_extract", CS_TYPE_STRING, "200", s("100-200"), s("(\\d+)-(\\d+)"), lit_i32(2));
    CHECK("regexp_extract", CS_TYPE_STRING, "100-200", s("100-200"), s("(\\d+)-(\\d+)"),
          lit_i32(0));
    CHECK("regexp_extract", CS_TYPE_STRING, "100", s("100-200"), s("(\\d+)"));
    CHECK("regexp_extract", CS_TYPE_STRING, "", s("foo"), s("(\\d+)"), lit_i32(1));
    CHECK("regexp_extract", CS_TYPE_STRING, "", s("a"), s("(a)|(b)"), lit_i32(2));
    CHECK("regexp_extract", CS_TYPE_STRING, "NULL", s(NULL), s("(a)"), lit_i32(1));
    CHECK("regexp_extract", CS_TYPE_STRING, "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX]",
          s("100-200"), s("(\\d+)-(\\d+)"), lit_i32(3));
}

static void test_regexp_replace(void **state)
{
    (void)state;
    CHECK("regexp_replace", CS_TYPE_STRING, "num-num", s("100-200"), s("(\\d+)"), s("num"));
    CHECK("regexp_replace", CS_TYPE_STRING, "a[b]c", s("abc"), s("(b)"), s("[$1]"));
    CHECK("regexp_replace", CS_TYPE_STRING, "a$c", s("abc"), s("b"), s("\\$"));
    CHECK("regexp_replace", CS_TYPE_STRING, "-a-b-c-", s("abc"), s(""), s("-"));
    CHECK("regexp_replace", CS_TYPE_STRING, "abb", s("aaa"), s("a"), s("b"), lit_i32(2));
    CHECK("regexp_replace", CS_TYPE_STRING, "h\xc3\xa9XX", s("h\xc3\xa9ll"), s("l"), s("X"),
          lit_i32(2));
    CHECK("regexp_replace", CS_TYPE_STRING, "NULL", s("abc"), s("b"), s(NULL));
}

/* columns, not literals: a pattern that differs per row is compiled again for each new one */
static void test_pattern_per_row(void **state)
{
    (void)state;
    const char *strs[4] = {"apple", "banana", "cherry", "date"};
    const char *pats[4] = {"^a", "^a", "rr", "^x"};
    cs_column *cols[2] = {col_str(strs, 4), col_str(pats, 4)};
    cs_col_batch *b = batch_of(cols, 2);
    cs_column *out = NULL;
    cs_error err;
    assert_int_equal(
        eval(call2("rlike", T(CS_TYPE_BOOLEAN), colref(0, b->columns[0]), colref(1, b->columns[1])),
             b, &out, &err),
        CS_OK);
    const bool want[4] = {true, false, true, false};
    for (int i = 0; i < 4; i++)
        assert_int_equal(BOOLV(out, i), want[i]);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

/* split(rows, pattern, limit) of every row as text: pieces joined by '|', rows by '\n' */
static void split_text(cs_col_batch *b, const char *pattern, int32_t limit, char *buf, size_t cap)
{
    cs_col_type *t = cs_col_type_array(T(CS_TYPE_STRING), true);
    cs_pexpr *args[] = {colref(0, b->columns[0]), s(pattern), lit_i32(limit)};
    cs_column *out = NULL;
    cs_error err = {0};
    assert_int_equal(eval(cs_pexpr_call("split", t, true, args, 3), b, &out, &err), CS_OK);
    const int32_t *off = cs_column_offsets(out);
    size_t n = 0;
    for (int64_t r = 0; r < b->num_rows; r++) {
        for (int32_t e = off[r]; e < off[r + 1]; e++) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(out->children[0], e, &len);
            n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", e > off[r] ? "|" : "", (int)len,
                                  (const char *)p);
        }
        n += (size_t)snprintf(buf + n, cap - n, "\n");
        assert_true(n < cap);
    }
    cs_column_unref(out); /* with the type, which the call took over */
}

/* A pattern that is one class of ASCII bytes is split by a byte table (not PCRE2): its pieces
 * equal those of the same class written so that only the engine takes it ((?:...)), for random
 * strings of separators, letters and two-byte characters, with every limit. */
static void test_split_by_byte_class(void **state)
{
    (void)state;
    static const char *alphabet[] = {"a", "b", " ", "\t", ",", ";", "\n", "\xc3\xa9", "\r", "-"};
    enum { ROWS = 300 };
    static char text[ROWS][40];
    const char *rows[ROWS];
    uint64_t x = 88172645463325252ULL;
    for (int r = 0; r < ROWS; r++) {
        int len = r % 12;
        text[r][0] = '\0';
        for (int i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            strcat(text[r], alphabet[x % 10]);
        }
        rows[r] = text[r];
    }
    cs_column *cols[1] = {col_str(rows, ROWS)};
    cs_col_batch *b = batch_of(cols, 1);
    static const char *pairs[][2] = {
        {"\\s+", "(?:\\s)+"},     {",", "(?:,)"},     {"[ ,;]", "(?:[ ,;])"},
        {"[a-b]+", "(?:[a-b])+"}, {"\\,", "(?:\\,)"}, {"[\\s,-]+", "(?:[\\s,-])+"},
        {"\\d", "(?:\\d)"},       {"-", "(?:-)"},
    };
    static char fast[ROWS * 64], slow[ROWS * 64];
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        for (int32_t limit = -1; limit <= 3; limit++) {
            split_text(b, pairs[k][0], limit, fast, sizeof fast);
            split_text(b, pairs[k][1], limit, slow, sizeof slow);
            assert_string_equal(fast, slow);
        }
    }
    /* Java's own examples: a leading separator gives "", trailing ones are kept */
    char one[64];
    const char *row[1] = {" a  b\t"};
    cs_column *c1[1] = {col_str(row, 1)};
    cs_col_batch *b1 = batch_of(c1, 1);
    split_text(b1, "\\s+", -1, one, sizeof one);
    assert_string_equal(one, "|a|b|\n");
    split_text(b1, "\\s+", 2, one, sizeof one);
    assert_string_equal(one, "|a  b\t\n");
    cs_col_batch_unref(b1);
    cs_col_batch_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rlike),
        cmocka_unit_test(test_regexp_extract),
        cmocka_unit_test(test_regexp_replace),
        cmocka_unit_test(test_pattern_per_row),
        cmocka_unit_test(test_split_by_byte_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
