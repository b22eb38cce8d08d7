/*
 * test_collation_keys.c — collation names and keys (columnar/col_collation.h,
 * sqlexec/collation_keys.h): names are matched in any case with Spark's specifiers, an unknown
 * one gets Spark's proposals; UTF8_LCASE keys are Spark's lowerCaseCodePoints (dotted capital I,
 * final sigma), UNICODE keys order as ICU's root collator (lower case first, accents after the
 * base letter) and UNICODE_CI / _AI keys equate what the strength ignores; a key column keeps
 * nulls; collated string types print as "string collate NAME" and differ from plain strings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "columnar/col_builder.h"
#include "columnar/col_collation.h"
#include "sqlexec/collation_keys.h"

/* memcmp order of two keys (shorter first on a common prefix): -1, 0, 1 */
static int key_cmp(int coll, const char *a, const char *b)
{
    cs_collation_scratch s1 = {0}, s2 = {0};
    size_t la = cs_collation_key(coll, (const uint8_t *)a, strlen(a), &s1);
    size_t lb = cs_collation_key(coll, (const uint8_t *)b, strlen(b), &s2);
    int c = memcmp(s1.key, s2.key, la < lb ? la : lb);
    int r = c ? (c < 0 ? -1 : 1) : (la > lb) - (la < lb);
    cs_collation_scratch_free(&s1);
    cs_collation_scratch_free(&s2);
    return r;
}

static void test_names_any_case_with_specifiers(void **state)
{
    (void)state;
    assert_int_equal(cs_collation_lookup("utf8_lcase"), CS_COLLATION_UTF8_LCASE);
    assert_int_equal(cs_collation_lookup("UTF8_BINARY"), CS_COLLATION_UTF8_BINARY);
    assert_int_equal(cs_collation_lookup("unicode_ci"), CS_COLLATION_UNICODE_CI);
    assert_int_equal(cs_collation_lookup("UNICODE_CS_AS"), CS_COLLATION_UNICODE);
    assert_int_equal(cs_collation_lookup("UNICODE_AI_CI"), CS_COLLATION_UNICODE_CI_AI);
    assert_int_equal(cs_collation_lookup("system.builtin.UNICODE_AI"), CS_COLLATION_UNICODE_AI);
    assert_int_equal(cs_collation_lookup("UNICODE_CI_CS"), -1);
    assert_int_equal(cs_collation_lookup("UTF8_LCASE_CI"), -1);
    assert_int_equal(cs_collation_lookup("NOPE"), -1);
    assert_string_equal(cs_collation_name(CS_COLLATION_UNICODE_CI_AI), "UNICODE_CI_AI");
}

static void test_proposals_keep_the_specifiers(void **state)
{
    (void)state;
    cs_sbuf b = {0};
    cs_collation_proposals("UNICODE_XX_CI", &b);
    assert_string_equal(b.data, "UNICODE_CI");
    cs_sbuf_free(&b);
    cs_collation_proposals("UTF8_LCAS", &b);
    assert_string_equal(b.data, "UTF8_LCASE"); /* UTF8_BINARY is 3 edits or more away */
    cs_sbuf_free(&b);
}

static void test_lcase_keys_are_sparks_lower_case(void **state)
{
    (void)state;
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_LCASE, "ALICE", "alice"), 0);
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_LCASE,
                             "\xc3\x84"
                             "b",
                             "\xc3\xa4"
                             "B"),
                     0);
    /* U+0130 lowers to "i" U+0307; final sigma U+03C2 keys as sigma U+03C3 */
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_LCASE, "\xc4\xb0", "i\xcc\x87"), 0);
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_LCASE, "\xcf\x82", "\xcf\x83"), 0);
    /* ordered as the lower-cased bytes: "b" < "Z" because "b" < "z" */
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_LCASE, "b", "Z"), -1);
    assert_int_equal(key_cmp(CS_COLLATION_UTF8_BINARY, "b", "Z"), 1);
}

static void test_unicode_keys_follow_icu_strength(void **state)
{
    (void)state;
    /* tertiary: lower case first, accents after the base letter, case before the next letter */
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE, "alice", "Alice"), -1);
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE, "ab",
                             "\xc3\xa4"
                             "b"),
                     -1);
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE,
                             "\xc3\x84"
                             "b",
                             "alice"),
                     -1);
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE, "B", "b"), 1);
    /* secondary: case ignored, accents not */
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE_CI, "ALICE", "alice"), 0);
    assert_int_not_equal(key_cmp(CS_COLLATION_UNICODE_CI, "\xc3\xa4", "a"), 0);
    /* primary: accents ignored; with _AI alone the case level still tells case apart */
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE_CI_AI, "\xc3\x84", "a"), 0);
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE_AI, "\xc3\xa4", "a"), 0);
    assert_int_not_equal(key_cmp(CS_COLLATION_UNICODE_AI, "\xc3\x84", "a"), 0);
    /* invalid UTF-8 reads as U+FFFD, as Spark's toValidString */
    assert_int_equal(key_cmp(CS_COLLATION_UNICODE, "\xff", "\xef\xbf\xbd"), 0);
}

static void test_key_column_keeps_nulls(void **state)
{
    (void)state;
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_string(CS_COLLATION_UNICODE_CI));
    cs_col_builder_append_string(b, "Alice", 5);
    cs_col_builder_append_nulls(b, 1);
    cs_col_builder_append_string(b, "ALICE", 5);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_column *k = cs_collation_key_column(c, CS_COLLATION_UNICODE_CI, NULL);
    assert_int_equal(k->type->id, CS_TYPE_BINARY);
    assert_int_equal(k->length, 3);
    assert_false(cs_column_is_valid(k, 1));
    int32_t l0, l2;
    const uint8_t *k0 = cs_column_bytes(k, 0, &l0), *k2 = cs_column_bytes(k, 2, &l2);
    assert_int_equal(l0, l2);
    assert_memory_equal(k0, k2, (size_t)l0);
    cs_column_unref(k);
    cs_column_unref(c);
}

static void test_collated_types_print_and_compare(void **state)
{
    (void)state;
    cs_col_type *ci = cs_col_type_string(CS_COLLATION_UNICODE_CI);
    assert_true(cs_col_type_is_collated(ci));
    assert_false(cs_col_type_is_collated(cs_col_type_primitive(CS_TYPE_STRING)));
    assert_ptr_equal(cs_col_type_string(0), cs_col_type_primitive(CS_TYPE_STRING));
    assert_false(cs_col_type_equal(ci, cs_col_type_primitive(CS_TYPE_STRING)));
    assert_null(cs_col_type_string(CS_COLLATION_COUNT));
    cs_sbuf b = {0};
    cs_col_type *arr = cs_col_type_array(ci, true);
    cs_col_type_simple_string(arr, &b);
    assert_string_equal(b.data, "array<string collate UNICODE_CI>");
    cs_col_type_unref(arr);
    cs_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names_any_case_with_specifiers),
        cmocka_unit_test(test_proposals_keep_the_specifiers),
        cmocka_unit_test(test_lcase_keys_are_sparks_lower_case),
        cmocka_unit_test(test_unicode_keys_follow_icu_strength),
        cmocka_unit_test(test_key_column_keeps_nulls),
        cmocka_unit_test(test_collated_types_print_and_compare),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
